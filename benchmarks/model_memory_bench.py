"""Memories a model builds, measured in worlds with their cost: ``memory-bench --extractor llm`` with SmolLM2.

AriGraph and DAVIS built with the papers' LLM extraction, Mem0 (``mem0ai``) and Graphiti
(``graphiti-core``) all through one OpenAI-compatible endpoint: SmolLM2-135M-Instruct on llama.cpp's
server (the server ``textmem-gym serve-llm`` runs; pass ``--base-url``/``--model`` to use one already
running), over the 40-step TextWorld and TWX trajectories. Per memory it prints build tokens per step,
p50/p95 ``update`` and ``context`` latency, the tokens context returned and first-mention accuracy and
answer recall at 1,024 tokens and the failed updates by cause, then the cost ratios side by side; ``--plot``
draws first-mention accuracy against build tokens per step and against p95 query latency
(:func:`~textmem_gym.qa.bench.plot.plot_cost`).

The memories' options (:data:`OPTIONS`, recorded in every row's config) keep a 40-step run within minutes
on 2 cores: Graphiti adds 5 game steps per episode and reads the 2 episodes before it, every model call
of mem0 and Graphiti is capped at 256 completion tokens. The server started here has a window of
``--n-ctx`` 16,384 tokens: mem0ai 2.2's extraction prompt alone is ~8,700 tokens (its system prompt is
not configurable), so it does not fit SmolLM2's trained 8,192; past 8,192 the model reads beyond the
length it was trained on (a floor on a floor). The window is part of the model name the rows record
(``SmolLM2-135M-Instruct.Q4_1@16384``), so runs with different windows never merge.

A 135M model's extraction is a floor, not the papers' GPT-4 numbers: the point is the cost columns and
that every memory runs end to end in a world.

Run: python benchmarks/model_memory_bench.py [--max-steps N] [--memories arigraph,davis,mem0,graphiti]
     [--trajectories textworld-cooking-short,twx-coin-short] [--out FILE.jsonl] [--plot FILE.png]
     [--base-url URL --model NAME] [--n-ctx 16384] [--options JSON]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import tempfile
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from textmem_gym.qa.bench.plot import plot_cost
from textmem_gym.qa.bench.run import run_bench
from textmem_gym.qa.bench.summary import format_failures

BUDGET = 1024
MEMORIES = "arigraph,davis,mem0,graphiti"
TRAJECTORIES = "textworld-cooking-short,twx-coin-short"
#: Options of the model-built memories (recorded in each row's config; ``--options`` replaces them).
OPTIONS: dict[str, dict[str, Any]] = {
    "graphiti": {"steps_per_episode": 5, "previous_episodes": 2, "max_tokens": 256},
    "mem0": {"max_tokens": 256},
}


@contextlib.contextmanager
def endpoint(base_url: str | None, model: str | None, n_ctx: int, threads: int | None) -> Iterator[dict[str, Any]]:
    """The endpoint given, else SmolLM2 on llama.cpp's server for the run."""
    if base_url and model:
        yield {"base_url": base_url, "model": model}
        return
    from textmem_gym.llm import LlamaCppServer, smollm2_path

    alias = f"{smollm2_path().name.removesuffix('.gguf')}@{n_ctx}"  # the window is part of what rows record
    with LlamaCppServer(n_ctx=n_ctx, model_alias=alias, threads=threads) as server:
        yield {"base_url": server.base_url, "model": server.model_alias}


def overall(rows: Sequence[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Memory -> its row over every backend and question kind at :data:`BUDGET`."""
    return {r["memory"]: r for r in rows
            if r["backend"] == "all" and r["question_kind"] == "all" and r["budget"] == BUDGET}


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.0f}%"


def _num(value: float | None, digits: int = 0) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def table(rows: dict[str, dict[str, Any]]) -> str:
    """The comparison as markdown."""
    lines = ["| memory | build tok/step | update ms p50/p95 | context ms p50/p95 | ctx tok | "
             f"FM@{BUDGET} | R@{BUDGET} | n | failed updates |", "|---|---|---|---|---|---|---|---|---|"]
    for name, r in rows.items():
        lines.append(f"| {name} | {_num(r['build_tokens_per_step'])} | {_num(r['update_ms_p50'])} / "
                     f"{_num(r['update_ms_p95'])} | {_num(r['context_ms_p50'])} / {_num(r['context_ms_p95'])} | "
                     f"{_num(r['context_tokens'])} | {_pct(r['first_mention'])} | {_pct(r['answer_recall'])} | "
                     f"{r['questions']} | {format_failures(r.get('failed_updates'), r.get('failed_by_cause'))} |")
    return "\n".join(lines)


def ratios(rows: dict[str, dict[str, Any]], base: str = "arigraph") -> list[str]:
    """Each memory's tokens per step and p95 latencies as multiples of ``base``'s, measured in this run."""
    if base not in rows:
        return []
    ref = rows[base]
    out = []
    for name, r in rows.items():
        if name == base:
            continue
        parts = []
        for key, label in (("build_tokens_per_step", "build tokens/step"), ("update_ms_p95", "update p95"),
                           ("context_ms_p95", "context p95")):
            if r.get(key) and ref.get(key):
                parts.append(f"{label} x{r[key] / ref[key]:.2f}")
        out.append(f"{name} vs {base}: " + ", ".join(parts))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memories", default=MEMORIES)
    parser.add_argument("--trajectories", default=TRAJECTORIES)
    parser.add_argument("--max-steps", type=int, default=None, help="commands replayed per trajectory (all: 40)")
    parser.add_argument("--per-kind", type=int, default=2)
    parser.add_argument("--base-url", default=None, help="an endpoint already running (else SmolLM2 is started)")
    parser.add_argument("--model", default=None)
    parser.add_argument("--n-ctx", type=int, default=16384, help="context window of the started server")
    parser.add_argument("--threads", type=int, default=None,
                        help="CPU threads of the started server (1 avoids OpenMP waits on a busy machine)")
    parser.add_argument("--options", default=json.dumps(OPTIONS), help="memory options, JSON (default: OPTIONS)")
    parser.add_argument("--out", default=None, help="results JSONL (resumable); default: a temporary file")
    parser.add_argument("--plot", default=None, help="PNG of accuracy against cost")
    parser.add_argument("--title", default="SmolLM2-135M on 2 cores: a floor, not the papers' GPT-4",
                        help="title of the plot")
    args = parser.parse_args()
    out = Path(args.out) if args.out else Path(tempfile.mkdtemp(prefix="model-memory-bench-")) / "bench.jsonl"
    memories = args.memories.split(",")
    options = {name: given for name, given in json.loads(args.options).items() if name in memories}
    started = time.perf_counter()
    with endpoint(args.base_url, args.model, args.n_ctx, args.threads) as llm:
        summary = run_bench(memories, trajectories=args.trajectories.split(","), budgets=[BUDGET], options=options,
                            per_kind=args.per_kind, extractor="llm", llm=llm, max_steps=args.max_steps, out=out,
                            progress=lambda line: print(line, flush=True))
    rows = overall(summary)
    print(f"\n{table(rows)}\n")
    for line in ratios(rows):
        print(line)
    print(f"\nwall time {time.perf_counter() - started:.0f} s; records in {out}")
    if args.plot:
        print(f"plot: {plot_cost(summary, args.plot, budget=BUDGET, title=args.title)}")


if __name__ == "__main__":
    main()
