"""Step time of TextMem's TextWorld env vs the raw ``textworld.gym`` env, and cached make time.

Both envs play the same game with the same commands (the walkthrough, then random admissible
commands), request the same information from TextWorld, and are timed alternately in one run,
so the printed ratio is robust to machine noise. Targets: step ratio <= 1.10, cached
``gym.make`` < 0.5 s.

Run: ``python benchmarks/env_step.py [--env-id ID] [--rounds N]``
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

import gymnasium as gym
import textworld
import textworld.gym

import textmem_gym  # noqa: F401


def commands_for(env_id: str, n_random: int, seed: int = 0) -> list[str]:
    """The walkthrough followed by random admissible commands, recorded once."""
    env = gym.make(env_id, privileged=["walkthrough"], max_episode_steps=10_000)
    _, info = env.reset(seed=seed)
    commands = list(info["walkthrough"])
    _, info = env.reset(seed=seed)
    rng = random.Random(seed)
    for _ in range(n_random):
        command = rng.choice(info["admissible_commands"])
        commands.append(command)
        _, _, terminated, _, info = env.step(command)
        if terminated:
            _, info = env.reset(seed=seed)
    env.close()
    return commands


def time_ours(env_id: str, commands: list[str]) -> float:
    env = gym.make(env_id, max_episode_steps=10_000)
    env.reset(seed=0)
    start = time.perf_counter()
    for command in commands:
        if env.step(command)[2]:
            env.reset(seed=0)
    elapsed = time.perf_counter() - start
    env.close()
    return elapsed / len(commands)


def time_raw(game_file: str, commands: list[str]) -> float:
    infos = textworld.EnvInfos(admissible_commands=True, objective=True, max_score=True, score=True,
                               won=True, lost=True, moves=True, extras=["walkthrough"])
    raw_id = textworld.gym.register_game(game_file, request_infos=infos, max_episode_steps=10_000)
    env = textworld.gym.make(raw_id)
    env.reset()
    start = time.perf_counter()
    for command in commands:
        if env.step(command)[2]:
            env.reset()
    elapsed = time.perf_counter() - start
    env.close()
    return elapsed / len(commands)


def time_cached_make(env_id: str, repeats: int = 5) -> float:
    gym.make(env_id).close()  # make sure the game is generated and cached
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        env = gym.make(env_id)
        times.append(time.perf_counter() - start)
        env.close()
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env-id", default="TextMem/Cooking-Hard-v0")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--random-steps", type=int, default=300)
    args = parser.parse_args()
    commands = commands_for(args.env_id, args.random_steps)
    game_file = str(gym.make(args.env_id).unwrapped.game_file)
    ours, raw = [], []
    for _ in range(args.rounds):
        ours.append(time_ours(args.env_id, commands))
        raw.append(time_raw(game_file, commands))
    ratio = statistics.median(o / r for o, r in zip(ours, raw))
    best_ratio = min(ours) / min(raw)
    make_s = time_cached_make(args.env_id)
    print(f"env: {args.env_id}  commands per round: {len(commands)}  rounds: {args.rounds}")
    print(f"step time  ours: {statistics.median(ours) * 1e3:.3f} ms  raw textworld.gym: "
          f"{statistics.median(raw) * 1e3:.3f} ms  ratio (median of rounds): {ratio:.3f}  "
          f"ratio (best rounds): {best_ratio:.3f}  (target <= 1.10)")
    print(f"cached gym.make: {make_s:.3f} s  (target < 0.5 s)")


if __name__ == "__main__":
    main()
