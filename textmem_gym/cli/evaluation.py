"""``textmem-gym eval`` and ``summary``: run policies on ids, summarize results files."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any

from textmem_gym.cli.arguments import check_env_kwargs, check_policy_kwargs, env_kwargs, parse_pairs
from textmem_gym.cli.checks import (
    NON_NEGATIVE,
    POSITIVE,
    check_env_ids,
    check_env_resources,
    existing_file,
    positive_number,
    writable_dir,
    writable_file,
)


def cmd_eval(args: argparse.Namespace) -> int:
    """Evaluates a policy on ids and prints the summary table."""
    from textmem_gym.results import format_table, summarize
    from textmem_gym.runner import EvalConfig, evaluate

    check_env_ids(args.env_ids)
    policy_kwargs = parse_pairs(args.policy_arg)
    for name in ("model", "base_url", "context_window", "structured_output"):
        if getattr(args, name, None):
            policy_kwargs[name] = getattr(args, name)
    if getattr(args, "strict", False):
        apply_strict(args.policy, policy_kwargs)
    policy_kwargs = check_policy_kwargs(args.policy, policy_kwargs)  # before any game is prepared
    make_kwargs = env_kwargs(args)
    for env_id in args.env_ids:
        make_kwargs = check_env_kwargs(env_id, make_kwargs)
    check_env_resources(args.env_ids, make_kwargs)  # ROMs, published files, Java: before any episode
    if args.overwrite and args.out is None:
        raise ValueError("eval: --overwrite needs --out (the results file whose rows of this run are played again)")
    if args.out is None:
        print("note: no --out given: results are printed, not kept (give --out FILE to keep and resume them)",
              file=sys.stderr)
    config = EvalConfig(episodes=args.episodes, seed=args.seed, max_steps=args.max_steps, out=args.out,
                        overwrite=args.overwrite, notes=True, env_kwargs=make_kwargs, policy_kwargs=policy_kwargs,
                        progress=not args.quiet, game_seeds=args.game_seeds or (None,), **execution_kwargs(args))
    results = evaluate(args.env_ids, args.policy, config)
    print(format_table(summarize(results)))
    if args.out:
        print(f"\nresults: {args.out}")
    return 0


def apply_strict(policy: str, policy_kwargs: dict[str, Any]) -> None:
    """``--strict``: ``strict=True`` for a policy that takes it (the LLM policies, which can fall
    back); for one that does not (``random``, ``explorer``, ``walkthrough``, ``rl:...``: every
    action is its own, so it has no fallback to stop at) a note on stderr and nothing else, so that
    one flag can go to every policy of a sweep."""
    from textmem_gym.core.registry import accepts_argument

    if accepts_argument(policy, "strict"):
        policy_kwargs["strict"] = True
    else:
        print(f"note: --strict has no effect on policy {policy!r}: it takes no 'strict' argument, so it has no "
              "fallbacks to stop at (every action is its own; its rows carry no model-action share)", file=sys.stderr)


def add_execution_arguments(parser: argparse.ArgumentParser) -> None:
    """Adds the options of :func:`textmem_gym.evaluate` that say where and how episodes run."""
    group = parser.add_argument_group("parallel and distributed evaluation")
    group.add_argument("--workers", type=POSITIVE, default=1,
                       help="episodes played at once (worker processes, or Ray tasks in flight)")
    group.add_argument("--backend", default="local",
                       help="local processes, Ray tasks (ray: pip install 'textmem-gym[ray]'), or a run backend "
                            "an installed package adds (entry points textmem_gym.run_backends) or module:Class")
    group.add_argument("--backend-option", action="append", metavar="KEY=VALUE",
                       help="keyword argument of the run backend's class (checked before any game is played)")
    group.add_argument("--ray-address", default=None,
                       help="existing Ray cluster ('auto' or HOST:PORT); default: start a local one "
                            "(short for --backend-option address=ADDR)")
    group.add_argument("--ray-task-cpus", type=positive_number, default=None,
                       help="CPUs each Ray task asks for (default 1; short for --backend-option task_cpus=N)")
    group.add_argument("--max-concurrent-requests", type=POSITIVE, default=None,
                       help="LLM requests in flight per endpoint across all workers "
                            "(default: the policy's concurrency, else the LLM client's default)")
    group.add_argument("--trajectories", type=writable_dir, default=None, metavar="DIR",
                       help="write one trajectory JSONL per episode into DIR")
    group.add_argument("--trajectory-prompts", choices=("full", "keys"), default="full",
                       help="keep each LLM call's prompt and answer, or only their keys")


def execution_kwargs(args: argparse.Namespace) -> dict[str, Any]:
    """The :class:`textmem_gym.EvalConfig` fields of :func:`add_execution_arguments`'s options."""
    return {"workers": args.workers, "backend": args.backend, "backend_options": backend_options(args),
            "max_concurrent_requests": args.max_concurrent_requests,
            "trajectories": args.trajectories, "trajectory_prompts": args.trajectory_prompts}


