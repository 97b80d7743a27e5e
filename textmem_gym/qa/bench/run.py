"""``memory-bench``: every shipped trajectory replayed, every memory probed, one row per memory x kind x budget.

For each shipped trajectory (:mod:`~textmem_gym.qa.bench.trajectories`), the replay is checked
against the recorded observation digests, then :func:`~textmem_gym.qa.probes.run.probe_episode`
probes every memory at the trajectory's middle and last step (questions of every kind, no model:
``recall`` and ``structural`` answers, rules extraction). The probe rows (one per question,
memory and answer mode) are then summarised as one row per memory, question kind and budget:

- ``answer_recall``: the share of the kind's questions whose answer is in ``context(question, budget)``;
- ``structural_em``: mean EM of the structural answers where the memory offers the part (else ``None``);
- ``build_tokens``: the memory's LLM tokens to build itself (0 with rules extraction), mean per question;
- ``build_ms_per_step``: mean milliseconds of one ``update``; ``query_ms``: mean milliseconds of one ``context``;
- ``questions`` and ``trajectories``: how many were asked of it.

Everything is deterministic but the timings: the trajectories are fixed, the questions drawn with a
fixed seed, and no model answers.

Example:
    >>> rows = run_bench(["full-history", "bm25"], trajectories=["twx-coin-short"], per_kind=2)
    >>> sorted({r["budget"] for r in rows}), {r["memory"] for r in rows} == {"full-history", "bm25"}
    ([256, 512, 1024, 2048], True)
"""

from __future__ import annotations

import json
import statistics
import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from textmem_gym.memory.protocol import Memory
from textmem_gym.memory.registry import memory_factory
from textmem_gym.qa.bench.trajectories import BenchTrajectory, check_playable, load_trajectories, replay_trajectory
from textmem_gym.qa.recall import BUDGETS

#: The memories benchmarked by default (every built-in that needs no model or extra package).
DEFAULT_MEMORIES: tuple[str, ...] = ("arigraph", "stma", "davis", "full-history", "bm25", "dense", "hipporag")
#: The ``kind`` of a memory-bench row.
ROW_KIND = "memory-bench"
#: Questions of one kind at one step.
PER_KIND = 5


