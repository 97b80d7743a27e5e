"""Runner: episodes, evaluation over ids and seeds, resumability after a kill."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import gymnasium as gym
import pytest

import textmem_gym
from policies import BasePolicy, make_policy
from textmem_gym.results import ResultsFile

ROOT = Path(__file__).resolve().parents[1]
STABLE_FIELDS = ("score", "normalized_score", "won", "steps", "primitive_steps", "moves", "reward", "seed",
                 "episode")


def test_run_episode_reports_the_episode():
    env = gym.make("TextMem/CookingRL-L1-v0", privileged=True)
    result = run = textmem_gym.run_episode(env, make_policy("walkthrough"), seed=3)
    env.close()
    assert run["won"] and result["normalized_score"] == 1.0 and result["terminated"]
    assert result["reward"] == result["score"] == result["max_score"] == 4
    assert result["steps"] >= 4 and result["wall_time_s"] > 0


def test_evaluate_makes_privileged_envs_only_for_oracles():
    seen = []

    class Spy(BasePolicy):
        name = "spy"

        def reset(self, observation, info):
            seen.append(set(info))

        def act(self, observation, info):
            return "look"

        def observe(self, *args):
            pass

        def end_episode(self, info):
            pass

    textmem_gym.evaluate("TextMem/CookingRL-L1-v0", Spy(), textmem_gym.EvalConfig(max_steps=2))
    assert not {"facts", "walkthrough"} & seen[0]
    results = textmem_gym.evaluate("TextMem/CookingRL-L1-v0", "walkthrough", textmem_gym.EvalConfig(episodes=2, seed=5))
    assert [r["seed"] for r in results] == [5, 6] and all(r["won"] for r in results)


def test_same_seed_same_results():
    runs = [textmem_gym.evaluate("TextMem/CookingRL-L1-v0", "random", textmem_gym.EvalConfig(episodes=2, seed=11, max_steps=25))
            for _ in range(2)]
    assert [[r[f] for f in STABLE_FIELDS] for r in runs[0]] == [[r[f] for f in STABLE_FIELDS] for r in runs[1]]


def _cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "textmem_gym.cli", *args]


@pytest.mark.parametrize("workers", ["1", "2"])
def test_killed_evaluation_resumes_without_duplicates_or_losses(tmp_path, workers):
    args = ["eval", "TextMem/CookingRL-L1-v0", "--policy", "random", "--episodes", "6", "--seed", "0",
            "--max-steps", "40", "--quiet", "--workers", workers]
    interrupted, reference = tmp_path / "interrupted.jsonl", tmp_path / "reference.jsonl"
    proc = subprocess.Popen(_cli(*args, "--out", str(interrupted)), cwd=ROOT,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 300
    while len(ResultsFile(interrupted).read()) < 2 and time.time() < deadline and proc.poll() is None:
        time.sleep(0.05)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    done_before = len(ResultsFile(interrupted).read())
    assert 2 <= done_before < 6
    for out in (interrupted, reference):
        subprocess.run(_cli(*args, "--out", str(out)), cwd=ROOT, check=True, capture_output=True)
    resumed, full = ResultsFile(interrupted).read(), ResultsFile(reference).read()
    assert sorted(r["seed"] for r in resumed) == list(range(6))
    key = lambda r: r["seed"]  # noqa: E731
    assert [[r[f] for f in STABLE_FIELDS] for r in sorted(resumed, key=key)] == \
        [[r[f] for f in STABLE_FIELDS] for r in sorted(full, key=key)]


def test_results_report_decisions_and_primitive_moves_with_macro_actions():
    from textmem_gym.wrappers import MemoryGraphWrapper

    class GoBack(BasePolicy):
        name = "go-back"
        commands = ["go south", "go east", "go to livingroom"]

        def reset(self, observation, info):
            self.queue = list(self.commands)

        def act(self, observation, info):
            return self.queue.pop(0) if self.queue else "look"

        def observe(self, *args):
            pass

        def end_episode(self, info):
            pass

    results = textmem_gym.evaluate("TextMem/Cooking-v0", GoBack(), textmem_gym.EvalConfig(max_steps=4, wrap=MemoryGraphWrapper))
    assert (results[0]["steps"], results[0]["primitive_steps"]) == (3, 4)
