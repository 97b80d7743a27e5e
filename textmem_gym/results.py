"""Episode results: an append-only, resumable JSONL file and summary tables.

Each line is one finished episode. Writing is atomic per line (locked, flushed, fsynced); a
line left incomplete by a crash is cut off before the next append, so a re-run neither
duplicates nor loses episodes.

Example:
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "r.jsonl"
    >>> store = ResultsFile(path)
    >>> store.append({"env_id": "E", "policy": "p", "seed": 0, "episode": 0, "game_seed": None,
    ...               "normalized_score": 0.5, "won": False, "steps": 3})
    >>> store.done_keys() == {("E", "p", 0, 0, None)}
    True
"""

from __future__ import annotations

import json
import os
import statistics
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from filelock import FileLock

EpisodeKey = tuple[str, str, int, int, Any]


def episode_key(result: dict[str, Any]) -> EpisodeKey:
    """The identity of an episode: env id, policy, seed, episode index, game seed."""
    return (result["env_id"], result["policy"], result["seed"], result["episode"], result.get("game_seed"))


class ResultsFile:
    """A JSONL file of episode results, safe to append from several processes.

    Args:
        path: File to read and append to (created with its folder on first append).
    """

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self._lock = FileLock(str(self.path) + ".lock")

    def read(self) -> list[dict[str, Any]]:
        """All complete result lines (an incomplete last line is ignored)."""
        if not self.path.exists():
            return []
        results = []
        with self.path.open(encoding="utf-8") as handle:
            for line in handle:
                if line.endswith("\n") and line.strip():
                    try:
                        results.append(json.loads(line))
                    except json.JSONDecodeError:
                        continue
        return results

    def done_keys(self) -> set[EpisodeKey]:
        """Keys of the episodes already recorded."""
        return {episode_key(r) for r in self.read()}

    def append(self, result: dict[str, Any]) -> None:
        """Appends one result as one line, durably."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        line = json.dumps(result, sort_keys=True, default=str) + "\n"
        with self._lock:
            self._cut_incomplete_tail()
            with self.path.open("a", encoding="utf-8") as handle:
                handle.write(line)
                handle.flush()
                os.fsync(handle.fileno())

    def _cut_incomplete_tail(self) -> None:
        if not self.path.exists() or self.path.stat().st_size == 0:
            return
        with self.path.open("rb+") as handle:
            handle.seek(-1, os.SEEK_END)
            if handle.read(1) == b"\n":
                return
            handle.seek(0)
            data = handle.read()
            handle.truncate(data.rfind(b"\n") + 1)


def summarize(results: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Aggregates results per (env id, policy): mean/std normalized score, success, steps, tokens.

    Returns:
        One row per group, sorted by env id then policy.
    """
    groups: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for result in results:
        groups[(result["env_id"], result["policy"])].append(result)
    rows = []
    for (env_id, policy), items in sorted(groups.items()):
        scores = [float(r["normalized_score"]) for r in items]
        row = {
            "env_id": env_id, "policy": policy, "episodes": len(items),
            "score_mean": statistics.fmean(scores),
            "score_std": statistics.pstdev(scores) if len(scores) > 1 else 0.0,
            "success_rate": statistics.fmean(float(bool(r["won"])) for r in items),
            "steps_mean": statistics.fmean(float(r["steps"]) for r in items),
        }
        for stat in ("prompt_tokens", "completion_tokens", "cost_usd"):
            values = [r.get("policy_stats", {}).get(stat) for r in items]
            if any(v is not None for v in values):
                row[stat + "_mean"] = statistics.fmean(float(v or 0) for v in values)
        rows.append(row)
    return rows


def format_table(rows: list[dict[str, Any]]) -> str:
    """Renders summary rows as a Markdown table."""
    header = ["env", "policy", "episodes", "normalized score", "success", "steps"]
    extra = [k for k in ("prompt_tokens_mean", "completion_tokens_mean", "cost_usd_mean")
             if any(k in r for r in rows)]
    lines = ["| " + " | ".join(header + [k.removesuffix("_mean") for k in extra]) + " |",
             "|" + "---|" * (len(header) + len(extra))]
    for r in rows:
        cells = [r["env_id"], r["policy"], str(r["episodes"]),
                 f"{r['score_mean']:.3f} ± {r['score_std']:.3f}", f"{r['success_rate']:.2f}",
                 f"{r['steps_mean']:.1f}"] + [f"{r.get(k, 0):.4g}" for k in extra]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)
