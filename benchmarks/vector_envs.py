"""Steps per second of ``gym.make_vec(id, num_envs=N, vectorization_mode="async")`` for N = 1, 2, 4, 8,
with ``MemoryGraphWrapper`` inside each env, in two forms:

- ``text``: the raw ``{"observation", "belief"}`` text (``vector_kwargs={"shared_memory": False}``:
  Gymnasium 1.2's shared memory does not update ``Text`` observations, see :mod:`baselines_rl.vector`);
- ``encoded``: each env also encodes its text for RL (``TextEncodingWrapper``: arrays, shared memory,
  the route MaskablePPO trains through).

Each sub-env plays random admissible commands (``text``) or random allowed actions of its mask
(``encoded``); the whole batch steps for ``--seconds`` after ``--warmup`` batch steps. Printed: env
steps per second summed over the N envs, and the speed-up over N = 1. The workers are processes,
so the speed-up is bounded by the machine's cores (each TWX env also runs its own JVM).

Run: python benchmarks/vector_envs.py [--env-id TextMem/TWX-CookingWorld-v0] [--sizes 1,2,4,8] [--seconds 10]
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

import gymnasium as gym
import numpy as np

import textmem_gym  # noqa: F401
from textmem_gym.wrappers import MemoryGraphWrapper, TextEncodingWrapper


@dataclass
class Args:
    """Command-line arguments."""

    env_id: str = "TextMem/TWX-CookingWorld-v0"
    """The TextMem id each sub-env is made from."""
    sizes: str = "1,2,4,8"
    """Numbers of envs N to measure."""
    seconds: float = 10.0
    """Seconds of stepping per measurement."""
    warmup: int = 50
    """Batch steps before timing (each env's first steps warm its caches)."""


def make_vector(args: Args, num_envs: int, encoded: bool) -> gym.vector.AsyncVectorEnv:
    """The async vector env of ``num_envs`` memory-wrapped envs (encoded for RL, or raw text)."""
    wrappers: list[Callable[[gym.Env], gym.Wrapper]] = [partial(MemoryGraphWrapper, memory="arigraph")]
    if encoded:
        wrappers.append(TextEncodingWrapper)
    vector_kwargs = {} if encoded else {"shared_memory": False}
    vector = gym.make_vec(args.env_id, num_envs=num_envs, vectorization_mode="async", wrappers=wrappers,
                          vector_kwargs=vector_kwargs)
    assert isinstance(vector, gym.vector.AsyncVectorEnv)
    return vector


def random_actions(vector: gym.vector.AsyncVectorEnv, info: dict[str, Any], encoded: bool,
                   rng: np.random.Generator) -> Any:
    """One random valid action per env: an allowed slot of its mask, or one of its admissible commands."""
    if encoded:
        return np.array([rng.choice(np.flatnonzero(mask)) for mask in vector.call("action_masks")])
    return tuple(str(rng.choice(commands)) for commands in info["admissible_commands"])


def rate(args: Args, num_envs: int, encoded: bool) -> float:
    """Env steps per second (summed over the envs) of one vector env."""
    vector = make_vector(args, num_envs, encoded)
    rng = np.random.default_rng(0)
    try:
        _, info = vector.reset(seed=0)
        for _ in range(args.warmup):
            *_, info = vector.step(random_actions(vector, info, encoded, rng))
        steps, start = 0, time.perf_counter()
        while time.perf_counter() - start < args.seconds:
            *_, info = vector.step(random_actions(vector, info, encoded, rng))
            steps += num_envs
        return steps / (time.perf_counter() - start)
    finally:
        vector.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env-id", default=Args.env_id)
    parser.add_argument("--sizes", default=Args.sizes)
    parser.add_argument("--seconds", type=float, default=Args.seconds)
    parser.add_argument("--warmup", type=int, default=Args.warmup)
    args = Args(**vars(parser.parse_args()))
    sizes = [int(n) for n in args.sizes.split(",")]
    for encoded in (False, True):
        form = "encoded (TextEncodingWrapper)" if encoded else "text (shared_memory=False)"
        base = None
        for num_envs in sizes:
            value = rate(args, num_envs, encoded)
            base = base or value
            print(f"{form:32s} N={num_envs}: {value:8.1f} steps/s   speed-up over N={sizes[0]}: {value / base:5.2f}",
                  flush=True)


if __name__ == "__main__":
    main()
