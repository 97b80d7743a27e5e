"""AriGraph's NetHack experiment (Table 1): our agents under the protocol, beside the paper's numbers.

Protocol: 3 runs per agent (reset seeds 0, 1, 2), step limit ``--max-steps`` agent decisions
(default 200; a skill is one decision, each capped at 100 primitive keys), score (NetHack's
in-game score) and deepest dungeon level, mean ± std (sample std, as the paper). Agents:
``netplay`` on Room obs and Level obs and ``ariadne`` on Room obs need an OpenAI-compatible
endpoint (``--model``/``--base-url`` or ``OPENAI_*``); ``netplay-heuristic`` and ``random`` run
without one. The paper's rows (GPT-4o) are data, with their source.

    python benchmarks/nethack_table.py [--agents netplay-heuristic random] [--max-steps 200] [--model M --base-url URL]
"""

from __future__ import annotations

import argparse
import statistics

import textmem_gym  # noqa: F401
from textmem_gym.runner import evaluate

#: AriGraph (Anokhin et al., 2024), Table 1: GPT-4o agents, 3 runs, mean ± std.
PAPER_TABLE1 = {
    "source": "AriGraph paper, section 5.2, Table 1 (/work/shared/seeds/arigraph-paper.md)",
    "rows": {
        "Ariadne (Room obs)": {"score": (593.00, 202.62), "levels": (6.33, 2.31)},
        "NetPlay (Room obs)": {"score": (341.67, 109.14), "levels": (3.67, 1.15)},
        "NetPlay (Level obs)": {"score": (675.33, 130.27), "levels": (7.33, 1.15)},
    },
}
#: Our row label -> (policy, env id).
RUNS = {
    "Ariadne (Room obs)": ("ariadne", "TextMem/NetHack-RoomObs-v0"),
    "NetPlay (Room obs)": ("netplay", "TextMem/NetHack-RoomObs-v0"),
    "NetPlay (Level obs)": ("netplay", "TextMem/NetHack-LevelObs-v0"),
    "netplay-heuristic (Room obs)": ("netplay-heuristic", "TextMem/NetHack-RoomObs-v0"),
    "netplay-heuristic (Level obs)": ("netplay-heuristic", "TextMem/NetHack-LevelObs-v0"),
    "random (Room obs)": ("random", "TextMem/NetHack-RoomObs-v0"),
}
LLM_POLICIES = {"ariadne", "netplay"}


def mean_std(values: list[float]) -> str:
    """``"593.00 ± 202.62"``."""
    std = statistics.stdev(values) if len(values) > 1 else 0.0
    return f"{statistics.mean(values):.2f} ± {std:.2f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agents", nargs="*", default=["netplay-heuristic", "random"],
                        help="policies to run (ariadne/netplay need an endpoint)")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--max-steps", type=int, default=200)
    parser.add_argument("--model")
    parser.add_argument("--base-url")
    args = parser.parse_args()
    print(f"Protocol: {args.runs} runs per agent, {args.max_steps} agent decisions (skills) per run\n")
    print(f"{'Method':32s} {'Score':>18s} {'Levels':>14s}  source")
    for label, row in PAPER_TABLE1["rows"].items():
        print(f"{label:32s} {mean_std_of(row['score']):>18s} {mean_std_of(row['levels']):>14s}  paper (GPT-4o)")
    for label, (policy, env_id) in RUNS.items():
        if policy not in args.agents:
            continue
        kwargs = {"model": args.model, "base_url": args.base_url} if policy in LLM_POLICIES else {"seed": 0}
        results = evaluate(env_id, policy, episodes=args.runs, seed=0, max_steps=args.max_steps, policy_kwargs=kwargs)
        scores = [float(r["score"]) for r in results]
        levels = [float(r["max_dungeon_level"]) for r in results]
        print(f"{label:32s} {mean_std(scores):>18s} {mean_std(levels):>14s}  ours")


def mean_std_of(pair: tuple[float, float]) -> str:
    return f"{pair[0]:.2f} ± {pair[1]:.2f}"


if __name__ == "__main__":
    main()
