"""Steps per second of TextWorld Express side by side: TWX's own Python API, ``TextMem/TWX-CookingWorld-v0``,
the same under ``MemoryGraphWrapper``, and ``TextMem/CookingRL-L1-v0`` (TextWorld), in one run.

Each contender plays random admissible commands (the same policy: a seeded choice among the valid
actions, a reset when the episode ends) for ``--seconds`` wall-clock seconds, in rounds that take
turns (round-robin), so that load from other processes falls on all of them alike. Printed: steps/s
of each and the two ratios of issue 23's targets (TWX env >= 10x CookingRL-L1; TWX's API / TWX env
<= 1.4).

Run: python benchmarks/twx_speed.py [--seconds 3] [--rounds 3]
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable
from dataclasses import dataclass

import gymnasium as gym
from textworld_express import TextWorldExpressEnv

import textmem_gym  # noqa: F401
from textmem_gym.wrappers import MemoryGraphWrapper


@dataclass
class Args:
    """Command-line arguments."""

    seconds: float = 3.0
    """Seconds per contender per round."""
    rounds: int = 3
    """Rounds (contenders take turns within each)."""


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
    """Random walk through a Gymnasium env (any TextMem id, possibly wrapped)."""

    def __init__(self, make: Callable[[], gym.Env]) -> None:
        self.env = make()
        _, self.info = self.env.reset(seed=0)
        self.rng = random.Random(0)

    def step(self) -> None:
        commands = [c for c in self.info["admissible_commands"] if not c.startswith("go to ")]
        _, _, terminated, truncated, self.info = self.env.step(self.rng.choice(commands))
        if terminated or truncated:
            _, self.info = self.env.reset(seed=0)

    def close(self) -> None:
        self.env.close()


CONTENDERS: dict[str, Callable[[], ApiWalker | GymWalker]] = {
    "TWX Python API (cookingworld)": ApiWalker,
    "TextMem/TWX-CookingWorld-v0": lambda: GymWalker(lambda: gym.make("TextMem/TWX-CookingWorld-v0")),
    "TWX-CookingWorld + MemoryGraphWrapper": lambda: GymWalker(
        lambda: MemoryGraphWrapper(gym.make("TextMem/TWX-CookingWorld-v0"), memory="arigraph", extractor="rules")),
    "TextMem/CookingRL-L1-v0": lambda: GymWalker(lambda: gym.make("TextMem/CookingRL-L1-v0")),
}


def measure(args: Args) -> dict[str, float]:
    """Steps per second of every contender (round-robin rounds, total steps over total time)."""
    walkers = {name: make() for name, make in CONTENDERS.items()}
    steps = dict.fromkeys(walkers, 0)
    spent = dict.fromkeys(walkers, 0.0)
    try:
        for walker in walkers.values():  # warm up (JIT, caches)
            for _ in range(200):
                walker.step()
        for _ in range(args.rounds):
            for name, walker in walkers.items():
                start = time.perf_counter()
                while time.perf_counter() - start < args.seconds:
                    walker.step()
                    steps[name] += 1
                spent[name] += time.perf_counter() - start
    finally:
        for walker in walkers.values():
            walker.close()
    return {name: steps[name] / spent[name] for name in walkers}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=Args.seconds)
    parser.add_argument("--rounds", type=int, default=Args.rounds)
    args = Args(**vars(parser.parse_args()))
    rates = measure(args)
    for name, rate in rates.items():
        print(f"{name:40s} {rate:9.1f} steps/s")
    ours, api = rates["TextMem/TWX-CookingWorld-v0"], rates["TWX Python API (cookingworld)"]
    textworld = rates["TextMem/CookingRL-L1-v0"]
    print(f"TWX-CookingWorld / CookingRL-L1: {ours / textworld:.1f}x (target >= 10x)")
    print(f"TWX API / TWX-CookingWorld:      {api / ours:.2f} (target <= 1.4)")
    print(f"MemoryGraphWrapper cost on TWX:  {ours / rates['TWX-CookingWorld + MemoryGraphWrapper']:.1f}x slower")


if __name__ == "__main__":
    main()
