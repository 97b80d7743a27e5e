"""Explorer ablation on the AriGraph suite: the non-LLM explorer vs ``random`` vs the same
explorer with memory disabled (no map, no ``go to``), side by side in one run.

Target: on every id, the explorer's mean normalized score is above ``random`` and above the
no-memory explorer. Each (id, game seed) is played once per agent at the id's step limit.

Run: python benchmarks/explorer_ablation.py [--game-seeds 5] [--ids TextMem/Cooking-v0 ...]
"""

from __future__ import annotations

import argparse
import statistics
import time

import textmem_gym  # noqa: F401
from policies.explorer import ExplorerPolicy
from policies.simple import RandomPolicy
from textmem_gym.runner import EvalConfig, evaluate

SUITE = ["TextMem/Cooking-v0", "TextMem/Cooking-Hard-v0", "TextMem/Cooking-Hardest-v0",
         "TextMem/TreasureHunt-v0", "TextMem/TreasureHunt-Hard-v0", "TextMem/TreasureHunt-Hardest-v0",
         "TextMem/Cleaning-v0", "TextMem/CookingRL-L1-v0", "TextMem/CookingRL-L2-v0",
         "TextMem/CookingRL-L3-v0", "TextMem/CookingRL-L4-v0", "TextMem/TWX-CookingWorld-v0"]
AGENTS = {"explorer": lambda: ExplorerPolicy(), "explorer (no memory)": lambda: ExplorerPolicy(memory=False),
          "random": lambda: RandomPolicy()}


def measure(env_id: str, game_seeds: list[int]) -> dict[str, tuple[float, float, float]]:
    """Agent -> (mean normalized score, success rate, mean decisions) over ``game_seeds``."""
    out = {}
    for name, make in AGENTS.items():
        results = evaluate(env_id, make(), EvalConfig(game_seeds=game_seeds))
        out[name] = (statistics.fmean(r["normalized_score"] for r in results),
                     statistics.fmean(float(r["won"]) for r in results),
                     statistics.fmean(r["steps"] for r in results))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game-seeds", type=int, default=5, help="game instances per id (seeds 0..N-1)")
    parser.add_argument("--ids", nargs="*", default=SUITE)
    args = parser.parse_args()
    seeds = list(range(args.game_seeds))
    print(f"Explorer ablation: {args.game_seeds} game seeds per id; cells = mean normalized score "
          "(success rate, mean decisions)\n")
    print("| env | explorer | explorer (no memory) | random | > random | > no memory |")
    print("|---|---|---|---|---|---|")
    passed = 0
    start = time.perf_counter()
    for env_id in args.ids:
        row = measure(env_id, seeds)
        cells = [f"{s:.3f} ({w:.0%}, {n:.0f})" for s, w, n in row.values()]
        mine = row["explorer"][0]
        checks = [mine > row["random"][0], mine > row["explorer (no memory)"][0]]
        passed += all(checks)
        print(f"| {env_id} | " + " | ".join(cells) + " | " + " | ".join("yes" if c else "NO" for c in checks) + " |",
              flush=True)
    print(f"\nTarget met on {passed}/{len(args.ids)} ids ({time.perf_counter() - start:.0f} s).")


if __name__ == "__main__":
    main()
