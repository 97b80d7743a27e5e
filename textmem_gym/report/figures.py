"""The report's figures, drawn with matplotlib and returned as inline SVG or PNG data.

Curves over steps come from trajectories (:mod:`textmem_gym.trajectories`): a value per step of
each episode, averaged over the episodes of one (env id, policy); an episode that ended early
keeps its last value, so a finished episode still counts in the mean.

Example:
    >>> step_means([[0.0, 0.5], [0.0, 0.0, 1.0]])
    [0.0, 0.25, 0.75]
"""

from __future__ import annotations

import base64
import io
import json
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from textmem_gym.trajectories import Trajectory

#: Grouping of trajectories for curves: (env id, policy) -> trajectories.
Groups = dict[tuple[str, str], list[Trajectory]]


def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    return plt


def step_means(series: Sequence[Sequence[float]]) -> list[float]:
    """Mean per step over episodes of different lengths (a short episode keeps its last value)."""
    length = max((len(s) for s in series if s), default=0)
    padded = [list(s) + [s[-1]] * (length - len(s)) for s in series if s]
    return [sum(column) / len(column) for column in zip(*padded)] if padded else []


def _svg(figure: Any) -> str:
    buffer = io.StringIO()
    figure.savefig(buffer, format="svg", bbox_inches="tight")
    _pyplot().close(figure)
    text = buffer.getvalue()
    return text[text.index("<svg"):]  # drop the XML prolog and doctype: the SVG sits inside HTML


def curves_svg(groups: Groups, value: Callable[[dict[str, Any]], float | None], *, ylabel: str,
               title: str) -> str | None:
    """One panel per env id, one line per policy: ``value(record)`` per step, averaged over episodes.

    Returns:
        The SVG markup, or ``None`` when no trajectory has the value.
    """
    panels: dict[str, dict[str, list[float]]] = {}
    for (env_id, policy), trajectories in sorted(groups.items()):
        series = [[float(v) for v in (value(r) for r in t.records) if v is not None] for t in trajectories]
        means = step_means(series)
        if means:
            panels.setdefault(env_id, {})[policy] = means
    if not panels:
        return None
    plt = _pyplot()
    figure, axes = plt.subplots(1, len(panels), figsize=(4.6 * len(panels), 3.4), squeeze=False)
    for ax, (env_id, lines) in zip(axes[0], panels.items()):
        for policy, means in lines.items():
            ax.plot(range(len(means)), means, label=policy, linewidth=1.6)
        ax.set_title(env_id, fontsize=9)
        ax.set_xlabel("step")
        ax.grid(alpha=0.3)
    axes[0][0].set_ylabel(ylabel)
    axes[0][-1].legend(fontsize=8, loc="best")
    figure.suptitle(title, fontsize=11)
    return _svg(figure)


def memory_graph_png(export: dict[str, Any]) -> str | None:
    """The memory graph at the end of an episode (its JSON export in the trajectory), drawn with
    :func:`textmem_gym.memory.export.draw_memory`, as base64 PNG data; ``None`` when empty."""
    from textmem_gym.memory.arigraph.memory import AriGraphMemory
    from textmem_gym.memory.export import draw_memory

    if not export.get("triples"):
        return None
    with tempfile.TemporaryDirectory() as folder:
        saved = Path(folder) / "memory.json"
        saved.write_text(json.dumps(export), encoding="utf-8")
        memory = AriGraphMemory()
        memory.load(saved)
        picture = draw_memory(memory, Path(folder) / "memory.png", size=9.0)
        return base64.b64encode(picture.read_bytes()).decode("ascii")
