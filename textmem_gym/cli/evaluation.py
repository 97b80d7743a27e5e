"""``textmem-gym eval`` and ``summary``: run policies on ids, summarize results files."""

from __future__ import annotations

import argparse
import os
import sys

from textmem_gym.cli.arguments import env_kwargs, parse_pairs


def cmd_eval(args: argparse.Namespace) -> int:
    """Evaluates a policy on ids and prints the summary table."""
    from textmem_gym.results import format_table, summarize
    from textmem_gym.runner import evaluate

    use_working_directory()
    policy_kwargs = parse_pairs(args.policy_arg)
    for name in ("model", "base_url"):
        if getattr(args, name):
            policy_kwargs[name] = getattr(args, name)
    results = evaluate(args.env_ids, args.policy, episodes=args.episodes, seed=args.seed,
                       max_steps=args.max_steps, out=args.out, env_kwargs=env_kwargs(args),
                       policy_kwargs=policy_kwargs, progress=not args.quiet,
                       game_seeds=args.game_seeds or (None,))
    print(format_table(summarize(results)))
    if args.out:
        print(f"\nresults: {args.out}")
    return 0


def use_working_directory() -> None:
    """Lets ``--policy mymodule:Factory`` find modules of the current directory, as ``python -m`` does.

    The console script does not put the working directory on ``sys.path``; it goes last, so it
    never shadows an installed package.
    """
    if "" not in sys.path and os.getcwd() not in sys.path:
        sys.path.append(os.getcwd())


def cmd_summary(args: argparse.Namespace) -> int:
    """Summarizes a JSONL results file."""
    from textmem_gym.results import ResultsFile, format_table, summarize

    print(format_table(summarize(ResultsFile(args.results).read())))
    return 0


def add_commands(sub: argparse._SubParsersAction) -> None:
    """Adds ``eval`` and ``summary``."""
    ev = sub.add_parser("eval", help="evaluate a policy on one or more ids")
    ev.add_argument("env_ids", nargs="+")
    ev.add_argument("--policy", required=True,
                    help="policy name (see `textmem-gym list`, incl. names installed packages add), "
                         "prefix:ARG (e.g. rl:model.zip), or package.module:Factory (any importable "
                         "callable returning a Policy; the current directory is importable)")
    ev.add_argument("--episodes", type=int, default=1)
    ev.add_argument("--seed", type=int, default=0, help="first reset seed (episode i uses seed+i)")
    ev.add_argument("--max-steps", type=int, default=None, help="override the ids' step limit")
    ev.add_argument("--out", default=None, help="JSONL results file (resumable)")
    ev.add_argument("--game-seeds", type=int, nargs="+", default=None, help="game instances to use")
    ev.add_argument("--env-arg", action="append", metavar="KEY=VALUE", help="extra gym.make argument")
    ev.add_argument("--policy-arg", action="append", metavar="KEY=VALUE", help="policy constructor argument")
    ev.add_argument("--model", default=None, help="LLM model name (LLM policies; else OPENAI_MODEL)")
    ev.add_argument("--base-url", default=None, help="OpenAI-compatible endpoint (else OPENAI_BASE_URL)")
    ev.add_argument("--quiet", action="store_true", help="no progress bar")
    ev.set_defaults(handler=cmd_eval)
    summ = sub.add_parser("summary", help="summarize a JSONL results file")
    summ.add_argument("results")
    summ.set_defaults(handler=cmd_summary)
