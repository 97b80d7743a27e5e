"""Episode results: an append-only, resumable JSONL file and summary tables.

Each line is one finished episode. Writing is atomic per line (locked, flushed, fsynced; the
lock file ``<file>.lock`` exists only while a write holds it, see :mod:`textmem_gym.locking`); a
line left incomplete by a crash is cut off before the next append, so a re-run neither
duplicates nor loses episodes. Reading skips the lines that are not results rows (not JSON, or
JSON without a row's fields); :meth:`ResultsFile.scan` also says which, for a one-line report.

Example:
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "r.jsonl"
    >>> store = ResultsFile(path)
    >>> store.append({"env_id": "E", "policy": "p", "seed": 0, "episode": 0, "game_seed": None,
    ...               "normalized_score": 0.5, "won": False, "steps": 3})
    >>> store.done_keys() == {("E", "p", 0, 0, None, None)}
    True
"""

from __future__ import annotations

import json
import os
import statistics
from collections import defaultdict
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from textmem_gym.locking import TidyLock

#: Headline numbers some backends put at the top level of their rows (from ``info["metrics"]``)
#: -> their summary column heading: :func:`summarize` adds ``<name>_mean`` / ``<name>_std`` when
#: some row of a group has them, :func:`format_table` a column when some summary row does.
METRIC_COLUMNS: dict[str, str] = {"max_dungeon_level": "deepest level", "balrog_progression": "BALROG progression %"}

#: The fields every episode row has (its key, and what :func:`summarize` reads). Rows of another
#: ``kind`` (``"qa"``, ``"probe"``) are checked by the module that writes them.
ROW_FIELDS: tuple[str, ...] = ("env_id", "policy", "seed", "episode", "normalized_score", "won", "steps")

#: env id, policy, seed, episode index, game seed, policy configuration id (see :func:`config_id`).
EpisodeKey = tuple[str, str, int, int, Any, "str | None"]


def config_id(config: dict[str, Any] | None) -> str | None:
    """A short stable id of a policy configuration (``None`` for none or an empty one).

    The hash of the configuration as results rows store it (JSON, sorted keys), so a row read
    back from a file gives the id its policy gave when the evaluation was planned.

    Example:
        >>> config_id({"extractor": "rules", "top_k": 2}) == config_id({"top_k": 2, "extractor": "rules"})
        True
        >>> config_id({}) is None
        True
    """
    if not config:
        return None
    import hashlib

    text = json.dumps(json.loads(json.dumps(config, sort_keys=True, default=str)), sort_keys=True)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


def episode_key(result: dict[str, Any]) -> EpisodeKey:
    """The identity of an episode: env id, policy, seed, episode index, game seed and the id of
    the policy configuration (:func:`config_id` of ``policy_config``), so that two configurations
    of one policy in one results file never stand for each other. Rows without a configuration
    (written before rows carried one, or by a policy that has none) have ``None`` there.

    Example:
        >>> row = {"env_id": "E", "policy": "p", "seed": 0, "episode": 0, "game_seed": None}
        >>> episode_key(row)
        ('E', 'p', 0, 0, None, None)
        >>> episode_key({**row, "policy_config": {"k": 2}}) != episode_key({**row, "policy_config": {"k": 3}})
        True
    """
    return (result["env_id"], result["policy"], result["seed"], result["episode"], result.get("game_seed"),
            config_id(result.get("policy_config")))


def is_episode_row(row: dict[str, Any]) -> bool:
    """Whether a results row is one played episode: it has every :data:`ROW_FIELDS` field and no other
    ``kind`` (QA, probe and memory-bench rows share files with episodes; see :mod:`textmem_gym.report.kinds`).

    Example:
        >>> row = {"env_id": "E", "policy": "p", "seed": 0, "episode": 0, "normalized_score": 1.0, "won": True,
        ...        "steps": 3}
        >>> is_episode_row(row), is_episode_row({**row, "kind": "probe"}), is_episode_row({"kind": "qa"})
        (True, False, False)
    """
    return row.get("kind") in (None, "episode") and all(name in row for name in ROW_FIELDS)


