"""Belief accuracy: the predicate table, observability scoping and precision/recall counts."""

from __future__ import annotations

import pytest

from textmem_gym.memory.arigraph.memory import AriGraphMemory
from textmem_gym.memory.belief_metrics import BeliefAccuracy, head_phrase_alignment, score_beliefs
from textmem_gym.memory.ground_truth import ObservedTruth, map_facts, relation_class

FACTS = [
    ("P", "at", "kitchen"), ("table", "at", "kitchen"), ("knife", "on", "table"),
    ("fridge", "at", "kitchen"), ("fridge", "is", "closed"), ("milk", "in", "fridge"),
    ("hall", "north_of", "kitchen"), ("kitchen", "south_of", "hall"),
    ("kitchen", "link", "wooden door hall"), ("hall", "link", "wooden door kitchen"),
    ("wooden door", "is", "open"), ("apple", "in", "I"), ("chest", "at", "hall"), ("knife", "is", "sharp"),
]


def test_predicate_table_maps_textworld_facts():
    triples, room = map_facts(FACTS)
    assert room == "kitchen"
    assert {("knife", "is on", "table"), ("milk", "is in", "fridge"), ("apple", "is in", "inventory"),
            ("hall", "is north of", "kitchen"), ("kitchen", "has exit", "north"),
            ("kitchen", "has door to the north", "wooden door"), ("hall", "has door to the south", "wooden door"),
            ("fridge", "is", "closed")} <= triples
    assert not any(t[0] == "p" or t[2] == "sharp" for t in triples)
    assert [relation_class(t) for t in [("a", "is west of", "b"), ("a", "is in", "b"), ("a", "is", "locked"),
                                        ("a", "is", "fried"), ("recipe", "requires", "a")]] == \
        ["spatial", "containment", "state", None, None]


def test_observed_truth_hides_closed_containers_unvisited_rooms_and_unwalked_links():
    truth = ObservedTruth().step(FACTS, "")
    assert ("knife", "is on", "table") in truth and ("fridge", "is", "closed") in truth
    assert ("milk", "is in", "fridge") not in truth, "inside a closed container"
    assert ("chest", "is at", "hall") not in truth, "room not visited"
    assert ("hall", "is north of", "kitchen") not in truth, "link not walked"
    assert ("apple", "is in", "inventory") not in truth, "inventory never looked at"
    assert ("apple", "is in", "inventory") in ObservedTruth().step(FACTS, "inventory")


def test_observed_truth_after_walking_and_state_scoping():
    tracker = ObservedTruth()
    tracker.step(FACTS, "", observation="You see a fridge.")
    moved = [f for f in FACTS if f[0] != "P"] + [("P", "at", "hall")]
    truth = tracker.step(moved, "go north", observation="-= Hall =-")
    assert {("hall", "is north of", "kitchen"), ("kitchen", "is south of", "hall"), ("chest", "is at", "hall")} <= truth
    assert ("fridge", "is", "closed") not in truth, "the text never told the fridge's state"
    assert ("knife", "is on", "table") in truth, "seen before and still true"


def test_hand_made_precision_recall():
    truth = {("knife", "is on", "table"), ("table", "is at", "kitchen"), ("fridge", "is", "open"),
             ("hall", "is north of", "kitchen")}
    believed = {("knife", "is on", "table"), ("table", "is at", "hall"), ("fridge", "is", "open"),
                ("recipe", "requires", "apple")}
    score = score_beliefs(believed, truth)
    assert (score["overall"].tp, score["overall"].fp, score["overall"].fn) == (2, 1, 2)
    assert score["overall"].precision == pytest.approx(2 / 3) and score["overall"].recall == pytest.approx(0.5)
    assert score["overall"].f1 == pytest.approx(2 * (2 / 3) * 0.5 / (2 / 3 + 0.5))
    assert score["containment"].precision == 0.5 and score["containment"].recall == 0.5
    assert score["state"].f1 == 1.0 and score["spatial"].recall == 0.0 and score["spatial"].precision == 1.0


def test_accumulator_micro_averages_steps():
    metric = BeliefAccuracy()
    facts = [("P", "at", "hall"), ("chest", "at", "hall"), ("key", "at", "hall")]
    metric.step(facts, "", [("chest", "is at", "hall"), ("key", "is at", "hall")])
    metric.step(facts, "look", [("chest", "is at", "hall"), ("key", "is at", "kitchen")])
    summary = metric.summary()["overall"]
    assert (summary["tp"], summary["fp"], summary["fn"]) == (3, 1, 1)
    assert summary["precision"] == 0.75 and metric.last_errors["false_positives"] == {("key", "is at", "kitchen")}


def test_oracle_extractor_is_exact_and_needs_facts():
    memory = AriGraphMemory(extractor="oracle")
    memory.update("You see a table.", "", {"facts": FACTS})
    assert set(memory.believed_triples()) == ObservedTruth().step(FACTS, "", "You see a table.")
    assert memory.location == "kitchen"
    with pytest.raises(ValueError, match="privileged=True"):
        memory.update("text", "look", {})


def test_name_alignment_is_the_trackers_declared_part_and_textworld_keeps_exact_names():
    # TextWorld's tracker does not align names: "elvish sword" is not the predicates' "sword"
    facts = [("P", "at", "hall"), ("sword", "at", "hall")]
    metric = BeliefAccuracy()
    assert metric.aligner is None
    score = metric.step(facts, "", [("elvish sword", "is at", "hall")])
    assert (score["containment"].tp, score["containment"].fp, score["containment"].fn) == (0, 1, 1)
    assert head_phrase_alignment({"large black book", "solid-gold coffin"}, {"black book", "gold coffin"}) == \
        {"large black book": "black book", "solid-gold coffin": "gold coffin"}
    assert head_phrase_alignment({"sword"}, {"sword", "elvish sword"}) == {}, "exact names are kept"
    assert head_phrase_alignment({"book", "black book"}, {"large black book"}) == {}, "two believed names"
