"""``textmem-gym report``: one self-contained HTML page of results files and their trajectories.

The page holds a section per kind of row the files hold (:mod:`textmem_gym.report.kinds`): for
episodes, the summary table (:func:`textmem_gym.results.summarize`: mean ± std normalized score,
success, and whatever else it aggregates: best-k-of-n, tokens, cost, model-action share); for QA,
probe and memory-bench rows, their tables;
figures over steps drawn from the trajectories (normalized score, memory growth, LLM tokens per
step; inline SVG), and one section per chosen episode (its steps table and the memory graph at
its end, an inline PNG). Nothing is loaded from elsewhere: the file can be mailed or archived.

Example:
    >>> import tempfile, pathlib
    >>> from textmem_gym.results import ResultsFile
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> ResultsFile(folder / "r.jsonl").append({"env_id": "E", "policy": "p", "seed": 0, "episode": 0,
    ...     "game_seed": None, "normalized_score": 0.5, "won": False, "steps": 3})
    >>> page = write_report([folder / "r.jsonl"], folder / "report.html")
    >>> "<table" in page.read_text() and "0.500 ± 0.000" in page.read_text()
    True
"""

from __future__ import annotations

import datetime
import html
from collections import defaultdict
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from textmem_gym.report.figures import Groups, curves_svg, memory_graph_png
from textmem_gym.report.kinds import EPISODE, kind_of, report_sections, row_key
from textmem_gym.report.summary import LEADING_COLUMNS, TRUST_COLUMNS, html_cell, summary_table
from textmem_gym.results import ResultsFile
from textmem_gym.trajectories import Trajectory, find_trajectory, read_trajectory

#: Longest observation text shown in a steps table cell.
MAX_CELL = 600

_STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 1200px; color: #222; }
table { border-collapse: collapse; margin: 1em 0; font-size: 13px; }
th, td { border: 1px solid #ccc; padding: 3px 7px; vertical-align: top; text-align: left; }
th { background: #f0f3f7; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
td.obs { white-space: pre-wrap; font-family: ui-monospace, monospace; font-size: 12px; max-width: 520px; }
.figure { margin: 1.5em 0; overflow-x: auto; }
.figure svg { max-width: 100%; height: auto; }
details.episode { border: 1px solid #ddd; padding: 0.5em 1em; margin: 1em 0; }
details.episode > summary { cursor: pointer; font-weight: 600; }
img.memory-graph { max-width: 100%; border: 1px solid #eee; }
.note { color: #666; font-style: italic; }
td.source.fallback, span.fallback { color: #a33; }
td.source.model { color: #2a6; }
"""


def load_rows(paths: Iterable[str | Path]) -> list[dict[str, Any]]:
    """The result rows of several results files, of every kind (a row in more than one counts once: its
    identity is its kind's, see :mod:`textmem_gym.report.kinds`)."""
    rows: dict[Any, dict[str, Any]] = {}
    for path in paths:
        if not Path(path).exists():
            raise ValueError(f"no results file {path}")
        for row in ResultsFile(path).read():
            row.setdefault("_results_file", str(path))
            rows.setdefault(row_key(row), row)
    return list(rows.values())


def _trajectory_file(row: dict[str, Any], directory: str | Path | None) -> Path | None:
    if directory is not None:
        return find_trajectory(directory, row)
    if row.get("trajectory"):
        recorded = Path(row["trajectory"])
        candidates = [recorded, Path(row.get("_results_file", ".")).parent / recorded]
        return next((c for c in candidates if c.is_file()), None)
    return None


def load_trajectories(rows: Sequence[dict[str, Any]], directory: str | Path | None = None) -> list[Trajectory]:
    """The trajectories of ``rows`` that exist (from ``directory``, else the rows' ``trajectory``)."""
    found = []
    for row in rows:
        path = _trajectory_file(row, directory)
        if path is not None:
            trajectory = read_trajectory(path)
            trajectory.header.setdefault("episode", row.get("episode"))
            # the results key names the policy as the table does (e.g. explorer-nomemory, whose
            # policy object is named explorer): figures and sections group by it
            trajectory.header["policy"] = row.get("policy", trajectory.header.get("policy"))
            found.append(trajectory)
    return found


def _groups(trajectories: Iterable[Trajectory]) -> Groups:
    groups: Groups = defaultdict(list)
    for t in trajectories:
        groups[(str(t.header.get("env_id")), str(t.header.get("policy")))].append(t)
    return dict(groups)


def _tokens(record: dict[str, Any]) -> float | None:
    calls = record.get("llm_calls")
    if calls is None:
        return None
    return float(sum(int(c.get("prompt_tokens") or 0) + int(c.get("completion_tokens") or 0) for c in calls))


def _memory(name: str) -> Any:
    return lambda record: (record.get("memory") or {}).get(name)


def figures(trajectories: list[Trajectory]) -> str:
    """The figures section: score, memory growth and tokens over steps (inline SVG)."""
    groups = _groups(trajectories)
    drawn = [
        ("score-vs-step", curves_svg(groups, lambda r: r.get("normalized_score"), ylabel="normalized score",
                                     title="Normalized score vs step (mean over episodes)")),
        ("memory-growth", curves_svg(groups, _memory("believed"), ylabel="believed triples",
                                     title="Memory growth: believed triples vs step")),
        ("episodic-growth", curves_svg(groups, _memory("episodes"), ylabel="episodic entries",
                                       title="Memory growth: episodic entries vs step")),
        ("tokens-per-step", curves_svg(groups, _tokens, ylabel="LLM tokens",
                                       title="LLM tokens per step (prompt + completion)")
         if any(_tokens(r) for t in trajectories for r in t.records) else None),
    ]
    parts = [f'<div class="figure" id="{name}">{svg}</div>' for name, svg in drawn if svg is not None]
    if not trajectories:
        parts.append('<p class="note">No trajectories: run with --trajectories DIR for figures over steps.</p>')
    elif drawn[3][1] is None:
        parts.append('<p class="note">No LLM calls in these trajectories, so no tokens-per-step figure.</p>')
    return "\n".join(parts)


def steps_table(trajectory: Trajectory) -> str:
    """One row per record of an episode: action, commands sent, where the action came from (the
    model as asked, or a fallback cause: LLM policies), observation, reward, score, memory, LLM calls
    (with the cause of each call that gave no usable answer)."""
    head = "<tr><th>step</th><th>action (commands sent)</th><th>action from</th><th>observation</th><th>reward</th>" \
           "<th>score</th><th>memory (triples / episodes)</th><th>admissible</th><th>LLM calls (tokens)</th></tr>"
    rows = []
    for r in trajectory.records:
        action = "(start)" if r.get("action") is None else r["action"]
        if r.get("action") is not None and r.get("commands") != [r["action"]]:
            action += f" ({'; '.join(r.get('commands') or []) or 'none sent'})"
        memory = r.get("memory")
        size = f"{memory.get('believed')} / {memory.get('episodes')}" if memory else ""
        calls = r.get("llm_calls") or []
        llm = f"{len(calls)} ({int(_tokens(r) or 0)})" if calls else ""
        failed = [f"{c.get('kind')}: {c['fallback']}" for c in calls if c.get("fallback")]
        llm += "".join(f"<br><span class=\"fallback\">{html.escape(f)}</span>" for f in failed)
        source = r.get("action_source") or ""
        source_cell = (f'<td class="source model">{html.escape(source)}</td>' if source == "model" else
                       f'<td class="source fallback">{html.escape(source)}</td>' if source else "<td></td>")
        text = str(r.get("observation", "")).strip()
        text = text if len(text) <= MAX_CELL else text[:MAX_CELL] + " …"
        rows.append(f"<tr><td class=\"num\">{r.get('step')}</td><td>{html.escape(action)}</td>{source_cell}"
                    f"<td class=\"obs\">{html.escape(text)}</td><td class=\"num\">{html_cell(r.get('reward'))}</td>"
                    f"<td class=\"num\">{html_cell(r.get('score'))}/{html_cell(r.get('max_score'))}</td>"
                    f"<td class=\"num\">{size}</td><td class=\"num\">{html_cell(r.get('admissible') or '')}</td>"
                    f"<td class=\"num\">{llm}</td></tr>")
    return f'<table class="steps"><thead>{head}</thead><tbody>{"".join(rows)}</tbody></table>'


def episode_section(trajectory: Trajectory, *, open_: bool = False) -> str:
    """An episode rendered from its trajectory: result, steps table, memory graph at the end."""
    result = trajectory.result or {}
    status = (f"score {result.get('score')}/{result.get('max_score')}, {'won' if result.get('won') else 'not won'}, "
              f"{result.get('steps')} steps" if trajectory.complete else "unfinished")
    parts = [f"<details class=\"episode\"{' open' if open_ else ''}><summary>{html.escape(trajectory.label)} · "
             f"episode {html.escape(str(trajectory.header.get('episode')))} — {html.escape(status)}</summary>",
             f"<p>Trajectory: <code>{html.escape(str(trajectory.path))}</code>; memory: "
             f"{html.escape(str(trajectory.header.get('memory')))}</p>", steps_table(trajectory)]
    picture = memory_graph_png(trajectory.memory_graph) if trajectory.memory_graph else None
    if picture is not None:
        parts.append("<h4>Memory graph at the end of the episode</h4>"
                     f'<img class="memory-graph" alt="memory graph" src="data:image/png;base64,{picture}">')
    parts.append("</details>")
    return "\n".join(parts)


def pick_episodes(trajectories: list[Trajectory], limit: int | None) -> list[Trajectory]:
    """By default the first episode (lowest seed) of each (env id, policy); ``limit`` episodes
    at most, taken round-robin over the groups when given."""
    groups = [sorted(ts, key=lambda t: (t.header.get("seed") or 0)) for _, ts in sorted(_groups(trajectories).items())]
    if limit is None:
        return [ts[0] for ts in groups]
    ordered = [ts[i] for i in range(max((len(ts) for ts in groups), default=0)) for ts in groups if i < len(ts)]
    return ordered[:limit]


def build_report(rows: list[dict[str, Any]], trajectories: list[Trajectory], *, title: str = "textmem_gym report",
                 sources: Sequence[str | Path] = (), episodes: int | None = None) -> str:
    """The HTML page (a string) for result ``rows`` and their ``trajectories``."""
    created = datetime.datetime.now().astimezone().isoformat(timespec="seconds")
    listed = ", ".join(f"<code>{html.escape(str(s))}</code>" for s in sources)
    chosen = pick_episodes(trajectories, episodes)
    sections = "\n".join(episode_section(t, open_=i == 0) for i, t in enumerate(chosen))
    episodes_played = sum(1 for r in rows if kind_of(r) == EPISODE)
    others = len(rows) - episodes_played
    counted = f"{episodes_played} episodes" + (f" and {others} rows of other kinds" if others else "")
    results = (report_sections(rows) if rows else
               '<section id="summary"><h2>Summary</h2>\n<p class="note">No results.</p>\n</section>')
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title>
<style>{_STYLE}</style></head><body>
<h1>{html.escape(title)}</h1>
<p>{counted} from {listed or "results"}; {len(trajectories)} trajectories. Written {created}.</p>
{results}
<section id="figures"><h2>Over the steps of an episode</h2>
{figures(trajectories)}
</section>
<section id="episodes"><h2>Episodes</h2>
{sections or '<p class="note">No trajectories to show.</p>'}
</section>
</body></html>
"""


def write_report(results: Sequence[str | Path], output: str | Path = "report.html", *,
                 trajectories: str | Path | None = None, episodes: int | None = None,
                 title: str = "textmem_gym report") -> Path:
    """Writes the report of the results files ``results`` to ``output`` and returns its path.

    Args:
        results: JSONL results files (see :class:`textmem_gym.results.ResultsFile`).
        output: The HTML file to write (its folder is created).
        trajectories: Folder of the trajectories (else each row's recorded ``trajectory`` path).
        episodes: Most episode sections (default: the first episode of each env id and policy).
        title: The page title.
    """
    rows = load_rows(results)
    games = [r for r in rows if kind_of(r) == EPISODE]  # rows of other kinds have no trajectories
    page = build_report(rows, load_trajectories(games, trajectories), title=title, sources=results, episodes=episodes)
    output = Path(output)
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(page, encoding="utf-8")
    return output


__all__ = ["LEADING_COLUMNS", "TRUST_COLUMNS", "build_report", "load_rows", "load_trajectories", "summary_table",
           "write_report"]
