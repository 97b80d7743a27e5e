"""The memory-probe section of ``textmem-gym report``: per probed episode, its score, EM/F1 per
memory x answer mode by question kind, then answer recall at each budget per memory x question kind
beside structural and model EM, build tokens and times (rows of ``"kind": "probe"``, written by
:func:`textmem_gym.qa.probes.run.probe_episode`).

Example:
    >>> row = {"kind": "probe", "episode_id": "e", "trajectory": "t.jsonl", "env_id": "TextMem/Cooking-v0",
    ...        "episode_score": 1.0, "episode_won": True, "episode_steps": 48, "step": 48, "memory": "oracle",
    ...        "question_id": "location:knife", "answer_mode": "structural", "question_kind": "location",
    ...        "em": 1.0, "f1": 1.0, "prompt_tokens": 0, "answer_recall": {"256": True}}
    >>> section = probe_section([row])
    >>> "<td>oracle</td>" in section and "100/100 (1)" in section and "normalized score 1.000" in section
    True
    >>> "<th>R@256</th>" in section
    True
"""

from __future__ import annotations

import html
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from textmem_gym.qa.probes.run import ROW_KIND as PROBE_ROW
from textmem_gym.qa.probes.run import recall_cells, summarize_probes


def _html_table(header: Sequence[str], cells: Sequence[Sequence[str]], css: str) -> str:
    head = "".join(f"<th>{html.escape(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(v)}</td>" for v in line) + "</tr>" for line in cells)
    return f'<table class="{css}"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


def _episode_table(rows: Sequence[dict[str, Any]]) -> str:
    rows = [r for r in rows if r["answer_mode"] != "recall"]
    kinds = sorted({r["question_kind"] for r in rows})
    cells = {(s["memory"], s["answer_mode"], s["question_kind"]): s
             for s in summarize_probes(rows, ("memory", "answer_mode", "question_kind"))}
    lines = [[total["memory"], total["answer_mode"],
              *[_cell(cells.get((total["memory"], total["answer_mode"], k))) for k in kinds], _cell(total),
              f"{total['prompt_tokens']:.0f}"] for total in summarize_probes(rows)]
    return _html_table(["memory", "answers", *kinds, "all", "prompt tokens/answer"], lines, "probe-table")


def _cell(summary: dict[str, Any] | None) -> str:
    if summary is None:
        return "-"
    if summary["em"] is None:
        return "not offered" if summary["not_offered"] else "-"
    return f"{summary['em']:.0f}/{summary['f1']:.0f} ({summary['n']})"


def probe_section(rows: Sequence[dict[str, Any]]) -> str:
    """The HTML section of the probe rows (an empty string when there are none)."""
    episodes: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        if row.get("kind") == PROBE_ROW:
            episodes[row["episode_id"]].append(row)
    if not episodes:
        return ""
    parts = []
    for items in episodes.values():
        first = items[0]
        score = "-" if first.get("episode_score") is None else f"{float(first['episode_score']):.3f}"
        parts.append(f"<h3>{html.escape(str(first['trajectory']))}</h3>\n<p>{html.escape(str(first['env_id']))}: "
                     f"{first['episode_steps']} steps, normalized score {score}, won {first.get('episode_won')}, "
                     f"probed at steps {', '.join(str(s) for s in sorted({r['step'] for r in items}))}</p>\n"
                     + _episode_table(items) + "\n" + _html_table(*recall_cells(items), "probe-recall"))
    return ('<section id="probes"><h2>Memory probes</h2>\n' + "\n".join(parts) +
            '\n<p class="note">EM/F1 in percent (n questions) per memory and question kind; "llm": the model over '
            "the memory's context fitted to one token budget; \"structural\": from the memory's optional parts "
            "(beliefs, map, history), no model; \"not offered\": the memory lacks the part. R@B: answer recall in "
            "percent, the share of questions whose gold answer (or an alias; every listed thing for lists) is in "
            "the context the memory returns within B tokens, no model (textmem_gym.qa.probes.recall); FM@B: "
            "first-mention accuracy in percent, the share of questions where the first candidate answer that "
            "context names is the gold one (a stale holder named first is wrong).</p>\n"
            "</section>")


__all__ = ["probe_section"]
