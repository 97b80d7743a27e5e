"""MaskablePPO trains through ``gym.make_vec(..., vectorization_mode="async")``: two envs with a memory,
encoded for RL, adapted to SB3 by :class:`baselines_rl.vector.GymnasiumVecEnv`."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

import gymnasium as gym
import numpy as np
import pytest
from sb3_contrib import MaskablePPO
from stable_baselines3.common.vec_env import VecMonitor

import textmem_gym  # noqa: F401  (registers ids)
from baselines_rl.vector import GymnasiumVecEnv
from textmem_gym.wrappers import MemoryGraphWrapper, TextEncodingWrapper

L1 = "TextMem/CookingRL-L1-v0"
WRAPPERS: list[Callable[[gym.Env], gym.Wrapper]] = [partial(MemoryGraphWrapper, memory="arigraph"),
                                                    partial(TextEncodingWrapper, max_commands=32)]


def make_vector(mode: str = "async", **vector_kwargs) -> gym.vector.VectorEnv:
    return gym.make_vec(L1, num_envs=2, vectorization_mode=mode, max_episode_steps=6, wrappers=WRAPPERS,
                        vector_kwargs={"autoreset_mode": gym.vector.AutoresetMode.SAME_STEP, **vector_kwargs})


def test_maskable_ppo_trains_on_two_async_envs_with_memory():
    venv = VecMonitor(GymnasiumVecEnv(make_vector()))
    try:
        model = MaskablePPO("MultiInputPolicy", venv, n_steps=16, batch_size=16, n_epochs=1, seed=0,
                            device="cpu", policy_kwargs={"net_arch": [32]})
        model.learn(total_timesteps=64)
        assert model.num_timesteps == 64
        buffer = model.rollout_buffer
        masks = buffer.action_masks.reshape(-1, 32)
        assert masks.any(axis=1).all() and not masks.all(), "the envs' masks (some commands only) were used"
        chosen = buffer.actions.reshape(-1).astype(int)
        assert masks[np.arange(len(chosen)), chosen].all(), "only allowed commands were chosen"
        assert buffer.observations["belief"].any(), "the memory's belief reached the policy"
        lengths = [int(info["l"]) for info in model.ep_info_buffer or []]
        assert len(lengths) >= 8 and all(1 <= n <= 6 for n in lengths), "episodes ended (won, or at the step limit)"
    finally:
        venv.close()


def test_finished_episodes_give_sb3_their_terminal_observation():
    venv = GymnasiumVecEnv(make_vector("sync"))
    try:
        venv.seed(3)
        first = venv.reset()
        assert first["action_mask"].shape == (2, 32) and venv.reset_infos[0]["location"] == "kitchen"
        for _ in range(6):  # the step limit ends the episodes at the latest
            masks = np.stack(venv.env_method("action_masks"))
            observations, rewards, dones, infos = venv.step(masks.argmax(axis=1))
            if dones.any():
                break
        assert dones.any() and rewards.dtype == np.float32
        for i in np.flatnonzero(dones):
            terminal = infos[i]["terminal_observation"]
            assert set(terminal) == set(observations) and isinstance(infos[i]["TimeLimit.truncated"], bool)
            assert not np.array_equal(terminal["belief"], observations["belief"][i]), "the next episode's start"
            assert venv.reset_infos[i]["location"] == "kitchen" and infos[i]["steps"]["decisions"] >= 1
        assert venv.get_attr("lazy_belief") == [True, True] and venv.env_is_wrapped(MemoryGraphWrapper) == [True, True]
    finally:
        venv.close()


def test_sb3_needs_finished_envs_reset_in_the_same_step():
    vector = gym.make_vec(L1, num_envs=2, vectorization_mode="sync", wrappers=[TextEncodingWrapper])
    with pytest.raises(ValueError, match="AutoresetMode.SAME_STEP"):
        GymnasiumVecEnv(vector)
    vector.close()
