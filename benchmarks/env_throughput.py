"""Benchmark: steps per second of TextMem envs vs their raw engines, same commands, one run.

One function per backend (others add theirs to :data:`BACKENDS`). Each measures the raw
engine and the TextMem env side by side on the same command sequence and prints the ratio
(TextMem / raw; above 1 means the TextMem env is faster).

- ``scienceworld_throughput``: ``scienceworld.ScienceWorldEnv.step`` (which computes look,
  inventory and the valid actions every step) vs ``TextMem/ScienceWorld-FindLivingThing-v0``
  (lazy admissible commands), also with the admissible commands read every step; plus the
  time to start an env (JVM start + task load).
- ``nethack_throughput``: NLE's gym env stepping action indices vs ``TextMem/NetHack-*``
  stepping words and building the text observation.
- ``jericho_throughput``: ``jericho.FrotzEnv.step`` vs ``TextMem/Jericho-Zork1-v0`` (lazy
  admissible commands; the world-state hash, visit count and state snapshot are paid every
  step) on Zork I's walkthrough, replayed from the start after each win.
- ``twx_throughput``: TextWorld Express's own Python API (``TextWorldExpressEnv``) vs
  ``TextMem/TWX-CookingWorld-v0`` on the same game and the same commands (a seeded walk of valid
  actions, recorded once), after both JVMs have compiled their hot code.

Run:
    python benchmarks/env_throughput.py [scienceworld] [nethack] [jericho] [twx] [--steps N]
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable, Iterator, Sequence
from itertools import cycle, islice
from typing import Any

import gymnasium as gym

import textmem_gym  # noqa: F401

SCIENCEWORLD_ID = "TextMem/ScienceWorld-FindLivingThing-v0"
SCIENCEWORLD_COMMANDS = ["look around", "open door to hallway", "go to hallway", "inventory", "look around",
                         "go to art studio", "wait1", "look at table"]
NETHACK_COMMANDS = ["far east", "far west", "north", "south", "search", "far north", "far south", "east",
                    "west", "northeast", "southwest", "wait"]


def _rate(step: Callable[[str], Any], commands: Iterator[str], steps: int) -> float:
    start = time.perf_counter()
    for command in islice(commands, steps):
        step(command)
    return steps / (time.perf_counter() - start)


def _median_rates(steppers: dict[str, Callable[[str], Any]], commands: Sequence[str], steps: int,
                  rounds: int) -> dict[str, float]:
    """Steps/s of each stepper: ``rounds`` interleaved rounds (so that load changes on a shared
    machine hit all alike), median per stepper."""
    rates: dict[str, list[float]] = {name: [] for name in steppers}
    streams = {name: cycle(commands) for name in steppers}
    for _ in range(rounds):
        for name, step in steppers.items():
            rates[name].append(_rate(step, streams[name], max(1, steps // rounds)))
    return {name: statistics.median(values) for name, values in rates.items()}


def _report(name: str, raw: float, ours: float) -> None:
    print(f"{name:<48} raw {raw:9.1f} steps/s   textmem {ours:9.1f} steps/s   ratio {ours / raw:6.2f}")


def scienceworld_throughput(steps: int = 200) -> dict[str, float]:
    """ScienceWorld: raw ``ScienceWorldEnv`` vs the TextMem env on the same commands."""
    from scienceworld import ScienceWorldEnv

    start = time.perf_counter()
    env = gym.make(SCIENCEWORLD_ID, max_episode_steps=10**9)  # no truncation: same steps as raw
    env.reset(seed=0)
    ours_start = time.perf_counter() - start
    variation = env.unwrapped.variation
    start = time.perf_counter()
    raw = ScienceWorldEnv("", envStepLimit=10**9)
    raw.load("find-living-thing", variation, "easy")
    raw.reset()
    raw_start = time.perf_counter() - start
    try:
        rates = _median_rates({"raw": raw.step, "ours": env.step,
                               "ours_read": lambda c: list(env.step(c)[4]["admissible_commands"])},
                              SCIENCEWORLD_COMMANDS, steps, rounds=3)
    finally:
        raw.close()
        env.close()
    raw_rate, ours_rate, ours_read = rates["raw"], rates["ours"], rates["ours_read"]
    _report("ScienceWorld step (lazy admissible)", raw_rate, ours_rate)
    _report("ScienceWorld step (admissible read every step)", raw_rate, ours_read)
    print(f"{'ScienceWorld env start (JVM + load + reset)':<48} raw {raw_start:9.2f} s         textmem "
          f"{ours_start:9.2f} s         speed-up {raw_start / ours_start:5.2f}")
    return {"step": ours_rate / raw_rate, "step_with_admissible": ours_read / raw_rate,
            "start": raw_start / ours_start}


def _raw_nethack(seed: int) -> tuple[Any, dict[str, int]]:
    from nle import nethack
    from nle.env.base import NLE

    from textmem_gym.envs.nethack.actions import key_for

    raw = NLE(max_episode_steps=2**62, actions=nethack.ACTIONS, allow_all_yn_questions=True,
              fix_moon_phase=True)
    index = {int(action): i for i, action in enumerate(raw.actions)}
    raw.seed(seed, seed + 1, reseed=False)
    raw.reset()
    return raw, {word: index[key_for(word)] for word in NETHACK_COMMANDS}


def nethack_throughput(steps: int = 2000, scopes: Sequence[str] = ("RoomObs", "LevelObs")) -> dict[str, float]:
    """NetHack: NLE's gym env (action indices) vs the TextMem envs (words, text)."""
    raw, actions = _raw_nethack(7)

    def raw_step(command: str) -> None:
        if raw.step(actions[command])[2]:
            raw.reset()

    envs = {scope: gym.make(f"TextMem/NetHack-{scope}-v0", game_seed=7, max_episode_steps=10**9)
            for scope in scopes}
    steppers: dict[str, Callable[[str], Any]] = {"raw": raw_step}
    for scope, env in envs.items():
        env.reset(seed=0)
        steppers[scope] = _resetting_step(env)
    try:
        rates = _median_rates(steppers, NETHACK_COMMANDS, steps, rounds=5)
    finally:
        raw.close()
        for env in envs.values():
            env.close()
    for scope in scopes:
        _report(f"NetHack {scope} step", rates["raw"], rates[scope])
    return {scope: rates[scope] / rates["raw"] for scope in scopes}


