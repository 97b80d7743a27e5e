"""Tiny trained models shared by the RL tests (a few hundred steps each).

Each model is trained once per test run, even under ``pytest -n 2``: the first worker trains
into a directory shared by the workers (under a file lock), the others load the saved run.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from filelock import FileLock

from baselines_rl.dqn import DQNArgs
from baselines_rl.dqn import train as train_dqn
from baselines_rl.ppo import PPOArgs
from baselines_rl.ppo import train as train_ppo
from baselines_rl.storage import load_model
from baselines_rl.train import TrainResult

L1 = "TextMem/CookingRL-L1-v0"


def _shared_run(tmp_path_factory: Any, name: str, train: Callable[[Any], TrainResult],
                make_args: Callable[[str], Any]) -> TrainResult:
    root = tmp_path_factory.getbasetemp().parent / "rl-runs"
    root.mkdir(exist_ok=True)
    run_dir, summary = root / name, root / f"{name}.json"
    with FileLock(str(root / f"{name}.lock")):
        if not summary.is_file():
            result = train(make_args(str(run_dir)))
            summary.write_text(json.dumps({"steps_per_second": result.steps_per_second,
                                           "final_eval": result.final_eval, "eval_history": result.eval_history}))
            return result
    data = json.loads(summary.read_text())
    model, _, _ = load_model(run_dir / "model.zip")
    return TrainResult(model, run_dir / "model.zip", Path(run_dir), data["steps_per_second"],
                       data["final_eval"], data["eval_history"])


@pytest.fixture(scope="session")
def ppo_run(tmp_path_factory):
    """MaskablePPO + DRRN, 2 envs in subprocesses, 256 steps, a checkpoint at 128."""
    return _shared_run(tmp_path_factory, "ppo", train_ppo, lambda out: PPOArgs(
        env_id=L1, total_timesteps=256, n_envs=2, n_steps=64, batch_size=32, n_epochs=2, max_episode_steps=20,
        eval_freq=0, eval_episodes=1, checkpoint_freq=128, out_dir=out))


@pytest.fixture(scope="session")
def dqn_run(tmp_path_factory):
    """Masked DQN + DRRN, 2 envs in this process, 200 steps (learning from step 64)."""
    return _shared_run(tmp_path_factory, "dqn", train_dqn, lambda out: DQNArgs(
        env_id=L1, total_timesteps=200, n_envs=2, learning_starts=64, batch_size=16, train_freq=2,
        target_update_interval=50, max_episode_steps=20, eval_freq=0, eval_episodes=1, subprocess=False,
        out_dir=out))
