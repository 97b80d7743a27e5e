"""A backend from another package (:mod:`tests.envs.example_backend`) reaches the library through its
entry points only: its ids are registered, its text parser is handed to the memories, its memory
is found by name, ``textmem-gym list`` shows its ids; a broken or clashing package is warned about,
never fatal. (The generic contract tests play its ids too: ``tests/envs/test_registered_envs.py``.)"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import ClassVar

import gymnasium as gym
import pytest

from tests.entry_points import installed_entry_points
from tests.envs.example_backend import DISTRIBUTION, ENTRY_POINTS
from tests.envs.example_backend.env import CellarEnv
from tests.envs.example_backend.parser import CellarRules
from tests.envs.registry_helpers import EXAMPLE_IDS, example_backend_installed
from tests.memory.two_method import Notes
from textmem_gym.envs.entry import EnvEntry
from textmem_gym.envs.registration import ENV_IDS, register_all
from textmem_gym.wrappers import MemoryGraphWrapper
from textmem_gym.wrappers.memory_graph import text_parser

ROOT = Path(__file__).resolve().parents[2]
#: An id table whose only id is one the library registers already, under another entry.
CLASHING_TABLE = {"TextMem/Cooking-v0": EnvEntry("tests.envs.example_backend.env:CellarEnv", {}, 10, "a clash")}


@pytest.fixture
def cellar() -> Iterator[list[str]]:
    with example_backend_installed() as ids:
        yield ids


def test_the_ids_come_and_go_with_the_package(cellar):
    assert sorted(cellar) == EXAMPLE_IDS and set(cellar) <= set(ENV_IDS) and set(cellar) <= set(gym.registry)
    assert register_all() == []  # registering again adds nothing
    env = gym.make("Cellar/Cellar-Shed-v0")
    assert isinstance(env.unwrapped, CellarEnv) and env.unwrapped.key_room == "shed"
    assert env.spec is not None and env.spec.max_episode_steps == ENV_IDS["Cellar/Cellar-Shed-v0"].max_episode_steps
    env.close()


def test_an_uninstalled_package_leaves_no_id():
    with example_backend_installed():
        pass
    assert not set(EXAMPLE_IDS) & (set(ENV_IDS) | set(gym.registry))


def test_its_text_parser_and_ground_truth_reach_the_memory(cellar):
    """Named by the env class alone: the backend's one entry point (its id table) is all it declares."""
    assert list(ENTRY_POINTS["textmem_gym.env_backends"]) == ["cellar"] and "textmem_gym.text_parsers" not in ENTRY_POINTS
    env = MemoryGraphWrapper(gym.make("Cellar/Cellar-v0", privileged=True), memory="arigraph")
    try:
        assert isinstance(env.parser, CellarRules) and env.memory.extractor.parser is env.parser
        env.reset(seed=0)
        for command in ["go north", "take key", "go east", "go north"]:
            _, _, _, _, info = env.step(command)
        believed = set(env.memory.believed_triples())
        assert {("key", "is in", "inventory"), ("garden", "is north of", "hall"), ("chest", "is", "locked"),
                ("pantry", "is west of", "hall")} <= believed
        assert ("key", "is at", "pantry") not in believed  # replaced when it was taken
        assert "go to cellar" in info["admissible_commands"]
        _, _, _, _, info = env.step("go to cellar")  # the memory's map walks back: three moves
        assert info["location"] == "cellar" and info["steps"]["primitive"] == 7
        overall = env.belief_accuracy.summary()["overall"]
        assert overall["believed"] > 0 and overall["precision"] == overall["recall"] == 1.0
    finally:
        env.close()


def test_its_memory_is_found_by_name(cellar):
    env = MemoryGraphWrapper(gym.make("Cellar/Cellar-v0"), memory="notes")
    try:
        env.reset(seed=0)
        observation, _, _, _, info = env.step("go north")
        assert isinstance(env.memory, Notes) and observation["belief"].startswith("You are in the pantry.")
        assert info["location"] is None  # two methods only: no map, no location
    finally:
        env.close()


class _NamedByEntryPoint(CellarEnv):
    text_parser: ClassVar[str | None] = "cellar"


class _NamedWrongly(CellarEnv):
    text_parser: ClassVar[str | None] = "cellar-parser"


def test_a_text_parser_is_also_named_by_an_entry_point_and_an_unknown_one_is_one_line():
    """The Cellar names its parser by module (its package declares nothing for it); a name declared in the
    group ``textmem_gym.text_parsers``, as the library declares its own, works too."""
    parsers = {"textmem_gym.text_parsers": {"cellar": "tests.envs.example_backend.parser:CellarRules"}}
    with installed_entry_points(DISTRIBUTION, parsers):
        assert isinstance(text_parser(_NamedByEntryPoint()), CellarRules)
    with pytest.raises(ValueError, match=r"^unknown text parser 'cellar-parser'; choose from \['jericho', 'nethack', 'scienceworld', 'twx'\]$"):
        text_parser(_NamedWrongly())


def test_textmem_gym_list_shows_its_ids(cellar):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ["PYTHONPATH"]])}
    proc = subprocess.run([sys.executable, "-m", "textmem_gym.cli", "list"], capture_output=True, text=True,
                          env=env, cwd=ROOT, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert all(env_id in proc.stdout for env_id in EXAMPLE_IDS) and "TextMem/Cooking-v0" in proc.stdout


def test_a_broken_package_is_warned_about_and_skipped():
    broken = {"textmem_gym.env_backends": {"broken": "tests.envs.example_backend.ids:NO_SUCH_TABLE"}}
    with installed_entry_points("broken-games", broken), \
            pytest.warns(UserWarning, match="env backend 'broken' from package broken-games is not registered: .*"
                                            "has no attribute 'NO_SUCH_TABLE'"):
        assert register_all() == []


def test_an_id_registered_already_is_kept_and_the_clash_warned_about():
    kept = ENV_IDS["TextMem/Cooking-v0"]
    clash = {"textmem_gym.env_backends": {"clash": "tests.envs.test_example_backend:CLASHING_TABLE"}}
    with installed_entry_points(DISTRIBUTION, clash), \
            pytest.warns(UserWarning, match="'TextMem/Cooking-v0' is registered already; its second entry is ignored"):
        assert register_all() == []
    assert ENV_IDS["TextMem/Cooking-v0"] is kept
