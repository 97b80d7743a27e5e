"""The TWX text parser and its ground truth on TWX's own templates: things named alike in several
rooms (TWX's trash cans, wood doors), read as a memory reads them through the parser handed over."""

from __future__ import annotations

from textmem_gym.memory.arigraph.memory import AriGraphMemory
from textmem_gym.memory.extractors.twx import TWXObservedTruth, TWXRules

KITCHEN = ("You are in the kitchen. In one part of the room you see a trash can that is closed. There is also a "
           "counter that has a knife on it. \nTo the North you see the bathroom. ")
BATHROOM = ("You are in the bathroom. In one part of the room you see a trash can that is open. There is also a "
            "towel. \nTo the South you see the kitchen. ")


def _memory() -> AriGraphMemory:
    memory = AriGraphMemory(extractor="rules")
    memory.use_parser(TWXRules())
    return memory


def test_a_thing_named_alike_in_two_rooms_is_believed_in_both():
    memory = _memory()
    memory.update(KITCHEN, "", {})
    memory.update(BATHROOM, "move north", {})
    believed = set(memory.believed_triples())
    assert {("trash can", "is at", "kitchen"), ("trash can", "is at", "bathroom")} <= believed


def test_taking_a_thing_in_one_room_leaves_its_namesake_in_another():
    memory = _memory()
    memory.update(KITCHEN.replace("a towel", "a towel"), "", {})
    memory.update(BATHROOM.replace("a towel", "a knife"), "move north", {})
    memory.update("You take the knife.", "take knife", {})
    believed = set(memory.believed_triples())
    assert ("knife", "is in", "inventory") in believed
    assert ("knife", "is on", "counter") in believed  # the kitchen's knife: another one
    assert ("knife", "is at", "bathroom") not in believed  # the one taken here


def test_the_truth_shows_what_an_open_namesake_holds_and_the_state_the_text_showed_last():
    truth = TWXObservedTruth()
    facts = [("P", "at", "bathroom"), ("trash can", "at", "kitchen"), ("trash can", "at", "bathroom"),
             ("trash can", "is", "closed"), ("trash can", "is", "open"), ("towel", "in", "trash can")]
    seen = truth.step(facts, "", BATHROOM.replace("There is also a towel. ", ""))
    assert ("towel", "is in", "trash can") in seen  # the open one holds it, although another is closed
    assert ("trash can", "is", "open") in seen and ("trash can", "is", "closed") not in seen
