"""BALROG's progression metric on every NetHack row, and creatures of a level left forgotten."""

from __future__ import annotations

import gymnasium as gym

import textmem_gym  # noqa: F401
from textmem_gym.envs.nethack.progression import Progression, achievements, progression
from textmem_gym.memory.extractors.nethack import NetHackRules
from textmem_gym.memory.semantic import TripleStore
from textmem_gym.results import METRIC_COLUMNS, format_table, summarize


def test_table_is_balrogs_and_monotone():
    table = achievements()
    assert table["Dlvl:1"] == 0.0 and table["Xp:1"] == 0.0
    assert len([k for k in table if k.startswith("Dlvl:")]) == 50 and len([k for k in table if k.startswith("Xp:")]) == 30
    depths = [table[f"Dlvl:{d}"] for d in range(1, 51)]
    assert depths == sorted(depths) and 0 < table["Dlvl:2"] < 0.02
    assert progression({1, 2}, {1}) == table["Dlvl:2"] and progression({60}, {1}) == 0.0


def test_every_nethack_row_carries_progression():
    env = gym.make("TextMem/NetHack-RoomObs-v0")
    _, info = env.reset(seed=0)
    for command in ("search", "explore", "descend"):
        _, _, terminated, truncated, info = env.step(command)
        if terminated or truncated:
            break
    env.close()
    metrics = info["metrics"]
    expected = 100 * progression(set(range(1, metrics["max_dungeon_level"] + 1)), {metrics["max_experience_level"]})
    assert metrics["balrog_progression"] >= 0 and abs(metrics["balrog_progression"] - expected) < 1e-9
    rows = [{"env_id": "TextMem/NetHack-RoomObs-v0", "policy": "p", "seed": s, "score": 0.0, "normalized_score": 0.0,
             "won": False, "steps": 5, "max_dungeon_level": d, "balrog_progression": 100 * achievements()[f"Dlvl:{d}"]}
            for s, d in enumerate((2, 3))]
    summary = summarize(rows)
    assert "BALROG progression %" in format_table(summary) and "balrog_progression" in METRIC_COLUMNS
    assert abs(summary[0]["balrog_progression_mean"] - 50 * (achievements()["Dlvl:2"] + achievements()["Dlvl:3"])) < 1e-9


def test_ascension_is_full_progression():
    progress = Progression()
    progress.update(5, 3)
    progress.ascended()
    assert progress.percent == 100.0


def test_creatures_of_a_level_left_are_forgotten_things_are_kept():
    rules, store = NetHackRules(), TripleStore()
    level1 = ("Dungeon level 1, turn 3. HP 14/14.\n\nYou are in a room spanning x1-9 y1-5, at x3 y2. "
              "In this room you see:\n- jackal: 2 steps east (x5 y2), monster\n- staircase down: 4 steps east (x7 y2)")
    for triple in rules.extract(level1, "", {}, store).triples:
        store.add(*triple, step=0)
    level2 = "Dungeon level 2, turn 9. HP 14/14.\n\nYou are in a corridor, at x10 y4."
    outdated = rules.extract(level2, "down", {}, store).outdated
    assert ("jackal", "is at", "level 1 x5 y2") in outdated
    assert ("staircase down", "is at", "level 1 x7 y2") not in outdated
