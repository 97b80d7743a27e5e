"""Gold trajectories of other variations, for the policies that learn from examples (SayCan's
one-shot example, RAP's memory): ScienceWorld's gold paths of training variations, never the
variation being played.

Example:
    >>> played_variation(object()) is None
    True
"""

from __future__ import annotations

import functools
from typing import Any

import gymnasium as gym


def played_variation(env: Any) -> tuple[str, str, int] | None:
    """``(task, split, variation)`` of a ScienceWorld env (``None`` for any other env)."""
    unwrapped = getattr(env, "unwrapped", None)
    from textmem_gym.envs.scienceworld.env import ScienceWorldEnv

    if not isinstance(unwrapped, ScienceWorldEnv):
        return None
    return unwrapped.task, unwrapped.split, unwrapped.variation


@functools.lru_cache(maxsize=8)
def _gold(task: str, variations: int, simplification: str) -> tuple[Any, ...]:
    from textmem_gym.envs.scienceworld.gold import gold_trajectories

    return tuple(gold_trajectories(task, variations, split="train", simplification=simplification))


def gold_examples(env: gym.Env, count: int) -> list[Any]:
    """The gold paths (:class:`~textmem_gym.envs.scienceworld.gold.GoldTrajectory`) of the first
    ``count`` training variations of the ScienceWorld task ``env`` plays, the played variation left
    out (one more variation is taken instead); ``[]`` for other envs or ``count == 0``. Cached per
    task in the process."""
    played = played_variation(env)
    if played is None or count <= 0:
        return []
    task, split, variation = played
    simplification = str(getattr(env.unwrapped, "simplification", "easy"))
    from textmem_gym.envs.scienceworld.ids import split_variations

    own = f"train-{variation}" if split == "train" else None
    wanted = min(count + (own is not None), len(split_variations(task, "train")))
    paths = [path for path in _gold(task, wanted, simplification) if path.label != own]
    return paths[:count]
