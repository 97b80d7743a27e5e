"""Tiny trained models shared by the RL tests (trained once per session: a few hundred steps)."""

from __future__ import annotations

import pytest

from baselines_rl.dqn import DQNArgs
from baselines_rl.dqn import train as train_dqn
from baselines_rl.ppo import PPOArgs
from baselines_rl.ppo import train as train_ppo

L1 = "TextMem/CookingRL-L1-v0"


@pytest.fixture(scope="session")
def ppo_run(tmp_path_factory):
    """MaskablePPO + DRRN, 2 envs in subprocesses, 256 steps, a checkpoint at 128."""
    args = PPOArgs(env_id=L1, total_timesteps=256, n_envs=2, n_steps=64, batch_size=32, n_epochs=2,
                   max_episode_steps=20, eval_freq=0, eval_episodes=1, checkpoint_freq=128,
                   out_dir=str(tmp_path_factory.mktemp("ppo")))
    return train_ppo(args)


@pytest.fixture(scope="session")
def dqn_run(tmp_path_factory):
    """Masked DQN + DRRN, 2 envs in this process, 200 steps (learning from step 64)."""
    args = DQNArgs(env_id=L1, total_timesteps=200, n_envs=2, learning_starts=64, batch_size=16, train_freq=2,
                   target_update_interval=50, max_episode_steps=20, eval_freq=0, eval_episodes=1,
                   subprocess=False, out_dir=str(tmp_path_factory.mktemp("dqn")))
    return train_dqn(args)
