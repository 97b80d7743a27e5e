"""Benchmark: admissible commands cached by world state vs recomputed on every read (Zork I).

An agent plays Zork I's walkthrough (seed 0) and reads ``info["admissible_commands"]`` after
every command it sends. Two envs receive the same commands side by side: one with the cache
(the default) and one recomputing on every read (``admissible_cache_size=0``). Every pair of
lists is compared; the script prints the total read times and their ratio for three
workloads over the whole walkthrough (``--steps N``: its first N moves). A workload stops
where the player dies, since the rest would no longer follow the walkthrough:

- ``walkthrough``: only the walkthrough's moves. Nearly every move reaches a new world
  state (389 distinct states in the 397 of the whole walkthrough), so the cache cannot help.
- ``look-around``: before each move the agent sends ``look``, ``inventory`` and ``examine X``
  for up to 3 nouns of the last observation, as LLM agents do; these leave the world as it is,
  so their reads hit the cache. (In Zork I they still take a turn: in the troll fight the
  extra turns get the player killed, which ends this workload after 28 moves.)
- ``5-episodes``: the walkthrough replayed from the start five times with the cache kept,
  as reinforcement-learning training replays a game.

The ratio is about the number of reads per distinct world state. The world-state hash leaves
out some state (in the troll fight, combat strengths and the random generator change while
the hash does not), so a cached list is checked before reuse and recomputed when found stale
(see :mod:`textmem_gym.envs.jericho.admissible`); the counts of stale and of differing lists are
printed.

``--bound`` also prints how far *any* reuse could go on one pass of the walkthrough, measured
from the candidates the recomputation simulates: a cache keyed by world state saves at most
reads / distinct states, and even re-simulating each candidate command once per room (an
incremental recomputation that could reuse every result whose command and room were seen
before, which no exact scheme can exceed without knowing what the game's code reads) saves at
most candidates / distinct (command, room) pairs.

Run:
    python benchmarks/jericho_valid_actions.py [--steps N] [--bound] [WORKLOAD ...]   # N=0: the whole walkthrough
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import gymnasium as gym

import textmem_gym  # noqa: F401
from textmem_gym.envs.jericho.admissible import fill_templates, scope_of, templates_of, text_names

GAME_ID = "TextMem/Jericho-Zork1-v0"
_DIED = "You have died"


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
    totals = {"cached": 0.0, "recomputed": 0.0, "reads": 0, "mismatches": 0, "moves": 0}
    states: set[str] = set()
    try:
        for _ in range(episodes):
            observation, info = cached.reset(seed=0)
            _, fresh_info = fresh.reset(seed=0)
            walkthrough = info["walkthrough"][:steps] if steps > 0 else info["walkthrough"]
            for move in walkthrough:
                totals["moves"] += 1
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
                    if terminated or _DIED in observation:  # off the walkthrough from here
                        break
                if terminated or _DIED in observation:
                    break
    finally:
        cached.close()
        fresh.close()
    totals["states"] = len(states)
    totals["stale"] = cached.unwrapped._actions.stale
    totals["ratio"] = totals["recomputed"] / totals["cached"]
    return totals


def reuse_bound(steps: int) -> dict[str, float]:
    """Counts, over the walkthrough's states, the candidates a recomputation simulates and how
    many of them are distinct per world state and per (command, room)."""
    env = gym.make(GAME_ID, privileged="walkthrough", max_episode_steps=10**6)
    counts = {"reads": 0, "candidates": 0}
    states: set[str] = set()
    pairs: set[tuple[str, int]] = set()
    try:
        _, info = env.reset(seed=0)
        game = env.unwrapped
        frotz, vocabulary = game._frotz, game._actions.vocabulary
        for move in info["walkthrough"][:steps] if steps > 0 else info["walkthrough"]:
            scope = scope_of(frotz, vocabulary)
            candidates = fill_templates(templates_of(frotz), scope.names, scope.held)
            room = frotz.get_player_location().num
            counts["reads"] += 1
            counts["candidates"] += len(candidates)
            states.add(info["world_state_hash"])
            pairs.update((command, room) for command in candidates)
            _, _, terminated, _, info = env.step(move)
            if terminated:
                break
    finally:
        env.close()
    counts["states"], counts["pairs"] = len(states), len(pairs)
    return counts


#: Workload name -> (nouns examined in the look-around, or -1 for none; episodes).
WORKLOADS: dict[str, tuple[int, int]] = {
    "walkthrough": (-1, 1),
    "look-around": (3, 1),
    "5-episodes": (-1, 5),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=0, help="walkthrough moves (default 0: all 396)")
    parser.add_argument("--bound", action="store_true",
                        help="also print the most any reuse could save on one pass (see the module doc)")
    parser.add_argument("workloads", nargs="*", help=f"among {sorted(WORKLOADS)}; default: all")
    args = parser.parse_args()
    unknown = set(args.workloads) - set(WORKLOADS)
    if unknown:
        parser.error(f"unknown workloads {sorted(unknown)}; choose among {sorted(WORKLOADS)}")
    print(f"zork1, {f'first {args.steps}' if args.steps else 'all'} walkthrough moves")
    for name in args.workloads or WORKLOADS:
        totals = run(args.steps, *WORKLOADS[name])
        print(f"{name:<12} {totals['moves']:4d} moves {totals['reads']:5d} reads of {totals['states']:4d} states   "
              f"recomputed {totals['recomputed']:7.2f} s   cached {totals['cached']:7.2f} s   "
              f"ratio {totals['ratio']:5.1f}x   lists differing: {totals['mismatches']}   "
              f"cached lists found stale: {totals['stale']}")
    if args.bound:
        bound = reuse_bound(args.steps)
        print(f"bound: one pass, {bound['reads']} reads of {bound['states']} states -> a cache keyed by world "
              f"state: at most {bound['reads'] / bound['states']:.2f}x; {bound['candidates']:,} simulated "
              f"candidates, {bound['pairs']:,} distinct (command, room) pairs -> reuse per command and room: "
              f"at most {bound['candidates'] / bound['pairs']:.2f}x")


if __name__ == "__main__":
    main()
