"""What writing a trajectory costs per step, for a policy without an LLM.

The same episodes (same game, policy and seeds) are played with and without
``run_episode(trajectory=...)``, interleaved (A, B, A, B...) so both see the same machine load;
the step time is the episode's wall time divided by its decisions. The trajectory writes every
step's observation, belief text, memory size, admissible count and commands, flushed per step.

Target: ratio (with / without) <= 1.05 (at most 5% more step time).

Run: python benchmarks/trajectory_overhead.py [--policy explorer] [--id TextMem/Cooking-v0]
     [--episodes 8] [--steps 60]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

import gymnasium as gym

import textmem_gym  # noqa: F401  (registers ids)
from policies import make_policy
from textmem_gym.runner import run_episode
from textmem_gym.trajectories import TrajectoryWriter, read_trajectory


def episode_time(env_id: str, policy_name: str, seed: int, steps: int, trajectory: Path | None) -> tuple[float, int]:
    """Seconds of one episode (env made and reset outside the timing), and its decisions."""
    policy = make_policy(policy_name)
    env = policy.wrap_env(gym.make(env_id, max_episode_steps=steps))
    env.reset(seed=seed)  # warm: the game file is loaded, caches are built, before timing
    start = time.perf_counter()
    result = run_episode(env, policy, seed=seed, trajectory=trajectory)
    elapsed = time.perf_counter() - start
    env.close()
    return elapsed, result["steps"]


def write_time(path: Path) -> float:
    """Seconds per step to write again the records of a trajectory (the writer alone, no game)."""
    trajectory = read_trajectory(path)
    copy = path.with_suffix(".copy.jsonl")
    start = time.perf_counter()
    with TrajectoryWriter(copy) as writer:
        writer.header(**trajectory.header)
        for record in trajectory.steps:
            info = {**record, "macro": {"actions": record["commands"]}}
            observation = {"observation": record["observation"], "belief": record["belief"]}
            writer.step(record["step"], record["action"], observation, record["reward"], record["terminated"],
                        record["truncated"], info, record["llm_calls"])
    return (time.perf_counter() - start) / max(len(trajectory.steps), 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--policy", default="explorer")
    parser.add_argument("--id", default="TextMem/Cooking-v0")
    parser.add_argument("--episodes", type=int, default=8, help="episodes per side")
    parser.add_argument("--steps", type=int, default=60, help="step limit of each episode")
    args = parser.parse_args()
    episode_time(args.id, args.policy, 0, 5, None)  # the game is generated/cached before any timing
    plain: list[tuple[float, int]] = []
    written: list[tuple[float, int]] = []
    sizes: list[int] = []
    writes: list[float] = []
    with tempfile.TemporaryDirectory() as folder:
        for episode in range(args.episodes):
            path = Path(folder) / f"t{episode}.jsonl"
            for side in ((0, 1) if episode % 2 == 0 else (1, 0)):  # alternate which side goes first
                if side == 0:
                    plain.append(episode_time(args.id, args.policy, episode, args.steps, None))
                else:
                    written.append(episode_time(args.id, args.policy, episode, args.steps, path))
                    sizes.append(path.stat().st_size // max(len(read_trajectory(path).steps), 1))
                    writes.append(write_time(path))
    without, with_ = (sum(t for t, _ in side) / sum(n for _, n in side) for side in (plain, written))
    decisions = sum(n for _, n in plain) / len(plain)
    print(f"{args.policy} on {args.id}, {args.episodes} episodes per side, step limit {args.steps} "
          f"({decisions:.0f} decisions per episode on average)")
    print(f"  step time without trajectory: {without * 1000:.2f} ms")
    print(f"  step time with trajectory:    {with_ * 1000:.2f} ms  ({statistics.mean(sizes) / 1024:.1f} KiB per step)")
    print(f"  ratio with/without: {with_ / without:.3f}  (target <= 1.05)")
    write = statistics.median(writes)
    print(f"  the writer alone: {write * 1000:.3f} ms per step = {write / without:.3%} of the step time")


if __name__ == "__main__":
    main()