def backend_options(args: argparse.Namespace) -> dict[str, Any]:
    """The run backend's keyword arguments: ``--backend-option`` pairs plus the Ray shorthands given."""
    shorthands = {"address": args.ray_address, "task_cpus": args.ray_task_cpus}
    return {**{k: v for k, v in shorthands.items() if v is not None}, **parse_pairs(args.backend_option)}


def cmd_summary(args: argparse.Namespace) -> int:
    """Summarizes JSONL results files (a row in several counts once), each kind of row the files hold by
    its own table (:mod:`textmem_gym.report.kinds`: games, QA, probes, memory-bench), or every kind's
    summary rows as one CSV or JSON (``--format``)."""
    print(format_results(read_results(args.results), args.format))
    return 0


def read_results(paths: Sequence[str]) -> list[dict[str, Any]]:
    """The rows of results files (see :func:`textmem_gym.report.load_rows`); a file with lines that
    are not rows gets one warning line on stderr saying how many and which.

    Raises:
        ValueError: A file that holds no results row (empty, or nothing but malformed lines).
    """
    from textmem_gym.report import load_rows
    from textmem_gym.results import ResultsFile

    for path in paths:
        scan = ResultsFile(path).scan()
        problems = scan.problems()
        if not scan.rows:
            raise ValueError(f"{path} holds no results row: " + (f"only {problems}" if problems else "it is empty"))
        if problems:
            print(f"textmem-gym: warning: {path}: skipped {problems}", file=sys.stderr)
    return load_rows(paths)


def format_results(rows: list[dict[str, Any]], form: str = "table") -> str:
    """The summary of results rows of any kinds (see :func:`textmem_gym.report.kinds.format_results`)."""
    from textmem_gym.report.kinds import format_results as by_kind

    return by_kind(rows, form)


def add_commands(sub: argparse._SubParsersAction) -> None:
    """Adds ``eval`` and ``summary``."""
    ev = sub.add_parser("eval", help="evaluate a policy on one or more ids")
    ev.add_argument("env_ids", nargs="+")
    ev.add_argument("--policy", required=True,
                    help="policy name (see `textmem-gym list`, incl. names installed packages add), "
                         "prefix:ARG (e.g. rl:model.zip), or package.module:Factory (any importable "
                         "callable returning a Policy; the current directory is importable)")
    ev.add_argument("--episodes", type=POSITIVE, default=1, help="episodes per id and game (1 or more)")
    ev.add_argument("--seed", type=NON_NEGATIVE, default=0, help="first reset seed (episode i uses seed+i)")
    ev.add_argument("--max-steps", type=POSITIVE, default=None, help="override the ids' step limit")
    ev.add_argument("--out", type=writable_file, default=None,
                    help="JSONL results file (resumable: finished episodes are skipped; without it nothing is kept)")
    ev.add_argument("--overwrite", action="store_true",
                    help="play every episode again: drop this run's rows from --out first (other rows stay)")
    ev.add_argument("--game-seeds", type=NON_NEGATIVE, nargs="+", default=None, help="game instances to use")
    ev.add_argument("--env-arg", action="append", metavar="KEY=VALUE", help="extra gym.make argument")
    ev.add_argument("--policy-arg", action="append", metavar="KEY=VALUE", help="policy constructor argument")
    ev.add_argument("--model", default=None, help="LLM model name (LLM policies; else OPENAI_MODEL)")
    ev.add_argument("--base-url", default=None, help="OpenAI-compatible endpoint (else OPENAI_BASE_URL)")
    ev.add_argument("--strict", action="store_true",
                    help="LLM policies: end an episode at its first fallback (an action not chosen by the model "
                         "as asked) and record it as an error with its cause (left out of the means); "
                         "policies without fallbacks (no 'strict' argument: random, explorer...) play as usual, "
                         "with a note")
    ev.add_argument("--context-window", type=POSITIVE, default=None,
                    help="LLM policies: the model's context window in tokens (default: what the server states); "
                         "prompts are trimmed to fit it")
    ev.add_argument("--structured-output", default=None, choices=("auto", "on", "off"),
                    help="LLM policies: send each answer's JSON schema as a structured-output request "
                         "(default auto: when the server takes one)")
    ev.add_argument("--quiet", action="store_true", help="no progress bar")
    add_execution_arguments(ev)
    ev.set_defaults(handler=cmd_eval)
    summ = sub.add_parser("summary", help="summarize JSONL results files")
    summ.add_argument("results", nargs="+", type=existing_file,
                      help="JSONL results files of any kinds: episodes, QA, probes, memory-bench (a row in "
                           "several counts once)")
    summ.add_argument("--format", choices=("table", "csv", "json"), default="table",
                      help="table: each kind's tables (default); csv or json: every kind's summary rows, "
                           "one row per group with its kind first (for spreadsheets and scripts)")
    summ.set_defaults(handler=cmd_summary)
