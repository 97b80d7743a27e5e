"""Skill execution cost per primitive step vs NLE's raw step, measured side by side.

Raw: NLE stepping a fixed cycle of move keys. Skills: ``TextMem/NetHack-LevelObs-v0`` playing
``explore``/``descend`` skills; cost = wall time / primitive keys the skills sent (includes the
path finding, interruption checks and one text observation per skill).

    python benchmarks/nethack_skills.py [--keys N]
"""

from __future__ import annotations

import argparse
import time

import gymnasium as gym

import textmem_gym  # noqa: F401


def raw_nle(keys: int) -> float:
    """Seconds per raw NLE step."""
    from nle import nethack
    from nle.env.base import NLE

    env = NLE(max_episode_steps=2**62, actions=nethack.ACTIONS, allow_all_yn_questions=True, fix_moon_phase=True)
    index = {int(a): i for i, a in enumerate(env.actions)}
    cycle = [index[ord(k)] for k in "hjklyubn"]
    env.seed(7, 8, reseed=False)
    env.reset()
    start = time.perf_counter()
    for i in range(keys):
        if env.step(cycle[i % 8])[2]:
            env.reset()
    seconds = time.perf_counter() - start
    env.close()
    return seconds / keys


def skills(keys: int) -> float:
    """Seconds per primitive key sent by skills."""
    env = gym.make("TextMem/NetHack-LevelObs-v0", max_episode_steps=10**9)
    sent, seed, seconds = 0, 0, 0.0
    while sent < keys:
        _, info = env.reset(seed=seed)
        start = time.perf_counter()
        for _ in range(40):
            command = "descend" if "descend" in info["admissible_commands"] else "explore"
            *_, terminated, truncated, info = env.step(command)
            if terminated or truncated:
                break
        seconds += time.perf_counter() - start
        sent += info["steps"]["primitive"]
        seed += 1
    env.close()
    return seconds / sent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keys", type=int, default=3000)
    args = parser.parse_args()
    raw, skill = raw_nle(args.keys), skills(args.keys)
    print(f"NLE raw step: {raw * 1e3:.3f} ms; skill primitive step: {skill * 1e3:.3f} ms; "
          f"ratio skill/raw = {skill / raw:.1f}x")


if __name__ == "__main__":
    main()
