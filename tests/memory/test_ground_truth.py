"""Ground truth on every backend: the privileged facts of real envs mapped to the memory's vocabulary
by the tracker each backend's text parser gives (no format is guessed from the facts)."""

from __future__ import annotations

import os
from pathlib import Path

import gymnasium as gym
import pytest

import textmem_gym  # noqa: F401
from textmem_gym.memory.adoption import parser_for
from textmem_gym.memory.ground_truth import (
    CONNECTED,
    ObservedTruth,
    Truth,
    map_facts,
    map_jericho_facts,
    relation_class,
)
from textmem_gym.memory.semantic import AT, HAS_EXIT, IN, INVENTORY, ON

ROMS = Path(os.environ.get("TEXTMEM_ROMS_DIR", "/nonexistent"))


def _play(env_id: str, commands: list[str], **kwargs) -> list[dict]:
    """The info of reset and of each command."""
    env = gym.make(env_id, privileged=True, **kwargs)
    try:
        infos = [env.reset(seed=0)[1]]
        infos.extend(env.step(command)[4] for command in commands)
        return infos
    finally:
        env.close()


def _reader(env_id: str) -> Truth | None:
    """The tracker of the backend's text parser (``None``: TextWorld reads as a text adventure)."""
    parser = parser_for(env_id)
    return None if parser is None else parser.observed_truth()


@pytest.mark.slow
def test_textworld_cooking_keeps_predicate_table_mapping():
    (info,) = _play("TextMem/Cooking-v0", [])
    triples, room = map_facts(info["facts"])
    assert room and any(r == AT and o == room for _, r, o in triples)
    assert any(r == HAS_EXIT for _, r, _ in triples) and all(s != "p" for s, _, _ in triples)


def test_twx_coin_collector_map_and_furniture():
    (info,) = _play("TextMem/TWX-CoinCollector-v0", [])
    triples, room = map_facts(info["facts"])
    assert room == "kitchen"
    assert {("fridge", AT, "kitchen"), ("fridge", "is", "closed"), ("pantry", "is north of", "kitchen"),
            ("kitchen", HAS_EXIT, "north")} <= triples


@pytest.mark.skipif(not (ROMS / "zork1.z5").is_file(), reason="TEXTMEM_ROMS_DIR needed")
def test_jericho_object_tree_rooms_holders_and_inventory():
    start, _, taken, moved = _play("TextMem/Jericho-Zork1-v0", ["open mailbox", "take leaflet", "north"])
    reader = _reader("TextMem/Jericho-Zork1-v0")
    assert reader is not None
    triples, room = map_facts(start["facts"], reader)
    assert room == "west of house"  # the short names the game prints
    assert {("small mailbox", AT, "west of house"), ("leaflet", IN, "small mailbox"), ("brown sack", IN, "kitchen table"),
            ("kitchen table", AT, "kitchen"), ("pile of leaves", AT, "clearing")} <= triples
    assert not any(s == "player" for s, _, _ in triples)
    assert ("leaflet", IN, INVENTORY) in map_facts(taken["facts"], reader)[0]
    assert map_facts(moved["facts"], reader)[1] == "north of house"
    assert map_facts(start["facts"])[1] is None  # read as TextWorld's predicates: the format is not guessed
    seen = ObservedTruth(reader.map_facts).step(start["facts"], "")  # the generic tracker: what the start room shows
    assert ("small mailbox", AT, "west of house") in seen and ("brown sack", IN, "kitchen table") not in seen


@pytest.mark.java
@pytest.mark.slow
def test_scienceworld_rooms_doors_and_inventory():
    start, opened, _, taken = _play("TextMem/ScienceWorld-Boil-v0",
                                    ["open door to kitchen", "go to kitchen", "pick up thermometer"])
    reader = _reader("TextMem/ScienceWorld-Boil-v0")
    triples, room = map_facts(start["facts"], reader)
    assert room == "bathroom"
    assert {("bathtub", AT, "bathroom"), ("apple", IN, "bowl"), ("bathroom", CONNECTED, "kitchen"),
            ("kitchen", CONNECTED, "bathroom")} <= triples
    assert not any(s == "agent" for s, _, _ in triples)
    assert relation_class(("bathroom", CONNECTED, "kitchen")) == "spatial"
    assert ("door to kitchen", "is", "open") in map_facts(opened["facts"], reader)[0]
    after, room = map_facts(taken["facts"], reader)
    assert room == "kitchen" and ("thermometer", IN, INVENTORY) in after


def test_nethack_positions_level_and_inventory():
    (info,) = _play("TextMem/NetHack-RoomObs-v0", [])
    triples, room = map_facts(info["facts"], _reader("TextMem/NetHack-RoomObs-v0"))
    assert room == "dungeon level 1"
    assert ("you", ON, "dungeon level 1") in triples
    assert any(s == "you" and r == AT and o.startswith("level 1 x") for s, r, o in triples)
    assert any(r == IN and o == INVENTORY for _, r, o in triples)


def test_jericho_rooms_under_a_named_holder_are_rooms():
    # Trinity's tree keeps every room in an object named "that": a thing in another room is at that room
    rooms = [(f"room {i}", "in", "that") for i in range(30)]
    facts = [("player", "at", "room 0"), *rooms, ("sundial", "in", "room 7"), ("gnomon", "in", "sundial"),
             ("room 3", "in", "Room 3")]  # two objects of one name (Round Pond, the room and its pond)
    triples, room = map_jericho_facts(facts)
    assert room == "room 0"
    assert ("sundial", "is at", "room 7") in triples and ("gnomon", "is in", "sundial") in triples
    assert not any(holder in ("that", thing) for thing, _, holder in triples)
