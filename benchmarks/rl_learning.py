"""RL learning benchmark: MaskablePPO and masked DQN (DRRN policy) on the AriGraph RL cooking levels.

Cases (each trains from scratch with the default ``PPOArgs`` or ``DQNArgs``: DRRN policy, bag-of-words
encoding, episodic novelty bonus 0.05 during training; the greedy policy is evaluated every
``--eval-freq`` steps on the game's own normalized score):

* ``l1``: TextMem/CookingRL-L1-v0 (one game, one room), target mean normalized score >= 0.9
  within 50k env steps on 2 CPU cores; also the training throughput (env steps/s).
* ``l3``/``l3-memory``: TextMem/CookingRL-L3-v0 (9 rooms), the same agent without and with the
  arigraph memory belief (rules extractor, no ``go to`` macros) in its observation.
* ``l1-dqn``/``l3-dqn``: the masked DQN (DRRN Q-network) on the same levels, default ``DQNArgs``
  (and L1's episode limit), for a value-based comparison.

Each finished case and seed is written to ``OUT/<case>-seed<seed>.json`` (so cases can run in separate processes
and be tabulated together); the script then prints a table of every case found in ``OUT`` and
saves ``OUT/learning_curves.png``. Not a timed test: numbers depend on the machine's load.

Usage::

    python benchmarks/rl_learning.py                       # all cases
    python benchmarks/rl_learning.py --cases l1            # just the L1 target
    python benchmarks/rl_learning.py --cases l3 l3-memory --steps 15000 --seeds 0 1 2
    python benchmarks/rl_learning.py --table-only          # tabulate earlier results
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from baselines_rl import dqn, ppo  # noqa: E402
from baselines_rl.common import CommonArgs  # noqa: E402
from baselines_rl.train import TrainResult  # noqa: E402

TARGET = 0.9

#: algorithm -> (its arguments dataclass, its ``train``)
ALGORITHMS: dict[str, tuple[type[CommonArgs], Callable[[Any], TrainResult]]] = {
    "ppo": (ppo.PPOArgs, ppo.train),
    "dqn": (dqn.DQNArgs, dqn.train),
}

#: case -> (env id, argument overrides, default env steps); cases ending in ``-dqn`` use DQN, others PPO
CASES: dict[str, tuple[str, dict[str, Any], int]] = {
    # L1 hides losing moves (cook, eat or mis-cut the ingredient) among ~30 commands: 30-step
    # episodes (the optimum is 5) restart the agent more often, a larger novelty bonus over
    # admissible-command sets pushes it to change the world (take the knife) rather than loop,
    # and more entropy delays collapse. Evaluations use the same 30-step limit (stricter).
    # The bonus decays to 0 by 40k steps, or eating the meal (which ends the bonus stream) stays unattractive.
    "l1": ("TextMem/CookingRL-L1-v0", {"max_episode_steps": 30, "ent_coef": 0.03, "novelty_bonus": 0.1,
                                       "novelty_decay_steps": 40_000}, 50_000),
    "l3": ("TextMem/CookingRL-L3-v0", {"novelty_key": "observation"}, 30_000),
    "l3-memory": ("TextMem/CookingRL-L3-v0", {"memory": "arigraph", "novelty_key": "observation"}, 30_000),
    "l1-dqn": ("TextMem/CookingRL-L1-v0", {"max_episode_steps": 30}, 50_000),
    "l3-dqn": ("TextMem/CookingRL-L3-v0", {"novelty_key": "observation"}, 30_000),
}


def algorithm_of(case: str) -> str:
    """The algorithm a case trains (see :data:`CASES`)."""
    return "dqn" if case.endswith("-dqn") else "ppo"


def run_case(case: str, out: Path, steps: int | None, n_envs: int, eval_freq: int, seed: int,
             stop_score: float | None = None) -> dict[str, Any]:
    """Trains one case (until ``stop_score`` if given) and writes ``out/<case>-seed<seed>.json``."""
    env_id, overrides, default_steps = CASES[case]
    args_class, train = ALGORITHMS[algorithm_of(case)]
    args = args_class(env_id=env_id, total_timesteps=steps or default_steps, n_envs=n_envs, seed=seed,
                   eval_freq=eval_freq, eval_episodes=2, stop_score=stop_score,
                   out_dir=str(out / f"{case}-seed{seed}"), **overrides)
    start = time.perf_counter()
    result = train(args)
    row = {"case": case, "algorithm": algorithm_of(case), "seed": seed, "env_id": env_id, "memory": args.memory or "-",
           "steps": int(result.model.num_timesteps),
           "novelty_bonus": args.novelty_bonus, "novelty_key": args.novelty_key,
           "n_envs": n_envs, "steps_per_second": round(result.steps_per_second, 1),
           "final_score": result.final_eval.get("mean_normalized_score"),
           "best_score": max((r["mean_normalized_score"] for r in result.eval_history), default=None),
           "steps_to_target": result.first_reaching(TARGET), "wall_time_s": round(time.perf_counter() - start, 1),
           "curve": [(r["timesteps"], r["mean_normalized_score"]) for r in result.eval_history]}
    (out / f"{case}-seed{seed}.json").write_text(json.dumps(row, indent=1))
    return row


def env_throughput(env_id: str, steps: int = 400, chunk: int = 50, seed: int = 0) -> dict[str, float]:
    """Encoded-env steps/s without and with the memory belief, measured side by side.

    Both envs take seeded random allowed actions in alternating chunks, so machine load hits
    them alike; this is the env side of training throughput (no learning).
    """
    import numpy as np

    from baselines_rl.common import EnvSpec

    specs = {"plain": EnvSpec(env_id), "memory": EnvSpec(env_id, memory="arigraph")}
    envs = {name: spec.make(seed=seed) for name, spec in specs.items()}
    rng, spent = np.random.default_rng(seed), dict.fromkeys(envs, 0.0)
    try:
        for _ in range(steps // chunk):
            for name, env in envs.items():
                start = time.perf_counter()
                for _ in range(chunk):
                    action = rng.choice(np.flatnonzero(env.get_wrapper_attr("action_masks")()))
                    _, _, terminated, truncated, _ = env.step(int(action))
                    if terminated or truncated:
                        env.reset()
                spent[name] += time.perf_counter() - start
    finally:
        for env in envs.values():
            env.close()
    return {name: steps / seconds for name, seconds in spent.items()}


def print_table(rows: list[dict[str, Any]]) -> None:
    """The results table (one line per case and seed), then the per-case means over seeds."""
    header = ("case", "algorithm", "seed", "env_id", "memory", "steps trained", "steps/s", "final", "best",
              f"steps to >={TARGET}")
    print(" | ".join(header))
    print(" | ".join("-" * len(h) for h in header))
    for r in rows:
        final = "-" if r["final_score"] is None else f"{r['final_score']:.2f}"
        best = "-" if r["best_score"] is None else f"{r['best_score']:.2f}"
        print(" | ".join([r["case"], r.get("algorithm", "ppo"), str(r["seed"]), r["env_id"], r["memory"],
                          str(r["steps"]), f"{r['steps_per_second']:.1f}", final, best,
                          str(r["steps_to_target"] or "not reached")]))
    print()
    for case in dict.fromkeys(r["case"] for r in rows):
        runs = [r for r in rows if r["case"] == case]
        reached = [r["steps_to_target"] for r in runs if r["steps_to_target"]]
        mean = f"{sum(reached) / len(reached):.0f}" if reached else "-"
        print(f"{case}: reached >={TARGET} in {len(reached)}/{len(runs)} seeds, mean steps to target {mean}, "
              f"mean {sum(r['steps_per_second'] for r in runs) / len(runs):.1f} steps/s")


def plot(rows: list[dict[str, Any]], path: Path) -> Path:
    """Greedy-policy learning curves of every case in one figure."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4))
    for r in rows:
        if r["curve"]:
            xs, ys = zip(*r["curve"])
            ax.plot(xs, ys, marker="o", label=f"{r['case']} seed {r['seed']} ({r['env_id'].split('/')[-1]}, "
                                               f"memory {r['memory']})")
    ax.axhline(TARGET, color="grey", linestyle="--", linewidth=1)
    ax.set_xlabel("env steps")
    ax.set_ylabel("greedy mean normalized score")
    ax.set_ylim(-0.05, 1.05)
    ax.set_title("MaskablePPO / masked DQN (DRRN) on AriGraph RL cooking levels")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def main(argv: Sequence[str] | None = None) -> int:
    """Runs the requested cases, then tabulates and plots every case result in ``--out``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", nargs="+", default=list(CASES), choices=list(CASES))
    parser.add_argument("--steps", type=int, default=None, help="env steps per case (default: per case)")
    parser.add_argument("--n-envs", type=int, default=2)
    parser.add_argument("--eval-freq", type=int, default=2_500)
    parser.add_argument("--seeds", type=int, nargs="+", default=[0])
    parser.add_argument("--stop-score", type=float, default=TARGET,
                        help=f"stop a case once its greedy score reaches this (default {TARGET}; 2 = never)")
    parser.add_argument("--out", default=str(ROOT / "runs" / "rl_benchmark"))
    parser.add_argument("--table-only", action="store_true", help="only tabulate results already in --out")
    parser.add_argument("--throughput-steps", type=int, default=400,
                        help="env steps per variant for the side-by-side L3 env throughput (0: skip)")
    args = parser.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    if not args.table_only:
        for case in args.cases:
            for seed in args.seeds:
                run_case(case, out, args.steps, args.n_envs, args.eval_freq, seed, args.stop_score)
    rows = [json.loads(p.read_text()) for c in CASES for p in sorted(out.glob(f"{c}-seed*.json"))]
    print_table(rows)
    print(f"\nlearning curves: {plot(rows, out / 'learning_curves.png')}")
    if args.throughput_steps > 0:
        speed = env_throughput(CASES["l3"][0], args.throughput_steps)
        print(f"\nencoded env throughput on {CASES['l3'][0]} (random allowed actions, side by side): "
              f"{speed['plain']:.1f} steps/s without memory, {speed['memory']:.1f} with the arigraph belief "
              f"(ratio {speed['memory'] / speed['plain']:.2f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
