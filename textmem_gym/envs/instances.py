"""Several instances of one id (STMA evaluates 8 games per level).

Instance ``i`` of an id is the game made with ``game_seed = default_game_seed + i``; instance 0
is the id's default (the papers') game.

Example:
    >>> instance_seeds("TextMem/STMA-Cooking-L3-v0", 3)
    [20002, 20003, 20004]
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym


def instance_seeds(env_id: str, n: int) -> list[int]:
    """The game seeds of the first ``n`` instances of a generated-game id.

    Raises:
        ValueError: If ``n`` is not positive or the id has no generated instances.
    """
    if not isinstance(n, int) or n < 1:
        raise ValueError(f"n must be a positive int, got {n!r}")
    kwargs = gym.spec(env_id).kwargs
    if "default_game_seed" not in kwargs:
        raise ValueError(f"{env_id} has no generated instances (no default_game_seed)")
    first = int(kwargs["default_game_seed"])
    return [first + i for i in range(n)]


def make_instances(env_id: str, n: int, **kwargs: Any) -> list[gym.Env]:
    """Makes ``n`` envs, one per instance of ``env_id`` (see :func:`instance_seeds`)."""
    return [gym.make(env_id, game_seed=s, **kwargs) for s in instance_seeds(env_id, n)]
