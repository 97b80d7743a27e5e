"""PPO wall-clock to a normalized score of 0.9: an easy TextWorld Express cooking vs ``TextMem/CookingRL-L1-v0``.

Both cases train MaskablePPO (DRRN policy, bag-of-words encoding) with the same arguments, the tuned
CookingRL-L1 ones of ``benchmarks/rl_learning.py`` (30-step episodes, entropy 0.03, a 0.1 novelty
bonus decayed to 0 by 40k steps), ``--n-envs`` envs in a ``SubprocVecEnv``, the greedy policy
evaluated every ``--eval-freq`` steps, and stop as soon as an evaluation's mean normalized score
reaches 0.9. The TWX case is ``TextMem/TWX-CookingWorld-v0`` with one room, one ingredient, no
distractors, no doors (as CookingRL-L1: one room, one ingredient). Printed per case: wall-clock
seconds from the start (JVMs and games included) to the stop, env steps, training env steps/s and
the best score; then the ratio of issue 23's target (TWX wall-clock / CookingRL-L1 wall-clock <=
1/5). The two runs are sequential in one process: machine load can differ between them (the
load average is printed with each).

Run: python benchmarks/twx_ppo.py [--max-steps 60000] [--n-envs 2] [--eval-freq 1000] [--seed 0]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from baselines_rl.ppo import PPOArgs, train  # noqa: E402

TARGET = 0.9
#: The tuned CookingRL-L1 arguments (benchmarks/rl_learning.py, case ``l1``), used for both cases.
TUNED: dict[str, Any] = {"max_episode_steps": 30, "ent_coef": 0.03, "novelty_bonus": 0.1, "novelty_decay_steps": 40_000}
#: case -> (env id, ``--env-arg`` items)
CASES: dict[str, tuple[str, tuple[str, ...]]] = {
    "TWX CookingWorld (1 room, 1 ingredient)": (
        "TextMem/TWX-CookingWorld-v0",
        ("numLocations=1", "numIngredients=1", "numDistractorItems=0", "includeDoors=0", "limitInventorySize=0")),
    "TextMem/CookingRL-L1-v0": ("TextMem/CookingRL-L1-v0", ()),
}


@dataclass
class Args:
    """Command-line arguments."""

    max_steps: int = 60_000
    """Env steps at most per case (a case that has not reached 0.9 by then is reported as such)."""
    n_envs: int = 2
    """Envs per case (SubprocVecEnv)."""
    eval_freq: int = 1_000
    """Evaluate the greedy policy every this many env steps."""
    seed: int = 0
    """Seed of the model, resets and evaluations."""
    out: str = "runs/twx_ppo"
    """Where the runs go."""


def run_case(name: str, args: Args) -> dict[str, Any]:
    """Trains one case until 0.9 (or ``max_steps``); its wall-clock, steps and throughput."""
    env_id, env_args = CASES[name]
    ppo_args = PPOArgs(env_id=env_id, env_arg=env_args, total_timesteps=args.max_steps, n_envs=args.n_envs,
                       seed=args.seed, eval_freq=args.eval_freq, eval_episodes=2, stop_score=TARGET,
                       out_dir=str(Path(args.out) / env_id.split("/")[-1]), **TUNED)
    load = os.getloadavg()[0]
    start = time.perf_counter()
    result = train(ppo_args)
    seconds = time.perf_counter() - start
    reached = result.first_reaching(TARGET)
    best = max((row["mean_normalized_score"] for row in result.eval_history), default=float("nan"))
    return {"seconds": seconds, "steps": int(result.model.num_timesteps), "reached": reached, "best": best,
            "steps_per_second": result.steps_per_second, "load": load}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for name, default in vars(Args()).items():
        parser.add_argument(f"--{name.replace('_', '-')}", type=type(default), default=default)
    args = Args(**vars(parser.parse_args()))
    rows = {name: run_case(name, args) for name in CASES}
    for name, row in rows.items():
        reached = row["reached"] is not None
        outcome = f"0.9 at {row['reached']} steps" if reached else f"not 0.9 (best {row['best']:.2f})"
        print(f"{name:42s} {row['seconds']:8.1f} s  {outcome:28s} {row['steps_per_second']:6.1f} env steps/s  "
              f"(load {row['load']:.1f})")
    twx, textworld = rows[next(iter(CASES))], rows["TextMem/CookingRL-L1-v0"]
    if twx["reached"] is not None and textworld["reached"] is not None:
        print(f"wall-clock to 0.9, TWX / CookingRL-L1: {twx['seconds'] / textworld['seconds']:.2f} (target <= 0.2)")
    else:
        print("wall-clock ratio: undefined (a case did not reach 0.9 within --max-steps)")


if __name__ == "__main__":
    main()