def is_row(value: Any) -> bool:
    """Whether a parsed line is a results row: an object with every :data:`ROW_FIELDS` field, or
    one naming its ``kind`` (a QA or probe row).

    Example:
        >>> is_row({"kind": "qa", "dataset": "musique"}), is_row({"env_id": "E"}), is_row([1, 2])
        (True, False, False)
    """
    if not isinstance(value, dict):
        return False
    return isinstance(value.get("kind"), str) or all(name in value for name in ROW_FIELDS)


@dataclass
class Scan:
    """What a results file holds: its rows, and the numbers of the lines that are not rows.

    Attributes:
        rows: The results rows, in file order.
        not_json: Line numbers (from 1) that are not JSON, or a last line without its newline.
        not_rows: Line numbers of JSON values that are not results rows (see :func:`is_row`).
    """

    rows: list[dict[str, Any]] = field(default_factory=list)
    not_json: list[int] = field(default_factory=list)
    not_rows: list[int] = field(default_factory=list)

    def problems(self) -> str:
        """The lines that are not rows, in a few words (``""`` when there are none).

        Example:
            >>> Scan(not_json=[2, 5], not_rows=[7]).problems()
            '3 malformed lines (2 not JSON: lines 2, 5; 1 JSON but not a results row: line 7)'
        """
        parts = [f"{len(lines)} {what}: line{'s' if len(lines) > 1 else ''} {_lines(lines)}"
                 for what, lines in (("not JSON", self.not_json), ("JSON but not a results row", self.not_rows))
                 if lines]
        skipped = len(self.not_json) + len(self.not_rows)
        return f"{skipped} malformed line{'s' if skipped > 1 else ''} ({'; '.join(parts)})" if parts else ""


def _lines(numbers: list[int], shown: int = 5) -> str:
    return ", ".join(map(str, numbers[:shown])) + (", ..." if len(numbers) > shown else "")


class ResultsFile:
    """A JSONL file of episode results, safe to append from several processes.

    Args:
        path: File to read and append to (created with its folder on first append).
    """

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self._lock = TidyLock(self.path)  # <path>.lock only while a write holds it

    def read(self) -> list[dict[str, Any]]:
        """All results rows (lines that are not rows, and an incomplete last line, are skipped)."""
        return self.scan().rows

    def scan(self) -> Scan:
        """The rows of the file and the lines that are not rows (see :class:`Scan`)."""
        scan = Scan()
        if not self.path.exists():
            return scan
        with self.path.open(encoding="utf-8", errors="replace") as handle:
            for number, line in enumerate(handle, start=1):
                if not line.strip():
                    continue
                try:
                    value = json.loads(line) if line.endswith("\n") else None
                except json.JSONDecodeError:
                    value = None
                if value is None:
                    scan.not_json.append(number)
                elif is_row(value):
                    scan.rows.append(value)
                else:
                    scan.not_rows.append(number)
        return scan

    def done_keys(self) -> set[EpisodeKey]:
        """Keys of the episodes already recorded (rows of other kinds are not episodes)."""
        return {episode_key(r) for r in self.read() if is_episode_row(r)}

    def by_key(self) -> dict[EpisodeKey, dict[str, Any]]:
        """The recorded results by episode key (the first line of a key wins, should one appear twice)."""
        recorded: dict[EpisodeKey, dict[str, Any]] = {}
        for result in self.read():
            if is_episode_row(result):  # rows of other kinds are not episodes
                recorded.setdefault(episode_key(result), result)
        return recorded

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

    def drop(self, keys: Collection[Any], key: Callable[[dict[str, Any]], Any] | None = None) -> int:
        """Removes the rows of these keys (every other line stays as it is); returns how many.

        ``key`` gives a row's key (default: :func:`episode_key` of episode rows; ``memory-bench`` passes
        its record key, ``None`` for rows that are not its own). The file is rewritten whole and
        replaced at once, under the same lock as :meth:`append`.
        """
        if not self.path.exists() or not keys:
            return 0
        with self._lock:
            kept, dropped = [], 0
            with self.path.open(encoding="utf-8", errors="surrogateescape") as handle:
                for line in handle:
                    try:
                        value = json.loads(line)
                    except json.JSONDecodeError:
                        value = None
                    if key is not None:
                        matched = is_row(value) and key(value) in keys
                    else:
                        matched = isinstance(value, dict) and is_episode_row(value) and episode_key(value) in keys
                    if matched:
                        dropped += 1
                    else:
                        kept.append(line)
            if dropped:
                scratch = self.path.with_name(self.path.name + ".rewrite")
                scratch.write_text("".join(kept), encoding="utf-8", errors="surrogateescape")
                os.replace(scratch, self.path)
        return dropped

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


