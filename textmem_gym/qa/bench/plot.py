"""The memory-bench figure: answer recall against the token budget, one line per memory, one panel per backend.

Drawn with matplotlib (the ``plot`` extra: ``pip install 'textmem-gym[plot]'``) from the summary rows
of :func:`~textmem_gym.qa.bench.summary.summarize` (every question of a memory: ``question_kind ==
"all"``); the first panel is every backend together.

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


def plot_recall(rows: Sequence[dict[str, Any]], path: str | Path, *, dpi: int = 80) -> Path:
    """Writes the figure (PNG, or any format matplotlib infers from the suffix) and returns its path.

    Raises:
        ValueError: No summary row to draw, or matplotlib is not installed (the message says how to get it).
    """
    try:
        import matplotlib

        matplotlib.use("Agg", force=False)
        import matplotlib.pyplot as plt
    except ImportError:
        raise ValueError("--plot needs matplotlib: pip install 'textmem-gym[plot]'") from None
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


__all__ = ["plot_recall"]
