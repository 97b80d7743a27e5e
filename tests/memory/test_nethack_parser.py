"""The NetHack text parser and its ground truth on the NetHack envs' text: a skill's report, creatures out
of sight, and the cell under the hero (the map shows the hero there, not what it stands on)."""

from __future__ import annotations

from textmem_gym.memory.arigraph.memory import AriGraphMemory
from textmem_gym.memory.extractors.nethack import NetHackObservedTruth, NetHackRules, read_nethack

STATUS = "Dungeon level 1, turn 43. HP 13/14, Pw 4/4, AC 4."
EXPLORED = ("Skill 'explore' (24 keys): stopped: a monster came into view: jackal.\nFound: fountain (x24 y7), "
            f"staircase down (x30 y9).\n\n{STATUS}\n\nYou are in a corridor, at x27 y6. In this corridor you see:\n"
            "- open door: 1 step west (x26 y6)\n- jackal: 1 step east (x28 y6), monster\n")
LEVEL = (f"{STATUS}\n\nYou are in a room spanning x1-9 y1-5, at x{{x}} y2. On this level you see:\n"
         "- staircase up: {where} (x3 y2)\n- doorway: 6 steps east (x9 y2)\n")


def _memory() -> AriGraphMemory:
    memory = AriGraphMemory(extractor="rules")
    memory.use_parser(NetHackRules())
    return memory


def test_a_skills_report_places_the_features_it_found():
    triples = set(read_nethack(EXPLORED).triples)
    assert {("fountain", "is at", "level 1 x24 y7"), ("staircase down", "is at", "level 1 x30 y9")} <= triples


def test_a_creature_the_text_no_longer_shows_is_forgotten_on_the_same_level():
    memory = _memory()
    memory.update(EXPLORED, "explore", {})
    assert ("jackal", "is at", "level 1 x28 y6") in memory.believed_triples()
    gone = f"{STATUS}\n\nYou are in a corridor, at x20 y6. In this corridor you see:\n- doorway: 1 step west (x19 y6)\n"
    memory.update(gone, "far west", {})
    believed = set(memory.believed_triples())
    assert ("jackal", "is at", "level 1 x28 y6") not in believed
    assert ("fountain", "is at", "level 1 x24 y7") in believed  # features stay


def test_what_the_hero_stands_on_stays_believed_and_true_on_a_whole_level_view():
    memory = _memory()
    memory.update(LEVEL.format(x=5, where="2 steps west"), "", {})
    on_stairs = LEVEL.format(x=3, where="").replace("- staircase up:  (x3 y2)\n", "")
    memory.update(on_stairs, "far west", {})
    assert ("staircase up", "is at", "level 1 x3 y2") in memory.believed_triples()
    truth = NetHackObservedTruth()
    facts = [("you", "on", "dungeon level 1"), ("you", "at", "level 1 x5 y2"), ("staircase up", "at", "level 1 x3 y2")]
    truth.step(facts, "", LEVEL.format(x=5, where="2 steps west"))
    standing = [("you", "on", "dungeon level 1"), ("you", "at", "level 1 x3 y2")]  # the map shows the hero there
    assert ("staircase up", "is at", "level 1 x3 y2") in truth.step(standing, "far west", on_stairs)
