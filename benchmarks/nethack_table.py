"""AriGraph's NetHack experiment (Table 1): several agents under the protocol, in one table beside the paper's numbers.

The protocol and the paper's numbers are those of ``textmem-gym reproduce arigraph-nethack``
(:mod:`textmem_gym.protocols.arigraph_nethack`, numbers in
``textmem_gym/protocols/data/arigraph-nethack.json`` with their source): 3 runs per agent (reset
seeds 0, 1, 2), at most 1000 agent decisions a run (a skill is one decision), NetHack's in-game
score and the deepest dungeon level, mean ± sample std. ``reproduce`` plays one agent; this
script plays several and prints one row per agent and observation mode. ``netplay`` and
``ariadne`` need an OpenAI-compatible endpoint (``--model``/``--base-url`` or ``OPENAI_*``);
``netplay-heuristic`` and ``random`` run without one.

    python benchmarks/nethack_table.py [--agents netplay-heuristic random] [--max-steps N] [--model M --base-url URL]
"""

from __future__ import annotations

import argparse

import textmem_gym  # noqa: F401
from textmem_gym.protocols import get_protocol, published
from textmem_gym.protocols.run import metric_values, plan_protocol, run_protocol

LLM_POLICIES = {"ariadne", "netplay"}
#: Agent -> the observation modes (the protocol's cell labels) it plays; the paper ran Ariadne on Room obs only.
MODES = {"ariadne": ["Room obs"]}


def mean_std(values: list[float]) -> str:
    """``"593.00 ± 202.62"`` (sample std, as the paper)."""
    import statistics

    std = statistics.stdev(values) if len(values) > 1 else 0.0
    return f"{statistics.mean(values):.2f} ± {std:.2f}" if values else "-"


def main() -> None:
    protocol = get_protocol("arigraph-nethack")
    data = published(protocol.name)
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--agents", nargs="*", default=["netplay-heuristic", "random"],
                        help="policies to run (ariadne/netplay need an endpoint)")
    parser.add_argument("--runs", type=int, default=protocol.attempts)
    parser.add_argument("--max-steps", type=int, default=None,
                        help=f"agent decisions per run (default: the protocol's {protocol.cells[0].max_steps})")
    parser.add_argument("--model")
    parser.add_argument("--base-url")
    args = parser.parse_args()
    score, levels, progression = protocol.metrics
    steps = args.max_steps or protocol.cells[0].max_steps
    print(f"Protocol: {args.runs} runs per agent, at most {steps} agent decisions (skills) per run")
    print(f"Paper: {data['source']}\n")
    print(f"{'Method':32s} {'Score':>18s} {'Levels':>14s} {'BALROG %':>14s}  source")
    for name, row in data["rows"].items():
        for mode, value in row.items():
            shown = (f"{value[score.published]:.2f} ± {value[score.published_std]:.2f}",
                     f"{value[levels.published]:.2f} ± {value[levels.published_std]:.2f}")
            print(f"{name + f' ({mode})':32s} {shown[0]:>18s} {shown[1]:>14s} {'-':>14s}  paper (GPT-4o)")
    for policy in args.agents:
        kwargs = {"model": args.model, "base_url": args.base_url} if policy in LLM_POLICIES else {"seed": 0}
        plan = plan_protocol(protocol, cells=MODES.get(policy), max_steps=args.max_steps)
        for played in run_protocol(protocol, policy, plan=plan, policy_kwargs=kwargs, attempts=args.runs):
            label = f"{policy} ({played.plan.cell.label})"
            print(f"{label:32s} {mean_std(metric_values(played.results, score)):>18s} "
                  f"{mean_std(metric_values(played.results, levels)):>14s} "
                  f"{mean_std(metric_values(played.results, progression)):>14s}  ours")


if __name__ == "__main__":
    main()
