"""Several instances of one id (STMA evaluates 8 games per level), and whether each can be won in time.

Instance ``i`` of an id is the game made with ``game_seed = default_game_seed + i``; instance 0
is the id's default (the papers') game. Some generated instances cannot be won within their
step limit: :func:`instance_info` reads an instance's privileged walkthrough (in the driver, never
shown to a policy) and ``instance_seeds(id, n, winnable=True)`` skips the instances whose
walkthrough is longer than the limit.

Example:
    >>> instance_seeds("TextMem/STMA-Cooking-L3-v0", 3)
    [20002, 20003, 20004]
"""

from __future__ import annotations

import functools
import json
import os
from typing import Any

import gymnasium as gym

#: How many candidate seeds ``instance_seeds(..., winnable=True)`` tries per instance asked for.
WINNABLE_SEARCH_FACTOR = 5


def instance_seeds(env_id: str, n: int, *, winnable: bool = False, max_steps: int | None = None) -> list[int]:
    """The game seeds of the first ``n`` instances of a generated-game id.

    Args:
        env_id: A registered id with generated instances (``default_game_seed`` in its kwargs).
        n: How many instances.
        winnable: Skip instances whose walkthrough does not fit in the step limit (reads each
            candidate's walkthrough, generating its game when it is not cached yet).
        max_steps: The step limit to check against (default: the id's ``max_episode_steps``).

    Raises:
        ValueError: If ``n`` is not positive, the id has no generated instances, or fewer than
            ``n`` winnable instances are among the first ``WINNABLE_SEARCH_FACTOR * n`` seeds.

    Example:
        >>> instance_seeds("TextMem/CookingRL-L1-v0", 2, winnable=True)
        [57137, 57138]
    """
    if not isinstance(n, int) or isinstance(n, bool) or n < 1:
        raise ValueError(f"n must be a positive int, got {n!r}")
    kwargs = gym.spec(env_id).kwargs
    if "default_game_seed" not in kwargs:
        raise ValueError(f"{env_id} has no generated instances (no default_game_seed)")
    first = int(kwargs["default_game_seed"])
    if not winnable:
        return [first + i for i in range(n)]
    seeds = []
    for seed in range(first, first + WINNABLE_SEARCH_FACTOR * n):
        if instance_info(env_id, seed, max_steps)["winnable"]:
            seeds.append(seed)
            if len(seeds) == n:
                return seeds
    raise ValueError(f"only {len(seeds)} of the first {WINNABLE_SEARCH_FACTOR * n} instances of {env_id} can be "
                     f"won within {max_steps or gym.spec(env_id).max_episode_steps} steps; {n} were asked for")


def instance_info(env_id: str, game_seed: int | None = None, max_steps: int | None = None,
                  env_kwargs: dict[str, Any] | None = None) -> dict[str, Any]:
    """An instance's walkthrough length and whether it fits in the step limit.

    Args:
        env_id: A registered id.
        game_seed: The instance (``None``: the id's default game).
        max_steps: The step limit (default: the id's ``max_episode_steps``).
        env_kwargs: More ``gym.make`` arguments (e.g. ``game_file``).

    Returns:
        ``{"walkthrough_steps": int | None, "step_limit": int | None, "winnable": bool | None}``;
        ``None`` where the game has no walkthrough to read (e.g. a published file without one).

    Example:
        >>> instance_info("TextMem/CookingRL-L1-v0")
        {'walkthrough_steps': 8, 'step_limit': 100, 'winnable': True}
    """
    limit = max_steps if max_steps is not None else gym.spec(env_id).max_episode_steps
    steps = walkthrough_steps(env_id, game_seed, json.dumps(env_kwargs or {}, sort_keys=True, default=str),
                              _settings())
    return {"walkthrough_steps": steps, "step_limit": limit,
            "winnable": None if steps is None or limit is None else steps <= limit}


def _settings() -> tuple[tuple[str, str], ...]:
    """The library's settings (``TEXTMEM_*`` environment variables: where ROMs and games are found)."""
    return tuple(sorted((k, v) for k, v in os.environ.items() if k.startswith("TEXTMEM_")))


@functools.lru_cache(maxsize=1024)
def walkthrough_steps(env_id: str, game_seed: int | None = None, env_kwargs_json: str = "{}",
                      settings: tuple[tuple[str, str], ...] = ()) -> int | None:
    """The number of commands of an instance's privileged walkthrough (``None`` when it has none).

    ``env_kwargs_json`` is the JSON of more ``gym.make`` arguments (a string, so results are cached);
    ``settings`` the library's settings when asked (part of the cache key only: a ROM directory
    changed between calls finds another game, or none).
    """
    if "walkthrough" not in _supported_privileged(env_id):  # NetHack: no walkthrough to read
        return None
    kwargs = json.loads(env_kwargs_json)
    if game_seed is not None:
        kwargs["game_seed"] = game_seed
    env = gym.make(env_id, privileged=["walkthrough"], **kwargs)
    try:
        _, info = env.reset(seed=0)
        walkthrough = info.get("walkthrough") or []
    finally:
        env.close()
    return len(walkthrough) or None


def _supported_privileged(env_id: str) -> frozenset[str]:
    """The privileged keys the id's env class offers (every key when it does not say)."""
    from textmem_gym.envs.privileged import PRIVILEGED_KEYS
    from textmem_gym.loading import load_object

    entry = gym.spec(env_id).entry_point
    env_class = load_object(entry) if isinstance(entry, str) else entry
    return frozenset(getattr(env_class, "supported_privileged", PRIVILEGED_KEYS))


def make_instances(env_id: str, n: int, **kwargs: Any) -> list[gym.Env]:
    """Makes ``n`` envs, one per instance of ``env_id`` (see :func:`instance_seeds`)."""
    return [gym.make(env_id, game_seed=s, **kwargs) for s in instance_seeds(env_id, n)]
