"""The Jericho ground truth (the object tree restricted to what the text showed): commands read as
the game's parser reads them, and steps the tree cannot check."""

from __future__ import annotations

from textmem_gym.memory.belief_metrics import BeliefAccuracy
from textmem_gym.memory.extractors.jericho.commands import Pronoun
from textmem_gym.memory.extractors.jericho.truth import JerichoObservedTruth

CELLAR = "Cellar\nYou are in a dark and damp cellar.\n\nThere is a brass lantern here."


def test_it_is_the_last_command_s_one_object():
    pronoun = Pronoun()
    assert pronoun.resolve("take brass lantern") == "take brass lantern"
    assert pronoun.resolve("drop it") == "drop brass lantern"
    assert pronoun.resolve("take all") == "take all" and pronoun.resolve("drop it") == "drop brass lantern"


def test_a_thing_dropped_as_it_is_seen_where_it_fell():
    truth = JerichoObservedTruth()
    carried = [("player", "at", "Cellar"), ("brass lantern", "in", "I")]
    dropped = [("player", "at", "Cellar"), ("brass lantern", "in", "Cellar")]
    truth.step([("player", "at", "Cellar"), ("brass lantern", "in", "Cellar")], "", CELLAR)
    assert ("brass lantern", "is in", "inventory") in truth.step(carried, "take lantern", "Taken.")
    assert ("brass lantern", "is at", "cellar") in truth.step(dropped, "drop it", "Dropped.")


def test_beliefs_are_unverifiable_where_the_tree_does_not_place_the_player():
    # Party Foul (Inform 7): Jericho reads class objects only, no room has a short name
    metric = BeliefAccuracy(JerichoObservedTruth())
    score = metric.step([("K1_room", "in", "Class")], "look", [("purse", "is at", "guest room")],
                        "Guest Room\nThis small guest room is quaintly furnished.\n\nYour purse lies here.")
    assert (score["overall"].fp, score["overall"].unverifiable) == (0, 1)
    assert metric.last_errors["unverifiable"] == {("purse", "is at", "guest room")}


def test_a_room_is_named_by_the_title_the_text_prints_for_it():
    # Trinity's tree calls the stairway's middle "Halfway"; the text titles it "Halfway Up"
    truth = JerichoObservedTruth()
    truth.step([("player", "at", "Bottom of Stairs")], "", "Bottom of Stairs\nA stairway leads up.")
    seen = truth.step([("player", "at", "Halfway"), ("railing", "in", "Halfway")], "up",
                      "With a fearful gulp, you ascend.\n\nHalfway Up\nThe stairs go on.\n\nThere is a railing here.")
    assert truth.room == "halfway up"
    assert ("halfway up", "is above", "bottom of stairs") in seen and ("railing", "is at", "halfway up") in seen


def test_on_a_vehicle_the_player_is_at_its_room():
    truth = JerichoObservedTruth()
    truth.step([("player", "at", "Sandy Beach"), ("magic boat", "in", "Sandy Beach")], "", "Sandy Beach\nA beach.")
    truth.step([("player", "at", "magic boat"), ("magic boat", "in", "Sandy Beach")], "board boat",
               "You are now in the magic boat.\n\nSandy Beach, in the magic boat\nA beach.")
    assert truth.room == "sandy beach"  # the title names the beach: the boat is not renamed after it
    # Anchor: on the garbage can in the alley, "up" leads to the file room: a walk from the alley, as here
    walked = truth.step([("player", "at", "Tool Shed"), ("magic boat", "in", "Sandy Beach")], "north",
                        "Tool Shed\nA shed.")
    assert ("tool shed", "is north of", "sandy beach") in walked


def test_a_status_line_repeating_the_title_does_not_end_the_room_s_list():
    # Trinity reprints the room's title, indented, below its text: the room's list is above it
    truth = JerichoObservedTruth()
    seen = truth.step([("player", "at", "Long Water"), ("dish", "in", "Long Water")], "look",
                      "Long Water\nA long pond.\n\nA dish lies here.\n" + " " * 8 + "Long Water")
    assert ("dish", "is at", "long water") in seen


def test_a_room_the_tree_leaves_nameless_is_named_by_its_title():
    # Theatre's Tight Stairway has no short name in the tree: the player is placed nowhere there
    truth = JerichoObservedTruth()
    truth.step([("player", "at", "Cramped Hallway")], "", "Cramped Hallway\nDoors lead west.")
    truth.step([], "w", "Tight Stairway\nThis narrow little stairway winds its way up to the west.")
    assert truth.room == "tight stairway"
    truth.step([], "get all", "There is nothing here to take.")  # no title: still there
    walked = truth.step([("player", "at", "Long Corridor")], "w", "Long Corridor\nA corridor.")
    assert ("long corridor", "is west of", "tight stairway") in walked
    assert ("tight stairway", "is west of", "cramped hallway") in walked


def test_the_holder_a_title_puts_the_player_in_is_shown_at_the_room():
    # Sorcerer's "Your Quarters, in the bed": the title itself says the bed is there
    truth = JerichoObservedTruth()
    seen = truth.step([("player", "at", "bed"), ("bed", "in", "Your Quarters")], "",
                      "Your Quarters, in the bed\nThis is your room in the Guild Hall.")
    assert ("bed", "is at", "your quarters") in seen
