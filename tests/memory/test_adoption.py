"""One way to feed a memory (:mod:`textmem_gym.memory.adoption`): the wrapper and the probe path adopt a
memory alike, so on every backend a memory believes the same triples whichever fed it; the backend's
parser is found from an env and from an env id alike; privileged keys reach only a memory that declares
them; parts are detected once and the parts callers use are declared."""

from __future__ import annotations

import ast
import importlib.util
import os
from pathlib import Path
from typing import Any

import gymnasium as gym
import pytest

import textmem_gym
from textmem_gym.memory.adoption import adopt, parser_for
from textmem_gym.memory.protocol import PARTS, UpdateStats
from textmem_gym.memory.registry import make_memory
from textmem_gym.qa.bench.trajectories import load_trajectories
from textmem_gym.qa.probes.replay import replay_episode
from textmem_gym.qa.probes.run import ProbeConfig, build_memory
from textmem_gym.wrappers.memory_graph import MemoryGraphWrapper

#: Commands replayed of each shipped trajectory (enough for rooms, things and moves; fast).
STEPS = 30


def _roms() -> bool:
    return (Path(os.environ.get("TEXTMEM_ROMS_DIR", "/nonexistent")) / "zork1.z5").is_file()


def _needs(backend: str) -> list[Any]:
    """The marks of one backend's replay: Java for ScienceWorld and TWX, nle for NetHack, a ROM for Jericho."""
    marks: list[Any] = [pytest.mark.slow]
    if backend in ("scienceworld", "twx"):
        marks.append(pytest.mark.java)
    if backend == "nethack":
        marks.append(pytest.mark.skipif(importlib.util.find_spec("nle") is None, reason="nle is not installed"))
    if backend == "jericho":
        marks.append(pytest.mark.skipif(not _roms(), reason="TEXTMEM_ROMS_DIR with zork1.z5 needed"))
    return marks


#: One short shipped trajectory per backend.
SHORT = {"textworld": "textworld-cooking-short", "twx": "twx-coin-short", "jericho": "jericho-zork1-short",
         "scienceworld": "scienceworld-boil-short", "nethack": "nethack-room-short"}


class Recorder:
    """A memory of two methods that keeps the ``info`` keys it is given (privileged ones declared or not)."""

    def __init__(self, privileged: frozenset[str] | None = None) -> None:
        self.keys: list[set[str]] = []
        if privileged is not None:
            self.privileged = privileged

    def update(self, observation: str, action: str, info: dict[str, Any]) -> None:
        """Keeps the keys of ``info``."""
        self.keys.append(set(info))

    def context(self, question: str, budget: int) -> list[str]:
        """Nothing recalled."""
        return []


@pytest.mark.parametrize("backend", [pytest.param(b, marks=_needs(b)) for b in SHORT])
def test_the_wrapper_and_the_probe_believe_the_same_on_every_backend(backend):
    trajectory = load_trajectories([SHORT[backend]])[0]
    commands = trajectory.commands[:STEPS]

    env = MemoryGraphWrapper(gym.make(trajectory.env_id, **trajectory.env_kwargs), memory="arigraph", goto=False)
    try:
        env.reset(seed=trajectory.seed)
        for command in commands:
            env.step(command)
        wrapped = env.get_wrapper_attr("memory").believed_triples()
        handed = env.get_wrapper_attr("adopted").parser
    finally:
        env.close()

    episode = trajectory.episode()
    short = type(episode)(episode.env_id, episode.env_kwargs, episode.seed, episode.commands[:len(commands)], [],
                          label=episode.label, ident=episode.ident)
    probed = build_memory("arigraph", ProbeConfig(), env_id=trajectory.env_id)
    try:
        for step in replay_episode(short, check=False).steps:
            probed.feed(step)
        probed_beliefs = probed.adopted.believed_triples()
    finally:
        probed.close()

    # a backend whose env names a parser is read: something is believed (not two empty beliefs alike)
    assert wrapped or handed is None, f"{backend}: the memory believes nothing after {len(commands)} steps"
    assert probed_beliefs == wrapped
    assert type(probed.adopted.parser) is type(handed) is type(parser_for(trajectory.env_id))
    assert probed.updates == len(commands) + 1


@pytest.mark.parametrize("backend", [pytest.param(b, marks=_needs(b)) for b in ("twx", "nethack")])
def test_a_backend_parser_is_found_from_the_env_id_without_making_the_env(backend):
    env_id = load_trajectories([SHORT[backend]])[0].env_id
    parser = parser_for(env_id)
    assert parser is not None and parser is not parser_for(env_id)  # built anew for each memory
    assert parser_for("TextMem/Cooking-v0") is None  # TextWorld reads as a text adventure
    with pytest.raises(gym.error.Error):
        parser_for("TextMem/NoSuchGame-v0")


