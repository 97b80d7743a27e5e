"""``textmem-gym memory-bench``: probe memories over the shipped trajectories of every backend
(see :mod:`textmem_gym.qa.bench.run`), write one row per memory x question kind x budget, print the table.

Example:
    $ textmem-gym memory-bench
    $ textmem-gym memory-bench --memories arigraph,bm25,my_pkg.notes:Notes --out runs/bench.jsonl
    $ textmem-gym memory-bench --memories full-history --trajectories twx-coin-short --budgets 256,1024
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from textmem_gym.cli.checks import POSITIVE, writable_file


def _names(text: str | None) -> list[str] | None:
    return [n.strip() for n in text.split(",") if n.strip()] if text else None


def cmd_memory_bench(args: argparse.Namespace) -> int:
    """Runs the benchmark and prints its table (and where the rows went)."""
    from textmem_gym.qa.bench.run import DEFAULT_MEMORIES, format_bench_table, run_bench

    budgets = [int(b) for b in args.budgets.split(",") if b.strip()]
    if not budgets or min(budgets) < 1:
        raise ValueError(f"--budgets must be positive token counts, got {args.budgets!r}")
    options = json.loads(args.memory_options) if args.memory_options else None
    if options is not None and not isinstance(options, dict):
        raise ValueError(f"--memory-options must be a JSON object of objects, got {args.memory_options!r}")
    started = time.perf_counter()
    rows = run_bench(_names(args.memories) or DEFAULT_MEMORIES, trajectories=_names(args.trajectories),
                     budgets=budgets, per_kind=args.per_kind, options=options, out=args.out,
                     progress=lambda line: print(line, file=sys.stderr, flush=True))
    print(format_bench_table(rows))
    where = f"; rows in {args.out}" if args.out else ""
    print(f"\n{len(rows)} rows in {time.perf_counter() - started:.0f} s{where}")
    return 0


def add_commands(sub: argparse._SubParsersAction) -> None:
    """Adds ``memory-bench``."""
    from textmem_gym.qa.bench.run import DEFAULT_MEMORIES, PER_KIND

    bench = sub.add_parser("memory-bench", help="probe memories over shipped trajectories of every backend "
                                                "(no model): answer recall per memory x question kind x budget")
    bench.add_argument("--memories", default=None, metavar="NAMES",
                       help=f"memories, comma-separated: entry-point names or module:Class (default: "
                            f"{','.join(DEFAULT_MEMORIES)})")
    bench.add_argument("--memory-options", default=None, metavar="JSON",
                       help='options per memory, a JSON object: {"bm25": {"k1": 1.5}}')
    bench.add_argument("--trajectories", default=None, metavar="NAMES",
                       help="shipped trajectories, comma-separated (default: all)")
    bench.add_argument("--budgets", default="256,512,1024,2048",
                       help="token budgets of answer recall, comma-separated (default 256,512,1024,2048)")
    bench.add_argument("--per-kind", type=POSITIVE, default=PER_KIND,
                       help=f"questions of a kind at each probed step (default {PER_KIND})")
    bench.add_argument("--out", default=None, type=writable_file,
                       help="JSONL file of the rows (one per memory x kind x budget)")
    bench.set_defaults(handler=cmd_memory_bench)


__all__ = ["add_commands", "cmd_memory_bench"]
