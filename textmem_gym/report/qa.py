"""The multi-hop QA section of ``textmem-gym report``: EM, F1, tokens per question, answer recall
at each token budget and supporting-paragraph recall@k for each dataset x method of the QA rows
(``"kind": "qa"``, written by :func:`textmem_gym.qa.run.run_methods`); ``-`` where no model
answered (recall-only rows) or where a method offers no recall.

Example:
    >>> row = {"kind": "qa", "dataset": "musique", "question_id": "q1", "method": "bm25", "config": {},
    ...        "em": 1.0, "f1": 1.0, "prompt_tokens": 180, "completion_tokens": 9, "build_prompt_tokens": 0,
    ...        "answer_prompt_tokens": 180, "calls": 1, "latency_s": 0.01, "parse_failed": False, "fallback": None}
    >>> "<td>bm25</td>" in qa_section([row]) and "100.0" in qa_section([row])
    True
    >>> recall = {**row, "config": {"recall_only": True}, "em": None, "f1": None,
    ...           "answer_recall": {"256": False, "512": True, "1024": True, "2048": True}, "support_recall": None}
    >>> "<td>0.0</td><td>100.0</td><td>100.0</td><td>100.0</td><td>-</td><td>-</td>" in qa_section([recall])
    True
    >>> "first mention @256 tokens" in qa_section([recall])
    True
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import Any

from textmem_gym.qa.recall import BUDGETS, PARAGRAPH_KS
from textmem_gym.qa.run import summarize_qa

#: Column heading -> how a summary of :func:`~textmem_gym.qa.run.summarize_qa` shows it.
COLUMNS: dict[str, Any] = {
    "dataset": lambda s: s["dataset"],
    "method": lambda s: s["method"],
    "questions": lambda s: str(s["n"]),
    "EM": lambda s: _number(s["em"]),
    "F1": lambda s: _number(s["f1"]),
    "prompt tokens/question": lambda s: f"{s['prompt_tokens']:.0f}",
    "of which building": lambda s: f"{s['build_prompt_tokens']:.0f}",
    "answering": lambda s: f"{s['answer_prompt_tokens']:.0f}",
    "completion tokens/question": lambda s: f"{s['completion_tokens']:.0f}",
    "calls/question": lambda s: f"{s['calls']:.1f}",
    "unparseable answers": lambda s: f"{s['parse_failures']} ({100 * s['parse_failure_rate']:.1f}%)",
    "fallbacks": lambda s: ", ".join(f"{k} {v}" for k, v in sorted(s["fallbacks"].items())) or "-",
    "cost (USD)": lambda s: "-" if s["cost_usd"] is None else f"{s['cost_usd']:.4f}",
    **{f"answer recall @{b} tokens": (lambda s, b=b: _number((s["answer_recall"] or {}).get(b))) for b in BUDGETS},
    **{f"support recall@{k}": (lambda s, k=k: _number((s["support_recall"] or {}).get(k))) for k in PARAGRAPH_KS},
    **{f"first mention @{b} tokens": (lambda s, b=b: _number((s.get("first_mention") or {}).get(b)))
       for b in BUDGETS},
}


def _number(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}"


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
            "normalisation); tokens per question, building (a memory's extraction) apart from answering; answer "
            "recall at B tokens: % of questions whose gold answer or an alias is in the method's context cut to B "
            "tokens (yes/no questions left out); support recall@k: mean share of the supporting paragraphs among "
            "the k it ranks first; first mention at B tokens: % of questions where the first candidate answer the "
            "context cut to B tokens names is the gold one (rivals: the titles of the question's paragraphs); -: no "
            "model answered, or not offered.</p>\n"
            "</section>")


__all__ = ["COLUMNS", "qa_section"]
