"""``textmem-gym reproduce PAPER``: run a paper's protocol and print its table beside the paper's numbers."""

from __future__ import annotations

import argparse

from textmem_gym.cli.arguments import check_policy_kwargs, parse_pairs
from textmem_gym.cli.checks import POSITIVE, check_env_resources, writable_file


def cmd_reproduce(args: argparse.Namespace) -> int:
    """Plans, plays and prints one protocol."""
    from textmem_gym.protocols import QA_PROTOCOLS, get_protocol
    from textmem_gym.protocols.run import format_report, paper_rows, plan_protocol, run_protocol

    if args.paper in QA_PROTOCOLS:
        return cmd_reproduce_qa(args)
    if not args.policy:
        raise ValueError(f"reproduce {args.paper}: --policy is required (a game protocol)")
    protocol = get_protocol(args.paper)
    paper_rows(protocol, args.policy, args.paper_row)  # a bad row name fails before any episode
    policy_kwargs = parse_pairs(args.policy_arg)
    for name in ("model", "base_url"):
        if getattr(args, name):
            policy_kwargs[name] = getattr(args, name)
    policy_kwargs = check_policy_kwargs(args.policy, policy_kwargs)  # before any game is downloaded
    check_env_resources(cell.env_id for cell in protocol.cells  # ROMs, Java: before any game is prepared
                        if cell.published_game is None and (not args.cell or cell.label in args.cell)
                        and not protocol.skip_unavailable)  # such a protocol lists its missing games
    plan = plan_protocol(protocol, cells=args.cell, limit_cells=args.limit_cells,
                         limit_instances=args.limit_instances,
                         winnable_only=False if args.include_unwinnable else None, download=not args.no_download,
                         max_steps=args.max_steps)
    played = run_protocol(protocol, args.policy, plan=plan, policy_kwargs=policy_kwargs,
                          attempts=args.limit_attempts, out=args.out, workers=args.workers, progress=not args.quiet)
    print(format_report(protocol, played, args.policy, args.paper_row))
    if args.out:
        print(f"\nresults: {args.out}")
    return 0


def cmd_reproduce_qa(args: argparse.Namespace) -> int:
    """Runs one multi-hop QA protocol (``--data DIR`` or ``--demo``) and prints its table
    (``--recall-only``: answer and supporting-paragraph recall, no model asked)."""
    from textmem_gym.protocols import get_qa_protocol, published
    from textmem_gym.qa.data import QADataNotFoundError, shipped_data_dir
    from textmem_gym.qa.run import reproduce

    if not args.data and not args.demo:
        raise ValueError(f"reproduce {args.paper}: give --data DIR (the official dev files) or --demo (the shipped "
                         "set)")
    protocol = get_qa_protocol(args.paper)
    llm: dict[str, object] = {name: getattr(args, name) for name in ("model", "base_url") if getattr(args, name)}
    client_options = parse_pairs(args.llm_arg)
    if client_options:
        llm["client_options"] = client_options
    try:
        print(reproduce(protocol, published(args.paper), data_dir=shipped_data_dir() if args.demo else args.data,
                        download=args.download, methods=args.method, llm_options=llm, limit=args.limit,
                        out=args.out, workers=args.workers, answer=not args.recall_only))
    except QADataNotFoundError as error:  # a missing file is bad input: one line, no traceback
        raise ValueError(str(error)) from None
    if args.out:
        print(f"\nresults: {args.out}")
    return 0


def add_commands(sub: argparse._SubParsersAction) -> None:
    """Adds ``reproduce``."""
    from textmem_gym.protocols import PROTOCOLS, QA_PROTOCOLS

    rep = sub.add_parser("reproduce", help="run a paper's protocol and print its table beside the paper's numbers")
    rep.add_argument("paper", choices=sorted([*PROTOCOLS, *QA_PROTOCOLS]), help="the paper's protocol")
    rep.add_argument("--policy", help="policy name or package.module:Factory (as for eval; game protocols)")
    rep.add_argument("--policy-arg", action="append", metavar="KEY=VALUE", help="policy constructor argument")
    rep.add_argument("--model", default=None, help="LLM model name (LLM policies; else OPENAI_MODEL)")
    rep.add_argument("--base-url", default=None, help="OpenAI-compatible endpoint (else OPENAI_BASE_URL)")
    rep.add_argument("--workers", type=POSITIVE, default=1, help="episodes run in parallel")
    rep.add_argument("--out", type=writable_file, default=None, help="JSONL results file (resumable)")
    rep.add_argument("--cell", action="append", metavar="LABEL",
                     help="play only this column of the paper's table (repeatable), e.g. 'Level 1'")
    rep.add_argument("--limit-cells", type=POSITIVE, default=None, help="play only the first N columns")
    rep.add_argument("--limit-instances", type=POSITIVE, default=None, help="at most N instances per column")
    rep.add_argument("--limit-attempts", type=POSITIVE, default=None,
                     help="N attempts per instance instead of the paper's")
    rep.add_argument("--max-steps", type=POSITIVE, default=None,
                     help="step limit of every column instead of the paper's (a quick look; instances are checked "
                          "against it, so fewer can be won in time)")
    rep.add_argument("--include-unwinnable", action="store_true",
                     help="also play instances whose walkthrough is longer than the step limit (marked)")
    rep.add_argument("--no-download", action="store_true",
                     help="never download the paper's game files (play our generated games instead)")
    rep.add_argument("--paper-row", action="append", metavar="ROW",
                     help="published row to show (repeatable; default: the policy's row and the paper's method)")
    rep.add_argument("--quiet", action="store_true", help="no progress bar")
    qa = rep.add_argument_group("multi-hop QA protocols (arigraph-qa, davis-qa)")
    qa.add_argument("--data", default=None, metavar="DIR", help="folder of the official dev files")
    qa.add_argument("--demo", action="store_true", help="the shipped synthetic set instead of --data (no download)")
    qa.add_argument("--download", action="store_true", help="fetch missing official files into --data")
    qa.add_argument("--limit", type=POSITIVE, default=None, help="ask only the first N questions of each sample")
    qa.add_argument("--method", action="append", metavar="NAME", help="QA method to run (repeatable; default: "
                    "the protocol's); memory:MEMORY answers from any memory (memory:bm25, memory:hipporag, "
                    "memory:package.module:Class)")
    qa.add_argument("--recall-only", action="store_true",
                    help="ask no model: only answer recall at each token budget and supporting-paragraph recall@k "
                         "of the methods with a context (the others are listed, not run)")
    qa.add_argument("--llm-arg", action="append", metavar="KEY=VALUE",
                    help="LLM client option of every method (repeatable), e.g. timeout=600, max_retries=1, "
                         "context_window=8192")
    rep.set_defaults(handler=cmd_reproduce)
