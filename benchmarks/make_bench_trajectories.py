"""Makes the trajectories that ``textmem-gym memory-bench`` replays (shipped in
``textmem_gym/qa/bench/data/``).

Each trajectory is a seeded walk over an env's admissible commands (or Jericho's walkthrough):
movement half of the time when a move is offered, never a command that could end the game early
(eating, focusing in ScienceWorld, taking the coin in Coin Collector...). A walk that ends before
its length (the game was won or lost anyway) is made again with the next walk seed. What is
stored is the env id, its kwargs, the reset seed, the commands and a short digest of each
observation (:mod:`textmem_gym.qa.bench.trajectories`), so the file is small and the replay is
checked step by step.

Run: python benchmarks/make_bench_trajectories.py [--only NAME,...] [--out DIR]
"""

from __future__ import annotations

import argparse
import random
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import gymnasium as gym

import textmem_gym  # noqa: F401
from textmem_gym.qa.bench.trajectories import DATA_DIR, BenchTrajectory, digest, save_trajectory


@dataclass(frozen=True)
class Spec:
    """One trajectory to make: its env, length and how it is walked."""

    name: str
    env_id: str
    steps: int
    env_kwargs: dict[str, Any] = field(default_factory=dict)
    seed: int = 0
    walkthrough: bool = False
    avoid: tuple[str, ...] = ()


#: Commands never taken by a walk (they may end the game before the walk's length).
AVOID = ("eat", "drink", "quit", "restart", "focus on", "kill", "attack", "prepare meal", "wait1", "sleep")
LONG = {"max_episode_steps": 1000}

SPECS: tuple[Spec, ...] = (
    Spec("textworld-cooking-short", "TextMem/Cooking-v0", 40),
    Spec("textworld-cooking-long", "TextMem/Cooking-v0", 320, LONG),
    Spec("textworld-treasure-long", "TextMem/TreasureHunt-v0", 320, LONG),
    Spec("twx-coin-short", "TextMem/TWX-CoinCollector-v0", 40, avoid=("take coin",)),
    Spec("twx-cooking-long", "TextMem/TWX-CookingWorld-v0", 320, LONG),
    Spec("jericho-zork1-short", "TextMem/Jericho-Zork1-v0", 40, walkthrough=True),
    Spec("jericho-zork1-long", "TextMem/Jericho-Zork1-v0", 360, walkthrough=True),
    Spec("scienceworld-boil-short", "TextMem/ScienceWorld-Boil-v0", 40),
    Spec("scienceworld-boil-long", "TextMem/ScienceWorld-Boil-v0", 320, LONG),
    Spec("nethack-room-short", "TextMem/NetHack-RoomObs-v0", 40),
    Spec("nethack-level-long", "TextMem/NetHack-LevelObs-v0", 320),
)
MOVES = ("north", "south", "east", "west", "up", "down", "northeast", "northwest", "southeast", "southwest",
         "go ", "move ", "far ")


def walk(spec: Spec, walk_seed: int) -> BenchTrajectory | None:
    """One walk of ``spec`` (``None``: the game ended before ``spec.steps``)."""
    env = gym.make(spec.env_id, **{**spec.env_kwargs, "privileged": True})
    rng = random.Random(walk_seed)
    try:
        observation, info = env.reset(seed=spec.seed)
        digests, commands = [digest(observation)], []
        plan = list(info.get("walkthrough") or []) if spec.walkthrough else []
        for step in range(spec.steps):
            if spec.walkthrough:
                command = plan[step]
            else:
                allowed = [c for c in info["admissible_commands"]
                           if not c.lower().startswith(AVOID + spec.avoid)]
                moves = [c for c in allowed if c.lower().startswith(MOVES)]
                command = rng.choice(moves if moves and rng.random() < 0.5 else allowed)
            observation, _, terminated, truncated, info = env.step(command)
            commands.append(command)
            digests.append(digest(observation))
            if (terminated or truncated) and step < spec.steps - 1:
                return None
        return BenchTrajectory(spec.name, spec.env_id, dict(spec.env_kwargs), spec.seed, commands, digests,
                               "walkthrough" if spec.walkthrough else f"admissible walk, seed {walk_seed}")
    finally:
        env.close()


def make(spec: Spec, out: Path, tries: int = 20) -> BenchTrajectory:
    """The first walk of ``spec`` that lasts its length, saved in ``out``."""
    for walk_seed in range(tries):
        trajectory = walk(spec, walk_seed)
        if trajectory is not None:
            save_trajectory(trajectory, out / f"{spec.name}.json")
            return trajectory
    raise RuntimeError(f"{spec.name}: no walk of {spec.steps} steps in {tries} tries")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default="", help="comma-separated trajectory names (default: all)")
    parser.add_argument("--out", type=Path, default=DATA_DIR)
    args = parser.parse_args()
    chosen = set(filter(None, args.only.split(",")))
    for spec in SPECS:
        if chosen and spec.name not in chosen:
            continue
        start = time.perf_counter()
        trajectory = make(spec, args.out)
        print(f"{spec.name}: {len(trajectory.commands)} steps ({trajectory.source}) in "
              f"{time.perf_counter() - start:.1f} s")


if __name__ == "__main__":
    main()
