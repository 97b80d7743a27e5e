"""``gym.make_vec(..., vectorization_mode="async")`` on TextMem ids, with and without MemoryGraphWrapper:
text observations (no shared memory: Gymnasium's does not update Text ones) and the RL encoding."""

from __future__ import annotations

from functools import partial

import gymnasium as gym
import numpy as np
import pytest

import textmem_gym  # noqa: F401  (registers ids)
from textmem_gym.wrappers import MemoryGraphWrapper, TextEncodingWrapper

GAME = "TextMem/CookingRL-L1-v0"
COMMANDS = ["take knife from table", "go west", "look", "go east", "inventory"]


def single_run(wrap: bool) -> list:
    """The observations of one env playing COMMANDS (episode of 3 steps, then a reset, as the vector env)."""
    env = gym.make(GAME, max_episode_steps=3)
    env = MemoryGraphWrapper(env) if wrap else env
    observations = [env.reset(seed=0)[0]]
    for command in COMMANDS:
        observation, _, terminated, truncated, _ = env.step(command)
        observations.append(dict(observation) if wrap else observation)
        if terminated or truncated:
            observations.append(env.reset(seed=0)[0])
    env.close()
    return observations


@pytest.mark.parametrize("wrap", [False, True], ids=["bare", "memory"])
def test_async_text_vector_env_plays_like_single_envs(wrap):
    wrappers = [partial(MemoryGraphWrapper, memory="arigraph")] if wrap else []
    vector = gym.make_vec(GAME, num_envs=2, vectorization_mode="async", max_episode_steps=3, wrappers=wrappers,
                          vector_kwargs={"shared_memory": False, "autoreset_mode": gym.vector.AutoresetMode.SAME_STEP})
    expected = single_run(wrap)
    try:
        assert vector.single_observation_space == (MemoryGraphWrapper(gym.make(GAME)).observation_space if wrap
                                                   else gym.make(GAME).observation_space)
        observations, _ = vector.reset(seed=[0, 0])
        got, finals = [observations], []
        for command in COMMANDS:
            observations, _, terminated, truncated, info = vector.step((command, command))
            if terminated[0] or truncated[0]:
                finals.append(info["final_obs"][0])
            got.append(observations)
    finally:
        vector.close()
    first = [{key: batch[0] for key, batch in obs.items()} if wrap else obs[0] for obs in got]
    second = [{key: batch[1] for key, batch in obs.items()} if wrap else obs[1] for obs in got]
    assert first == second, "both envs play the same game"
    # the vector env resets in the step that ends an episode: its observation is the reset one, the last
    # one of the episode is info["final_obs"]
    assert finals == [expected[3]] and first == [*expected[:3], expected[4], *expected[5:]]
    if wrap:
        assert all(o["belief"].startswith("Current location:") for o in first)
        assert "knife, is in, inventory" in first[1]["belief"]


def test_async_encoded_vector_env_with_memory_uses_shared_memory():
    vector = gym.make_vec(GAME, num_envs=2, vectorization_mode="async", max_episode_steps=5,
                          wrappers=[partial(MemoryGraphWrapper, memory="arigraph"), TextEncodingWrapper])
    try:
        observations, _ = vector.reset(seed=0)
        assert set(observations) == {"observation", "belief", "commands", "action_mask"}
        assert observations["belief"].shape == (2, 1024) and observations["belief"].any()
        masks = np.stack(vector.call("action_masks"))
        actions = np.array([np.flatnonzero(mask)[0] for mask in masks])
        stepped, _, _, _, info = vector.step(actions)
        assert not np.array_equal(stepped["belief"], observations["belief"]), "shared memory is updated"
        assert not info["invalid_action"].any() and all(command.strip() for command in info["command"])
    finally:
        vector.close()
