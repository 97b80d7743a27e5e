"""The rules extractor on observations recorded from each game family (cooking, treasure
hunt, cleaning), see data/recorded_observations.json (walkthrough steps of the registered ids)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from textmem_gym.memory.arigraph.memory import AriGraphMemory
from textmem_gym.memory.extractors.rules import RulesExtractor, clean_name, move_direction, parse_room, split_list
from textmem_gym.memory.semantic import TripleStore

RECORDED = json.loads((Path(__file__).parent / "data" / "recorded_observations.json").read_text())


def extract(name: str, store: TripleStore | None = None, location: str | None = None) -> set[tuple[str, str, str]]:
    rules = RulesExtractor()
    rules.location = location
    step = RECORDED[name]
    out = rules.extract(step["observation"], step["action"], {}, store or TripleStore())
    return {tuple(x.lower() for x in t) for t in out.triples}


def test_cooking_kitchen_lists_furniture_contents_doors_and_exits():
    triples = extract("cooking_kitchen", location="livingroom")
    expected = {
        ("kitchen", "is south of", "livingroom"),
        ("fridge", "is at", "kitchen"), ("fridge", "is", "open"), ("oven", "is at", "kitchen"),
        ("oven", "is", "open"), ("table", "is at", "kitchen"), ("counter", "is at", "kitchen"),
        ("stove", "is at", "kitchen"), ("cookbook", "is on", "table"), ("knife", "is on", "table"),
        ("orange bell pepper", "is in", "fridge"), ("red bell pepper", "is in", "fridge"),
        ("white tuna", "is in", "fridge"), ("kitchen", "has exit", "south"), ("kitchen", "has exit", "east"),
        ("kitchen", "has exit", "north"), ("kitchen", "has door to the south", "frosted-glass door"),
        ("frosted-glass door", "is", "open"),
    }
    assert triples == expected


def test_cooking_variants_opened_which_looks_and_not_openable_bbq():
    kitchen = extract("cooking_kitchen_opened_oven")
    assert {("oven", "is at", "kitchen"), ("oven", "is", "open"), ("knife", "is on", "counter"),
            ("red potato", "is on", "counter"), ("green hot pepper", "is in", "fridge")} <= kitchen
    assert not any("conventional" in x for t in kitchen for x in t)
    backyard = extract("cooking_backyard_bbq")
    assert ("bbq", "is at", "backyard") in backyard
    assert not any(t[0] == "bbq" and t[1] == "is" for t in backyard)
    assert ("patio table", "is at", "backyard") in backyard and ("table", "is at", "backyard") not in backyard
    assert ("backyard", "has door to the north", "sliding patio door") in backyard


def test_cooking_recipe_and_open_revealing():
    recipe = extract("cooking_cookbook")
    assert {("recipe", "requires", "green bell pepper"), ("recipe", "requires", "yellow potato"),
            ("yellow potato", "needs to be", "sliced"), ("green bell pepper", "needs to be", "fried")} <= recipe
    assert not any(t[1] == "is" for t in recipe), "reading the cookbook opens nothing"
    fridge = extract("cooking_open_fridge_revealing")
    assert fridge == {("fridge", "is", "open"), ("pork chop", "is in", "fridge"), ("red onion", "is in", "fridge"),
                      ("carrot", "is in", "fridge"), ("orange bell pepper", "is in", "fridge"),
                      ("yellow bell pepper", "is in", "fridge")}


def test_treasure_hunt_room_note_lock_and_unlock():
    start = extract("treasure_start")
    assert {("mauve locker", "is at", "room e"), ("silver key", "is at", "room e"),
            ("first note", "is at", "room e"), ("room e", "has exit", "east"), ("room e", "has exit", "north"),
            ("room e", "has exit", "west")} <= start
    assert extract("treasure_note") >= {("silver key", "opens", "brown locker")}
    locked = extract("treasure_locked_locker")
    assert {("amber locker", "is at", "room c"), ("amber locker", "is", "locked")} <= locked
    assert extract("treasure_unlock") == {("brown locker", "is", "closed")}
    assert extract("treasure_open_revealing") == {("brown locker", "is", "open"), ("steel key", "is in", "brown locker"),
                                                  ("second note", "is in", "brown locker")}


def test_cleaning_rooms_and_put_feedback():
    start = extract("cleaning_start")
    assert {("toy chest", "is at", "kids room"), ("toy chest", "is", "closed"), ("study desk", "is at", "kids room"),
            ("bathrobe", "is on", "study desk"), ("crayons", "is on", "study desk")} <= start
    dining = extract("cleaning_dining_room")
    assert {("china cabinet", "is at", "dining room"), ("dining table", "is at", "dining room"),
            ("yoga mat", "is on", "dining table"), ("dining room", "has exit", "west")} <= dining
    assert not any("smell" in x for t in dining for x in t)
    assert extract("cleaning_put_on") == {("game console", "is on", "tv stand")}


def test_room_snapshot_invalidates_what_is_gone():
    memory = AriGraphMemory()
    first, again = RECORDED["cleaning_start"], RECORDED["cleaning_kids_room_again"]
    memory.update(first["observation"], "", {})
    assert ("bathrobe", "is on", "study desk") in memory.believed_triples()
    memory.update(again["observation"], "look", {})
    assert ("bathrobe", "is on", "study desk") not in memory.believed_triples()
    assert ("crayons", "is on", "study desk") in memory.believed_triples()
    assert [(t.start, t.end) for t in memory.store.history("bathrobe")] == [(0, 1)]


@pytest.mark.parametrize(("phrase", "expected"), [
    ("a raw white tuna", ("white tuna", None)), ("a closed conventional looking oven", ("oven", "closed")),
    ("an opened fridge", ("fridge", "open")), ("some milk", ("milk", None)),
])
def test_clean_name(phrase, expected):
    assert clean_name(phrase) == expected


def test_lists_directions_and_no_header():
    assert split_list("a knife, an apple and some milk") == ["knife", "apple", "milk"]
    assert [move_direction(a) for a in ("go north", "s", "walk west", "go to kitchen", "take key")] == \
        ["north", "south", "west", None, None]
    assert parse_room("You take the knife.") is None


# Recorded from TextMem/Jericho-Zork1-v0 (Infocom phrasing: title line, terse feedback).
ZORK_START = ("Copyright (c) 1981, 1982, 1983 Infocom, Inc. All rights reserved.\nZORK is a registered trademark "
              "of Infocom, Inc.\nRevision 88 / Serial number 840726\n\nWest of House\nYou are standing in an open "
              "field west of a white house, with a boarded front door.\nThere is a small mailbox here.")
ZORK_BEHIND = ("Behind House\nYou are behind the white house. A path leads into the forest to the east. In one corner "
               "of the house there is a small window which is slightly ajar.")


def test_interactive_fiction_titles_and_terse_feedback():
    memory = AriGraphMemory()
    memory.update(ZORK_START, "", {})
    assert memory.location == "west of house"
    assert ("small mailbox", "is at", "west of house") in memory.believed_triples()
    memory.update("North of House", "north", {})
    assert ("north of house", "is north of", "west of house") in memory.believed_triples()
    assert ("small mailbox", "is at", "west of house") in memory.believed_triples(), "brief text is no snapshot"
    memory.update(ZORK_BEHIND, "east", {})
    assert ("behind house", "has exit", "east") in memory.believed_triples()
    memory.update("Taken.", "take lamp", {})
    memory.update("You are carrying:\n  A brass lantern", "inventory", {})
    assert ("brass lantern", "is in", "inventory") in memory.believed_triples()
    assert ("lamp", "is in", "inventory") not in memory.believed_triples(), "the inventory listing replaces it"
    memory.update("Dropped.", "drop brass lantern", {})
    assert ("brass lantern", "is at", "behind house") in memory.believed_triples()
