"""Masked actions are never chosen: MaskablePPO (DRRN and MLP policies) and masked DQN."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from baselines_rl.common import EnvSpec, make_vec_env
from baselines_rl.dqn import MASKED_Q, DQNArgs, MaskedDQN
from baselines_rl.dqn import build_model as build_dqn
from baselines_rl.drrn import DRRNEncoder, DRRNScorer
from baselines_rl.ppo import PPOArgs
from baselines_rl.ppo import build_model as build_ppo

L1 = "TextMem/CookingRL-L1-v0"


@pytest.fixture(scope="module")
def observations():
    """Encoded observations along a seeded random walk (states with 19 to 34 commands)."""
    env = EnvSpec(L1).make()
    rng = np.random.default_rng(0)
    obs, _ = env.reset(seed=0)
    collected = [obs]
    for _ in range(11):
        action = rng.choice(np.flatnonzero(env.get_wrapper_attr("action_masks")()))
        obs, _, terminated, truncated, _ = env.step(int(action))
        collected.append(obs)
        if terminated or truncated:
            obs, _ = env.reset(seed=1)
    env.close()
    return {k: np.stack([o[k] for o in collected]) for k in collected[0]}


@pytest.fixture(scope="module")
def vec_env():
    venv = make_vec_env(EnvSpec(L1, env_kwargs={"max_episode_steps": 5}), n_envs=1, seed=0, subprocess=False)
    yield venv
    venv.close()


def _repeat(batch, times):
    return {k: np.repeat(v, times, axis=0) for k, v in batch.items()}


@pytest.mark.parametrize("model", ["drrn", "mlp"])
def test_maskable_ppo_samples_only_allowed_actions(vec_env, observations, model):
    ppo = build_ppo(PPOArgs(model=model, seed=1), vec_env)
    batch = _repeat(observations, 50)
    actions, _ = ppo.predict(batch, deterministic=False, action_masks=batch["action_mask"].astype(bool))
    assert batch["action_mask"][np.arange(len(actions)), actions].all()
    assert len(set(actions.tolist())) > 5, "sampling should spread over the allowed commands"


@pytest.mark.parametrize("model", ["drrn", "mlp"])
def test_masked_dqn_greedy_and_exploration_pick_allowed_actions(vec_env, observations, model):
    dqn = build_dqn(DQNArgs(model=model, seed=1), vec_env)
    assert isinstance(dqn, MaskedDQN)
    batch = _repeat(observations, 20)
    greedy, _ = dqn.predict(batch, deterministic=True)
    dqn.exploration_rate = 1.0
    explored, _ = dqn.predict(batch, deterministic=False)
    dqn._last_obs, dqn.num_timesteps = batch, 0
    warmup, _ = dqn._sample_action(learning_starts=10, n_envs=len(greedy))
    for actions in (greedy, explored, warmup):
        assert batch["action_mask"][np.arange(len(actions)), actions].all()
    with torch.no_grad():
        q_values = dqn.q_net(dqn.policy.obs_to_tensor(batch)[0])
    assert (q_values[torch.as_tensor(batch["action_mask"]) == 0] == MASKED_Q).all()


def test_drrn_scores_follow_their_commands_and_mask_empty_slots(observations):
    encoder = DRRNEncoder(EnvSpec(L1).make().observation_space)
    scorer = DRRNScorer(encoder.hidden_dim, encoder.max_commands)
    obs = {k: torch.as_tensor(v[:1]).float() for k, v in observations.items()}
    n = int(obs["action_mask"].sum())
    scores = scorer(encoder(obs))[0]
    assert torch.isinf(scores[n:]).all() and torch.isfinite(scores[:n]).all()
    rows = obs["commands"].reshape(1, encoder.max_commands, -1)
    order = torch.cat([torch.arange(n).flip(0), torch.arange(n, encoder.max_commands)])
    swapped = dict(obs, commands=rows[:, order].reshape(1, -1))
    assert torch.allclose(scorer(encoder(swapped))[0][:n], scores[:n].flip(0), atol=1e-5)
