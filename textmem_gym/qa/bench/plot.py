"""The memory-bench figures: answer recall against the token budget (:func:`plot_recall`: one line per memory,
one panel per backend) and accuracy against cost (:func:`plot_cost`: one point per memory).

Drawn with matplotlib (the ``plot`` extra: ``pip install 'textmem-gym[plot]'``) from the summary rows
of :func:`~textmem_gym.qa.bench.summary.summarize` (every question of a memory: ``question_kind ==
"all"``); the first panel of :func:`plot_recall` is every backend together.

Example:
    >>> import tempfile, pathlib
    >>> rows = [{"memory": m, "backend": b, "question_kind": "all", "budget": budget, "answer_recall": r}
    ...         for m, r in (("bm25", 0.5), ("stma", 0.4)) for b in ("all", "twx") for budget in (256, 1024)]
    >>> path = plot_recall(rows, pathlib.Path(tempfile.mkdtemp()) / "recall.png")
    >>> path.stat().st_size > 0
    True
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from textmem_gym.qa.bench.summary import is_record, summarize


def _pyplot() -> Any:
    """matplotlib's pyplot on the Agg backend; a one-line ``ValueError`` naming the extra when it is missing."""
    try:
        import matplotlib

        matplotlib.use("Agg", force=False)
        import matplotlib.pyplot as plt
    except ImportError:
        raise ValueError("--plot needs matplotlib: pip install 'textmem-gym[plot]'") from None
    return plt


#: The cost axes of :func:`plot_cost`: row key -> axis label.
COST_AXES: dict[str, str] = {"build_tokens_per_step": "build tokens per step",
                             "context_ms_p95": "context (query) latency p95, ms"}


def plot_cost(rows: Sequence[dict[str, Any]], path: str | Path, *, budget: int = 1024, title: str = "",
              dpi: int = 80) -> Path:
    """Accuracy against cost, as the Mem0 and Zep reports draw it: first-mention accuracy at ``budget`` tokens
    against build tokens per step and against p95 query latency, one point per memory (every backend and
    question kind together); a memory with no question answered is left out. Log axes; 0 build tokens (rules)
    is drawn at 1.

    Example:
        >>> import tempfile, pathlib
        >>> rows = [{"memory": m, "backend": "all", "question_kind": "all", "budget": 1024, "first_mention": fm,
        ...          "build_tokens_per_step": tok, "context_ms_p95": ms} for m, fm, tok, ms in
        ...         (("arigraph", 0.5, 1300.0, 1.0), ("graphiti", 0.3, 5000.0, 900.0))]
        >>> plot_cost(rows, pathlib.Path(tempfile.mkdtemp()) / "cost.png").stat().st_size > 0
        True
    """
    plt = _pyplot()
    if any(is_record(r) for r in rows):
        rows = summarize(rows)
    rows = [r for r in rows if r["backend"] == "all" and r["question_kind"] == "all" and r["budget"] == budget
            and r.get("first_mention") is not None]
    if not rows:
        raise ValueError(f"no memory-bench summary row with first-mention accuracy at {budget} tokens to plot")
    figure, axes = plt.subplots(1, len(COST_AXES), figsize=(4.2 * len(COST_AXES), 3.4), sharey=True)
    for panel, (key, label) in zip(axes, COST_AXES.items()):
        for index, row in enumerate(rows):  # labels alternate above and below: close points stay readable
            x, y = max(float(row.get(key) or 0.0), 1.0), 100 * float(row["first_mention"])
            panel.scatter([x], [y], s=30)
            panel.annotate(str(row["memory"]), (x, y), textcoords="offset points", xytext=(4, 4 - 14 * (index % 2)),
                           fontsize=8)
        panel.set_xscale("log")
        panel.set_xlabel(label + " (log)", fontsize=8)
        panel.set_ylim(0, 105)
        panel.grid(alpha=0.3)
        panel.tick_params(labelsize=7)
    axes[0].set_ylabel(f"first-mention accuracy @ {budget} tokens, %", fontsize=8)
    if title:
        figure.suptitle(title, fontsize=9)
    figure.tight_layout()
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(target, dpi=dpi)
    plt.close(figure)
    return target


def plot_recall(rows: Sequence[dict[str, Any]], path: str | Path, *, dpi: int = 80) -> Path:
    """Writes the figure (PNG, or any format matplotlib infers from the suffix) and returns its path.

    Raises:
        ValueError: No summary row to draw, or matplotlib is not installed (the message says how to get it).
    """
    plt = _pyplot()
    if any(is_record(r) for r in rows):
        rows = summarize(rows)
    rows = [r for r in rows if r["question_kind"] == "all" and r.get("answer_recall") is not None]
    if not rows:
        raise ValueError("no memory-bench summary row to plot")
    backends = ["all", *[b for b in dict.fromkeys(r["backend"] for r in rows) if b != "all"]]
    memories = list(dict.fromkeys(r["memory"] for r in rows))
    columns = min(3, len(backends))
    lines = -(-len(backends) // columns)
    figure, axes = plt.subplots(lines, columns, figsize=(3.2 * columns, 2.6 * lines), sharex=True, sharey=True,
                                squeeze=False)
    for panel, backend in zip(axes.flat, backends):
        for memory in memories:
            points = sorted((r["budget"], 100 * r["answer_recall"]) for r in rows
                            if r["backend"] == backend and r["memory"] == memory)
            if points:
                panel.plot(*zip(*points), marker="o", markersize=3, linewidth=1.2, label=memory)
        panel.set_title("all backends" if backend == "all" else backend, fontsize=9)
        panel.set_xscale("log", base=2)
        panel.set_ylim(0, 100)
        panel.grid(alpha=0.3)
        panel.tick_params(labelsize=7)
    for panel in axes.flat[len(backends):]:
        panel.axis("off")
    for panel in axes[-1]:
        panel.set_xlabel("budget (tokens)", fontsize=8)
    for panel in axes[:, 0]:
        panel.set_ylabel("answer recall %", fontsize=8)
    handles, labels = axes.flat[0].get_legend_handles_labels()
    figure.legend(handles, labels, loc="lower center", ncol=min(len(memories), 7), fontsize=7, frameon=False)
    figure.tight_layout(rect=(0, 0.06, 1, 1))
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(target, dpi=dpi)
    plt.close(figure)
    return target


__all__ = ["COST_AXES", "plot_cost", "plot_recall"]