def score_text(value: Any) -> str:
    """A score as people write it: ``1.0`` -> ``'1'``, ``0.5`` -> ``'0.5'``; ``None`` -> ``'?'``.

    Example:
        >>> score_text(1.0), score_text(0.5), score_text(3), score_text(None)
        ('1', '0.5', '3', '?')
    """
    return f"{value:g}" if isinstance(value, int | float) else "?" if value is None else str(value)


def config_label(config: dict[str, Any] | None) -> str:
    """A results row's policy configuration as a short stable text (``k=v,...``, sorted).

    Example:
        >>> config_label({"extractor": "rules", "top_k": 2})
        'extractor=rules,top_k=2'
    """
    return ",".join(f"{k}={v}" for k, v in sorted((config or {}).items()))


def summarize(results: Iterable[dict[str, Any]], best_of: tuple[int, int] | None = None) -> list[dict[str, Any]]:
    """Aggregates results per (env id, policy, policy configuration): mean/std normalized score,
    success, steps, tokens, the share of env actions the model chose (``model_actions_mean``), the
    fallbacks by cause, and the mean/std of each backend metric of :data:`METRIC_COLUMNS` the rows
    carry (NetHack: ``max_dungeon_level_mean`` / ``max_dungeon_level_std``, the deepest level).

    Rows of another ``kind`` (QA, probes, memory-bench) are left out: their summaries are their own
    (:mod:`textmem_gym.report.kinds`). Rows with different ``policy_config`` are different groups; a
    group's ``policy`` then shows the settings that tell it apart (``ariadne[extractor=rules]``).
    Episodes that ended with an ``error`` (strict mode: the first fallback) are left out of every mean and counted in
    ``errors`` with their causes (``error_causes``).

    Args:
        results: Episode results.
        best_of: ``(k, n)``: also aggregate as the papers do with several attempts per instance
            (AriGraph: the mean of the best 3 of 5): per instance (game seed), the ``k`` best
            normalized scores of its attempts (all of them when it has ``k`` or fewer), then
            their mean and std over all instances (``score_best_mean``, ``score_best_std``).

    Returns:
        One row per group, sorted by env id then policy. Results that carry ``winnable``
        (see :func:`textmem_gym.envs.instances.instance_info`; ``reproduce`` writes it) add
        ``instances`` and ``unwinnable_instances`` (distinct game seeds whose walkthrough exceeds
        the step limit); ``winnable: None`` (a game without a walkthrough) adds nothing.

    Example:
        >>> rows = summarize([{"env_id": "E", "policy": "p", "normalized_score": s, "won": s == 1,
        ...                    "steps": 9} for s in (0.0, 1.0, 0.5, 0.25, 1.0)], best_of=(3, 5))
        >>> rows[0]["score_mean"], rows[0]["score_best_mean"], rows[0]["best_of"]
        (0.55, 0.8333333333333334, '3 of 5')
    """
    if best_of is not None and not (isinstance(best_of, tuple) and len(best_of) == 2 and 1 <= best_of[0] <= best_of[1]):
        raise ValueError(f"best_of must be (k, n) with 1 <= k <= n, got {best_of!r}")
    groups: dict[tuple[str, str, str], list[dict[str, Any]]] = defaultdict(list)
    for result in results:
        if result.get("kind") in (None, "episode"):
            groups[(result["env_id"], result["policy"], config_label(result.get("policy_config")))].append(result)
    rows = []
    for (env_id, policy, label), everything in sorted(groups.items()):
        items = [r for r in everything if not r.get("error")] or []
        failed = [r for r in everything if r.get("error")]
        scores = [float(r["normalized_score"]) for r in items]
        row = {
            "env_id": env_id, "policy": _shown_policy(policy, label, groups), "episodes": len(everything),
            "score_mean": statistics.fmean(scores) if scores else float("nan"),
            "score_std": statistics.pstdev(scores) if len(scores) > 1 else 0.0,
            "success_rate": statistics.fmean(float(bool(r["won"])) for r in items) if items else float("nan"),
            "steps_mean": statistics.fmean(float(r["steps"]) for r in items) if items else float("nan"),
        }
        for metric in METRIC_COLUMNS:
            values = [float(r[metric]) for r in items if r.get(metric) is not None]
            if values:
                row[metric + "_mean"] = statistics.fmean(values)
                row[metric + "_std"] = statistics.pstdev(values) if len(values) > 1 else 0.0
        if label:
            row["policy_config"] = label
        if failed:
            row["errors"] = len(failed)
            row["error_causes"] = _count(str(r["error"].get("cause", "?")) for r in failed)
        shares = [r.get("policy_stats", {}).get("model_actions") for r in items]
        if any(v is not None for v in shares):
            row["model_actions_mean"] = statistics.fmean(float(v) for v in shares if v is not None)
        causes: dict[str, int] = {}
        for r in everything:
            for cause, n in (r.get("policy_stats", {}).get("fallbacks") or {}).items():
                causes[cause] = causes.get(cause, 0) + int(n)
        if any(causes.values()):
            row["fallbacks"] = {k: v for k, v in sorted(causes.items()) if v}
        ways: dict[str, int] = {}
        for r in everything:
            for way, n in (r.get("policy_stats", {}).get("structured_output") or {}).items():
                ways[way] = ways.get(way, 0) + int(n)
        if ways:
            row["structured_output"] = ways
        for stat in ("prompt_tokens", "completion_tokens", "cost_usd"):
            values = [r.get("policy_stats", {}).get(stat) for r in items]
            if any(v is not None for v in values):
                row[stat + "_mean"] = statistics.fmean(float(v or 0) for v in values)
        if best_of is not None:
            row.update(_best_of(items, *best_of))
        if any(r.get("winnable") is not None for r in items):  # None: no walkthrough to tell (NetHack)
            instances = {r.get("game_seed"): r.get("winnable") for r in items}
            row["instances"] = len(instances)
            row["unwinnable_instances"] = sum(1 for w in instances.values() if w is False)
        rows.append(row)
    return rows


