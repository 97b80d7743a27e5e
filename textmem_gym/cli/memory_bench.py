"""``textmem-gym memory-bench``: probe memories over the shipped trajectories of every backend
(see :mod:`textmem_gym.qa.bench.run`), keep one record per trajectory x memory, print the summary.

Progress lines go to stderr as each trajectory x memory finishes; with ``--out`` the records are
appended as they finish, a re-run skips those recorded (and says so), Ctrl-C keeps them (exit 130)
and ``--overwrite`` runs them again. The summary (one row per memory x backend x question kind x
budget, with ``all`` rows) prints as a table (``--by backend``: one per backend), CSV or JSON.

Example:
    $ textmem-gym memory-bench --out runs/bench.jsonl --plot runs/recall.png --plot-cost runs/cost.png
    $ textmem-gym memory-bench --memories arigraph,bm25,my_pkg.notes:Notes --by backend
    $ textmem-gym memory-bench --memories full-history --trajectories twx-coin-short --budgets 256,1024 --format csv
    $ textmem-gym memory-bench --memories arigraph,davis,mem0,graphiti --extractor llm --model M --base-url URL \\
        --trajectories twx-coin-short --max-steps 10
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

from textmem_gym.cli.checks import POSITIVE, writable_file
from textmem_gym.llm.client import ENV_BASE_URL, ENV_MODEL

#: Output formats of the summary rows.
FORMATS = ("table", "csv", "json")


def _names(text: str | None) -> list[str] | None:
    return [n.strip() for n in text.split(",") if n.strip()] if text else None


def cmd_memory_bench(args: argparse.Namespace) -> int:
    """Runs the benchmark (resuming from ``--out``) and prints its summary in the format asked."""
    from textmem_gym.qa.bench.run import DEFAULT_MEMORIES, run_bench
    from textmem_gym.qa.bench.summary import format_backend_matrix, format_bench_table, to_csv, to_json

    budgets = [int(b) for b in args.budgets.split(",") if b.strip().isdigit()]
    if not budgets or len(budgets) != len([b for b in args.budgets.split(",") if b.strip()]) or min(budgets) < 1:
        raise ValueError(f"--budgets takes positive token counts separated by commas, got {args.budgets!r}")
    try:
        options = json.loads(args.memory_options) if args.memory_options else None
    except json.JSONDecodeError as error:
        raise ValueError(f"--memory-options is not JSON: {error}") from None
    if options is not None and not (isinstance(options, dict) and all(isinstance(v, dict) for v in options.values())):
        raise ValueError(f'--memory-options takes a JSON object of objects, e.g. {{"bm25": {{"k1": 1.5}}}}, got '
                         f"{args.memory_options!r}")
    if args.overwrite and args.out is None:
        raise ValueError("memory-bench: --overwrite needs --out (the results file whose records of this run are "
                         "made again)")
    # One math-library thread: the embedding memories (dense, hipporag) encode one short text at a time, where a
    # second thread gains little and, on a busy machine, waits a scheduler slice per operation (MiniLM on 40 steps
    # of twx-coin-short with other jobs running: 167 s with two threads, 41 s with one). A value set is kept.
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    started = time.perf_counter()
    model = args.model or os.environ.get(ENV_MODEL)
    llm = {k: v for k, v in {"model": model, "base_url": args.base_url or os.environ.get(ENV_BASE_URL)}.items() if v}
    if args.extractor == "llm" and not model:
        raise ValueError(f"memory-bench: --extractor llm needs a model: --model or {ENV_MODEL}")
    rows = run_bench(_names(args.memories) or DEFAULT_MEMORIES, trajectories=_names(args.trajectories),
                     budgets=budgets, per_kind=args.per_kind, options=options, out=args.out, overwrite=args.overwrite,
                     extractor=args.extractor, llm=llm, max_steps=args.max_steps,
                     progress=None if args.quiet else lambda line: print(line, file=sys.stderr, flush=True))
    if args.plot:
        from textmem_gym.qa.bench.plot import plot_recall

        plot_recall(rows, args.plot)
    if args.plot_cost:
        from textmem_gym.qa.bench.plot import plot_cost

        plot_cost(rows, args.plot_cost, budget=1024 if 1024 in budgets else max(budgets))
    if args.format == "table":
        shown = format_backend_matrix(rows) if args.by == "matrix" else format_bench_table(rows, by=args.by)
    else:
        shown = to_csv(rows).rstrip("\n") if args.format == "csv" else to_json(rows)
    print(shown)
    kept = [f"records in {args.out}"] if args.out else []
    kept += [f"figure in {args.plot}"] if args.plot else []
    kept += [f"accuracy-cost figure in {args.plot_cost}"] if args.plot_cost else []
    print(f"{len(rows)} summary rows in {time.perf_counter() - started:.0f} s" + (f"; {'; '.join(kept)}" if kept
                                                                                   else ""), file=sys.stderr)
    return 0


def _trajectory_help() -> str:
    from textmem_gym.qa.bench.trajectories import load_trajectories

    return ", ".join(t.name for t in load_trajectories())


def add_commands(sub: argparse._SubParsersAction) -> None:
    """Adds ``memory-bench``."""
    from textmem_gym.qa.bench.run import DEFAULT_MEMORIES, PER_KIND

    bench = sub.add_parser("memory-bench", help="probe memories over shipped trajectories of every backend "
                                                "(a model only for --extractor llm, mem0, graphiti): answer "
                                                "recall and cost per memory x backend x question kind x budget; "
                                                "resumable")
    bench.add_argument("--memories", default=None, metavar="NAMES",
                       help=f"memories, comma-separated, in the order the table shows them: entry-point names or "
                            f"module:Class (default: {','.join(DEFAULT_MEMORIES)})")
    bench.add_argument("--memory-options", default=None, metavar="JSON",
                       help='options per memory, a JSON object: {"bm25": {"k1": 1.5}}')
    bench.add_argument("--trajectories", default=None, metavar="NAMES",
                       help=f"shipped trajectories, comma-separated (default: all; `textmem-gym list bench` describes "
                            f"them): {_trajectory_help()}")
    bench.add_argument("--max-steps", type=POSITIVE, default=None,
                       help="commands replayed of each trajectory (default: all); keeps a run with a model short")
    bench.add_argument("--extractor", default="rules", choices=("rules", "llm"),
                       help="extractor of arigraph, stma and davis (llm: the papers' prompts through --model)")
    bench.add_argument("--model", default=None,
                       help="model of the endpoint the llm extractor and the model-built memories (mem0, graphiti) "
                            "use (else OPENAI_MODEL); checked before any replay")
    bench.add_argument("--base-url", default=None, help="OpenAI-compatible endpoint (else OPENAI_BASE_URL)")
    bench.add_argument("--budgets", default="256,512,1024,2048",
                       help="token budgets of answer recall, comma-separated (default 256,512,1024,2048)")
    bench.add_argument("--per-kind", type=POSITIVE, default=PER_KIND,
                       help=f"questions of a kind at each probed step (default {PER_KIND})")
    bench.add_argument("--out", default=None, type=writable_file,
                       help="JSONL results file: one record per trajectory x memory, appended as each finishes "
                            "(resumable: recorded ones are skipped; `textmem-gym summary` reads it)")
    bench.add_argument("--overwrite", action="store_true",
                       help="run every trajectory x memory again: drop this run's records from --out first "
                            "(other rows stay)")
    bench.add_argument("--by", choices=("all", "backend", "matrix"), default="all",
                       help="table of every backend together (all), one table per backend, or one column per "
                            "backend (matrix: recall and first-mention accuracy at 1,024 tokens)")
    bench.add_argument("--format", choices=FORMATS, default="table",
                       help="print the summary rows as a markdown table, CSV or JSON (default table)")
    bench.add_argument("--plot", default=None, type=writable_file, metavar="FILE",
                       help="write the figure of answer recall against budget per memory (PNG; the plot extra)")
    bench.add_argument("--plot-cost", default=None, type=writable_file, metavar="FILE",
                       help="write the figure of first-mention accuracy at 1,024 tokens (else the largest budget) "
                            "against build tokens per step and p95 query latency, one point per memory (PNG)")
    bench.add_argument("--quiet", action="store_true", help="no progress lines")
    bench.set_defaults(handler=cmd_memory_bench)


__all__ = ["FORMATS", "add_commands", "cmd_memory_bench"]
