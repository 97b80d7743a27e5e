"""The episodic novelty bonus: once per new observation per episode; scores and info untouched."""

from __future__ import annotations

import gymnasium as gym
import pytest

import textmem_gym  # noqa: F401  (registers ids)
from baselines_rl.exploration import EpisodicNoveltyBonus

L1 = "TextMem/CookingRL-L1-v0"
COMMANDS = ["inventory", "inventory", "take yellow bell pepper from fridge", "inventory", "look", "look"]


def test_bonus_once_per_new_observation_and_per_episode():
    plain, shaped = gym.make(L1), EpisodicNoveltyBonus(gym.make(L1), 0.5, key="observation")
    try:
        for episode in range(2):
            plain.reset(seed=episode)
            shaped.reset(seed=episode)
            extras = []
            for command in COMMANDS:
                _, base, _, _, info_plain = plain.step(command)
                _, reward, _, _, info = shaped.step(command)
                assert info == info_plain
                extras.append(round(reward - base, 6))
            assert extras == [0.5, 0.0, 0.5, 0.5, 0.5, 0.0], f"episode {episode}"
    finally:
        plain.close()
        shaped.close()


def test_command_set_novelty_ignores_examining_and_rewards_changing_the_world():
    env = EpisodicNoveltyBonus(gym.make(L1), 0.5)
    try:
        env.reset(seed=0)
        commands = ["inventory", "examine cookbook", "close fridge", "open fridge", "close fridge",
                    "open fridge", "take knife from table", "examine knife"]
        assert [env.step(c)[1] for c in commands] == [0.0, 0.0, 0.5, 0.0, 0.0, 0.0, 0.5, 0.0]
    finally:
        env.close()


def test_bad_bonus_or_key():
    with pytest.raises(ValueError, match="bonus"):
        EpisodicNoveltyBonus(gym.make(L1), 0)
    with pytest.raises(ValueError, match="unknown novelty key 'pixels'"):
        EpisodicNoveltyBonus(gym.make(L1), 0.1, key="pixels")


def test_annealing_decays_the_bonus_in_the_training_envs():
    from baselines_rl.common import EnvSpec, make_vec_env
    from baselines_rl.exploration import NoveltyAnnealing
    from baselines_rl.ppo import PPOArgs, build_model

    venv = make_vec_env(EnvSpec(L1, novelty_bonus=0.2), n_envs=1, seed=0, subprocess=False)
    try:
        annealing = NoveltyAnnealing(0.2, steps=100, every=1)
        annealing.init_callback(build_model(PPOArgs(), venv))
        for step, expected in [(0, 0.2), (50, 0.1), (100, 0.0), (150, 0.0)]:
            annealing.model.num_timesteps = step
            annealing.on_step()
            assert venv.get_attr("bonus")[0] == pytest.approx(expected)
    finally:
        venv.close()
