"""TALES: its game list and parameters, the restart-within-budget scoring on real TWX games, and the
report beside the leaderboard (walkthrough 100 on TWX games, a missing ROM listed, resumable rows)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import gymnasium as gym
import pytest

import textmem_gym  # noqa: F401
from textmem_gym.envs.instances import instance_info
from textmem_gym.envs.twx.ids import check_params
from textmem_gym.protocols import get_protocol, published
from textmem_gym.protocols.restarts import RESTART_MARK, RestartWithinBudget
from textmem_gym.protocols.run import format_report, plan_protocol, run_protocol
from textmem_gym.protocols.tales import FRAMEWORKS, PROTOCOL, TWX_GAMES, framework_of

#: ScienceWorld games whose gold path (first test variation) is longer than TALES's 100 commands:
#: label -> (commands in it, score % its first 100 commands reach), measured once with ScienceWorld 1.x.
GOLD_LONGER_THAN_BUDGET: dict[str, tuple[int, int]] = {
    "ScienceWorldInclinedPlaneFrictionNamedSurfaces": (111, 40),
    "ScienceWorldInclinedPlaneFrictionUnnamedSurfaces": (192, 40),
    "ScienceWorldMendelianGeneticsKnownPlant": (148, 32),
    "ScienceWorldMendelianGeneticsUnknownPlant": (145, 34),
}


def test_game_list_matches_tales_frameworks_and_parameters():
    labels = [cell.label for cell in PROTOCOL.cells]
    counts = {name: sum(framework_of(label) == name for label in labels) for name in FRAMEWORKS.values()}
    assert counts == {"TextWorld Express": 16, "ScienceWorld": 30, "Jericho": 54}
    assert len(set(labels)) == len(labels) and get_protocol("tales") is PROTOCOL
    assert {"JerichoEnvHollywood", "JerichoEnvTheatre", "JerichoEnvLgop"}.isdisjoint(labels)
    for cell in PROTOCOL.cells:
        gym.spec(cell.env_id)  # registered
        assert cell.max_steps == 100
    twx = PROTOCOL.cells[:16]
    for cell in twx:
        assert check_params(gym.spec(cell.env_id).kwargs["game"], cell.env_kwargs) == dict(cell.env_kwargs)
    assert len({(c.env_id, tuple(sorted(c.env_kwargs.items()))) for c in twx}) == 16
    assert len({c.env_id for c in twx}) == 16, "results rows are keyed by id: one id per game"
    assert gym.spec(TWX_GAMES["SimonSaysWithMemory50Verbose"][0]).kwargs == {
        "game": "simonsays", "gameLength": 50, "numDistractors": 4, "memorization": 1, "verbose": 1}
    science = next(c for c in PROTOCOL.cells if c.label == "ScienceWorldChangeTheStateOfMatterOf")
    assert science.env_kwargs == {"simplification": ""}


def test_leaderboard_is_stored_with_its_source():
    data = published("tales")
    assert "microsoft/tale-suite" in data["source"] and len(data["rows"]) == 40
    o3 = data["rows"]["o3 (medium)"]
    assert {c: o3[c]["score"] for c in ("TextWorld Express", "ScienceWorld", "Jericho")} == {
        "TextWorld Express": 91.9, "ScienceWorld": 93.0, "Jericho": 15.7}
    assert all(set(row) == set(data["columns"]) for row in data["rows"].values())


@pytest.mark.java
def test_a_lost_game_restarts_within_the_budget_and_the_best_score_counts():
    env = RestartWithinBudget(gym.make("TextMem/TWX-Arithmetic-v0", privileged=["walkthrough"], max_episode_steps=9))
    try:
        _, info = env.reset(seed=0)
        walkthrough = info["walkthrough"]
        answer = walkthrough[-1].removeprefix("put ").removesuffix(" in box")
        wrong = next(c.removeprefix("take ") for c in info["admissible_commands"]
                     if c.startswith("take ") and c != f"take {answer}" and c != "take math problem")
        env.step(f"take {wrong}")
        obs, _, terminated, truncated, info = env.step(f"put {wrong} in box")
        assert RESTART_MARK in obs and info["restarted"] and not (terminated or truncated)
        assert info["metrics"] == {"wins": 0, "losses": 1, "restarts": 1} and info["lost"] and not info["won"]
        for command in walkthrough[:4]:
            obs, _, terminated, truncated, info = env.step(command)
        assert not (terminated or truncated) and info["game_score"] == info["score"]
        obs, _, terminated, truncated, info = env.step(walkthrough[4])
        assert terminated and info["won"] and not info["lost"] and info["normalized_score"] == 1.0
        assert info["metrics"]["wins"] == 1
        env.reset(seed=0)
        for _ in range(9):
            _, _, terminated, truncated, info = env.step("dance")
        assert truncated and not terminated and info["score"] == 0
    finally:
        env.close()


@pytest.mark.java
def test_walkthrough_scores_100_on_twx_games_a_missing_rom_is_listed_and_rows_resume(tmp_path, monkeypatch):
    roms = os.environ.get("TEXTMEM_ROMS_DIR")
    if roms and (Path(roms) / "zork1.z5").is_file():  # planned first with the real ROMs (memoized) ...
        assert instance_info("TextMem/Jericho-Zork1-v0")["walkthrough_steps"]
    monkeypatch.setenv("TEXTMEM_ROMS_DIR", str(tmp_path))  # no ROM here, and no server to download from
    monkeypatch.setenv("TEXTMEM_ROMS_URL", "http://127.0.0.1:9")
    monkeypatch.setenv("TEXTMEM_CACHE_DIR", str(tmp_path / "cache"))
    # ... and not "found" here: the planner's memoized walkthrough lengths are keyed by the settings too
    cells = ["TWXCoinCollector", "TWXArithmetic", "JerichoEnvZork1"]
    out = tmp_path / "tales.jsonl"
    plan = plan_protocol(PROTOCOL, cells=cells)
    assert "not found" in plan[2].unavailable and plan[0].instances[None]["winnable"]
    played = run_protocol(PROTOCOL, "walkthrough", plan=plan, out=out)
    report = format_report(PROTOCOL, played, "walkthrough", ["o3 (medium)"])
    assert "| TWXCoinCollector | TextWorld Express | TextMem/TWX-CoinCollector-v0 | yes | 100.0 | 1/0/0 |" in report
    assert "| TWXArithmetic | TextWorld Express | TextMem/TWX-Arithmetic-v0 | yes | 100.0 | 1/0/0 |" in report
    assert "| JerichoEnvZork1 | Jericho | not played |" in report and "ALFWorld" in report
    assert "| walkthrough (ours) | not played | 100.0 (2 of 16 games) |" in report
    assert "| TALES: o3 (medium) | 100.0 | 91.9 | 88.3 | 93.0 | 15.7 | 58.7 |" in report
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["env_id"] for r in rows] == ["TextMem/TWX-CoinCollector-v0", "TextMem/TWX-Arithmetic-v0"]
    assert rows[0]["restarts"] == 0 and rows[0]["wins"] == 1
    assert rows[0]["steps"] == rows[0]["walkthrough_steps"] == plan[0].instances[None]["walkthrough_steps"]
    again = run_protocol(PROTOCOL, "walkthrough", plan=plan, out=out)
    assert len(out.read_text().splitlines()) == 2, "a re-run must not play finished games again"
    assert format_report(PROTOCOL, again, "walkthrough", ["o3 (medium)"]) == report


def _walkthrough_scores(cells, tmp_path):
    """Plays ``cells`` with the walkthrough: label -> (walkthrough length, fits, score %, wins)."""
    plan = plan_protocol(PROTOCOL, cells=cells)
    played = run_protocol(PROTOCOL, "walkthrough", plan=plan, out=tmp_path / "walkthrough.jsonl")
    scores = {}
    for item in played:
        (instance,) = item.plan.instances.values()
        (row,) = item.results
        scores[item.plan.cell.label] = (instance["walkthrough_steps"], instance["winnable"],
                                        round(100 * row["normalized_score"]), row["wins"])
    return scores


@pytest.mark.slow
@pytest.mark.java
def test_walkthrough_scores_100_on_scienceworld_games(tmp_path):
    """One task of four ScienceWorld families (measure, find, chemistry, lifespan), as TALES plays them."""
    cells = ["ScienceWorldUseThermometer", "ScienceWorldFindNonLivingThing",
             "ScienceWorldChemistryMixPaintSecondaryColor", "ScienceWorldLifespanLongestLived"]
    scores = _walkthrough_scores(cells, tmp_path)
    assert {label: score[1:] for label, score in scores.items()} == {label: (True, 100, 1) for label in cells}


@pytest.mark.exhaustive
@pytest.mark.slow
@pytest.mark.java
def test_walkthrough_scores_100_on_every_scienceworld_game_whose_gold_path_fits(tmp_path):
    """All 30 (about 7 minutes): 100 wherever ScienceWorld's gold path fits in 100 commands; the four
    longer ones are flagged as not fitting and reach the recorded partial score."""
    cells = [cell.label for cell in PROTOCOL.cells if framework_of(cell.label) == "ScienceWorld"]
    scores = _walkthrough_scores(cells, tmp_path)
    longer = {label: (steps, score) for label, (steps, fits, score, _) in scores.items() if not fits}
    assert longer == GOLD_LONGER_THAN_BUDGET
    assert {label: s[2:] for label, s in scores.items() if label not in longer} == {
        label: (100, 1) for label in cells if label not in longer}
