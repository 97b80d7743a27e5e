"""Well-posed Jericho questions: a name the text gives two things (Zork's attic ``table`` and the
``kitchen table`` it prints as ``the table``) is never asked about; the shipped trajectory, real game."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from textmem_gym.memory.adoption import parser_for
from textmem_gym.qa.bench.trajectories import load_trajectories, replay_trajectory
from textmem_gym.qa.probes.questions import Snapshot, build_timeline, generate_questions, location_questions

ROMS = Path(os.environ.get("TEXTMEM_ROMS_DIR", "/nonexistent"))


def test_a_name_ending_another_held_elsewhere_is_ambiguous_only_when_the_tracker_aligns_names():
    truth = {("table", "is at", "attic"), ("kitchen table", "is at", "kitchen"), ("knife", "is on", "table")}
    text = "attic. a table. kitchen. on the table is a sack. on a table is a knife."
    plain = Snapshot(2, "attic", truth, set(truth), text)
    aligned = Snapshot(2, "attic", truth, set(truth), text, aligned=True)
    assert "location:table" in [q.id for q in location_questions(plain, plain)]
    assert [q.id for q in location_questions(aligned, aligned)] == ["location:knife"]


@pytest.mark.skipif(not (ROMS / "zork1.z5").is_file(), reason="TEXTMEM_ROMS_DIR needed")
def test_zork_asks_where_the_sword_is_never_where_the_table_is():
    trajectory = load_trajectories(["jericho-zork1-short"])[0]
    timeline = build_timeline(replay_trajectory(trajectory), parser_for(trajectory.env_id).observed_truth())
    asked = {q.question.split(": ", 1)[1] for q in generate_questions(timeline, [20, 40], kinds=["location"],
                                                                         per_kind=10 ** 6)}
    assert "Where is the sword?" in asked and "Where is the table?" not in asked
