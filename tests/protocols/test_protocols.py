"""The papers' protocols: definitions match the registered ids and the published data, ``reproduce``
prints our numbers beside the paper's on a tiny subset, instances that cannot be won are skipped or marked."""

from __future__ import annotations

import json
import os
import statistics
from pathlib import Path

import gymnasium as gym
import pytest

import textmem_gym  # noqa: F401
from textmem_gym.cli import main
from textmem_gym.core.registry import POLICIES
from textmem_gym.envs.instances import instance_info, instance_seeds
from textmem_gym.envs.textworld.published import PUBLISHED_GAMES
from textmem_gym.protocols import PROTOCOLS, get_protocol, published
from textmem_gym.protocols.run import plan_protocol

ROMS = Path(os.environ.get("TEXTMEM_ROMS_DIR", "/nonexistent"))


@pytest.mark.parametrize("name", sorted(PROTOCOLS))
def test_protocol_matches_registered_ids_published_columns_and_policies(name):
    protocol = get_protocol(name)
    assert protocol.name == name and protocol.cells and protocol.attempts >= 1
    labels = [cell.label for cell in protocol.cells]
    assert len(set(labels)) == len(labels)
    for cell in protocol.cells:
        assert cell.env_id in gym.registry and cell.max_steps > 0
        assert cell.fallback_id is None or cell.fallback_id in gym.registry
        assert (cell.published_game is None) == (cell.fallback_id is None)
        assert cell.published_game is None or cell.published_game in PUBLISHED_GAMES
    if protocol.best_of is not None:
        assert protocol.best_of[1] == protocol.attempts and 1 <= protocol.best_of[0] <= protocol.attempts
    data = published(name)
    if name != "tales":  # TALES publishes per-framework means, not per-game columns (see test_tales.py)
        assert set(data["columns"]) <= set(labels)  # every published column is played
    for row in data["rows"].values():
        assert set(row) <= set(data["columns"]) and all("score" in value for value in row.values())
    assert protocol.own_row is None or protocol.own_row in data["rows"]
    assert set(protocol.baseline_rows) <= set(data["rows"])
    for metric in protocol.metrics:  # every published value has each metric the table shows
        assert all(metric.published in value and (metric.published_std is None or metric.published_std in value)
                   for row in data["rows"].values() for value in row.values())
    assert set(protocol.policy_rows) <= set(POLICIES)
    assert set(protocol.policy_rows.values()) <= set(data["rows"]) or not data["rows"]


def test_paper_settings_are_the_papers():
    arigraph, stma, davis = get_protocol("arigraph"), get_protocol("stma"), get_protocol("davis")
    assert {c.label: c.max_steps for c in arigraph.cells if c.label.startswith("Cooking")} == {
        "Cooking": 60, "Cooking Hard": 60, "Cooking Hardest": 60}
    assert {c.max_steps for c in arigraph.cells if not c.label.startswith("Cooking")} == {150}
    assert arigraph.best_of == (3, 5) and stma.winnable_only
    assert {(c.instances, c.max_steps) for c in stma.cells} == {(8, 50)}
    assert len(davis.cells) == 30 and {(len(c.game_seeds), c.max_steps) for c in davis.cells} == {(3, 100)}
    assert {gym.spec(c.env_id).kwargs["task"] for c in davis.cells} == {
        gym.spec(i).kwargs["task"] for i in gym.registry if i.startswith("TextMem/ScienceWorld-")}


