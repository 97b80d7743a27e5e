"""Steps per second of TextWorld Express side by side: TWX's own Python API, ``TextMem/TWX-CookingWorld-v0``,
the same under ``MemoryGraphWrapper`` (AriGraph, rules extractor), and ``TextMem/CookingRL-L1-v0``
(TextWorld), in one run.

Each contender plays random admissible commands (the same policy: a seeded choice among the valid
actions, a reset when the episode ends). The contenders take turns in many short slices
(``--slice`` seconds, ``--rounds`` rounds), so that the load of other processes falls on all of
them alike; a ratio is the median over the rounds of the two rates measured in the same round.

Printed: the median steps/s of each contender, then the ratios:

- memory / bare TWX (issue 35's target: >= 0.7), for CookingWorld's default game and its small
  one (3 rooms, 2 ingredients). The walker drops each observation unread, as a loop that uses the
  memory's map and ``go to`` commands but not its text does: the belief is rendered when read
  (``MemoryGraphWrapper``'s lazy belief), so this is the cost of the memory's update;
- memory with the belief read every step / bare TWX (reported, no target): what an agent that
  reads the belief (an RL encoding of it, a prompt) pays for the retrieval and the text too;
- issue 23's targets: TWX env >= 10x CookingRL-L1; TWX's API / TWX env <= 1.4.

Run: python benchmarks/twx_speed.py [--slice 0.5] [--rounds 8] [--warmup-steps 20000] [--warmup-seconds 8]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import gymnasium as gym
from textworld_express import TextWorldExpressEnv

import textmem_gym  # noqa: F401
from textmem_gym.wrappers import MemoryGraphWrapper

TWX = "TextMem/TWX-CookingWorld-v0"
#: CookingWorld's small game of the issue's table.
SMALL: dict[str, Any] = {"numLocations": 3, "numIngredients": 2}


@dataclass
class Args:
    """Command-line arguments."""

    slice: float = 0.5
    """Seconds per contender per round."""
    rounds: int = 8
    """Rounds (contenders take turns within each)."""
    warmup_steps: int = 20_000
    """Steps each contender plays before the rounds: TWX's JVM compiles its hot code over the first
    ~10,000 steps, and a JVM warmed for fewer steps is measured slower (200 was the old warm-up)."""
    warmup_seconds: float = 8.0
    """At most this long per contender (TextWorld's CookingRL-L1 does not reach the steps; it has no JIT)."""


class ApiWalker:
    """Random walk through TWX's own Python API (TextWorldExpressEnv)."""

    def __init__(self) -> None:
        self.env = TextWorldExpressEnv(envStepLimit=100)
        _, self.info = self.env.reset(seed=20000, gameFold="test", gameName="cookingworld", gameParams="")
        self.rng = random.Random(0)

    def step(self) -> None:
        _, _, done, self.info = self.env.step(self.rng.choice(self.info["validActions"]))
        if done:
            _, self.info = self.env.reset()

    def close(self) -> None:
        self.env.close()


class GymWalker:
    """Random walk through a Gymnasium env (any TextMem id, possibly wrapped); with ``read`` it reads
    the ``belief`` of each observation, else it drops the observation unread."""

    def __init__(self, make: Callable[[], gym.Env], read: bool = False) -> None:
        self.env, self.read = make(), read
        observation, self.info = self.env.reset(seed=0)
        self.rng = random.Random(0)
        self.beliefs = 0

    def step(self) -> None:
        commands = [c for c in self.info["admissible_commands"] if not c.startswith("go to ")]
        observation, _, terminated, truncated, self.info = self.env.step(self.rng.choice(commands))
        if self.read:
            self.beliefs += len(observation["belief"])
        del observation  # unread: its belief is never rendered
        if terminated or truncated:
            observation, self.info = self.env.reset(seed=0)

    def close(self) -> None:
        self.env.close()


def _memory(**params: Any) -> gym.Env:
    return MemoryGraphWrapper(gym.make(TWX, **params), memory="arigraph", extractor="rules")


def _bare(**params: Any) -> gym.Env:
    return gym.make(TWX, **params)


CONTENDERS: dict[str, Callable[[], ApiWalker | GymWalker]] = {
    "TWX Python API (cookingworld)": ApiWalker,
    TWX: lambda: GymWalker(lambda: gym.make(TWX)),
    "TWX + memory": lambda: GymWalker(_memory),
    "TWX + memory, belief read": lambda: GymWalker(_memory, read=True),
    "TWX small": lambda: GymWalker(lambda: _bare(**SMALL)),
    "TWX small + memory": lambda: GymWalker(lambda: _memory(**SMALL)),
    "TWX small + memory, belief read": lambda: GymWalker(lambda: _memory(**SMALL), read=True),
    "TextMem/CookingRL-L1-v0": lambda: GymWalker(lambda: gym.make("TextMem/CookingRL-L1-v0")),
}

#: (label, numerator, denominator, target): the ratios printed.
RATIOS: list[tuple[str, str, str, str]] = [
    ("memory / bare, CookingWorld default", "TWX + memory", TWX, ">= 0.7"),
    ("memory / bare, CookingWorld 3 rooms 2 ingredients", "TWX small + memory", "TWX small", ">= 0.7"),
    ("memory, belief read / bare, default", "TWX + memory, belief read", TWX, "reported"),
    ("memory, belief read / bare, small", "TWX small + memory, belief read", "TWX small", "reported"),
    ("TWX-CookingWorld / CookingRL-L1", TWX, "TextMem/CookingRL-L1-v0", ">= 10 (issue 23)"),
    ("TWX API / TWX-CookingWorld", "TWX Python API (cookingworld)", TWX, "<= 1.4 (issue 23)"),
]


def measure(args: Args) -> dict[str, list[float]]:
    """Steps per second of every contender in each round (round-robin slices)."""
    walkers = {name: make() for name, make in CONTENDERS.items()}
    rates: dict[str, list[float]] = {name: [] for name in walkers}
    try:
        for walker in walkers.values():  # warm up (JIT, caches): the same steps for every contender
            start, steps = time.perf_counter(), 0
            while steps < args.warmup_steps and time.perf_counter() - start < args.warmup_seconds:
                walker.step()
                steps += 1
        for _ in range(args.rounds):
            for name, walker in walkers.items():
                steps, start = 0, time.perf_counter()
                while time.perf_counter() - start < args.slice:
                    walker.step()
                    steps += 1
                rates[name].append(steps / (time.perf_counter() - start))
    finally:
        for walker in walkers.values():
            walker.close()
    return rates


def paired_ratio(rates: dict[str, list[float]], numerator: str, denominator: str) -> float:
    """The median over rounds of ``numerator``'s rate / ``denominator``'s rate in the same round."""
    return statistics.median(n / d for n, d in zip(rates[numerator], rates[denominator]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--slice", type=float, default=Args.slice)
    parser.add_argument("--rounds", type=int, default=Args.rounds)
    parser.add_argument("--warmup-steps", type=int, default=Args.warmup_steps)
    parser.add_argument("--warmup-seconds", type=float, default=Args.warmup_seconds)
    args = Args(**vars(parser.parse_args()))
    rates = measure(args)
    for name, values in rates.items():
        print(f"{name:40s} {statistics.median(values):9.1f} steps/s (median of {len(values)} rounds)")
    for label, numerator, denominator, target in RATIOS:
        print(f"{label:52s} {paired_ratio(rates, numerator, denominator):6.2f}  (target {target})")


if __name__ == "__main__":
    main()
