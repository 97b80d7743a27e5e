"""The papers' protocols: definitions match the registered ids and the published data, ``reproduce``
prints our numbers beside the paper's on a tiny subset, instances that cannot be won are skipped or marked."""

from __future__ import annotations

import json
import os
from pathlib import Path

import gymnasium as gym
import pytest

import textmem_gym  # noqa: F401
from policies.registry import POLICIES
from textmem_gym.cli import main
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
    assert set(data["columns"]) <= set(labels)  # every published column is played
    for row in data["rows"].values():
        assert set(row) <= set(data["columns"]) and all("score" in value for value in row.values())
    assert protocol.own_row is None or protocol.own_row in data["rows"]
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