def _resetting_step(env: gym.Env) -> Callable[[str], None]:
    def step(command: str) -> None:
        if env.step(command)[2]:
            env.reset()

    return step


def jericho_throughput(steps: int = 2000) -> dict[str, float]:
    """Jericho: raw ``FrotzEnv`` vs ``TextMem/Jericho-Zork1-v0`` on Zork I's walkthrough."""
    import jericho

    from textmem_gym.envs.jericho.roms import find_rom

    env = gym.make("TextMem/Jericho-Zork1-v0", privileged="walkthrough", max_episode_steps=10**9)
    walkthrough = env.reset(seed=0)[1]["walkthrough"]
    raw = jericho.FrotzEnv(str(find_rom("zork1")), seed=env.unwrapped.walkthrough_seed)
    raw.reset()

    def raw_step(command: str) -> None:
        if raw.step(command)[2]:
            raw.reset()

    def ours_step(command: str) -> None:
        if env.step(command)[2]:
            env.reset(seed=0)

    try:
        raw_rate = _rate(raw_step, cycle(walkthrough), steps)
        ours_rate = _rate(ours_step, cycle(walkthrough), steps)
    finally:
        raw.close()
        env.close()
    _report("Jericho zork1 step (lazy admissible)", raw_rate, ours_rate)
    return {"step": ours_rate / raw_rate}


TWX_ID = "TextMem/TWX-CookingWorld-v0"


def _twx_commands(env: gym.Env, n: int, seed: int = 0) -> list[str]:
    """A seeded walk of ``n`` valid actions of ``env`` (reset at each episode's end, as the replay does)."""
    import random

    rng = random.Random(seed)
    _, info = env.reset(seed=0)
    commands = []
    for _ in range(n):
        commands.append(rng.choice(sorted(info["admissible_commands"])))
        _, _, terminated, truncated, info = env.step(commands[-1])
        if terminated or truncated:
            _, info = env.reset(seed=0)
    return commands


def twx_throughput(steps: int = 20_000) -> dict[str, float]:
    """TWX: its Python API vs ``TextMem/TWX-CookingWorld-v0`` on the same game and commands."""
    from textworld_express import TextWorldExpressEnv

    env = gym.make(TWX_ID, max_episode_steps=10**9)
    commands = _twx_commands(env, 500)
    game = env.unwrapped
    raw = TextWorldExpressEnv(envStepLimit=10**9)
    raw.reset(seed=game.seed, gameFold=game.split, gameName=game.game, gameParams=game.params)

    def raw_step(command: str) -> None:
        if raw.step(command)[2]:
            raw.reset()

    try:
        env.reset(seed=0)
        steppers = {"raw": raw_step, "ours": _resetting_step(env)}
        _median_rates(steppers, commands, steps, rounds=1)  # warm up: the JVMs compile their hot code
        rates = _median_rates(steppers, commands, steps, rounds=5)
    finally:
        raw.close()
        env.close()
    _report("TWX cookingworld step", rates["raw"], rates["ours"])
    return {"step": rates["ours"] / rates["raw"]}


#: Backend name -> its benchmark.
BACKENDS: dict[str, Callable[..., dict[str, float]]] = {
    "scienceworld": scienceworld_throughput,
    "nethack": nethack_throughput,
    "jericho": jericho_throughput,
    "twx": twx_throughput,
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("backends", nargs="*", choices=sorted(BACKENDS), help="default: all")
    parser.add_argument("--steps", type=int, default=None, help="steps per measurement")
    args = parser.parse_args()
    for name in args.backends or BACKENDS:
        BACKENDS[name](**({"steps": args.steps} if args.steps else {}))


if __name__ == "__main__":
    main()
