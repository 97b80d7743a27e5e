"""Zork I's dark attic and cellar: the believed room is the dark place, never the room just left."""

from __future__ import annotations

import os
from pathlib import Path

import gymnasium as gym
import pytest

import textmem_gym  # noqa: F401
from textmem_gym.memory.extractors.rules import DARK_PLACE, RulesExtractor
from textmem_gym.memory.semantic import TripleStore
from textmem_gym.wrappers import MemoryGraphWrapper

ROMS = Path(os.environ.get("TEXTMEM_ROMS_DIR", "/nonexistent"))
pytestmark = pytest.mark.skipif(not (ROMS / "zork1.z5").is_file(), reason="TEXTMEM_ROMS_DIR needed")

#: From the start of Zork I into the kitchen, up into the dark attic, back down, then through the
#: living room's trap door down into the dark cellar (no light is carried).
TO_THE_KITCHEN = ["north", "east", "open window", "enter"]
TO_THE_CELLAR = ["west", "move rug", "open trap door", "down"]


def _walk(memory: str, commands: list[str]) -> list[tuple[str, str | None, str, set[str]]]:
    """(command, believed room, true room, rooms of the believed map) after each command."""
    env = MemoryGraphWrapper(gym.make("TextMem/Jericho-Zork1-v0", privileged=True), memory=memory)
    try:
        env.reset(seed=0)
        graph = env.get_wrapper_attr("memory")
        rows = []
        for command in commands:
            info = env.step(command)[4]
            true_room = next(o for s, r, o in info["facts"] if (s, r) == ("player", "at"))
            rows.append((command, graph.location, true_room, set(graph.spatial.locations())))
        return rows
    finally:
        env.close()


@pytest.mark.parametrize("memory", ["arigraph", "stma", "davis"])
def test_dark_attic_and_cellar_are_not_the_room_just_left(memory):
    rows = _walk(memory, TO_THE_KITCHEN + ["up", "down"] + TO_THE_CELLAR)
    by_step = {i: row for i, row in enumerate(rows)}
    _, kitchen, true_kitchen, _ = by_step[3]
    assert (kitchen, true_kitchen) == ("kitchen", "Kitchen")
    _, attic, true_attic, _ = by_step[4]
    assert true_attic == "Attic" and attic != "kitchen" and attic in (DARK_PLACE, None)
    assert by_step[5][1] == "kitchen"  # lit again: named by its title
    _, living, true_living, _ = by_step[6]
    assert (living, true_living) == ("living room", "Living Room")
    _, cellar, true_cellar, rooms = by_step[9]
    assert true_cellar == "Cellar" and cellar != "living room" and cellar in (DARK_PLACE, None)
    assert DARK_PLACE not in rooms  # no map edge leads to or from an unnamed dark room
    assert {"kitchen", "living room"} <= rooms


def test_a_lit_cellar_is_named_and_mapped():
    rows = _walk("arigraph", TO_THE_KITCHEN + ["west", "take lamp", "turn on lamp", "move rug",
                                               "open trap door", "down"])
    command, cellar, true_cellar, rooms = rows[-1]
    assert (command, cellar, true_cellar) == ("down", "cellar", "Cellar")
    assert {"cellar", "living room"} <= rooms


def test_a_look_in_the_dark_or_a_light_going_out_keeps_the_room():
    rules = RulesExtractor()
    store = TripleStore()
    assert rules.extract("Attic\nThis is the attic.", "up", {}, store).location == "attic"
    assert rules.extract("Your lamp goes out. It is now pitch black.", "wait", {}, store).location == "attic"
    assert rules.extract("It is pitch black. You are likely to be eaten by a grue.", "look", {},
                         store).location == "attic"
    moved = rules.extract("Darkness\nIt is pitch dark, and you can't see a thing.", "north", {}, store)
    assert moved.location == DARK_PLACE and moved.triples == []
    assert rules.extract("Dropped.", "drop sword", {}, store).triples == []  # which dark room: unknown
    lit = rules.extract("Hall\nA long hall.", "south", {}, store)
    assert lit.location == "hall" and not any("north of" in t[1] or "south of" in t[1] for t in lit.triples)
