"""Memories are plug-ins: a memory is two methods (``update``, ``context``), the graph memories offer
every part of the old contract on a real TextMem game, the architectures are siblings (no
subclassing, no imports across them, none of a backend), and a backend's text parser reaches the
extractor only when handed over."""

from __future__ import annotations

import ast
from itertools import permutations
from pathlib import Path

import gymnasium as gym
import networkx as nx
import pytest

import textmem_gym  # noqa: F401  (registers the ids)
from tests.memory.two_method import Notes
from textmem_gym.memory import Memory, available_memories, check_memory, make_memory, memory_factory, offered_parts
from textmem_gym.memory.budget import count_tokens
from textmem_gym.memory.extractors.nethack import NetHackRules
from textmem_gym.memory.graph_memory import GraphMemory
from textmem_gym.memory.semantic import inverse_spatial

MEMORY_DIR = Path(textmem_gym.__file__).parent / "memory"
ARCHITECTURES = sorted(p.name for p in MEMORY_DIR.iterdir() if (p / "__init__.py").exists() and p.name != "extractors")
#: The memories over the shared graph parts (every optional part of the old contract).
GRAPH_MEMORIES = ("arigraph", "davis", "stma")
#: Parts a graph memory does not offer (no model cost of its own, no ranked sources, nothing to close).
NOT_GRAPH_PARTS = {"build_cost", "sources", "close", "failures"}
BACKENDS = sorted(p.name for p in (MEMORY_DIR.parent / "envs").iterdir() if (p / "__init__.py").exists())
NETHACK_TEXT = ("Dungeon level 1, turn 3. HP 14/14.\n\nYou are in a room spanning x1-9 y1-5, at x3 y2. "
                "In this room you see:\n- doorway: 6 steps east (x9 y2)\n\nInventory:\na: a robe")


@pytest.fixture(scope="module")
def first_steps() -> list[tuple[str, str, dict]]:
    """The first observations of a TextMem game: the reset, then two moves."""
    env = gym.make("TextMem/Cooking-v0")
    try:
        observation, info = env.reset(seed=0)
        steps = [(observation, "", info)]
        for action in ("go south", "go north"):
            observation, _, _, _, info = env.step(action)
            steps.append((observation, action, info))
    finally:
        env.close()
    return steps


def test_every_graph_memory_is_declared_and_none_subclasses_another():
    declared = available_memories()
    assert set(GRAPH_MEMORIES) <= set(declared) and set(GRAPH_MEMORIES) <= set(ARCHITECTURES)
    assert declared["arigraph"] == "textmem_gym.memory.arigraph.memory:AriGraphMemory"
    classes = [memory_factory(name) for name in GRAPH_MEMORIES]
    for a, b in permutations(classes, 2):
        assert not issubclass(a, b), f"{a.__name__} subclasses {b.__name__}"
    assert all(issubclass(c, GraphMemory) for c in classes)  # siblings over the shared graph parts


@pytest.mark.parametrize("name", GRAPH_MEMORIES)
def test_memory_offers_every_part_of_the_old_contract_on_a_real_game(name, first_steps, tmp_path):
    memory = make_memory(name)
    assert isinstance(memory, Memory) and memory.name == name
    assert {part for part, offered in offered_parts(memory).items() if not offered} == NOT_GRAPH_PARTS
    memory.use_parser(None)
    memory.reset()
    version = memory.version
    for observation, action, info in first_steps:
        memory.update(observation, action, info)
    assert memory.version > version and memory.step == len(first_steps) - 1
    assert memory.stats["episodes"] == len(memory.episodes()) == len(first_steps)
    assert [e.action for e in memory.episodes()] == ["", "go south", "go north"]

    believed = memory.believed_triples()
    assert ("kitchen", "is south of", "livingroom") in believed
    assert set(believed) <= {t.as_tuple() for t in memory.triple_history()}
    assert memory.location == "livingroom" and {"livingroom", "kitchen"} <= set(memory.known_locations())
    assert memory.route("livingroom", "kitchen") == [("south", "kitchen")] and memory.route("kitchen", "nowhere") is None
    assert memory.route("livingroom", "livingroom") == []
    assert isinstance(memory.unexplored_exits(), dict)
    assert memory.door("livingroom", "up") is None

    assert "livingroom" in memory.render() and "livingroom" in memory.render("where is the kitchen")
    full = memory.context("where is the kitchen", 10_000)  # every believed fact, the kitchen's first, each once
    inverse = {t.text(): ", ".join(inverse_spatial(t.key) or ()) for t in memory.store.active()}
    assert all(text in full or inverse[text] in full for text in inverse) and len(set(full)) == len(full)
    assert "kitchen" in full[0] and f"Current location: {memory.location}" in full
    small = memory.context("where is the kitchen", 12)
    assert small and full[0].startswith(small[0]) and sum(count_tokens(line) + 1 for line in small) <= 12
    assert memory.context("where is the kitchen", 0) == []
    assert memory.retrieve("kitchen")  # each architecture's own result, never empty here

    graph = memory.to_networkx()
    assert isinstance(graph, nx.MultiDiGraph) and {"livingroom", "kitchen"} <= set(graph.nodes)
    assert isinstance(memory.to_networkx(history=True, episodic=True), nx.MultiDiGraph)
    picture = memory.draw(tmp_path / "memory.png")
    assert picture.read_bytes()[:4] == b"\x89PNG"

    memory.save(tmp_path / "memory.json")
    assert memory.to_json()["triples"]
    copy = make_memory(name)
    copy.load(tmp_path / "memory.json")
    assert copy.believed_triples() == believed and copy.location == memory.location

    triple = believed[0]
    assert memory.invalidate(*triple) and not memory.invalidate(*triple)
    assert triple not in memory.believed_triples()
    assert [t.end for t in memory.triple_history() if t.as_tuple() == triple] == [memory.step]


