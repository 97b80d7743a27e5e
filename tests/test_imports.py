"""Import hygiene: no cycle among module-level imports, and every module imports alone in a fresh
interpreter, so import cycles hidden by import order cannot come back."""

from __future__ import annotations

import ast
import configparser
import pkgutil
import re
import subprocess
import sys
from collections.abc import Callable, Iterable
from importlib import util
from pathlib import Path

import networkx as nx

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


def _import_targets(node: ast.AST) -> list[str]:
    """The modules (and ``module.name`` candidates) one import statement names; ``[]`` for any other node."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
        return [node.module, *(f"{node.module}.{alias.name}" for alias in node.names)]
    return []


def _graph(statements: Callable[[ast.Module], Iterable[ast.AST]]) -> nx.DiGraph:
    """Module -> first-party modules imported by the ``statements`` of its tree."""
    graph = nx.DiGraph()
    known = set(MODULES)
    for name in MODULES:
        graph.add_node(name)
        tree = ast.parse(_module_path(name).read_text(encoding="utf-8"))
        for node in statements(tree):
            graph.add_edges_from((name, target) for target in _import_targets(node) if target in known and target != name)
    return graph


def import_graph() -> nx.DiGraph:
    """Module -> first-party modules it imports at module level (``TYPE_CHECKING`` blocks left out)."""
    return _graph(lambda tree: tree.body)


def test_no_import_cycles() -> None:
    graph = import_graph()
    assert graph.number_of_edges() > 100  # the graph really was read
    assert list(nx.simple_cycles(graph)) == []


#: Import circles closed only by a function-level import, known and to be removed: each a set of modules
#: (none now: report.summary holds the summary table that report/__init__ and report.kinds both import).
KNOWN_HIDDEN_CIRCLES: list[set[str]] = []


def full_import_graph() -> nx.DiGraph:
    """Module -> first-party modules it imports anywhere: at module level and inside functions
    (``TYPE_CHECKING`` blocks left out)."""
    def statements(tree: ast.Module) -> Iterable[ast.AST]:
        typing_only = {id(node) for block in ast.walk(tree)
                       if isinstance(block, ast.If) and "TYPE_CHECKING" in ast.unparse(block.test)
                       for node in ast.walk(block)}
        return (node for node in ast.walk(tree) if id(node) not in typing_only)

    return _graph(statements)


def test_no_import_circle_hides_behind_a_function_level_import() -> None:
    graph = full_import_graph()
    assert graph.number_of_edges() > import_graph().number_of_edges()  # the lazy imports really were read
    circles = [set(group) for group in nx.strongly_connected_components(graph) if len(group) > 1]
    assert [circle for circle in circles if circle not in KNOWN_HIDDEN_CIRCLES] == [], "an import circle"


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
     "textmem_gym.downloads", "textmem_gym.fallbacks", "textmem_gym.locking"),
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


def imports_of(name: str, *, lazy: bool = True) -> list[tuple[str, int]]:
    """Every module ``name`` imports (absolute imports, with line numbers; ``TYPE_CHECKING`` blocks
    left out: types only); ``lazy=False`` also leaves out imports inside functions (those that do not
    run when ``name`` is imported)."""
    tree = ast.parse(_module_path(name).read_text(encoding="utf-8"))
    blocks = [block for block in ast.walk(tree) if isinstance(block, ast.If) and "TYPE_CHECKING" in ast.unparse(block.test)
              or not lazy and isinstance(block, ast.FunctionDef | ast.AsyncFunctionDef)]
    skipped = {id(node) for block in blocks for node in ast.walk(block)}
    found = []
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Import):
            found += [(alias.name, node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.module, node.lineno))
    return found


def every_import(name: str) -> list[tuple[str, int]]:
    """First-party modules ``name`` imports anywhere (functions included), with line numbers."""
    return [(target, line) for target, line in imports_of(name) if target.split(".")[0] in PACKAGES]


def test_no_import_runs_up_a_floor() -> None:
    upward = [f"{name}:{line} imports {target} (floor {floor_of(target)} > {floor_of(name)})"
              for name in MODULES for target, line in every_import(name) if floor_of(target) > floor_of(name)]
    assert upward == []


#: A whole string that is a ``"module:attr"`` of one of our packages (``"policies.simple:RandomPolicy"``).
_NAMED = re.compile(rf"((?:{'|'.join(PACKAGES)})(?:\.\w+)*):\w+(?:\.\w+)*")


def every_named_module(name: str) -> list[tuple[str, int]]:
    """First-party modules that ``name`` names in ``"module:attr"`` strings (imported later by a loader,
    so invisible to the import graph), with line numbers; docstrings left out (their examples are not code)."""
    tree = ast.parse(_module_path(name).read_text(encoding="utf-8"))
    documented = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)
    docstrings = {id(node.body[0].value) for node in ast.walk(tree) if isinstance(node, documented)
                  and node.body and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)}
    return [(match.group(1), node.lineno) for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings
            and (match := _NAMED.fullmatch(node.value))]


def test_no_module_attr_string_names_a_module_up_a_floor() -> None:
    """A ``"module:attr"`` string is an import in waiting: it obeys the floors too (a name the library's
    own code needs from a floor above is an entry point of ``setup.cfg``, like a third party's)."""
    assert "textmem_gym.envs.twx.env" in {module for module, _ in every_named_module("textmem_gym.envs.twx.ids")}
    upward = [f"{name}:{line} names {target} (floor {floor_of(target)} > {floor_of(name)})"
              for name in MODULES for target, line in every_named_module(name) if floor_of(target) > floor_of(name)]
    assert upward == []


def test_every_package_is_found() -> None:
    assert {"textmem_gym.envs.textworld.ids", "textmem_gym.memory.arigraph.memory", "textmem_gym.core.registry"} <= set(MODULES)


def third_party_imports() -> list[str]:
    """Top-level third-party packages our modules import when they are imported (not inside functions)."""
    found = {target.split(".")[0] for name in MODULES for target, _ in imports_of(name, lazy=False)}
    return sorted(found - set(PACKAGES) - sys.stdlib_module_names)


def test_third_party_imports_are_found() -> None:
    found = third_party_imports()
    assert {"gymnasium", "networkx", "numpy", "torch"} <= set(found)
    assert not set(found) & {*PACKAGES, "os", "json"}


def test_each_module_imports_alone() -> None:
    """Each module imported with no other module of ours loaded first: ``tests/import_alone.py``
    imports the third-party packages once, then forks a child per module."""
    runnable = [name for name in MODULES if _extra_installed(name)]
    proc = subprocess.run([sys.executable, str(ROOT / "tests" / "import_alone.py"),
                           "--preload", ",".join(third_party_imports()), *runnable],
                          capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert proc.returncode == 0, f"modules that fail to import alone:\n{proc.stdout}{proc.stderr[-3000:]}"


def _extra_installed(module: str) -> bool:
    for prefix, dependency in OPTIONAL.items():
        if module.startswith(prefix) and util.find_spec(dependency) is None:
            return False
    return True


def declared_memories() -> dict[str, str]:
    """The ``textmem_gym.memories`` entry points of ``setup.cfg``: memory name -> ``module:attr``."""
    parser = configparser.ConfigParser()
    parser.read(ROOT / "setup.cfg", encoding="utf-8")
    lines = parser["options.entry_points"]["textmem_gym.memories"].strip().splitlines()
    return {name.strip(): value.strip() for name, value in (line.split("=", 1) for line in lines)}


def test_every_declared_memory_is_a_module_attribute_of_the_memory_floor() -> None:
    declared = declared_memories()
    assert {"arigraph", "stma", "davis"} <= set(declared)
    for name, value in declared.items():
        module, _, attribute = value.partition(":")
        assert re.fullmatch(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*", module) and attribute.isidentifier(), (name, value)
        assert module in MODULES and floor_of(module) == floor_of("textmem_gym.memory"), (name, value)


def test_the_memory_registry_names_no_memory_module() -> None:
    """The registry finds memories through the entry points only: no import of a declared memory's
    package, and no code string naming one (its docstring's examples aside)."""
    tree = ast.parse((ROOT / "textmem_gym" / "memory" / "registry.py").read_text(encoding="utf-8"))
    packages = {value.split(":")[0].rsplit(".", 1)[0] for value in declared_memories().values()}
    docstring = ast.get_docstring(tree, clean=False)
    named = [target for target, _ in every_import("textmem_gym.memory.registry")]
    named += [node.value for node in ast.walk(tree) if isinstance(node, ast.Constant) and isinstance(node.value, str)
              and node.value != docstring]
    assert not [text for text in named for package in packages if package in text]
