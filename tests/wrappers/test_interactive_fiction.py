"""MemoryGraphWrapper over a Jericho game (Zork I): Infocom phrasing, lazy admissible commands."""

from __future__ import annotations

import os
from pathlib import Path

import gymnasium as gym
import pytest

import textmem_gym  # noqa: F401  (registers ids)
from textmem_gym.envs.lazy import LazyCommands
from textmem_gym.wrappers import MemoryGraphWrapper

ROMS = Path(os.environ.get("TEXTMEM_ROMS_DIR", "/nonexistent"))
pytestmark = pytest.mark.skipif(not (ROMS / "zork1.z5").is_file(), reason="TEXTMEM_ROMS_DIR needed")


def test_zork_map_goto_and_lazy_commands():
    env = MemoryGraphWrapper(gym.make("TextMem/Jericho-Zork1-v0"))
    _, info = env.reset(seed=0)
    assert info["location"] == "west of house"
    for action in ("north", "east"):
        _, _, _, _, info = env.step(action)
    assert info["location"] == "behind house" and info["known_locations"] == \
        ["behind house", "north of house", "west of house"]
    commands = info["admissible_commands"]
    assert isinstance(commands, LazyCommands) and not commands.computed, "expensive commands stay lazy"
    assert "go to west of house" in commands and "go to behind house" not in commands
    # Zork's map is not symmetric: west from behind the house is the (closed) kitchen window,
    # not the north side. The inferred inverse edge fails, the walk stops, the edge is forgotten.
    observation, _, _, _, info = env.step("go to west of house")
    assert info["macro"]["actions"] == ["go west"] and not info["macro"]["completed"]
    assert "expected to reach the north of house" in info["macro"]["reason"]
    assert "window" in observation["observation"] and info["location"] == "behind house"
    memory = env.get_wrapper_attr("memory")
    assert ("north of house", "is west of", "behind house") not in memory.believed_triples()
    assert ("behind house", "is east of", "north of house") in memory.believed_triples(), "the walked edge stays"
    observation, *_ = env.step("go to west of house")
    assert "no known path" in observation["observation"]
    env.close()