def test_reproduce_stma_on_one_instance_prints_the_paper_column(tmp_path, capsys):
    out = tmp_path / "r.jsonl"
    assert main(["reproduce", "stma", "--policy", "random", "--cell", "Level 1", "--limit-instances", "1",
                 "--quiet", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    header = next(line for line in printed.splitlines() if line.startswith("| column"))
    assert "random: score" in header and "paper: STMA(GPT-4o)" in header
    level1 = published("stma")["rows"]["STMA(GPT-4o)"]["Level 1"]
    row = next(line for line in printed.splitlines() if line.startswith("| Level 1 "))
    assert f"{level1['score']:.3g} ± {level1['std']:.3g}" in row and "1 of 1 ✓" in row
    results = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["env_id"] for r in results] == ["TextMem/STMA-Cooking-L1-v0"] and "Table 1" in printed


def test_reproduce_arigraph_falls_back_to_our_game_and_says_so(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("TEXTMEM_ARIGRAPH_GAMES_DIR", str(tmp_path / "empty"))
    assert main(["reproduce", "arigraph", "--policy", "explorer", "--cell", "Cooking", "--limit-attempts", "1",
                 "--no-download", "--quiet"]) == 0
    printed = capsys.readouterr().out
    assert "paper: AriGraph" in printed and "explorer: score (best 3 of 5)" in printed
    assert f"| {published('arigraph')['rows']['AriGraph']['Cooking']['score']:.3g} |" in printed
    assert "generated TextMem/Cooking-v0: the paper's file is unavailable" in printed


@pytest.mark.skipif(not (ROMS / "zork1.z5").is_file(), reason="TEXTMEM_ROMS_DIR with the Jericho suite needed")
def test_unwinnable_instance_is_marked_and_a_paper_without_numbers_says_so(capsys):
    assert main(["reproduce", "text-adventure-agent", "--policy", "random", "--cell", "zork1",
                 "--limit-attempts", "1", "--quiet"]) == 0
    printed = capsys.readouterr().out
    steps = instance_info("TextMem/Jericho-Zork1-v0", None, 100)["walkthrough_steps"]
    assert steps > 100 and f"UNWINNABLE, walkthrough {steps} > 100 steps" in printed
    assert "0 of 1 ✗" in printed and "published no numbers" in printed


def test_winnable_filter_skips_instances_whose_walkthrough_exceeds_the_limit():
    env_id, first = "TextMem/STMA-Cooking-L1-v0", 1001
    lengths = {seed: instance_info(env_id, seed)["walkthrough_steps"] for seed in range(first, first + 3)}
    limit = lengths[first + 2]
    assert lengths[first] > limit or lengths[first + 1] > limit  # the games differ: the filter has work to do
    expected = [seed for seed, steps in lengths.items() if steps <= limit]
    assert instance_seeds(env_id, len(expected), winnable=True, max_steps=limit) == expected
    assert instance_seeds(env_id, 2) == [first, first + 1]
    with pytest.raises(ValueError, match="can be won"):
        instance_seeds(env_id, 1, winnable=True, max_steps=1)


@pytest.mark.slow
def test_stma_level_4_game_seed_4242_cannot_be_won_in_50_turns_and_is_skipped():
    info = instance_info("TextMem/STMA-Cooking-L4-v0", 4242)
    assert info["step_limit"] == 50 and info["walkthrough_steps"] > 50 and info["winnable"] is False
    plan = plan_protocol(get_protocol("stma"), cells=["Level 4"], limit_instances=2)[0]
    assert all(plan.instances[seed]["winnable"] for seed in plan.game_seeds)
    assert all(not instance_info(plan.env_id, seed, 50)["winnable"] for seed in plan.skipped)


def test_reproduce_writes_each_instances_walkthrough_to_the_results_so_summary_marks_unwinnable(tmp_path, capsys):
    out = tmp_path / "r.jsonl"
    assert main(["reproduce", "stma", "--policy", "random", "--cell", "Level 1", "--limit-instances", "1",
                 "--max-steps", "3", "--include-unwinnable", "--quiet", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    steps = instance_info("TextMem/STMA-Cooking-L1-v0", 1001)["walkthrough_steps"]
    assert steps > 3 and f"game_seed=1001: UNWINNABLE, walkthrough {steps} > 3 steps" in printed
    (row,) = [json.loads(line) for line in out.read_text().splitlines()]
    assert (row["game_seed"], row["walkthrough_steps"], row["step_limit"], row["winnable"]) == (1001, steps, 3, False)
    assert main(["summary", str(out)]) == 0  # from the file alone
    table = capsys.readouterr().out.splitlines()
    assert "unwinnable" in table[0] and "| 1 of 1 ✗ |" in table[2]


def test_reproduce_with_two_workers_gives_the_rows_of_one_worker(tmp_path, capsys):
    files = {workers: tmp_path / f"w{workers}.jsonl" for workers in (1, 2)}
    for workers, out in files.items():
        assert main(["reproduce", "stma", "--policy", "random", "--cell", "Level 1", "--limit-instances", "2",
                     "--max-steps", "8", "--include-unwinnable", "--workers", str(workers), "--quiet",
                     "--out", str(out)]) == 0
    printed = capsys.readouterr().out.split("results:")

    def rows(path: Path) -> list[dict]:
        read = [json.loads(line) for line in path.read_text().splitlines()]
        return sorted(({k: v for k, v in r.items() if k != "wall_time_s"} for r in read),
                      key=lambda r: (r["game_seed"], r["seed"]))

    assert rows(files[1]) == rows(files[2]) and len(rows(files[2])) == 2
    assert all("winnable" in r and r["step_limit"] == 8 for r in rows(files[2]))
    table = [line for line in printed[1].splitlines() if line.startswith("| Level 1 ")]
    assert table == [line for line in printed[0].splitlines() if line.startswith("| Level 1 ")]


def test_reproduce_arigraph_nethack_reports_score_and_deepest_level_beside_table_1(tmp_path, capsys):
    out = tmp_path / "r.jsonl"
    assert main(["reproduce", "arigraph-nethack", "--policy", "netplay-heuristic", "--max-steps", "25",
                 "--limit-attempts", "2", "--quiet", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    protocol, data = get_protocol("arigraph-nethack"), published("arigraph-nethack")
    assert protocol.attempts == 3 and [c.env_id for c in protocol.cells] == [
        "TextMem/NetHack-RoomObs-v0", "TextMem/NetHack-LevelObs-v0"]
    assert {c.max_steps for c in protocol.cells} == {1000} and "agent decisions" in protocol.step_accounting
    header = next(line for line in printed.splitlines() if line.startswith("| column"))
    assert "netplay-heuristic: deepest level (mean ± sample std)" in header
    assert "paper: Ariadne deepest level" in header and "paper: NetPlay score" in header
    results = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(results) == 4 and all(isinstance(r["max_dungeon_level"], int) and r["max_dungeon_level"] >= 1
                                     for r in results)
    for label, env_id in (("Room obs", "TextMem/NetHack-RoomObs-v0"), ("Level obs", "TextMem/NetHack-LevelObs-v0")):
        levels = [r["max_dungeon_level"] for r in results if r["env_id"] == env_id]
        scores = [r["score"] for r in results if r["env_id"] == env_id]
        row = next(line for line in printed.splitlines() if line.startswith(f"| {label} "))
        netplay = data["rows"]["NetPlay"][label]
        assert f"{statistics.fmean(levels):.2f} ± {statistics.stdev(levels):.2f} (n=2)" in row
        assert f"{statistics.fmean(scores):.2f} ± {statistics.stdev(scores):.2f} (n=2)" in row
        assert f"{netplay['max_dungeon_level']:.2f} ± {netplay['max_dungeon_level_std']:.2f}" in row
    assert "| - | - |" in next(line for line in printed.splitlines() if line.startswith("| Level obs "))
    assert "? (no walkthrough)" in printed and all(r["winnable"] is None for r in results)
