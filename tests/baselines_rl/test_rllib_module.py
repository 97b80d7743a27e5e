"""The RLlib pieces without a cluster: the masked observation layout and the masked RLModule."""

from __future__ import annotations

import numpy as np
import pytest
import torch

pytest.importorskip("ray.rllib")

from ray.rllib.core.columns import Columns  # noqa: E402
from ray.rllib.core.distribution.torch.torch_distribution import TorchCategorical  # noqa: E402

from baselines_rl.common import EnvSpec  # noqa: E402
from baselines_rl.rllib_module import MaskedCommandModule, make_rllib_env  # noqa: E402
from baselines_rl.rllib_ppo import RLlibPPOArgs, build_config, episode_row  # noqa: E402

L1 = "TextMem/CookingRL-L1-v0"


def _batch(observation: dict) -> dict:
    return {k: _batch(v) for k, v in observation.items()} if isinstance(observation, dict) \
        else torch.as_tensor(np.asarray(observation))[None]


@pytest.mark.parametrize("model", ["drrn", "mlp"])
def test_module_never_samples_a_masked_command(model: str) -> None:
    env = make_rllib_env({"spec": EnvSpec(L1, env_kwargs={"max_episode_steps": 6}).to_dict()})
    module = MaskedCommandModule(observation_space=env.observation_space, action_space=env.action_space,
                                 model_config={"model": model, "embedding_dim": 8, "hidden_dim": 16})
    obs, _ = env.reset(seed=0)
    done, steps = False, 0
    while not done:
        mask = obs["action_mask"]
        assert 0 < mask.sum() < len(mask)
        out = module.forward_exploration({Columns.OBS: _batch(obs)})
        logits = out[Columns.ACTION_DIST_INPUTS]
        actions = TorchCategorical.from_logits(logits.expand(500, -1)).sample()
        assert set(np.asarray(actions).tolist()) <= set(np.flatnonzero(mask).tolist())  # only admissible slots
        assert module.compute_values({Columns.OBS: _batch(obs)}).shape == (1,)
        obs, _, terminated, truncated, info = env.step(int(actions[0]))
        done, steps = terminated or truncated, steps + 1
        assert not info["invalid_action"]
    row = episode_row(info)  # the last info carries the episode's totals
    assert row["steps"] == steps and row["invalid_actions"] == 0
    assert row["normalized_score"] == info["normalized_score"]
    env.close()


def test_config_carries_sb3_hyperparameters_and_fault_tolerance() -> None:
    args = RLlibPPOArgs(n_envs=3, n_steps=16, batch_size=8, n_epochs=2, ent_coef=0.03, memory="arigraph")
    config = build_config(args, args.env_spec())
    assert (config.num_env_runners, config.train_batch_size_per_learner, config.minibatch_size) == (3, 48, 8)
    assert (config.num_epochs, config.entropy_coeff, config.use_kl_loss) == (2, 0.03, False)
    assert config.restart_failed_env_runners
    assert EnvSpec.from_dict(config.env_config["spec"]).memory == "arigraph"  # ids and options, not an env
