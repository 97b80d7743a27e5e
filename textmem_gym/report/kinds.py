"""Results rows by ``kind``: what ``summary``, ``report`` and the exports do with each kind a file holds.

A results file may hold rows of several kinds: game episodes (``eval``, ``reproduce`` of a game
protocol such as TALES, an RL model through ``rl:PATH``: rows without a ``kind``), multi-hop QA rows
(``"qa"``), memory-probe rows (``"probe"``) and memory-bench records (``"memory-bench"``).
:data:`ROW_KINDS` maps each kind to a :class:`RowKind` (its rows' identity, its summary rows, its text
table, its HTML section); ``summary``, ``report`` and ``summary --format csv|json`` dispatch through it,
so a kind added there is summarized, reported and exported everywhere. A kind nobody registered is
named in one note line, never a crash.

Example:
    >>> rows = [{"env_id": "E", "policy": "p", "seed": 0, "episode": 0, "normalized_score": 1.0, "won": True,
    ...          "steps": 4}, {"kind": "nonsense", "x": 1}]
    >>> print(format_results(rows, "csv").splitlines()[0])
    kind,env_id,policy,episodes,score_mean,score_std,success_rate,steps_mean
    >>> print(format_results(rows).splitlines()[-1])
    note: 1 row of kind 'nonsense' is not summarized (known kinds: episode, qa, probe, memory-bench)
"""

from __future__ import annotations

import csv
import html
import io
import json
import math
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Any

Row = dict[str, Any]

#: The kind of rows that carry none: one played episode (``eval``, game protocols, RL models).
EPISODE = "episode"
#: What ``summary --format`` writes.
FORMATS = ("table", "csv", "json")


@dataclass(frozen=True)
class RowKind:
    """What the tools do with the rows of one kind (every function gets only rows of that kind).

    Attributes:
        title: What the rows are, for notes and headings.
        key: A row's identity: a row met in several files counts once.
        summarize: Rows -> summary rows (flat dicts): what ``--format csv|json`` writes.
        table: Rows -> the text tables ``summary`` and ``report`` print.
        section: Rows -> the HTML section of ``report`` (``None``: its text table, as HTML).
    """

    title: str
    key: Callable[[Row], Hashable]
    summarize: Callable[[list[Row]], list[Row]]
    table: Callable[[list[Row]], str]
    section: Callable[[list[Row]], str] | None = None


def _whole_row(row: Row) -> Hashable:
    """A row's identity when its kind has no key of its own: the row itself (identical lines count once)."""
    return json.dumps(row, sort_keys=True, default=str)


# -- episodes (eval, game protocols such as TALES, RL models) -------------------------------------------


def _episode_key(row: Row) -> Hashable:
    from textmem_gym.results import episode_key

    return episode_key(row)


def _episode_summary(rows: list[Row]) -> list[Row]:
    from textmem_gym.results import summarize

    return summarize(rows)


def _episode_table(rows: list[Row]) -> str:
    from textmem_gym.results import format_table, summarize

    return format_table(summarize(rows))


def _episode_section(rows: list[Row]) -> str:
    from textmem_gym.report.summary import summary_table
    from textmem_gym.results import summarize

    return (f'<section id="summary"><h2>Summary</h2>\n{summary_table(summarize(rows))}\n<p class="note">normalized '
            "score: mean ± std over episodes of score / max score; success: share of episodes won.</p>\n</section>")


# -- multi-hop QA -----------------------------------------------------------------------------------------


def _qa_key(row: Row) -> Hashable:
    from textmem_gym.qa.run import qa_key

    return qa_key(row)


def _qa_summary(rows: list[Row]) -> list[Row]:
    from textmem_gym.qa.run import summarize_qa

    return summarize_qa(rows)


def _qa_table(rows: list[Row]) -> str:
    from textmem_gym.qa.run import format_summary, summarize_qa

    return format_summary(summarize_qa(rows))


def _qa_section(rows: list[Row]) -> str:
    from textmem_gym.report.qa import qa_section

    return qa_section(rows)


# -- memory probes ----------------------------------------------------------------------------------------


def _probe_key(row: Row) -> Hashable:
    from textmem_gym.qa.probes.run import probe_key

    return probe_key(row)


