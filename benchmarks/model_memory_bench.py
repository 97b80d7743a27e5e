"""Memories a model builds, measured in worlds with their cost: ``memory-bench --extractor llm`` with SmolLM2.

AriGraph and DAVIS built with the papers' LLM extraction, Mem0 (``mem0ai``) and Graphiti
(``graphiti-core``) all through one OpenAI-compatible endpoint: SmolLM2-135M-Instruct on llama.cpp's
server (the server ``textmem-gym serve-llm`` runs; pass ``--base-url``/``--model`` to use one already
running), over the 40-step TextWorld and TWX trajectories. Per memory it prints build tokens per step,
p50/p95 ``update`` and ``context`` latency, the tokens context returned and first-mention accuracy and
answer recall at 1,024 tokens, then the cost ratios side by side; ``--plot`` draws accuracy against
build tokens per step.

A 135M model's extraction is a floor, not the papers' GPT-4 numbers: the point is the cost columns and
that every memory runs end to end in a world.

Run: python benchmarks/model_memory_bench.py [--max-steps N] [--memories arigraph,davis,mem0,graphiti]
     [--trajectories textworld-cooking-short,twx-coin-short] [--out FILE.jsonl] [--plot FILE.png]
     [--base-url URL --model NAME]
"""

from __future__ import annotations

import argparse
import contextlib
import tempfile
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from textmem_gym.qa.bench.run import run_bench

BUDGET = 1024
MEMORIES = "arigraph,davis,mem0,graphiti"
TRAJECTORIES = "textworld-cooking-short,twx-coin-short"


@contextlib.contextmanager
def endpoint(base_url: str | None, model: str | None, n_ctx: int) -> Iterator[dict[str, Any]]:
    """The endpoint given, else SmolLM2 on llama.cpp's server for the run."""
    if base_url and model:
        yield {"base_url": base_url, "model": model}
        return
    from textmem_gym.llm import LlamaCppServer

    with LlamaCppServer(n_ctx=n_ctx) as server:
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
             f"FM@{BUDGET} | R@{BUDGET} | n |", "|---|---|---|---|---|---|---|---|"]
    for name, r in rows.items():
        lines.append(f"| {name} | {_num(r['build_tokens_per_step'])} | {_num(r['update_ms_p50'])} / "
                     f"{_num(r['update_ms_p95'])} | {_num(r['context_ms_p50'])} / {_num(r['context_ms_p95'])} | "
                     f"{_num(r['context_tokens'])} | {_pct(r['first_mention'])} | {_pct(r['answer_recall'])} | "
                     f"{r['questions']} |")
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


def plot(rows: dict[str, dict[str, Any]], path: Path) -> Path:
    """First-mention accuracy at :data:`BUDGET` against build tokens per step (log scale), one point per memory."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(5.5, 3.6))
    for name, r in rows.items():
        x, y = max(r["build_tokens_per_step"] or 0.0, 1.0), 100 * (r["first_mention"] or 0.0)
        ax.scatter([x], [y], s=20 + (r["update_ms_p95"] or 0) / 50)
        ax.annotate(name, (x, y), textcoords="offset points", xytext=(5, 4))
    ax.set_xscale("log")
    ax.set_xlabel("build tokens per step (log; 1 = none)")
    ax.set_ylabel(f"first-mention accuracy @ {BUDGET} tokens (%)")
    ax.set_title("Accuracy against cost (SmolLM2-135M; marker size: update p95)", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=80)
    plt.close(fig)
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memories", default=MEMORIES)
    parser.add_argument("--trajectories", default=TRAJECTORIES)
    parser.add_argument("--max-steps", type=int, default=None, help="commands replayed per trajectory (all: 40)")
    parser.add_argument("--per-kind", type=int, default=2)
    parser.add_argument("--base-url", default=None, help="an endpoint already running (else SmolLM2 is started)")
    parser.add_argument("--model", default=None)
    parser.add_argument("--n-ctx", type=int, default=8192, help="context window of the started server")
    parser.add_argument("--out", default=None, help="results JSONL (resumable); default: a temporary file")
    parser.add_argument("--plot", default=None, help="PNG of accuracy against cost")
    args = parser.parse_args()
    out = Path(args.out) if args.out else Path(tempfile.mkdtemp(prefix="model-memory-bench-")) / "bench.jsonl"
    started = time.perf_counter()
    with endpoint(args.base_url, args.model, args.n_ctx) as llm:
        summary = run_bench(args.memories.split(","), trajectories=args.trajectories.split(","), budgets=[BUDGET],
                            per_kind=args.per_kind, extractor="llm", llm=llm, max_steps=args.max_steps, out=out,
                            progress=print)
    rows = overall(summary)
    print(f"\n{table(rows)}\n")
    for line in ratios(rows):
        print(line)
    print(f"\nwall time {time.perf_counter() - started:.0f} s; records in {out}")
    if args.plot:
        print(f"plot: {plot(rows, Path(args.plot))}")


if __name__ == "__main__":
    main()
