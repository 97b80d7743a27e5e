"""Import hygiene: no cycle among module-level imports, and every module imports alone in a fresh
interpreter, so import cycles hidden by import order cannot come back."""

from __future__ import annotations

import ast
import pkgutil
import subprocess
import sys
from importlib import util
from pathlib import Path

import networkx as nx
import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("textmem_gym", "policies", "baselines_rl")
#: Modules that need an optional extra; skipped (not failed) when it is not installed.
OPTIONAL = {"baselines_rl": "stable_baselines3", "textmem_gym.serving": "mcp", "textmem_gym.webapp": "gradio"}


def _modules() -> list[str]:
    names = []
    for package in PACKAGES:
        names.append(package)
        for info in pkgutil.walk_packages([str(ROOT / package)], prefix=f"{package}."):
            if not info.name.endswith("__main__"):
                names.append(info.name)
    return sorted(names)


MODULES = _modules()


def _module_path(name: str) -> Path:
    path = ROOT.joinpath(*name.split("."))
    return path / "__init__.py" if path.is_dir() else path.with_suffix(".py")


def import_graph() -> nx.DiGraph:
    """Module -> first-party modules it imports at module level (``TYPE_CHECKING`` blocks left out)."""
    graph = nx.DiGraph()
    known = set(MODULES)
    for name in MODULES:
        graph.add_node(name)
        for node in ast.parse(_module_path(name).read_text(encoding="utf-8")).body:
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                targets = [node.module, *(f"{node.module}.{alias.name}" for alias in node.names)]
            graph.add_edges_from((name, target) for target in targets if target in known and target != name)
    return graph


def test_no_import_cycles() -> None:
    graph = import_graph()
    assert graph.number_of_edges() > 100  # the graph really was read
    assert list(nx.simple_cycles(graph)) == []


def test_id_tables_import_no_env_code() -> None:
    graph = import_graph()
    for table in [name for name in MODULES if name.startswith("textmem_gym.envs.") and name.endswith(".ids")]:
        reached = nx.descendants(graph, table)
        assert not {m for m in reached if m.endswith(".env")}, table
        assert "textmem_gym.envs.registration" not in reached, table


def test_every_package_is_found() -> None:
    assert {"textmem_gym.envs.textworld.ids", "textmem_gym.memory.arigraph.memory", "textmem_gym.core.registry"} <= set(MODULES)


@pytest.mark.parametrize("chunk", range(4))
def test_each_module_imports_alone(chunk: int) -> None:
    """Each module in its own interpreter (four interpreters share the work; each module is imported first)."""
    mine = [name for i, name in enumerate(MODULES) if i % 4 == chunk]
    script = (
        "import importlib, subprocess, sys\n"
        "failed = []\n"
        "for name in sys.argv[1:]:\n"
        "    proc = subprocess.run([sys.executable, '-c', f'import {name}'], capture_output=True, text=True)\n"
        "    if proc.returncode:\n"
        "        failed.append(name + ': ' + proc.stderr.strip().splitlines()[-1])\n"
        "print('\\n'.join(failed))\n"
    )
    runnable = [name for name in mine if _extra_installed(name)]
    proc = subprocess.run([sys.executable, "-c", script, *runnable], capture_output=True, text=True, cwd=ROOT,
                          timeout=600)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "", f"modules that fail to import alone:\n{proc.stdout}"


def _extra_installed(module: str) -> bool:
    for prefix, dependency in OPTIONAL.items():
        if module.startswith(prefix) and util.find_spec(dependency) is None:
            return False
    return True
