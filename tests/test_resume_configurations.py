"""Resume never mixes policy configurations: two configurations of one policy written to one
results file are different episodes (both recorded, each skipped on a re-run), and each gets its
own trajectory file."""

from __future__ import annotations

import json

from textmem_gym.llm import LocalOpenAIServer
from textmem_gym.results import ResultsFile, episode_key, summarize
from textmem_gym.runner import EvalConfig, evaluate
from textmem_gym.trajectories import read_trajectory, trajectory_path

GAME = "TextMem/CookingRL-L1-v0"


class Counting:
    """A model that always plays ``look`` and counts the requests it answers."""

    def __init__(self) -> None:
        self.requests = 0

    def __call__(self, messages: list[dict[str, str]]) -> str:
        self.requests += 1
        if "action selector" in messages[-1]["content"]:
            return json.dumps({"reason_for_action": "x", "action_to_take": "look"})
        return json.dumps({"main_goal": "g", "plan_steps": [{"sub_goal_1": "look", "reason": "r"}]})


def test_two_configurations_in_one_file_are_both_recorded_and_both_resumed(tmp_path):
    out, folder, model = tmp_path / "results.jsonl", tmp_path / "trajectories", Counting()
    with LocalOpenAIServer(responder=model) as server:
        def run(n_prev: int) -> list[dict]:
            return evaluate(GAME, "full-history", EvalConfig(episodes=2, max_steps=2, out=out, trajectories=folder,
                            policy_kwargs={"model": "m", "base_url": server.base_url, "n_prev": n_prev}))

        first, second = run(1), run(3)
        rows = ResultsFile(out).read()
        assert len(rows) == 4, "the second configuration was not skipped as if it were the first"
        assert sorted(r["policy_config"]["n_prev"] for r in rows) == [1, 1, 3, 3]
        assert len({episode_key(r) for r in rows}) == 4
        assert [r["policy_config"]["n_prev"] for r in first] == [1, 1]
        assert [r["policy_config"]["n_prev"] for r in second] == [3, 3]
        calls = model.requests
        again = run(1) + run(3)
        assert model.requests == calls, "a re-run played an episode already recorded"
        assert len(ResultsFile(out).read()) == 4
        assert again == first + second
    paths = {trajectory_path(folder, r) for r in rows}
    assert len(paths) == 4 and all(p.is_file() for p in paths)
    assert sorted(read_trajectory(p).header["policy_kwargs"]["n_prev"] for p in paths) == [1, 1, 3, 3]
    table = summarize(rows)
    assert sorted(r["policy"] for r in table) == ["full-history[n_prev=1]", "full-history[n_prev=3]"]


def test_rows_without_a_configuration_keep_their_key_and_trajectory_name(tmp_path):
    row = {"env_id": GAME, "policy": "random", "seed": 0, "episode": 0, "game_seed": None}
    out = tmp_path / "old.jsonl"
    ResultsFile(out).append({**row, "normalized_score": 0.0, "won": False, "steps": 2})
    assert episode_key(row) == (GAME, "random", 0, 0, None, None)
    assert trajectory_path(tmp_path, row).name == "TextMem_CookingRL-L1-v0.random.s0.e0.gdefault.jsonl"
    resumed = evaluate(GAME, "random", EvalConfig(episodes=1, max_steps=2, out=out))
    assert resumed[0]["steps"] == 2 and "wall_time_s" not in resumed[0], "the old row was played again"
    assert len(ResultsFile(out).read()) == 1
