"""The rows of ``memory-bench``: per trajectory x memory records summarised per memory x backend x kind x budget.

A bench run appends one **record** per trajectory x memory to its results file
(:func:`~textmem_gym.qa.bench.run.run_bench`): the questions asked with their answer recall (and
first-mention accuracy, where the probe rows carry it) at each budget, the structural EM, and the
cost of every call (each ``update``'s milliseconds; each ``context`` call's milliseconds and the
tokens it returned). :func:`summarize` derives the **summary rows** from the records, one per memory
x backend x question kind x budget, with ``backend: "all"`` (every backend together) and
``question_kind: "all"`` (every question of the memory) rows, so nothing is averaged twice and a
summary never stands for fewer records than the file holds:

- ``answer_recall``: share of the questions whose gold answer is in ``context(question, budget)``;
- ``first_mention``: share whose gold answer is the first candidate the cut context names (``None``
  until the probe rows carry it);
- ``structural_em``: mean EM of the answers read off the memory's beliefs, where it offers them
  (else ``None``), the same at every budget;
- ``build_tokens`` (total) and ``build_tokens_per_step``: tokens a model spent building the memory
  (0 with rules extraction);
- ``update_ms_p50`` / ``update_ms_p95`` / ``update_ms_mean``: one ``update`` call's milliseconds;
- ``failed_updates`` and ``failed_by_cause``: updates whose model-made part added nothing (a prompt the
  endpoint refused, an answer that was not the schema...), in all and by cause (the error's class name),
  for memories that count them (mem0, graphiti); ``None`` for the others. A failure is never replaced by
  a fallback counted as the model's work;
- ``context_ms_p50`` / ``context_ms_p95`` / ``context_ms_mean``: one ``context`` call's milliseconds at
  the row's budget; ``context_tokens``: mean tokens it returned there;
- ``questions``, ``trajectories`` (names), ``config`` and ``config_id``: what was asked, of which
  trajectories, with which configuration (two configurations are never summarised together).

Example:
    >>> record = {"kind": "memory-bench", "trajectory": "t-a", "backend": "twx", "memory": "m",
    ...           "config": {"budgets": [256]}, "update_ms": [1.0, 3.0], "updates": 2, "build_tokens": 0,
    ...           "questions": [{"question_kind": "location", "answer_recall": {"256": True},
    ...                          "structural_em": None, "offered": False, "context_ms": {"256": 0.5},
    ...                          "context_tokens": {"256": 12}}]}
    >>> rows = summarize([record])
    >>> [(r["backend"], r["question_kind"], r["answer_recall"], r["update_ms_p50"]) for r in rows]
    [('twx', 'location', 1.0, 2.0), ('twx', 'all', 1.0, 2.0), ('all', 'location', 1.0, 2.0), ('all', 'all', 1.0, 2.0)]
"""

from __future__ import annotations

import csv
import io
import json
import statistics
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from textmem_gym.results import config_id

#: The ``kind`` of memory-bench records and summary rows.
ROW_KIND = "memory-bench"
#: Backends in the order the tables show them (others follow by name, then ``all``).
BACKENDS: tuple[str, ...] = ("textworld", "twx", "jericho", "scienceworld", "nethack")
#: What the table's columns mean (printed under it).
LEGEND = ("R@B: answer recall at B tokens (% of questions whose gold answer is in the memory's context cut to B); "
          "FM@B: first-mention accuracy (% whose gold answer is the first candidate that context names); "
          "struct EM: % exact match of the answer read off the memory's beliefs; n: questions; "
          "tok/step: build tokens per step (0 with rules extraction); update ms, context ms: p50/p95 "
          "milliseconds of one call (context at the largest budget); ctx tok: mean tokens context returned "
          "at each budget; failed: updates whose model-made part added nothing, by cause (memories that "
          "count them); -: not offered or nothing measured.")
#: Columns of :func:`to_csv`, in order.
CSV_COLUMNS: tuple[str, ...] = (
    "memory", "backend", "question_kind", "budget", "questions", "answer_recall", "first_mention", "structural_em",
    "build_tokens", "build_tokens_per_step", "update_ms_p50", "update_ms_p95", "update_ms_mean", "context_ms_p50",
    "context_ms_p95", "context_ms_mean", "context_tokens", "failed_updates", "failed_by_cause", "trajectories",
    "config_id", "config")


def is_record(row: dict[str, Any]) -> bool:
    """Whether a results row is a memory-bench record (one trajectory x memory).

    Example:
        >>> is_record({"kind": "memory-bench", "trajectory": "twx-coin-short"}), is_record({"kind": "probe"})
        (True, False)
    """
    return row.get("kind") == ROW_KIND and isinstance(row.get("trajectory"), str)