def _count(values: Iterable[str]) -> dict[str, int]:
    counted: dict[str, int] = {}
    for value in values:
        counted[value] = counted.get(value, 0) + 1
    return counted


def _shown_policy(policy: str, label: str, groups: dict[tuple[str, str, str], Any]) -> str:
    """``policy``, plus the settings that differ from its other configurations in ``groups``."""
    others = {lab for (_, name, lab) in groups if name == policy and lab != label}
    if not others:
        return policy
    mine = dict(item.split("=", 1) for item in label.split(",") if "=" in item) if label else {}
    differing = {k: v for k, v in mine.items()
                 if any(dict(i.split("=", 1) for i in other.split(",") if "=" in i).get(k) != v for other in others)}
    return f"{policy}[{','.join(f'{k}={v}' for k, v in differing.items()) or label or 'default'}]"


def _best_of(items: list[dict[str, Any]], k: int, n: int) -> dict[str, Any]:
    """The ``k`` best scores of each instance's attempts, pooled: their mean and std."""
    attempts: dict[Any, list[float]] = defaultdict(list)
    for result in (r for r in items if not r.get("error")):
        attempts[result.get("game_seed")].append(float(result["normalized_score"]))
    best = [score for scores in attempts.values() for score in sorted(scores, reverse=True)[:k]]
    if not best:
        return {"best_of": f"{k} of {n}", "score_best_mean": float("nan"), "score_best_std": 0.0}
    return {"best_of": f"{k} of {n}", "score_best_mean": statistics.fmean(best),
            "score_best_std": statistics.pstdev(best) if len(best) > 1 else 0.0}


