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
    # a package needs its __init__.py: a data folder beside a module of the same name (qa/data/ and
    # qa/data.py) is not the module
    return path / "__init__.py" if (path / "__init__.py").is_file() else path.with_suffix(".py")


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


#: The floors of the library, bottom first: a module may import its own floor and those below, never
#: one above (lazy imports inside functions included). ``policies`` and ``baselines_rl`` sit on top.
FLOORS: tuple[tuple[str, ...], ...] = (
    ("textmem_gym.core", "textmem_gym.results", "textmem_gym.loading", "textmem_gym.paths",
     "textmem_gym.downloads", "textmem_gym.fallbacks"),
    ("textmem_gym.envs", "textmem_gym.llm"),
    ("textmem_gym.memory",),
    ("textmem_gym.wrappers", "textmem_gym.qa"),
    ("textmem_gym.trajectories", "textmem_gym.execution", "textmem_gym.runner"),
    ("textmem_gym.protocols", "textmem_gym.report", "textmem_gym.serving", "textmem_gym.webapp", "textmem_gym.cli",
     "textmem_gym"),
    ("policies", "baselines_rl"),
)


def floor_of(module: str) -> int:
    """The floor of ``module`` (its longest matching prefix in :data:`FLOORS`)."""
    best, floor = -1, -1
    for level, prefixes in enumerate(FLOORS):
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + ".")) and len(prefix) > best:
                best, floor = len(prefix), level
    assert floor >= 0, f"{module} is on no floor: add its package to FLOORS"
    return floor


def every_import(name: str) -> list[tuple[str, int]]:
    """First-party modules ``name`` imports anywhere (functions included; ``TYPE_CHECKING`` blocks left
    out: types only), with line numbers."""
    found = []
    tree = ast.parse(_module_path(name).read_text(encoding="utf-8"))
    typing_only = {id(node) for block in ast.walk(tree) if isinstance(block, ast.If)
                   and "TYPE_CHECKING" in ast.unparse(block.test) for node in ast.walk(block)}
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
        if isinstance(node, ast.Import):
            found += [(alias.name, node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.module, node.lineno))
    return [(target, line) for target, line in found if target.split(".")[0] in PACKAGES]


def test_no_import_runs_up_a_floor() -> None:
    upward = [f"{name}:{line} imports {target} (floor {floor_of(target)} > {floor_of(name)})"
              for name in MODULES for target, line in every_import(name) if floor_of(target) > floor_of(name)]
    assert upward == []


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
