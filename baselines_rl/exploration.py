"""Exploration help for sparse-reward text games: an episodic novelty bonus (training only).

Cooking games reward few actions and punish many silently (eating or cutting an ingredient the
wrong way loses the game with no negative reward), so an undirected agent settles into safe
loops before it ever scores twice. :class:`EpisodicNoveltyBonus` adds ``bonus`` to the reward
the first time each observation text appears in an episode (the count-based episodic
exploration used by text-game agents such as XTX): repeating yourself earns nothing, and
losing ends the stream of new observations. ``info`` and scores are untouched, so logs and
evaluations report the game's own normalized score.

Example:
    >>> import gymnasium as gym, textmem_gym
    >>> env = EpisodicNoveltyBonus(gym.make("TextMem/CookingRL-L1-v0"), bonus=0.1)
    >>> _ = env.reset(seed=0)
    >>> [round(env.step("inventory")[1], 2) for _ in range(2)]
    [0.1, 0.0]
    >>> env.close()
"""

from __future__ import annotations

import zlib
from typing import Any

import gymnasium as gym


class EpisodicNoveltyBonus(gym.Wrapper, gym.utils.RecordConstructorArgs):
    """Adds ``bonus`` to the reward for each observation text new in this episode.

    Args:
        env: A TextMem env (text observations, or a ``Dict`` whose ``observation`` is used).
        bonus: Reward added per new observation (``> 0``).
    """

    def __init__(self, env: gym.Env, bonus: float = 0.05):
        gym.utils.RecordConstructorArgs.__init__(self, bonus=bonus)
        gym.Wrapper.__init__(self, env)
        if not isinstance(bonus, (int, float)) or bonus <= 0:
            raise ValueError(f"bonus must be a positive number, got {bonus!r}")
        self.bonus = float(bonus)
        self._seen: set[int] = set()

    @staticmethod
    def _key(observation: Any) -> int:
        text = observation.get("observation", "") if isinstance(observation, dict) else str(observation)
        return zlib.crc32(text.encode("utf-8", "replace"))

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Any, dict[str, Any]]:
        observation, info = self.env.reset(seed=seed, options=options)
        self._seen = {self._key(observation)}
        return observation, info

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        observation, reward, terminated, truncated, info = self.env.step(action)
        key = self._key(observation)
        if key not in self._seen:
            self._seen.add(key)
            reward = float(reward) + self.bonus
        return observation, reward, terminated, truncated, info