def summarize(rows: Iterable[dict[str, Any]], memories: Sequence[str] = ()) -> list[dict[str, Any]]:
    """The summary rows of memory-bench records (see the module docstring); other rows are skipped.

    Args:
        rows: Results rows (records of any number of runs and configurations).
        memories: Memory names in the order the summary lists them (others follow in file order).

    Returns:
        Rows grouped by memory (and configuration), then backend (:data:`BACKENDS`, then ``all``), then
        question kind (the probes' order, then ``all``), then budget.
    """
    from textmem_gym.qa.probes.questions import GENERATORS

    groups: dict[tuple[str, str | None], list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        if is_record(row):
            groups[(row["memory"], config_id(row.get("config")))].append(row)
    rank = {name: i for i, name in enumerate(memories)}
    ordered = sorted(groups, key=lambda key: rank.get(key[0], len(rank)))  # stable: file order after the given
    shown = _labels(ordered)
    summary: list[dict[str, Any]] = []
    for key in ordered:
        records = groups[key]
        backends = sorted({r["backend"] for r in records},
                          key=lambda b: (BACKENDS.index(b) if b in BACKENDS else len(BACKENDS), b))
        for backend in [*backends, "all"]:
            chosen = [r for r in records if backend in ("all", r["backend"])]
            questions = [q for r in chosen for q in r["questions"]]
            kinds = sorted({q["question_kind"] for q in questions},
                           key=lambda k: (list(GENERATORS).index(k) if k in GENERATORS else len(GENERATORS), k))
            common = {"kind": ROW_KIND, "memory": shown[key], "backend": backend, **_costs(chosen),
                      "trajectories": [r["trajectory"] for r in chosen], "config": chosen[0].get("config") or {},
                      "config_id": key[1]}
            for kind in [*kinds, "all"]:
                asked = [q for q in questions if kind in ("all", q["question_kind"])]
                summary += _budget_rows(common, kind, asked, chosen[0].get("config") or {})
    return summary


def _labels(keys: Sequence[tuple[str, str | None]]) -> dict[tuple[str, str | None], str]:
    """A memory's name, with its configuration id where one name has several configurations."""
    names = [name for name, _ in keys]
    return {(name, cid): name if names.count(name) == 1 else f"{name}#{cid}" for name, cid in keys}


def _budget_rows(common: dict[str, Any], kind: str, asked: Sequence[dict[str, Any]],
                 config: dict[str, Any]) -> list[dict[str, Any]]:
    budgets = config.get("budgets") or sorted({int(b) for q in asked for b in q.get("answer_recall") or {}})
    structural = [float(q["structural_em"]) for q in asked if q.get("offered") and q.get("structural_em") is not None]
    rows = []
    for budget in budgets:
        key = str(budget)
        timings = [float(q["context_ms"][key]) for q in asked if key in (q.get("context_ms") or {})]
        mentions = [bool(q["first_mention"][key]) for q in asked if key in (q.get("first_mention") or {})]
        rows.append({**common, "question_kind": kind, "budget": int(budget), "questions": len(asked),
                     "answer_recall": _mean(bool((q.get("answer_recall") or {}).get(key)) for q in asked),
                     "first_mention": _mean(mentions), "structural_em": _mean(structural),
                     "context_ms_p50": _percentile(timings, 50), "context_ms_p95": _percentile(timings, 95),
                     "context_ms_mean": _mean(timings),
                     "context_tokens": _mean(float(q["context_tokens"][key]) for q in asked
                                             if key in (q.get("context_tokens") or {}))})
    return rows


def _costs(records: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Build tokens (total, per step) and update-latency percentiles over every update of ``records``."""
    timings = [float(ms) for r in records for ms in r.get("update_ms") or ()]
    tokens, updates = sum(int(r.get("build_tokens") or 0) for r in records), sum(int(r.get("updates") or 0)
                                                                                 for r in records)
    return {"build_tokens": tokens, "build_tokens_per_step": round(tokens / updates, 2) if updates else None,
            "update_ms_p50": _percentile(timings, 50), "update_ms_p95": _percentile(timings, 95),
            "update_ms_mean": _mean(timings), **_failures(records)}


def _failures(records: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Failed updates in all and by cause, most frequent first (``None`` where no record counts them).

    Example:
        >>> _failures([{"failed_updates": {"BadRequestError": 2}}, {"failed_updates": {"ValidationError": 3}}])
        {'failed_updates': 5, 'failed_by_cause': {'ValidationError': 3, 'BadRequestError': 2}}
        >>> _failures([{}])
        {'failed_updates': None, 'failed_by_cause': None}
    """
    counted = [r["failed_updates"] for r in records if isinstance(r.get("failed_updates"), dict)]
    if not counted:
        return {"failed_updates": None, "failed_by_cause": None}
    causes: Counter[str] = Counter()
    for by_cause in counted:
        causes.update({str(cause): int(n) for cause, n in by_cause.items()})
    return {"failed_updates": sum(causes.values()), "failed_by_cause": dict(causes.most_common())}


def format_failures(total: int | None, by_cause: dict[str, int] | None) -> str:
    """The ``failed`` cell: ``-`` where not counted, else the total and its causes.

    Example:
        >>> format_failures(3, {"BadRequestError": 2, "ValidationError": 1})
        '3 (BadRequestError 2, ValidationError 1)'
        >>> format_failures(0, {}), format_failures(None, None)
        ('0', '-')
    """
    if total is None:
        return "-"
    causes = ", ".join(f"{cause} {n}" for cause, n in (by_cause or {}).items())
    return f"{total} ({causes})" if causes else str(total)


def _mean(values: Iterable[float]) -> float | None:
    values = list(values)
    return round(statistics.fmean(values), 4) if values else None


def _percentile(values: Sequence[float], q: float) -> float | None:
    """The ``q``-th percentile (linear interpolation, as ``numpy.percentile``); ``None`` for no values.

    Example:
        >>> _percentile([1.0, 2.0, 3.0, 4.0], 50), _percentile([], 95)
        (2.5, None)
    """
    return round(float(np.percentile(values, q)), 4) if len(values) else None


# -- tables and exports ---------------------------------------------------------------------------


def format_bench_table(rows: Sequence[dict[str, Any]], by: str = "all") -> str:
    """The summary rows as markdown: memory x question kind, percentages as integers, then the legend.

    Args:
        rows: Summary rows (:func:`summarize`; records are summarised first).
        by: ``"all"``: every backend together; ``"backend"``: one table per backend (then all together).

    Example:
        >>> row = {"memory": "m", "backend": "all", "question_kind": "location", "budget": 256,
        ...        "answer_recall": 0.5, "first_mention": None, "structural_em": None, "questions": 4,
        ...        "build_tokens_per_step": 0.0, "update_ms_p50": 1.25, "update_ms_p95": 2.5,
        ...        "context_ms_p50": 0.5, "context_ms_p95": 0.75, "context_tokens": 200.0, "trajectories": ["t"],
        ...        "failed_updates": 1, "failed_by_cause": {"BadRequestError": 1}}
        >>> print(format_bench_table([row]).splitlines()[2])
        | m | location | 4 | 50 | - | 0 | 1.25/2.50 | 0.50/0.75 | 200 | 1 (BadRequestError 1) |
    """
    if by not in ("all", "backend"):
        raise ValueError(f"unknown grouping {by!r}; choose from ['all', 'backend']")
    if any(is_record(r) for r in rows):
        rows = summarize(rows)
    backends = list(dict.fromkeys(r["backend"] for r in rows)) if by == "backend" else ["all"]
    if len(backends) == 2:  # one backend: "all" would repeat it
        backends = backends[:1]
    parts = []
    for backend in backends:
        chosen = [r for r in rows if r["backend"] == backend]
        if not chosen:
            continue
        if by == "backend":
            names = sorted({t for r in chosen for t in r.get("trajectories") or ()})
            parts.append(f"backend {backend}: {', '.join(names)}")
        parts.append(_table(chosen))
    return "\n\n".join([*parts, LEGEND])


def format_backend_matrix(rows: Sequence[dict[str, Any]], budget: int | None = None) -> str:
    """Memory x question kind, one column per backend (then all): ``R/FM`` percentages at one budget
    (default 1,024 tokens where measured, else the largest), ``n`` questions beside each; then a legend.

    Example:
        >>> rows = [{"memory": "m", "backend": b, "question_kind": "location", "budget": 1024, "answer_recall": r,
        ...          "first_mention": 0.5, "questions": n} for b, r, n in (("twx", 1.0, 4), ("nethack", 0.5, 4),
        ...                                                                ("all", 0.75, 8))]
        >>> print(format_backend_matrix(rows).splitlines()[2])
        | m | location | 100/50 (4) | 50/50 (4) | 75/50 (8) |
    """
    if any(is_record(r) for r in rows):
        rows = summarize(rows)
    budgets = sorted({r["budget"] for r in rows})
    chosen = budget if budget is not None else (1024 if 1024 in budgets else max(budgets, default=0))
    rows = [r for r in rows if r["budget"] == chosen]
    backends = list(dict.fromkeys(r["backend"] for r in rows))
    if len(backends) == 2:  # one backend: "all" would repeat it
        backends, rows = backends[:1], [r for r in rows if r["backend"] == backends[0]]
    cells: dict[tuple[str, str], dict[str, dict[str, Any]]] = defaultdict(dict)
    for row in rows:
        cells[(row["memory"], row["question_kind"])][row["backend"]] = row
    memories = list(dict.fromkeys(memory for memory, _ in cells))
    kinds = list(dict.fromkeys(kind for row in rows if row["backend"] == "all" for kind in [row["question_kind"]]))
    order = {kind: i for i, kind in enumerate(kinds)}
    lines = ["| memory | kind | " + " | ".join(backends) + " |", "|" + "---|" * (len(backends) + 2)]
    for memory, kind in sorted(cells, key=lambda key: (memories.index(key[0]), order.get(key[1], len(order)))):
        by_backend = cells[(memory, kind)]
        shown = [f"{_percent(r['answer_recall'])}/{_percent(r.get('first_mention'))} ({r['questions']})"
                 if (r := by_backend.get(b)) else "-" for b in backends]
        lines.append("| " + " | ".join([memory, kind, *shown]) + " |")
    legend = (f"Cells: R/FM (n) at {chosen} tokens: answer recall and first-mention accuracy in percent, "
              "n questions; -: no question of that kind on that backend.")
    return "\n".join(lines) + "\n\n" + legend


def _table(rows: Sequence[dict[str, Any]]) -> str:
    budgets = sorted({r["budget"] for r in rows})
    mentions = any(r.get("first_mention") is not None for r in rows)
    cells: dict[tuple[str, str], dict[int, dict[str, Any]]] = defaultdict(dict)
    for row in rows:
        cells[(row["memory"], row["question_kind"])][row["budget"]] = row
    header = ["memory", "kind", "n", *[f"R@{b}" for b in budgets], *([f"FM@{b}" for b in budgets] if mentions else []),
              "struct EM", "tok/step", "update ms", "context ms", "ctx tok", "failed"]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for (memory, kind), by_budget in cells.items():
        first, last = by_budget[min(by_budget)], by_budget[max(by_budget)]
        recall = [_percent(by_budget.get(b, {}).get("answer_recall")) for b in budgets]
        mention = [_percent(by_budget.get(b, {}).get("first_mention")) for b in budgets] if mentions else []
        tokens = "/".join(_number(by_budget.get(b, {}).get("context_tokens"), "{:.0f}") for b in budgets)
        lines.append("| " + " | ".join([
            memory, kind, str(first["questions"]), *recall, *mention, _percent(first["structural_em"]),
            _number(first["build_tokens_per_step"], "{:.0f}"), _pair(first["update_ms_p50"], first["update_ms_p95"]),
            _pair(last["context_ms_p50"], last["context_ms_p95"]), tokens,
            format_failures(first.get("failed_updates"), first.get("failed_by_cause"))]) + " |")
    return "\n".join(lines)


def _percent(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.0f}"


def _number(value: float | None, form: str) -> str:
    return "-" if value is None else form.format(value)


def _pair(p50: float | None, p95: float | None) -> str:
    """``p50/p95`` in milliseconds: two decimals under 10 ms, none above."""
    if p50 is None or p95 is None:
        return "-"
    return "/".join(f"{v:.2f}" if v < 10 else f"{v:.0f}" for v in (p50, p95))


def to_csv(rows: Sequence[dict[str, Any]]) -> str:
    """The summary rows as CSV (:data:`CSV_COLUMNS`; ``trajectories`` joined by ``;``, ``config`` as JSON).

    Example:
        >>> row = {"memory": "m", "backend": "all", "question_kind": "all", "budget": 256, "answer_recall": 0.5,
        ...        "trajectories": ["a", "b"], "config": {"per_kind": 2}}
        >>> print(to_csv([row]).splitlines()[1])
        m,all,all,256,,0.5,,,,,,,,,,,,,,a;b,,"{""per_kind"": 2}"
    """
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for row in rows:
        values = {**row, "trajectories": ";".join(row.get("trajectories") or ()),
              "failed_by_cause": json.dumps(row["failed_by_cause"]) if row.get("failed_by_cause") else None,
                  "config": json.dumps(row.get("config"), sort_keys=True) if row.get("config") else None}
        writer.writerow(["" if values.get(c) is None else values[c] for c in CSV_COLUMNS])
    return buffer.getvalue()


def to_json(rows: Sequence[dict[str, Any]]) -> str:
    """The summary rows as one JSON array (one object per row)."""
    return json.dumps(list(rows), indent=1, sort_keys=True)


__all__ = ["BACKENDS", "CSV_COLUMNS", "LEGEND", "ROW_KIND", "format_backend_matrix", "format_bench_table",
           "format_failures", "is_record", "summarize", "to_csv", "to_json"]
