"""Sentences of a room's prose that place a thing (:mod:`~textmem_gym.memory.extractors.jericho.prose`): read by
:func:`read_jericho` and turned into triples by :class:`JerichoRules` with the game's words (lines as the games
printed them: Doctor Who and the Vortex of Karn, Trinity, The Lurking Horror, Theatre, Infidel)."""

from __future__ import annotations

import pytest

from textmem_gym.memory.extractors.jericho import JerichoRules, read_jericho
from textmem_gym.memory.semantic import AT, IN, TripleStore

WORDS = {"vocabulary": ["a", "an", "the", "tardis", "workbench", "charming", "statue", "tarry", "liquid", "vat",
                        "trapdoor", "open", "golden", "cluster", "large", "floor", "huge", "boiler", "magick",
                        "shoppe", "crudely", "drawn", "map", "wall", "tower", "old", "broom", "corner", "hacker",
                        "terminal", "great", "rock", "electrical", "panel", "typewritten", "notice", "front",
                        "door", "printed", "grass", "battered", "dustbin", "side", "porch", "lying", "sand",
                        "wooden", "packing", "crate"]}


def _triples(text: str) -> list[tuple[str, str, str]]:
    rules = JerichoRules()
    rules.extract("", "", dict(WORDS), TripleStore())
    return rules.extract(text, "look", {}, TripleStore()).triples


@pytest.mark.parametrize(("line", "expected"), [
    ("The TARDIS sits reassuringly nearby.", ("tardis", AT, "workshop")),
    ("A charming statue stands nearby.", ("charming statue", AT, "workshop")),
    ("Your workbench dominates the center of the room.", ("workbench", AT, "workshop")),
    ("A large golden cluster sits on the floor.", ("large golden cluster", AT, "workshop")),
    ("There is an open trapdoor in the floor.", ("trapdoor", AT, "workshop")),
    ("The vat contains a tarry liquid.", ("tarry liquid", IN, "vat")),
    ("Leaning in the corner is an old broom.", ("old broom", AT, "workshop")),
    ("Sitting at a terminal is a hacker whom you recognize.", ("hacker", AT, "workshop")),
    ("Standing before you is a great rock.", ("great rock", AT, "workshop")),
    ("An old electrical panel is mounted on the wall.", ("old electrical panel", AT, "workshop")),
    ("A typewritten notice has been attached to the front door.", ("typewritten notice", AT, "workshop")),
    ("A printed notice is stuck into the grass.", ("printed notice", AT, "workshop")),
    ("A battered old dustbin sits to one side of the porch.", ("battered old dustbin", AT, "workshop")),
    ("Lying in the sand is a wooden packing crate.", ("wooden packing crate", AT, "workshop")),
])
def test_a_sentence_placing_a_thing_outside_the_first_paragraph_is_believed(
        line: str, expected: tuple[str, str, str]) -> None:
    assert expected in _triples(f"Workshop\nThis is the room where you tinker.\n\n{line}")


@pytest.mark.parametrize("line", [
    "The Magick Shoppe stands nearby.",  # a title-case subject: a place, not a thing here
    "There is a huge boiler in the distance.",  # far off
    "There is a tower in the skyline.",
])
def test_a_place_or_a_distant_thing_is_not_placed_here(line: str) -> None:
    assert not [t for t in _triples(f"Workshop\nThis is the room where you tinker.\n\n{line}") if t[1] == AT]


def test_the_reader_names_the_thing_without_its_state_word() -> None:
    view = read_jericho("Basement\nIt is damp.\n\nThere is an open trapdoor in the floor.", "look")
    assert view.things == [("trapdoor", AT, None, 0, False)]
