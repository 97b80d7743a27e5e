"""RLlib PPO on TextMem: env-runner sampling throughput (1 vs 2 runners, with and without memory) and parity with SB3.

``--mode scaling`` (default): for each case (1 or 2 env runners x no memory or ``--memory``), builds the
PPO algorithm of :mod:`baselines_rl.rllib_ppo` on a local Ray, warms up, then times ``--rounds`` rounds
in which every runner samples ``--steps`` env steps (the runners sample in parallel; the masked
RLModule's forward pass runs inside them). Printed side by side in one run: samples/s per case, the
speedup of 2 runners over 1, and the memory's cost. Then the PPO update on ``2 x --steps``
samples is timed in the driver (RLlib's ``learner_update_timer``, best of ``--rounds``
iterations), which gives the estimate for N runners on N free cores: a synchronous PPO iteration
samples ``T`` steps in ``T / (N * r1)`` seconds (``r1``: one runner's samples/s) and then learns
for ``u`` seconds, so its throughput is ``T / (T / (N * r1) + u)``.

``--mode parity``: MaskablePPO (SB3) and RLlib PPO on the game SB3 learns in ``benchmarks/twx_ppo.py``
(TWX CookingWorld, 1 room, 1 ingredient, no distractors, no doors), same arguments (the tuned
CookingRL-L1 ones), 2 envs each, evaluated greedily every ``--eval-freq`` steps until a mean
normalized score of 0.9; prints the env steps each needed and their ratio (target: RLlib <= 1.5x SB3).

Run: python benchmarks/rllib_scaling.py [--mode scaling|parity] [--steps 200] [--rounds 3]
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import tyro

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from baselines_rl.ppo import PPOArgs  # noqa: E402
from baselines_rl.ppo import train as train_sb3  # noqa: E402
from baselines_rl.rllib_ppo import RLlibPPOArgs, build_config, start_ray  # noqa: E402
from baselines_rl.rllib_ppo import train as train_rllib  # noqa: E402
from baselines_rl.train import TrainResult  # noqa: E402

#: The game SB3's MaskablePPO learns (benchmarks/twx_ppo.py): TWX CookingWorld, one room, one ingredient.
TWX_EASY = ("numLocations=1", "numIngredients=1", "numDistractorItems=0", "includeDoors=0", "limitInventorySize=0")
#: The tuned CookingRL-L1 arguments (benchmarks/rl_learning.py), as benchmarks/twx_ppo.py uses them.
TUNED: dict[str, Any] = {"max_episode_steps": 30, "ent_coef": 0.03, "novelty_bonus": 0.1, "novelty_decay_steps": 40_000}
TARGET = 0.9


@dataclass
class Args:
    """Command-line arguments."""

    mode: Literal["scaling", "parity"] = "scaling"
    """``scaling``: samples/s at 1 and 2 runners, with and without memory; ``parity``: RLlib vs SB3 env steps to 0.9."""
    env_id: str = "TextMem/TWX-CookingWorld-v0"
    """Env id (scaling mode; parity always uses the TWX game SB3 learns)."""
    env_arg: tuple[str, ...] = TWX_EASY
    """``gym.make`` arguments as KEY=VALUE (scaling mode)."""
    memory: str = "arigraph"
    """The memory of the "with memory" cases."""
    steps: int = 200
    """Env steps each runner samples per timed round."""
    rounds: int = 3
    """Timed rounds per case (after one warm-up round)."""
    max_steps: int = 30_000
    """Parity: env steps at most per library."""
    eval_freq: int = 1_000
    """Parity: evaluate the greedy policy every this many env steps."""
    seed: int = 0
    """Seed of models, resets and evaluations."""
    out: str = "runs/rllib_scaling"
    """Where parity runs go."""


def sampling_rate(args: Args, runners: int, memory: str | None) -> tuple[float, float]:
    """``(samples/s of the runners together, seconds of one PPO update on 2 x steps samples)``."""
    rl_args = RLlibPPOArgs(env_id=args.env_id, env_arg=args.env_arg, memory=memory, n_envs=runners,
                           n_steps=args.steps, batch_size=64, n_epochs=4, seed=args.seed, progress=False, **TUNED)
    algo = build_config(rl_args, rl_args.env_spec()).build_algo()
    try:
        group = algo.env_runner_group

        def sample(runner: Any) -> int:
            return sum(len(episode) for episode in runner.sample(num_timesteps=args.steps))

        group.foreach_env_runner(sample, local_env_runner=False)  # warm-up: JVMs, first episodes
        start, total = time.perf_counter(), 0
        for _ in range(args.rounds):
            total += sum(group.foreach_env_runner(sample, local_env_runner=False))
        rate = total / (time.perf_counter() - start)
        update = 0.0
        if runners == 2 and memory is None:  # the learner's share of a PPO iteration on 2 x steps samples
            from ray.rllib.utils.metrics import LEARNER_UPDATE_TIMER, TIMERS

            algo.train()  # warm-up iteration
            update = min(float(algo.train()[TIMERS][LEARNER_UPDATE_TIMER]) for _ in range(args.rounds))
    finally:
        algo.stop()
    return rate, update


def scaling(args: Args) -> None:
    """Prints samples/s for 1 and 2 runners, with and without memory, and the estimate beyond."""
    import ray

    started = start_ray(None, num_cpus=2)
    try:
        from ray.tune.registry import register_env

        from baselines_rl.rllib_module import ENV_NAME, make_rllib_env

        register_env(ENV_NAME, make_rllib_env)
        load = os.getloadavg()[0]
        rates: dict[tuple[int, str | None], float] = {}
        update = 0.0
        for memory in (None, args.memory):
            for runners in (1, 2):
                rates[runners, memory], seconds = sampling_rate(args, runners, memory)
                update = update or seconds
    finally:
        if started:
            ray.shutdown()
    print(f"{args.env_id} {' '.join(args.env_arg)}; {os.cpu_count()} cores, load average {load:.1f} at start")
    print(f"{'':14s}{'1 runner':>12s}{'2 runners':>12s}{'2 / 1':>8s}")
    for memory in (None, args.memory):
        one, two = rates[1, memory], rates[2, memory]
        print(f"{memory or 'no memory':14s}{one:10.0f}/s{two:10.0f}/s{two / one:8.2f}")
    for runners in (1, 2):
        print(f"memory cost at {runners} runner(s): {rates[runners, args.memory] / rates[runners, None]:.2f}x "
              f"the samples/s without memory")
    r1 = rates[1, None]
    print(f"PPO update on {2 * args.steps} samples in the driver (RLlib's learner_update_timer, best of "
          f"{args.rounds}): {update:.2f} s")
    for n in (1, 2, 4, 8, 16, 32):  # each runner samples args.steps per iteration; learning grows with n
        seconds = args.steps / r1 + update * n / 2
        print(f"estimate, {n:2d} runners on {n} free cores: {n * r1:7.0f} samples/s sampling, "
              f"{n * args.steps / seconds:6.0f} env steps/s training ({n * args.steps} samples per update)")


def parity(args: Args) -> None:
    """Env steps to greedy 0.9 for SB3's MaskablePPO and RLlib PPO, same arguments and game."""
    common: dict[str, Any] = {"env_id": "TextMem/TWX-CookingWorld-v0", "env_arg": TWX_EASY,
                              "total_timesteps": args.max_steps, "n_envs": 2, "seed": args.seed,
                              "eval_freq": args.eval_freq, "eval_episodes": 2, "stop_score": TARGET,
                              "progress": False, **TUNED}
    rows = {}
    cases: list[tuple[str, Callable[[Any], TrainResult], type[PPOArgs]]] = [
        ("SB3 MaskablePPO", train_sb3, PPOArgs), ("RLlib PPO", train_rllib, RLlibPPOArgs)]
    for name, train, args_class in cases:
        load, start = os.getloadavg()[0], time.perf_counter()
        result = train(args_class(out_dir=str(Path(args.out) / name.split()[0].lower()), **common))
        rows[name] = {"reached": result.first_reaching(TARGET), "seconds": time.perf_counter() - start,
                      "best": max(r["mean_normalized_score"] for r in result.eval_history),
                      "steps": int(result.eval_history[-1]["timesteps"]), "speed": result.steps_per_second,
                      "load": load}
    for name, row in rows.items():
        outcome = (f"0.9 at {row['reached']} steps" if row["reached"]
                   else f"not 0.9 in {row['steps']} (best {row['best']:.2f})")
        print(f"{name:16s} {outcome:32s} {row['seconds']:7.1f} s  {row['speed']:6.1f} env steps/s  "
              f"(load {row['load']:.1f})")
    sb3, rllib = rows["SB3 MaskablePPO"]["reached"], rows["RLlib PPO"]["reached"]
    if sb3 and rllib:
        print(f"env steps to 0.9, RLlib / SB3: {rllib / sb3:.2f} (target <= 1.5)")
    else:
        print("ratio undefined: a library did not reach 0.9 within --max-steps")


if __name__ == "__main__":
    cli = tyro.cli(Args)
    {"scaling": scaling, "parity": parity}[cli.mode](cli)