def test_privileged_keys_reach_only_a_memory_that_declares_them():
    env = gym.make("TextMem/Cooking-v0", privileged=True)
    undeclared, declared = Recorder(), Recorder(frozenset({"facts"}))
    try:
        wrappers = [MemoryGraphWrapper(env, memory=memory) for memory in (undeclared, declared)]
        for wrapper in wrappers:
            observation, info = wrapper.reset(seed=0)
            assert "facts" in info  # the agent still gets what it asked the env for
            _, _, _, _, info = wrapper.step("go south")
            assert "facts" in info
    finally:
        env.close()
    assert len(undeclared.keys) == len(declared.keys) == 2
    assert [wrapper.adopted.update == wrapper.memory.update for wrapper in wrappers] == [False, False]
    plain = MemoryGraphWrapper(gym.make("TextMem/Cooking-v0"), memory=Recorder())
    try:  # an env made without privileged keys gives none: the memory's own update, bound once, no check per step
        assert plain.adopted.given == frozenset() and plain.adopted.update == plain.memory.update
    finally:
        plain.close()
    assert all("score" in keys and not keys & {"facts", "walkthrough"} for keys in undeclared.keys)
    assert all("facts" in keys and "walkthrough" not in keys for keys in declared.keys)


def test_the_probe_path_gives_privileged_facts_only_when_declared():
    episode = load_trajectories([SHORT["textworld"]])[0].episode()
    short = type(episode)(episode.env_id, episode.env_kwargs, episode.seed, episode.commands[:2], [])
    steps = replay_episode(short, check=False).steps
    undeclared = build_memory(Recorder(), ProbeConfig(), env_id=episode.env_id)
    declared = build_memory(Recorder(frozenset({"facts"})), ProbeConfig(), env_id=episode.env_id)
    for step in steps:
        undeclared.feed(step)
        declared.feed(step)
    assert [not keys & {"facts", "walkthrough"} for keys in undeclared.memory.keys] == [True] * len(steps)
    assert ["facts" in keys for keys in declared.memory.keys] == [True] * len(steps)


def test_the_oracle_extractor_declares_the_facts_it_reads_and_rules_declare_none():
    assert adopt(make_memory("arigraph", extractor="oracle")).privileged == frozenset({"facts"})
    assert adopt(make_memory("arigraph")).privileged == frozenset()
    assert adopt(make_memory("oracle")).privileged == frozenset({"facts"})
    with pytest.raises(ValueError, match=r"declares privileged \['belief'\]"):
        adopt(Recorder(frozenset({"belief"})))


def test_parts_are_detected_once_and_the_parts_callers_use_are_declared():
    graph = adopt(make_memory("stma"))
    assert {"stats", "invalidate", "privileged", "name", "parser", "map", "beliefs"} <= graph.parts
    assert graph.name == "stma" and graph.stats is graph.memory  # the part is the memory, found once
    graph.update("-= Hall =-\nYou see a chest. There is an exit to the north.", "", {})
    assert graph.believed_triples() and graph.map is not None and graph.map.location == "hall"
    forgettable = graph.believed_triples()[0]
    assert graph.invalidate(*forgettable) and forgettable not in graph.believed_triples()
    assert graph.stats.stats == UpdateStats(added=2, invalidated=0, believed=2, total=2, episodes=1)
    assert graph.update != graph.memory.update  # info may hold any privileged key: taken out per update
    assert adopt(graph.memory, given=()).update == graph.memory.update  # nothing to take out: called directly

    bare = adopt(Recorder())
    assert bare.parts == frozenset() and bare.name == "Recorder"
    assert (bare.map, bare.beliefs, bare.stats, bare.invalidate("a", "b", "c"), bare.reset()) == (
        None, None, None, False, False)
    assert bare.build_tokens() == {"prompt_tokens": 0, "completion_tokens": 0}
    assert {"stats", "invalidate", "privileged", "name"} <= set(PARTS)


def test_no_caller_probes_a_memory_with_getattr():
    """Parts are declared and detected at adoption: no ``getattr(<...memory...>, ...)`` in the library or policies."""
    root = Path(textmem_gym.__file__).parent
    offenders = []
    for path in [*root.rglob("*.py"), *(root.parent / "policies").rglob("*.py")]:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "getattr" \
                    and node.args and "memory" in ast.unparse(node.args[0]).lower():
                offenders.append(f"{path.relative_to(root.parent)}:{node.lineno}")
    assert offenders == []


@pytest.mark.skipif(importlib.util.find_spec("nle") is None, reason="nle is not installed")
def test_a_game_that_goes_to_places_itself_keeps_its_go_to():
    """NetHack's skills (and ScienceWorld's move) take ``go to X``: the wrapper sends it as typed, no macro."""
    from textmem_gym.envs.scienceworld.env import ScienceWorldEnv

    assert ScienceWorldEnv.provides_goto
    env = MemoryGraphWrapper(gym.make("TextMem/NetHack-RoomObs-v0"))
    try:
        assert env.unwrapped.provides_goto and not env.goto
        env.reset(seed=0)
        _, _, _, _, info = env.step("go to x40 y10")
        assert "macro" not in info
    finally:
        env.close()
    plain = MemoryGraphWrapper(gym.make("TextMem/Cooking-v0"))
    try:
        assert plain.goto
    finally:
        plain.close()