def _probe_summary(rows: list[Row]) -> list[Row]:
    from textmem_gym.qa.probes.run import summarize_probes

    return summarize_probes(rows, ("memory", "answer_mode", "question_kind"))


def _probe_table(rows: list[Row]) -> str:
    from textmem_gym.qa.probes.run import format_probe_tables

    return format_probe_tables(rows)


def _probe_section(rows: list[Row]) -> str:
    from textmem_gym.report.probes import probe_section

    return probe_section(rows)


# -- memory-bench -----------------------------------------------------------------------------------------


def _bench_records(rows: list[Row]) -> list[Row]:
    from textmem_gym.qa.bench.summary import is_record

    return [row for row in rows if is_record(row)]


def _bench_key(row: Row) -> Hashable:
    from textmem_gym.qa.bench.run import record_key

    return record_key(row) or _whole_row(row)


def _bench_summary(rows: list[Row]) -> list[Row]:
    from textmem_gym.qa.bench.summary import summarize

    return summarize(_bench_records(rows))


def _bench_table(rows: list[Row]) -> str:
    from textmem_gym.qa.bench.summary import format_bench_table

    records = _bench_records(rows)
    older = len(rows) - len(records)
    note = (f"note: {older} memory-bench row{'s' if older > 1 else ''} of an older format (no trajectory record) "
            "not summarized; run memory-bench again to record them") if older else ""
    return "\n\n".join(part for part in (format_bench_table(records) if records else "", note) if part)


#: Kind -> what ``summary``, ``report`` and the exports do with its rows, in the order they are shown.
ROW_KINDS: dict[str, RowKind] = {
    EPISODE: RowKind("episodes", _episode_key, _episode_summary, _episode_table, _episode_section),
    "qa": RowKind("multi-hop QA", _qa_key, _qa_summary, _qa_table, _qa_section),
    "probe": RowKind("memory probes", _probe_key, _probe_summary, _probe_table, _probe_section),
    "memory-bench": RowKind("memory-bench", _bench_key, _bench_summary, _bench_table),
}


def register_row_kind(kind: str, handling: RowKind) -> None:
    """Adds (or replaces) what the tools do with the rows of ``kind``."""
    ROW_KINDS[kind] = handling


def kind_of(row: Row) -> str:
    """A row's kind: its ``kind`` field, :data:`EPISODE` for a row without one.

    Example:
        >>> kind_of({"kind": "qa"}), kind_of({"env_id": "E"})
        ('qa', 'episode')
    """
    kind = row.get("kind")
    return kind if isinstance(kind, str) and kind else EPISODE


def row_key(row: Row) -> Hashable:
    """A row's identity, by its kind (``(kind, key)``: two kinds never collide)."""
    kind = kind_of(row)
    handling = ROW_KINDS.get(kind)
    return kind, handling.key(row) if handling is not None else _whole_row(row)


def split_by_kind(rows: Sequence[Row]) -> dict[str, list[Row]]:
    """The rows of each kind: registered kinds in :data:`ROW_KINDS` order, then the others by first row."""
    groups: dict[str, list[Row]] = {kind: [] for kind in ROW_KINDS}
    for row in rows:
        groups.setdefault(kind_of(row), []).append(row)
    return {kind: items for kind, items in groups.items() if items}


def unknown_kinds_note(groups: dict[str, list[Row]]) -> str:
    """One note line per kind nobody registered (``""`` when there is none)."""
    return "\n".join(f"note: {len(items)} row{'s' if len(items) > 1 else ''} of kind {kind!r} "
                     f"{'are' if len(items) > 1 else 'is'} not summarized (known kinds: {', '.join(ROW_KINDS)})"
                     for kind, items in groups.items() if kind not in ROW_KINDS)


def summary_rows(rows: Sequence[Row]) -> list[Row]:
    """The summary rows of every kind, each with its ``kind`` first (episode summaries: ``"episode"``)."""
    found = []
    for kind, items in split_by_kind(rows).items():
        if kind in ROW_KINDS:
            found += [{"kind": kind, **{k: v for k, v in row.items() if k != "kind"}}
                      for row in ROW_KINDS[kind].summarize(items)]
    return found


