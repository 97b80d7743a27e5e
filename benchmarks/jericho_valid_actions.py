"""Benchmark: admissible commands cached by world state vs recomputed on every read (Zork I).

An agent plays Zork I's walkthrough (seed 0) and reads ``info["admissible_commands"]`` after
every command it sends. Two envs receive the same commands side by side: one with the cache
(the default) and one recomputing on every read (``admissible_cache_size=0``). Every pair of
lists is compared; the script prints the total read times and their ratio for three
workloads (default: the first 40 moves, before the troll):

- ``walkthrough``: only the walkthrough's moves. Nearly every move reaches a new world
  state (389 distinct states in the 397 of the whole walkthrough), so the cache cannot help.
- ``look-around``: before each move the agent sends ``look``, ``inventory`` and ``examine X``
  for up to 3 nouns of the last observation, as LLM agents do; these leave the world as it is,
  so their reads hit the cache. (In Zork I they still take a turn: past the troll, the
  look-around gets the player killed and the run leaves the walkthrough.)
- ``5-episodes``: the walkthrough replayed from the start five times with the cache kept,
  as reinforcement-learning training replays a game.

The ratio is about the number of reads per distinct world state. Lists can differ where the
game keeps state outside the object tree and tracked RAM that the world-state hash covers
(in the troll fight, combat strength changes while the hash does not), so a cached list can
be stale there; the count of differing lists is printed.

Run:
    python benchmarks/jericho_valid_actions.py [--steps N] [WORKLOAD ...]   # N=0: the whole walkthrough
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import gymnasium as gym

import textmem_gym  # noqa: F401
from textmem_gym.envs.jericho_actions import text_names

GAME_ID = "TextMem/Jericho-Zork1-v0"


def _timed_read(info: dict[str, Any]) -> tuple[list[str], float]:
    start = time.perf_counter()
    commands = list(info["admissible_commands"])
    return commands, time.perf_counter() - start


def _look_around(observation: str, env: gym.Env, examine: int) -> list[str]:
    if examine < 0:
        return []
    nouns = text_names(observation, env.unwrapped._actions.vocabulary)[:examine]
    return ["look", "inventory", *(f"examine {noun}" for noun in nouns)]


def run(steps: int, examine: int, episodes: int = 1) -> dict[str, float]:
    """Plays the workload ``episodes`` times in both envs; returns the totals and the ratio."""
    cached = gym.make(GAME_ID, privileged="walkthrough", max_episode_steps=10**6)
    fresh = gym.make(GAME_ID, admissible_cache_size=0, max_episode_steps=10**6)
    totals = {"cached": 0.0, "recomputed": 0.0, "reads": 0, "mismatches": 0}
    states: set[str] = set()
    try:
        for _ in range(episodes):
            observation, info = cached.reset(seed=0)
            _, fresh_info = fresh.reset(seed=0)
            walkthrough = info["walkthrough"][:steps] if steps > 0 else info["walkthrough"]
            for move in walkthrough:
                for command in [*_look_around(observation, cached, examine), move]:
                    commands, seconds = _timed_read(info)
                    fresh_commands, fresh_seconds = _timed_read(fresh_info)
                    totals["cached"] += seconds
                    totals["recomputed"] += fresh_seconds
                    totals["reads"] += 1
                    totals["mismatches"] += commands != fresh_commands
                    states.add(info["world_state_hash"])
                    observation, _, terminated, _, info = cached.step(command)
                    _, _, _, _, fresh_info = fresh.step(command)
                if terminated:
                    break
    finally:
        cached.close()
        fresh.close()
    totals["states"] = len(states)
    totals["ratio"] = totals["recomputed"] / totals["cached"]
    return totals


#: Workload name -> (nouns examined in the look-around, or -1 for none; episodes).
WORKLOADS: dict[str, tuple[int, int]] = {
    "walkthrough": (-1, 1),
    "look-around": (3, 1),
    "5-episodes": (-1, 5),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=40, help="walkthrough moves (0: all 396)")
    parser.add_argument("workloads", nargs="*", help=f"among {sorted(WORKLOADS)}; default: all")
    args = parser.parse_args()
    unknown = set(args.workloads) - set(WORKLOADS)
    if unknown:
        parser.error(f"unknown workloads {sorted(unknown)}; choose among {sorted(WORKLOADS)}")
    print(f"zork1, first {args.steps or 'all'} walkthrough moves")
    for name in args.workloads or WORKLOADS:
        totals = run(args.steps, *WORKLOADS[name])
        print(f"{name:<12} {totals['reads']:5d} reads of {totals['states']:4d} states   "
              f"recomputed {totals['recomputed']:7.2f} s   cached {totals['cached']:7.2f} s   "
              f"ratio {totals['ratio']:5.1f}x   lists differing: {totals['mismatches']}")


if __name__ == "__main__":
    main()