def _imports(path: Path) -> set[str]:
    """Every module ``path`` imports, at module level or inside functions."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
    return found


@pytest.mark.parametrize("architecture", GRAPH_MEMORIES)
def test_a_graph_architecture_imports_no_other_memory_and_no_backend(architecture):
    forbidden = [f"textmem_gym.memory.{other}" for other in ARCHITECTURES if other != architecture]
    forbidden += [f"textmem_gym.envs.{backend}" for backend in BACKENDS]
    files = sorted((MEMORY_DIR / architecture).rglob("*.py"))
    assert files
    for path in files:
        bad = sorted(m for m in _imports(path) if any(m == f or m.startswith(f + ".") for f in forbidden))
        assert not bad, f"{path.relative_to(MEMORY_DIR)} imports {bad}"


def test_the_shared_memory_modules_import_no_architecture_and_no_backend():
    forbidden = [f"textmem_gym.memory.{a}" for a in ARCHITECTURES] + [f"textmem_gym.envs.{b}" for b in BACKENDS]
    shared = [p for p in MEMORY_DIR.rglob("*.py") if p.parent.name not in ARCHITECTURES]
    assert MEMORY_DIR / "graph_memory.py" in shared
    # The handed-over parsers of TextWorld Express and ScienceWorld read their backend's templates through
    # the backend's pure text module, which the env's privileged facts use too (one reading of one text).
    allowed = {"extractors/twx.py": ["textmem_gym.envs.twx.text"],
               "extractors/scienceworld.py": ["textmem_gym.envs.scienceworld.text"]}
    for path in shared:
        bad = sorted(m for m in _imports(path) if any(m == f or m.startswith(f + ".") for f in forbidden))
        assert bad == allowed.get(str(path.relative_to(MEMORY_DIR)), []), f"{path.relative_to(MEMORY_DIR)} imports {bad}"


@pytest.mark.parametrize("name", GRAPH_MEMORIES)
def test_a_backend_parser_is_used_only_when_handed_over(name):
    guessing = make_memory(name)
    guessing.update(NETHACK_TEXT, "", {})
    assert not any(r == "is on" and o == "dungeon level 1" for _, r, o in guessing.believed_triples())

    handed = make_memory(name)
    handed.use_parser(NetHackRules())
    handed.update(NETHACK_TEXT, "", {})
    assert ("you", "is on", "dungeon level 1") in handed.believed_triples()
    assert ("doorway", "is at", "level 1 x9 y2") in handed.believed_triples()
    handed.reset()  # the parser belongs to the env: a new episode keeps it
    handed.update(NETHACK_TEXT, "", {})
    assert handed.location == "dungeon level 1"


def test_two_methods_make_a_memory_that_offers_no_part(first_steps):
    notes = check_memory(Notes())
    assert not any(offered_parts(notes).values())
    for observation, action, info in first_steps:
        notes.update(observation, action, info)
    recalled = notes.context("kitchen", 40)
    assert recalled and "kitchen" in recalled[0].lower()
    assert sum(count_tokens(line) + 1 for line in recalled) <= 40
    assert type(make_memory("tests.memory.two_method:Notes")) is Notes


def test_an_object_without_the_two_methods_is_refused_in_one_line():
    class OnlyUpdate:
        def update(self, observation, action, info):
            pass

    for bad in (object(), OnlyUpdate(), "not a memory object".split()):
        with pytest.raises(TypeError, match=r"is not a memory: it needs update\(observation, action, info\)") as error:
            check_memory(bad)
        assert "\n" not in str(error.value)
    with pytest.raises(TypeError, match="built a dict, which is not a memory"):
        make_memory("builtins:dict")