def format_results(rows: Sequence[Row], form: str = "table") -> str:
    """What ``summary`` prints for results rows of any kinds.

    Args:
        rows: Results rows (several kinds may mix).
        form: ``"table"`` (each kind's tables; the games table also for no rows at all), ``"csv"`` (every
            kind's summary rows, one header: ``kind`` then every column in order of first use; dicts and
            lists as JSON) or ``"json"`` (an array of the summary rows; NaN as ``null``).

    Raises:
        ValueError: An unknown ``form``.
    """
    if form not in FORMATS:
        raise ValueError(f"unknown format {form!r}; choose from {list(FORMATS)}")
    if form == "csv":
        return to_csv(summary_rows(rows))
    if form == "json":
        return json.dumps([_plain(row) for row in summary_rows(rows)], indent=1, default=str)
    groups = split_by_kind(rows) or {EPISODE: []}
    tables = [ROW_KINDS[kind].table(items) for kind, items in groups.items() if kind in ROW_KINDS]
    return "\n\n".join([*tables, *filter(None, [unknown_kinds_note(groups)])])


def report_sections(rows: Sequence[Row]) -> str:
    """The HTML sections of ``report`` for results rows of any kinds (a kind without a section of its
    own shows its text table as HTML)."""
    groups = split_by_kind(rows)
    parts = []
    for kind, items in groups.items():
        handling = ROW_KINDS.get(kind)
        if handling is None:
            continue
        if handling.section is not None:
            parts.append(handling.section(items))
        else:
            parts.append(f'<section id="{html.escape(kind)}"><h2>{html.escape(handling.title.capitalize())}</h2>\n'
                         f"{text_as_html(handling.table(items))}\n</section>")
    note = unknown_kinds_note(groups)
    if note:
        parts.append(f'<p class="note">{html.escape(note)}</p>')
    return "\n".join(parts)


def text_as_html(text: str) -> str:
    """Markdown tables (``| a | b |`` lines) as HTML tables, every other paragraph as ``<p>``.

    Example:
        >>> print(text_as_html("| a | b |\\n|---|---|\\n| 1 | 2 |\\n\\nR@B: recall"))
        <table><thead><tr><th>a</th><th>b</th></tr></thead><tbody><tr><td>1</td><td>2</td></tr></tbody></table>
        <p class="note">R@B: recall</p>
    """
    parts = []
    for block in (b for b in text.split("\n\n") if b.strip()):
        lines = block.strip().splitlines()
        if all(line.startswith("|") for line in lines) and len(lines) >= 2:
            cells = [[html.escape(c.strip()) for c in line.strip().strip("|").split("|")] for line in lines]
            head = "".join(f"<th>{c}</th>" for c in cells[0])
            body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>" for row in cells[2:])
            parts.append(f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>")
        else:
            parts.append(f'<p class="note">{html.escape(block.strip())}</p>')
    return "\n".join(parts)


def to_csv(rows: Sequence[Row]) -> str:
    """Summary rows as one CSV: the columns in order of first use (``kind`` first), dicts and lists as
    JSON, ``None`` and NaN as empty cells.

    Example:
        >>> print(to_csv([{"kind": "qa", "n": 2, "em": None, "answer_recall": {"256": 50.0}}]), end="")
        kind,n,em,answer_recall
        qa,2,,"{""256"": 50.0}"
    """
    columns = list(dict.fromkeys(key for row in rows for key in row))
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(columns)
    for row in rows:
        writer.writerow([_csv_cell(row.get(column)) for column in columns])
    return buffer.getvalue()


def _csv_cell(value: Any) -> Any:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    if isinstance(value, dict | list | tuple):
        return json.dumps(_plain(value), sort_keys=True, default=str)
    return value


def _plain(value: Any) -> Any:
    """``value`` with every NaN as ``None`` (JSON has no NaN)."""
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


__all__ = ["EPISODE", "FORMATS", "ROW_KINDS", "RowKind", "format_results", "kind_of", "register_row_kind",
           "report_sections", "row_key", "split_by_kind", "summary_rows", "text_as_html", "to_csv"]