def _unwinnable(row: dict[str, Any]) -> str:
    """The ``unwinnable`` cell: ``"1 of 2 ✗"`` (instances whose walkthrough exceeds the step limit),
    ``"0 of 2 ✓"``, or ``"-"`` when the rows carry no ``winnable``."""
    if "instances" not in row:
        return "-"
    unwinnable = row["unwinnable_instances"]
    return f"{unwinnable} of {row['instances']} " + ("✗" if unwinnable else "✓")


def format_table(rows: list[dict[str, Any]]) -> str:
    """Renders summary rows as a Markdown table.

    LLM policies add ``model actions`` (mean share of env actions the model chose as asked) and
    ``fallbacks`` (by cause, summed over episodes); strict runs add ``errors`` (episodes ended at
    their first fallback, by cause; left out of the means). Rows that carry ``winnable`` (as
    ``reproduce`` writes them) add ``unwinnable``: how many of the instances played cannot be won
    within the step limit (``1 of 2 ✗``). Rows with a backend metric of :data:`METRIC_COLUMNS`
    add its column (NetHack: ``deepest level``, mean ± std; ``-`` for rows without it).

    Example:
        >>> rows = summarize([{"env_id": "TextMem/NetHack-RoomObs-v0", "policy": "p", "normalized_score": 0.0,
        ...                    "won": False, "steps": 20, "max_dungeon_level": level} for level in (2, 3)])
        >>> print(format_table(rows))
        | env | policy | episodes | normalized score | success | steps | deepest level |
        |---|---|---|---|---|---|---|
        | TextMem/NetHack-RoomObs-v0 | p | 2 | 0.000 ± 0.000 | 0.00 | 20.0 | 2.50 ± 0.50 |
    """
    header = ["env", "policy", "episodes", "normalized score", "success", "steps"]
    metrics = [m for m in METRIC_COLUMNS if any(m + "_mean" in r for r in rows)]
    header += [METRIC_COLUMNS[m] for m in metrics]
    best = next((r["best_of"] for r in rows if "best_of" in r), None)
    header += [f"best {best}"] if best else []
    header += ["unwinnable"] if any("unwinnable_instances" in r for r in rows) else []
    header += ["model actions"] if any("model_actions_mean" in r for r in rows) else []
    header += ["fallbacks"] if any("fallbacks" in r for r in rows) else []
    header += ["errors"] if any("errors" in r for r in rows) else []
    extra = [k for k in ("prompt_tokens_mean", "completion_tokens_mean", "cost_usd_mean")
             if any(k in r for r in rows)]
    lines = ["| " + " | ".join(header + [k.removesuffix("_mean") for k in extra]) + " |",
             "|" + "---|" * (len(header) + len(extra))]
    for r in rows:
        cells = [r["env_id"], r["policy"], str(r["episodes"]),
                 f"{r['score_mean']:.3f} ± {r['score_std']:.3f}", f"{r['success_rate']:.2f}",
                 f"{r['steps_mean']:.1f}"]
        cells += [f"{r[m + '_mean']:.2f} ± {r[m + '_std']:.2f}" if m + "_mean" in r else "-" for m in metrics]
        if best:
            cells.append(f"{r['score_best_mean']:.3f} ± {r['score_best_std']:.3f}" if "score_best_mean" in r else "-")
        if "unwinnable" in header:
            cells.append(_unwinnable(r))
        if "model actions" in header:
            cells.append(f"{r['model_actions_mean']:.2f}" if "model_actions_mean" in r else "-")
        if "fallbacks" in header:
            cells.append(", ".join(f"{k} {v}" for k, v in r.get("fallbacks", {}).items()) or "0")
        if "errors" in header:
            causes = ", ".join(f"{k} {v}" for k, v in r.get("error_causes", {}).items())
            cells.append(f"{r.get('errors', 0)}" + (f" ({causes})" if causes else ""))
        cells += [f"{r.get(k, 0):.4g}" for k in extra]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)
