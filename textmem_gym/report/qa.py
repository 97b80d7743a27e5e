"""The multi-hop QA section of ``textmem-gym report``: EM, F1 and tokens per question for each
dataset x method of the QA rows (``"kind": "qa"``, written by :func:`textmem_gym.qa.run.run_methods`).

Example:
    >>> row = {"kind": "qa", "dataset": "musique", "question_id": "q1", "method": "bm25", "config": {},
    ...        "em": 1.0, "f1": 1.0, "prompt_tokens": 180, "completion_tokens": 9, "build_prompt_tokens": 0,
    ...        "answer_prompt_tokens": 180, "calls": 1, "latency_s": 0.01, "parse_failed": False, "fallback": None}
    >>> "<td>bm25</td>" in qa_section([row]) and "100.0" in qa_section([row])
    True
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import Any

from textmem_gym.qa.run import summarize_qa

#: Column heading -> how a summary of :func:`~textmem_gym.qa.run.summarize_qa` shows it.
COLUMNS: dict[str, Any] = {
    "dataset": lambda s: s["dataset"],
    "method": lambda s: s["method"],
    "questions": lambda s: str(s["n"]),
    "EM": lambda s: f"{s['em']:.1f}",
    "F1": lambda s: f"{s['f1']:.1f}",
    "prompt tokens/question": lambda s: f"{s['prompt_tokens']:.0f}",
    "of which building": lambda s: f"{s['build_prompt_tokens']:.0f}",
    "answering": lambda s: f"{s['answer_prompt_tokens']:.0f}",
    "completion tokens/question": lambda s: f"{s['completion_tokens']:.0f}",
    "calls/question": lambda s: f"{s['calls']:.1f}",
    "unparseable answers": lambda s: f"{s['parse_failures']} ({100 * s['parse_failure_rate']:.1f}%)",
    "fallbacks": lambda s: ", ".join(f"{k} {v}" for k, v in sorted(s["fallbacks"].items())) or "-",
    "cost (USD)": lambda s: "-" if s["cost_usd"] is None else f"{s['cost_usd']:.4f}",
}


def qa_section(rows: Sequence[dict[str, Any]]) -> str:
    """The HTML section of the QA rows (an empty string when there are none)."""
    summaries = summarize_qa(rows)
    if not summaries:
        return ""
    head = "".join(f"<th>{html.escape(h)}</th>" for h in COLUMNS)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(show(s))}</td>" for show in COLUMNS.values()) + "</tr>"
                   for s in summaries)
    return (f'<section id="qa"><h2>Multi-hop QA</h2>\n<table id="qa-table"><thead><tr>{head}</tr></thead>'
            f"<tbody>{body}</tbody></table>\n<p class=\"note\">EM and F1 in percent (official scripts' "
            "normalisation); tokens per question, building (a memory's extraction) apart from answering.</p>\n"
            "</section>")


__all__ = ["COLUMNS", "qa_section"]
