"""The memory-probe section of ``textmem-gym report``: per probed episode, its score, then EM/F1 per
memory x answer mode by question kind (rows of ``"kind": "probe"``, written by
:func:`textmem_gym.qa.probes.run.probe_episode`).

Example:
    >>> row = {"kind": "probe", "episode_id": "e", "trajectory": "t.jsonl", "env_id": "TextMem/Cooking-v0",
    ...        "episode_score": 1.0, "episode_won": True, "episode_steps": 48, "step": 48, "memory": "oracle",
    ...        "answer_mode": "structural", "question_kind": "location", "em": 1.0, "f1": 1.0, "prompt_tokens": 0}
    >>> section = probe_section([row])
    >>> "<td>oracle</td>" in section and "100/100 (1)" in section and "normalized score 1.000" in section
    True
"""

from __future__ import annotations

import html
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from textmem_gym.qa.probes.run import ROW_KIND as PROBE_ROW
from textmem_gym.qa.probes.run import summarize_probes


def _episode_table(rows: Sequence[dict[str, Any]]) -> str:
    kinds = sorted({r["question_kind"] for r in rows})
    cells = {(s["memory"], s["answer_mode"], s["question_kind"]): s
             for s in summarize_probes(rows, ("memory", "answer_mode", "question_kind"))}
    head = "".join(f"<th>{html.escape(h)}</th>" for h in ["memory", "answers", *kinds, "all", "prompt tokens/answer"])
    body = []
    for total in summarize_probes(rows):
        shown = [_cell(cells.get((total["memory"], total["answer_mode"], k))) for k in kinds]
        values = [total["memory"], total["answer_mode"], *shown, _cell(total), f"{total['prompt_tokens']:.0f}"]
        body.append("<tr>" + "".join(f"<td>{html.escape(v)}</td>" for v in values) + "</tr>")
    return f'<table class="probe-table"><thead><tr>{head}</tr></thead><tbody>{"".join(body)}</tbody></table>'


def _cell(summary: dict[str, Any] | None) -> str:
    return "-" if summary is None else f"{summary['em']:.0f}/{summary['f1']:.0f} ({summary['n']})"


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
                     + _episode_table(items))
    return ('<section id="probes"><h2>Memory probes</h2>\n' + "\n".join(parts) +
            '\n<p class="note">EM/F1 in percent (n questions) per memory and question kind; "llm": the model over '
            "the memory's context fitted to one token budget; \"structural\": from the memory's beliefs, no "
            "model.</p>\n</section>")


__all__ = ["probe_section"]
