"""Trajectories: written per step by run_episode, read back, crash-safe, with LLM calls; ``replay``."""

from __future__ import annotations

import json

import gymnasium as gym
import pytest

import textmem_gym  # noqa: F401  (registers ids)
from policies import make_policy
from textmem_gym.cli import main
from textmem_gym.llm import Fault, LocalOpenAIServer
from textmem_gym.runner import run_episode
from textmem_gym.trajectories import TrajectoryWriter, find_trajectory, read_trajectory, text_key, trajectory_path

GAME = "TextMem/CookingRL-L1-v0"


def play(policy_name, path, steps=12, prompts="full", **kwargs):
    policy = make_policy(policy_name, **kwargs)
    env = policy.wrap_env(gym.make(GAME, max_episode_steps=steps))
    try:
        return run_episode(env, policy, seed=0, trajectory=path, trajectory_prompts=prompts,
                           trajectory_header={"episode": 0, "game_seed": None})
    finally:
        env.close()


def test_explorer_trajectory_has_every_step_with_memory_and_macro_commands(tmp_path):
    result = play("explorer", tmp_path / "t.jsonl", steps=25)
    trajectory = read_trajectory(result["trajectory"])
    assert trajectory.complete and trajectory.result["score"] == result["score"]
    header = trajectory.header
    assert (header["env_id"], header["policy"], header["seed"], header["episode"]) == (GAME, "explorer", 0, 0)
    assert header["memory"] == "AriGraphMemory" and header["max_episode_steps"] == 25
    assert header["policy_class"] == "policies.explorer:ExplorerPolicy"
    assert [s["step"] for s in trajectory.steps] == list(range(1, result["steps"] + 1))
    assert trajectory.reset["action"] is None and trajectory.reset["belief"].startswith("Current location")
    last = trajectory.steps[-1]
    assert last["score"] == result["score"] and last["truncated"] == result["truncated"]
    believed = trajectory.series("memory.believed")
    assert believed[-1] > believed[0] > 0 and all(isinstance(n, int) for n in trajectory.series("admissible"))
    assert sum(len(s["commands"]) for s in trajectory.steps) == result["primitive_steps"]
    macros = [s for s in trajectory.steps if s["action"].startswith("go to ")]
    assert all(c.startswith(("go ", "open ")) for s in macros for c in s["commands"])
    assert {"triples", "episodes", "location"} <= set(trajectory.memory_graph)


def test_random_trajectory_has_no_belief_and_no_memory(tmp_path):
    result = play("random", tmp_path / "r.jsonl", steps=5)
    trajectory = read_trajectory(result["trajectory"])
    assert [s["belief"] for s in trajectory.steps] == [None] * 5
    assert trajectory.memory_graph is None and trajectory.header["memory"] is None
    assert [s["commands"] for s in trajectory.steps] == [[s["action"]] for s in trajectory.steps]


def answer(messages):
    prompt = messages[-1]["content"]
    if "action selector" in prompt:
        return json.dumps({"reason_for_action": "x", "action_to_take": "look"})
    return json.dumps({"main_goal": "g", "plan_steps": [{"sub_goal_1": "look", "reason": "r"}]})


@pytest.mark.llm
def test_llm_calls_of_each_step_are_recorded_in_full_or_as_keys(tmp_path):
    faults = [None, None, Fault("500", times=5)]
    fast = {"timeout": 2.0, "max_retries": 1, "backoff_base": 0.001, "backoff_max": 0.01}
    with LocalOpenAIServer(responder=answer, faults=faults) as server:
        full = read_trajectory(play("react", tmp_path / "full.jsonl", steps=3, model="m",
                                    base_url=server.base_url, **fast)["trajectory"])
        keys = read_trajectory(play("react", tmp_path / "keys.jsonl", steps=3, prompts="keys", model="m",
                                    base_url=server.base_url, **fast)["trajectory"])
    calls = [c for s in full.steps for c in s["llm_calls"]]
    stats = full.result["policy_stats"]
    assert len(calls) == sum(stats["calls_by_kind"].values()) + sum(stats["llm_errors"].values()) == 3
    answered = [c for c in calls if c["fallback"] is None]
    assert answered and all(c["prompt"] and c["answer"] and c["prompt_tokens"] > 0 for c in answered)
    failed = [c for c in calls if c["fallback"]]
    assert len(failed) == 1 and failed[0]["fallback"].startswith("llm_error: ") and failed[0]["answer"] is None
    assert keys.header["prompts"] == "keys"
    key_calls = [c for s in keys.steps for c in s["llm_calls"]]
    assert key_calls and all("prompt" not in c and len(c["prompt_key"]) == 64 for c in key_calls)
    ok = [c for c in key_calls if c["fallback"] is None]
    assert ok and ok[0]["answer_key"] == text_key(answered[0]["answer"])