def probe_steps(decisions: int) -> tuple[int | str, ...]:
    """The steps a trajectory is probed at: its middle and its end.

    Example:
        >>> probe_steps(320), probe_steps(1)
        ((160, 'end'), ('end',))
    """
    return (decisions // 2, "end") if decisions >= 2 else ("end",)


def probe_trajectory(trajectory: BenchTrajectory, memories: Sequence[str | Memory], *,
                     budgets: Sequence[int] = BUDGETS, per_kind: int = PER_KIND,
                     options: dict[str, dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    """The probe rows of ``memories`` over one trajectory (replay checked against its digests)."""
    from textmem_gym.qa.probes.run import ProbeConfig, probe_episode

    replay_trajectory(trajectory)  # raises ReplayMismatch when the game is not the recorded one
    config = ProbeConfig(steps=probe_steps(len(trajectory.commands)), per_kind=per_kind,
                         answers=("recall", "structural"), budgets=tuple(budgets), options=dict(options or {}))
    return probe_episode(trajectory.episode(), list(memories), config, check=False)


def summarize(probe_rows: Iterable[dict[str, Any]], budgets: Sequence[int] = BUDGETS) -> list[dict[str, Any]]:
    """One row per memory x question kind x budget (see the module docstring): memories in the order
    probed, kinds in the order of :data:`~textmem_gym.qa.probes.questions.GENERATORS`."""
    from textmem_gym.qa.probes.questions import GENERATORS

    groups: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    memories: dict[str, int] = {}
    for row in probe_rows:
        memories.setdefault(row["memory"], len(memories))
        groups[(row["memory"], row["question_kind"])].append(row)
    kinds = {kind: i for i, kind in enumerate(GENERATORS)}
    rows = []
    order = sorted(groups, key=lambda key: (memories[key[0]], kinds.get(key[1], len(kinds)), key[1]))
    for memory, kind in order:
        items = groups[(memory, kind)]
        asked = [r for r in items if r["answer_mode"] == "recall"]
        structural = [r["em"] for r in items if r["answer_mode"] == "structural" and r.get("offered")]
        common = {"structural_em": _mean(structural),
                  "build_tokens": _mean(r["memory_prompt_tokens"] + r["memory_completion_tokens"] for r in asked),
                  "build_ms_per_step": _mean(r["build_ms_per_step"] for r in asked),
                  "query_ms": _mean(r["query_ms"] for r in asked), "questions": len(asked),
                  "trajectories": len({r["episode_id"] for r in asked})}
        for budget in budgets:
            recall = _mean(float(r["answer_recall"][str(budget)]) for r in asked)
            rows.append({"kind": ROW_KIND, "memory": memory, "question_kind": kind, "budget": budget,
                         "answer_recall": recall, **common})
    return rows


def _mean(values: Iterable[float]) -> float | None:
    values = list(values)
    return round(statistics.fmean(values), 4) if values else None


def run_bench(memories: Sequence[str | Memory] = DEFAULT_MEMORIES, *, trajectories: Sequence[str] | None = None,
              budgets: Sequence[int] = BUDGETS, per_kind: int = PER_KIND,
              options: dict[str, dict[str, Any]] | None = None, out: str | Path | None = None,
              progress: Callable[[str], None] | None = None) -> list[dict[str, Any]]:
    """Probes ``memories`` over the shipped trajectories (all, or those named); the summary rows.

    Args:
        memories: Names (``textmem_gym.memories`` entry points), ``"module:Class"`` or memory objects.
        trajectories: Names of shipped trajectories (default: all).
        budgets: Token budgets of answer recall.
        per_kind: Questions of one kind at one step.
        options: Options per memory name (``{"bm25": {"k1": 1.5}}``).
        out: JSONL file the summary rows are written to (replaced).
        progress: Called with one line per trajectory probed.

    Raises:
        ValueError: An unknown memory or trajectory (listing the valid ones).
        TrajectoryUnavailable: A trajectory's env cannot be made here (a missing ROM, Java or NLE): before any work.
        ReplayMismatch: A trajectory replays differently from its recording.
    """
    for spec in memories:
        if isinstance(spec, str):
            memory_factory(spec)  # an unknown name fails here, before any replay
    chosen = load_trajectories(trajectories)
    check_playable(chosen)
    probe_rows: list[dict[str, Any]] = []
    for trajectory in chosen:
        started = time.perf_counter()
        probe_rows += probe_trajectory(trajectory, memories, budgets=budgets, per_kind=per_kind, options=options)
        if progress is not None:
            progress(f"{trajectory.name}: {len(trajectory.commands)} steps probed in "
                     f"{time.perf_counter() - started:.1f} s")
    rows = summarize(probe_rows, budgets)
    if out is not None:
        Path(out).parent.mkdir(parents=True, exist_ok=True)
        Path(out).write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return rows


def format_bench_table(rows: Sequence[dict[str, Any]]) -> str:
    """The markdown table: memory x question kind, answer recall at each budget, structural EM,
    build tokens, build ms per step, query ms.

    Example:
        >>> row = {"memory": "m", "question_kind": "location", "budget": 256, "answer_recall": 0.5,
        ...        "structural_em": None, "build_tokens": 0.0, "build_ms_per_step": 1.25, "query_ms": 0.5,
        ...        "questions": 4}
        >>> print(format_bench_table([row]))
        | memory | kind | n | R@256 | structural EM | build tokens | build ms/step | query ms |
        |---|---|---|---|---|---|---|---|
        | m | location | 4 | 0.50 | - | 0 | 1.25 | 0.50 |
    """
    budgets = sorted({r["budget"] for r in rows})
    cells: dict[tuple[str, str], dict[int, dict[str, Any]]] = defaultdict(dict)
    for row in rows:
        cells[(row["memory"], row["question_kind"])][row["budget"]] = row
    header = ["memory", "kind", "n", *[f"R@{b}" for b in budgets], "structural EM", "build tokens",
              "build ms/step", "query ms"]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for (memory, kind), by_budget in cells.items():
        first = next(iter(by_budget.values()))
        recall = [_cell(by_budget.get(b, {}).get("answer_recall")) for b in budgets]
        lines.append("| " + " | ".join([memory, kind, str(first["questions"]), *recall,
                                        _cell(first["structural_em"]), _cell(first["build_tokens"], "{:.0f}"),
                                        _cell(first["build_ms_per_step"]), _cell(first["query_ms"])]) + " |")
    return "\n".join(lines)


def _cell(value: float | None, form: str = "{:.2f}") -> str:
    return "-" if value is None else form.format(value)


__all__ = ["DEFAULT_MEMORIES", "PER_KIND", "ROW_KIND", "format_bench_table", "probe_steps", "probe_trajectory",
           "run_bench", "summarize"]
