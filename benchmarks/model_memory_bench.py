"""Memories a model builds, measured in worlds with their cost: ``memory-bench --extractor llm`` with SmolLM2.

AriGraph and DAVIS built with the papers' LLM extraction, Mem0 (``mem0ai``) and Graphiti
(``graphiti-core``) all through one OpenAI-compatible endpoint: SmolLM2-135M-Instruct on llama.cpp's
server (the server ``textmem-gym serve-llm`` runs; pass ``--base-url``/``--model`` to use one already
running), over the 40-step TextWorld and TWX trajectories. Per memory it prints build tokens per step,
p50/p95 ``update`` and ``context`` latency, the tokens context returned and first-mention accuracy and
answer recall at 1,024 tokens and the failed updates by cause, then the cost ratios side by side; ``--plot``
draws first-mention accuracy against build tokens per step and against p95 query latency
(:func:`~textmem_gym.qa.bench.plot.plot_cost`).

The memories' options (:data:`OPTIONS`, recorded in every row's config): Graphiti adds 5 game steps per
episode and reads the 2 episodes before it, every model call of mem0 and Graphiti asks at most 256 completion
tokens. The server started here has a window of ``--n-ctx`` 16,384 tokens: mem0ai 2.2's extraction prompt
alone is ~8,700 tokens (its system prompt is not configurable), so it does not fit SmolLM2's trained 8,192;
past 8,192 the model reads beyond the length it was trained on (a floor on a floor).

How the model is served (the server setup is not part of a memory's meaning, except the completion cap):

- ``--slots`` 6 servers behind one URL (:class:`~textmem_gym.llm.llama_server.LlamaCppSlots`), one KV cache
  per prompt kind: llama-cpp-python's server reuses only the prefix a prompt shares with its previous one,
  so a memory alternating prompt kinds (AriGraph's extraction and outdated-triplet check, Graphiti's 4 to 6
  kinds) would evaluate each prompt's instructions again at every call;
- every call capped at ``--max-tokens`` 256 completion tokens by the proxy (like ``llama-server
  --n-predict``): SmolLM2 sometimes loops until the caller's limit (AriGraph's 512, DAVIS's 1,024 tokens).
  The cap changes what the model answers, so it is in the model name the rows record, with the window
  (``SmolLM2-135M-Instruct.Q4_1@16384/max256``): runs with another window or cap never merge;
- no logits kept for every prompt token (``--logits_all false``);
- the memories replayed one after another (each keeps the servers' caches warm for its own prompts), or
  ``--parallel`` groups of them at the same time, each group in a process with its own servers
  (``--threads 1`` each: on 2 shared cores a 2-thread server waits on its OpenMP threads).

Besides the rows it prints, per memory, what the servers computed (:class:`~textmem_gym.llm.llama_server.ServerWork`,
from their timings): calls, prompt tokens *evaluated* (not reused from a cache) and tokens generated per step,
and the model's seconds per step (also in ``OUT.work.json``).

A 135M model's extraction is a floor, not the papers' GPT-4 numbers: the point is the cost columns and
that every memory runs end to end in a world.

Run: python benchmarks/model_memory_bench.py [--max-steps N] [--memories arigraph,davis,mem0,graphiti]
     [--parallel mem0,davis/graphiti,arigraph] [--threads 1] [--slots 6] [--max-tokens 256]
     [--trajectories textworld-cooking-short,twx-coin-short] [--out FILE.jsonl] [--plot FILE.png]
     [--base-url URL --model NAME] [--n-ctx 16384] [--options JSON]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from textmem_gym.llm.llama_server import ServerWork
from textmem_gym.qa.bench.plot import plot_cost
from textmem_gym.qa.bench.run import check_memories, run_bench
from textmem_gym.qa.bench.summary import format_failures

BUDGET = 1024
MEMORIES = "arigraph,davis,mem0,graphiti"
TRAJECTORIES = "textworld-cooking-short,twx-coin-short"
#: Options of the model-built memories (recorded in each row's config; ``--options`` replaces them).
OPTIONS: dict[str, dict[str, Any]] = {
    "graphiti": {"steps_per_episode": 5, "previous_episodes": 2, "max_tokens": 256},
    "mem0": {"max_tokens": 256},
}
#: Servers started behind one URL: one KV cache per prompt kind (AriGraph 2, Mem0 2, Graphiti 4-6 kinds).
SLOTS = 6
#: Prompt kinds each memory alternates (a ``--parallel`` group starts as many slots as its memories need, at
#: most ``--slots``): Mem0 2.2 makes one call per update, DAVIS one prompt, AriGraph two, Graphiti 4 to 6.
PROMPT_KINDS = {"mem0": 1, "davis": 1, "arigraph": 2, "graphiti": 6}
#: Characters a prompt shares with a server's last one to be sent there (Graphiti's shortest system prompt
#: is longer); below it, the server used least recently.
MIN_PREFIX = 64
#: Completion cap of every call (the proxy's, like ``llama-server --n-predict``): SmolLM2 sometimes loops until the
#: caller's limit (AriGraph's 512, DAVIS's 1,024 tokens); in the model name rows record (``NAME@16384/max256``).
MAX_TOKENS = 256
#: Server arguments: no logits kept for every prompt token (only the last one's are sampled from).
SERVER_ARGS = ("--logits_all", "false")


@dataclass
class Endpoint:
    """The endpoint memories are built through, and what its servers computed (when started here)."""

    settings: dict[str, Any]
    work: Callable[[], ServerWork] = ServerWork


@contextlib.contextmanager
def endpoint(base_url: str | None, model: str | None, n_ctx: int, threads: int | None,
             slots: int = SLOTS, max_tokens: int | None = MAX_TOKENS) -> Iterator[Endpoint]:
    """The endpoint given, else SmolLM2 on llama.cpp's server for the run: ``slots`` servers behind one URL
    (:class:`~textmem_gym.llm.LlamaCppSlots`, one KV cache per prompt kind), every completion capped at
    ``max_tokens`` (the cap is in the model name rows record)."""
    if base_url and model:
        yield Endpoint({"base_url": base_url, "model": model})
        return
    from textmem_gym.llm.llama_server import LlamaCppSlots

    options: dict[str, Any] = {"n_ctx": n_ctx, "model_alias": model_alias(n_ctx), "threads": threads,
                               "extra_args": SERVER_ARGS}
    with LlamaCppSlots(slots, min_prefix=MIN_PREFIX, max_tokens=max_tokens, **options) as server:
        yield Endpoint({"base_url": server.base_url, "model": server.model_alias}, server.work)


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


def work_row(work: ServerWork, steps: int, seconds: float) -> dict[str, Any]:
    """What the servers computed for one memory's replays, per step (``steps``: updates fed in all).

    Example:
        >>> work_row(ServerWork(4, 800, 4000.0, 100, 2000.0), steps=2, seconds=10.0)["prompt_tokens_per_step"]
        400.0
    """
    per = max(steps, 1)
    return {"steps": steps, "wall_s_per_step": round(seconds / per, 2),
            "model_s_per_step": round(work.seconds / per, 2),
            "calls_per_step": round(work.calls / per, 2), "prompt_tokens_per_step": round(work.prompt_tokens / per, 1),
            "generated_tokens_per_step": round(work.generated_tokens / per, 1),
            "prompt_tokens_per_s": round(1000 * work.prompt_tokens / work.prompt_ms, 1) if work.prompt_ms else None,
            "generated_tokens_per_s": round(1000 * work.generated_tokens / work.generate_ms, 1)
            if work.generate_ms else None}


def work_table(rows: dict[str, dict[str, Any]]) -> str:
    """The model's work per memory as markdown (prompt tokens evaluated, not reused from a KV cache)."""
    lines = ["| memory | steps | wall s/step | model s/step | calls/step | prompt tok evaluated/step | "
             "generated tok/step | prompt tok/s | generated tok/s |", "|---|---|---|---|---|---|---|---|---|"]
    for name, r in rows.items():
        lines.append(f"| {name} | {r['steps']} | {r['wall_s_per_step']} | {r['model_s_per_step']} | "
                     f"{r['calls_per_step']} | {r['prompt_tokens_per_step']} | {r['generated_tokens_per_step']} | "
                     f"{_num(r['prompt_tokens_per_s'])} | {_num(r['generated_tokens_per_s'])} |")
    return "\n".join(lines)


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """The command line."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--memories", default=MEMORIES,
                        help="memories, one after another; NAME@T1+T2 replays only those trajectories for NAME")
    parser.add_argument("--trajectories", default=TRAJECTORIES)
    parser.add_argument("--max-steps", type=int, default=None, help="commands replayed per trajectory (all: 40)")
    parser.add_argument("--per-kind", type=int, default=2)
    parser.add_argument("--base-url", default=None, help="an endpoint already running (else SmolLM2 is started)")
    parser.add_argument("--model", default=None)
    parser.add_argument("--n-ctx", type=int, default=16384, help="context window of the started server")
    parser.add_argument("--threads", type=int, default=None,
                        help="CPU threads of each started server (1 avoids OpenMP waits on a busy machine)")
    parser.add_argument("--slots", type=int, default=SLOTS,
                        help="servers started behind one URL, one KV cache per prompt kind")
    parser.add_argument("--max-tokens", type=int, default=MAX_TOKENS,
                        help="completion cap of every call of the started servers (0: the callers' limits)")
    parser.add_argument("--parallel", default=None,
                        help="groups of --memories items run at the same time, each in a process with its own "
                             "servers (e.g. mem0@textworld-cooking-short/mem0@twx-coin-short,arigraph/graphiti,davis;"
                             " replaces --memories)")
    parser.add_argument("--options", default=json.dumps(OPTIONS), help="memory options, JSON (default: OPTIONS)")
    parser.add_argument("--out", default=None, help="results JSONL (resumable); default: a temporary file")
    parser.add_argument("--plot", default=None, help="PNG of accuracy against cost")
    parser.add_argument("--title", default="SmolLM2-135M on 2 cores: a floor, not the papers' GPT-4",
                        help="title of the plot")
    return parser.parse_args(argv)


def _lines(path: Path) -> list[str]:
    """The non-empty lines of a results file (none when it does not exist yet)."""
    return [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()] if path.exists() else []


def run_memories(args: argparse.Namespace, llm: Endpoint, out: Path) -> dict[str, dict[str, Any]]:
    """Replays the trajectories for one memory after another (so each memory's prompts keep the servers'
    caches warm) and returns what the model computed for each (:func:`work_row`)."""
    options = json.loads(args.options)
    names = memory_names(args.memories)
    # every memory's code loaded now: a module edited during a long run cannot mix with what is already loaded
    check_memories(names, {name: given for name, given in options.items() if name in names})
    work: dict[str, dict[str, Any]] = {}
    for item in args.memories.split(","):
        memory, trajectories = split_item(item, args.trajectories)
        before, started, seen = llm.work(), time.perf_counter(), len(_lines(out))
        run_bench([memory], trajectories=trajectories, budgets=[BUDGET],
                  options={name: given for name, given in options.items() if name == memory},
                  per_kind=args.per_kind, extractor="llm", llm=llm.settings, max_steps=args.max_steps, out=out,
                  progress=lambda line: print(line, flush=True))
        steps = sum(int(json.loads(line).get("updates") or 0) for line in _lines(out)[seen:])  # records made now
        work[item] = work_row(llm.work() - before, steps, time.perf_counter() - started)
        print(f"{item}: {json.dumps(work[item])}", flush=True)
    return work


def model_alias(n_ctx: int, max_tokens: int | None = None) -> str:
    """The model name the started servers answer to (and rows record): SmolLM2's file name, the window and
    the completion cap."""
    from textmem_gym.llm import smollm2_path

    name = f"{smollm2_path().name.removesuffix('.gguf')}@{n_ctx}"
    return name if max_tokens is None else f"{name}/max{max_tokens}"


def split_item(item: str, trajectories: str) -> tuple[str, list[str]]:
    """The memory and trajectories of one item of ``--memories`` or ``--parallel``: ``NAME[@T1+T2]`` (without
    ``@``, the run's ``trajectories``).

    Example:
        >>> split_item("mem0@twx-coin-short", "a,b"), split_item("davis", "a,b")
        (('mem0', ['twx-coin-short']), ('davis', ['a', 'b']))
    """
    memory, _, own = item.partition("@")
    return memory, own.split("+") if own else trajectories.split(",")


def child_command(args: argparse.Namespace, group: str, out: Path) -> list[str]:
    """The command line running one ``--parallel`` group alone, with this run's settings, into ``out``."""
    names = [split_item(item, args.trajectories)[0] for item in group.split(",")]
    slots = min(args.slots, max(PROMPT_KINDS.get(name, args.slots) for name in names))
    command = [sys.executable, str(Path(__file__).resolve()), "--memories", group, "--out", str(out),
               "--trajectories", args.trajectories, "--per-kind", str(args.per_kind), "--n-ctx", str(args.n_ctx),
               "--slots", str(slots), "--max-tokens", str(args.max_tokens), "--options", args.options]
    for flag, value in (("--max-steps", args.max_steps), ("--threads", args.threads)):
        if value is not None:
            command += [flag, str(value)]
    return command


def run_groups(args: argparse.Namespace, out: Path) -> dict[str, dict[str, Any]]:
    """Runs each group of ``--parallel`` at the same time in a process of its own (its own servers), then
    appends their records to ``out`` and returns their model work (each group's ``.work.json``, by item)."""
    groups = [group for group in args.parallel.split("/") if group]
    outs = [out.with_suffix(f".group{index}.jsonl") for index in range(len(groups))]
    children = [subprocess.Popen(child_command(args, group, path)) for group, path in zip(groups, outs, strict=True)]
    codes = [child.wait() for child in children]
    if any(codes):
        raise SystemExit(f"a group failed (exit codes {codes}); finished records stay in {outs}")
    known = set(_lines(out))
    with out.open("a", encoding="utf-8") as merged:
        for path in outs:
            merged.writelines(line + "\n" for line in _lines(path) if line not in known)
    work: dict[str, dict[str, Any]] = {}
    for path in outs:
        work.update(json.loads(path.with_suffix(".work.json").read_text(encoding="utf-8")))
    return work


def memory_names(items: str) -> list[str]:
    """The memories of ``--memories`` items or ``--parallel`` groups, each once, in order.

    Example:
        >>> memory_names("mem0@textworld-cooking-short/mem0@twx-coin-short,arigraph/graphiti,davis")
        ['mem0', 'arigraph', 'graphiti', 'davis']
    """
    names = [item.partition("@")[0] for group in items.split("/") for item in group.split(",") if item]
    return list(dict.fromkeys(names))


def main(argv: Sequence[str] | None = None) -> None:
    """Runs the benchmark (see the module)."""
    args = parse_args(argv)
    out = Path(args.out) if args.out else Path(tempfile.mkdtemp(prefix="model-memory-bench-")) / "bench.jsonl"
    memories = memory_names(args.parallel or args.memories)
    options = {name: given for name, given in json.loads(args.options).items() if name in memories}
    started = time.perf_counter()
    if args.parallel:
        work = run_groups(args, out)
        cap = args.max_tokens or None
        settings = {"model": args.model or model_alias(args.n_ctx, cap)}  # every record is there: nothing is asked
    else:
        with endpoint(args.base_url, args.model, args.n_ctx, args.threads, args.slots, args.max_tokens or None) as llm:
            work = run_memories(args, llm, out)
        settings = llm.settings
    # every record is in out now: the summary of what this run covers (a group's items only), asking nothing
    covered = ([(name, args.trajectories.split(",")) for name in memories] if args.parallel
               else [split_item(item, args.trajectories) for item in args.memories.split(",")])
    summary = [row for name, trajectories in covered
               for row in run_bench([name], trajectories=trajectories, budgets=[BUDGET],
                                    options={name: options[name]} if name in options else {},
                                    per_kind=args.per_kind, extractor="llm", llm=settings,
                                    max_steps=args.max_steps, out=out)]
    rows = overall(summary)
    print(f"\n{table(rows)}\n\n{work_table(work)}\n")
    for line in ratios(rows):
        print(line)
    out.with_suffix(".work.json").write_text(json.dumps(work, indent=1) + "\n", encoding="utf-8")
    print(f"\nwall time {time.perf_counter() - started:.0f} s; records in {out}, model work in "
          f"{out.with_suffix('.work.json')}")
    if args.plot:
        print(f"plot: {plot_cost(summary, args.plot, budget=BUDGET, title=args.title)}")


if __name__ == "__main__":
    main()