def test_a_crashed_episode_is_readable_and_a_rerun_replaces_it(tmp_path):
    path = tmp_path / "crash.jsonl"
    writer = TrajectoryWriter(path)
    writer.header(env_id=GAME, policy="x", seed=0)
    writer.reset("start", {"score": 0})
    writer.step(1, "look", "A room.", 0.0, False, False, {"score": 0})
    with path.open("a", encoding="utf-8") as handle:  # the line a kill interrupted
        handle.write('{"type": "step", "step": 2, "act')
    writer.close()
    partial = read_trajectory(path)
    assert not partial.complete and [s["step"] for s in partial.steps] == [1]
    result = play("random", path, steps=3)
    rerun = read_trajectory(path)
    assert rerun.complete and [s["step"] for s in rerun.steps] == [1, 2, 3] and rerun.result == {
        k: v for k, v in result.items() if k != "trajectory"}
    assert sum(1 for line in path.read_text().splitlines() if '"header"' in line) == 1


def test_trajectory_paths_are_safe_and_distinct(tmp_path):
    keys = [("TextMem/Cooking-v0", "explorer", 0, 0, None), ("TextMem/Cooking-v0", "explorer", 1, 1, None),
            ("TextMem/Cooking-v0", "explorer", 0, 0, 3), ("TextMem/Cooking-v0", "rl:/a/b.zip", 0, 0, None),
            ("TextMem/Cooking-v0", "rl:/a_b.zip", 0, 0, None), ("TextMem/Cooking-v0", "x" * 300, 0, 0, None)]
    paths = [trajectory_path(tmp_path, key) for key in keys]
    assert len(set(paths)) == len(keys) and all(p.parent == tmp_path and len(p.name) < 200 for p in paths)
    row = {"env_id": "TextMem/Cooking-v0", "policy": "explorer", "seed": 0, "episode": 0, "game_seed": None}
    assert trajectory_path(tmp_path, row) == paths[0]


def test_default_game_names_have_no_none_and_old_names_are_still_found(tmp_path):
    key = ("TextMem/Cooking-v0", "explorer", 0, 0, None)
    assert trajectory_path(tmp_path, key).name == "TextMem_Cooking-v0.explorer.s0.e0.gdefault.jsonl"
    assert "None" not in trajectory_path(tmp_path, ("E", "rl:/a/b.zip", 0, 0, None, "1f0e")).name
    assert find_trajectory(tmp_path, key) is None
    old = tmp_path / "TextMem_Cooking-v0.explorer.s0.e0.gNone.jsonl"
    old.write_text("")
    assert find_trajectory(tmp_path, key) == old
    trajectory_path(tmp_path, key).write_text("")
    assert find_trajectory(tmp_path, key) == trajectory_path(tmp_path, key)


def test_not_a_trajectory_is_refused(tmp_path):
    path = tmp_path / "results.jsonl"
    path.write_text('{"env_id": "E"}\n')
    with pytest.raises(ValueError, match="not a textmem_gym trajectory"):
        read_trajectory(path)
    with pytest.raises(ValueError, match="prompts"):
        TrajectoryWriter(tmp_path / "t.jsonl", prompts="some")


def test_replay_prints_the_episode_step_by_step(tmp_path, capsys):
    result = play("explorer", tmp_path / "e.jsonl", steps=6)
    assert main(["replay", result["trajectory"]]) == 0
    out = capsys.readouterr().out
    trajectory = read_trajectory(result["trajectory"])
    assert GAME in out and "[0] (start)" in out
    assert all(f"[{s['step']}] > {s['action']}" in out for s in trajectory.steps)
    assert f"score {result['score']:g}/{result['max_score']:g}" in out
