"""Exploration help for sparse-reward text games: an episodic novelty bonus (training only).

Cooking games reward few actions and punish many silently (eating or cutting an ingredient the
wrong way loses the game with no negative reward), so an undirected agent settles into safe
loops before it ever scores twice. :class:`EpisodicNoveltyBonus` adds ``bonus`` to the reward
the first time a state is met in an episode (count-based episodic exploration, as used by
text-game agents such as XTX): repeating yourself earns nothing, and losing ends the stream of
new states. What counts as a state is a key function of :data:`NOVELTY_KEYS`:

* ``"commands"`` (default): the set of admissible commands, which changes when the world or
  the inventory changes (taking the knife makes cutting possible) but not when the agent
  merely examines things;
* ``"observation"``: the observation text (every new description counts).

``info`` and scores are untouched, so logs and evaluations report the game's own score.
A bonus that never fades can make finishing the game unattractive (winning ends the stream
of bonuses); :class:`NoveltyAnnealing` decays it to zero during training.

Example:
    >>> import gymnasium as gym, textmem_gym
    >>> env = EpisodicNoveltyBonus(gym.make("TextMem/CookingRL-L1-v0"), bonus=0.1, key="observation")
    >>> _ = env.reset(seed=0)
    >>> [round(env.step("inventory")[1], 2) for _ in range(2)]
    [0.1, 0.0]
    >>> env.close()
"""

from __future__ import annotations

import zlib
from collections.abc import Callable
from typing import Any, SupportsFloat

import gymnasium as gym
from stable_baselines3.common.callbacks import BaseCallback

from textmem_gym.loading import lookup


def _text_key(text: str) -> int:
    return zlib.crc32(text.encode("utf-8", "replace"))


def _observation_key(observation: Any, info: dict[str, Any]) -> int:
    return _text_key(observation.get("observation", "") if isinstance(observation, dict) else str(observation))


def _commands_key(observation: Any, info: dict[str, Any]) -> int:
    return _text_key("\n".join(sorted(info.get("admissible_commands") or [])))


#: What makes a state new: name -> ``key(observation, info)``.
NOVELTY_KEYS: dict[str, Callable[[Any, dict[str, Any]], int]] = {
    "commands": _commands_key,
    "observation": _observation_key,
}


class EpisodicNoveltyBonus(gym.Wrapper, gym.utils.RecordConstructorArgs):
    """Adds ``bonus`` to the reward for each observation text new in this episode.

    Args:
        env: A TextMem env (text observations, or a ``Dict`` whose ``observation`` is used).
        bonus: Reward added per new state (``> 0``).
        key: What makes a state new, a name in :data:`NOVELTY_KEYS`.
    """

    def __init__(self, env: gym.Env, bonus: float = 0.05, key: str = "commands"):
        gym.utils.RecordConstructorArgs.__init__(self, bonus=bonus, key=key)
        gym.Wrapper.__init__(self, env)
        if not isinstance(bonus, (int, float)) or bonus <= 0:
            raise ValueError(f"bonus must be a positive number, got {bonus!r}")
        self._key_of = lookup("novelty key", key, NOVELTY_KEYS)
        self.bonus, self.key = float(bonus), key
        self._seen: set[int] = set()

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Any, dict[str, Any]]:
        observation, info = self.env.reset(seed=seed, options=options)
        self._seen = {self._key_of(observation, info)}
        return observation, info

    def step(self, action: Any) -> tuple[Any, SupportsFloat, bool, bool, dict[str, Any]]:
        observation, reward, terminated, truncated, info = self.env.step(action)
        key = self._key_of(observation, info)
        if key not in self._seen and self.bonus > 0:
            self._seen.add(key)
            reward = float(reward) + self.bonus
        return observation, reward, terminated, truncated, info

    def set_novelty_bonus(self, bonus: float) -> None:
        """Changes the bonus (``0`` switches it off); :class:`NoveltyAnnealing` calls this."""
        if not isinstance(bonus, (int, float)) or bonus < 0:
            raise ValueError(f"bonus must be a non-negative number, got {bonus!r}")
        self.bonus = float(bonus)


class NoveltyAnnealing(BaseCallback):
    """Decays the training envs' novelty bonus linearly from ``bonus`` to 0 over ``steps`` env steps.

    Args:
        bonus: The starting bonus (the envs' ``novelty_bonus``).
        steps: Env steps until the bonus reaches zero.
        every: Env steps between updates sent to the envs.
    """

    def __init__(self, bonus: float, steps: int, every: int = 1_000):
        super().__init__()
        if steps < 1:
            raise ValueError(f"steps must be >= 1, got {steps!r}")
        self.bonus, self.steps, self.every = float(bonus), int(steps), int(every)
        self._next = 0

    def current(self) -> float:
        """The bonus at the current step."""
        return self.bonus * max(0.0, 1.0 - self.num_timesteps / self.steps)

    def _on_step(self) -> bool:
        if self.num_timesteps >= self._next:
            self.training_env.env_method("set_novelty_bonus", self.current())
            self._next = self.num_timesteps + self.every
        return True
