"""The explorer's common sense for tidying: TextWorld Commonsense's object list, read from the
installed textworld-express package, joined with lexical affinity and the believed layout."""

from __future__ import annotations

import pytest

from policies.explorer_commonsense import HomeIndex, clipped, homes_of, place_matches, singular, twc_homes

HOUSE = [("refrigerator", "is at", "kitchen"), ("dishwasher", "is at", "kitchen"), ("towel rack", "is at", "bathroom"),
         ("bathroom sink", "is at", "bathroom"), ("dumbbell rack", "is at", "gym"), ("tv stand", "is at", "den"),
         ("bedside table", "is at", "bedroom")]
ROOMS = ["kitchen", "bathroom", "gym", "den", "bedroom"]


def test_textworld_commonsense_is_read_from_the_installed_package():
    pytest.importorskip("textworld_express")
    homes = twc_homes()
    assert len(homes) > 300
    assert homes["milk"] == ("fridge",) and "dishwasher" in homes["dirty plate"]


def test_names_match_by_head_noun_clipping_and_shared_words_but_not_room_words():
    rooms = {"kitchen", "bathroom"}
    assert clipped("fridge", "refrigerator") and not clipped("stand", "nightstand")
    assert place_matches("fridge", "refrigerator", rooms) and place_matches("sink", "bathroom sink", rooms)
    assert place_matches("towel rail", "towel rack", rooms)
    assert not place_matches("kitchen cupboard", "kitchen counter", rooms)
    assert singular("notebooks") == "notebook" and singular("glasses") == "glass"
    table = {"milk": ("fridge",), "clean plate": ("kitchen cupboard",), "dirty plate": ("dishwasher",)}
    assert homes_of("milk", table) == (("fridge",), True)
    assert homes_of("weight plate", table) == (("kitchen cupboard", "dishwasher"), False)


def test_misplaced_things_are_found_by_the_table_or_their_name_and_a_head_noun_alone_is_no_proof():
    table = {"milk": ("fridge",), "dirty plate": ("dishwasher",), "towel": ("towel rail",)}
    index = HomeIndex(HOUSE + [("milk", "is on", "tv stand"), ("bath towel", "is on", "dumbbell rack"),
                               ("weight plate", "is on", "dumbbell rack"), ("dumbbell", "is on", "bathroom sink"),
                               ("toothbrush", "is on", "bathroom sink")], ROOMS, homes=table, embeddings=False)
    found = index.misplaced()
    assert sorted(found) == ["bath towel", "dumbbell", "milk"]  # not the weight plate (a plate by its head noun)
    assert found["milk"][0] == ("kitchen", "refrigerator")
    assert found["bath towel"][0] == ("bathroom", "towel rack")
    assert found["dumbbell"][0] == ("gym", "dumbbell rack")
    assert index.fit("toothbrush", "bathroom sink", "bathroom") == 0  # nothing known: left alone


def test_a_place_naming_a_room_is_no_furniture_of_another_room():
    table = {"toothbrush": ("bathroom cabinet",)}
    index = HomeIndex(HOUSE + [("china cabinet", "is at", "dining room"), ("toothbrush", "is on", "tv stand")],
                      ROOMS + ["dining room"], homes=table, embeddings=False)
    assert index.fit("toothbrush", "china cabinet", "dining room") == 0  # a cabinet, but not the bathroom's
    assert index.fit("toothbrush", "bathroom sink", "bathroom") == 1  # the room the table names
    assert {room for room, _ in index.misplaced()["toothbrush"]} == {"bathroom"}
