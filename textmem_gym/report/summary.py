"""The summary table of played episodes (HTML), shared by the report and the web app.

Example:
    >>> row = {"env_id": "E", "policy": "p", "episodes": 2, "score_mean": 0.5, "score_std": 0.5,
    ...        "success_rate": 0.5, "steps_mean": 10.0}
    >>> "<td>E</td><td>p</td>" in summary_table([row])
    True
"""

from __future__ import annotations

import html
import json
from typing import Any

from textmem_gym.results import METRIC_COLUMNS

#: Summary columns shown first, with their headings; the other aggregates follow.
LEADING_COLUMNS = {"env_id": "env", "policy": "policy", "episodes": "episodes", "score_mean": "normalized score",
                   "success_rate": "success", "steps_mean": "steps"}
#: LLM-policy columns shown right after the leading ones, with their headings (rows without them show ``-``).
TRUST_COLUMNS = {"model_actions_mean": "model actions", "fallbacks": "fallbacks", "errors": "errors"}

def html_cell(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.4g}"
    if isinstance(value, (dict, list)):
        return html.escape(json.dumps(value, sort_keys=True))
    return html.escape(str(value))


def _causes(counts: Any) -> str:
    """``{"unparseable": 3, "loop_guard": 1}`` -> ``unparseable 3, loop_guard 1``."""
    if not isinstance(counts, dict) or not counts:
        return ""
    return ", ".join(f"{cause} {n}" for cause, n in sorted(counts.items(), key=lambda item: (-item[1], item[0])))


def _trust_cell(row: dict[str, Any], column: str) -> str:
    if column == "model_actions_mean":
        return f"{row[column]:.2f}" if column in row else "-"
    if column == "fallbacks":
        return html.escape(_causes(row.get("fallbacks")) or ("0" if "model_actions_mean" in row else "-"))
    return html.escape(f"{row['errors']} ({_causes(row.get('error_causes'))})" if row.get("errors") else "-")


def summary_table(rows: list[dict[str, Any]]) -> str:
    """The summary rows (from :func:`summarize`) as an HTML table: the leading columns; the
    share of env actions the model chose as asked (**model actions**), the **fallbacks** by cause
    and the strict-mode **errors** by cause, when a row carries them (``-`` for a policy without
    fallbacks); a backend metric's mean ± std (NetHack's **deepest level**, see
    :data:`~textmem_gym.results.METRIC_COLUMNS`); then every other aggregate the rows carry
    (best-k-of-n, tokens, cost...)."""
    metrics = [m for m in METRIC_COLUMNS if any(m + "_mean" in r for r in rows)]
    trust = [k for k in TRUST_COLUMNS if any(k in r for r in rows)]
    if trust and "fallbacks" not in trust:
        trust.insert(1 if "model_actions_mean" in trust else 0, "fallbacks")
    others = sorted({k for r in rows for k in r} - set(LEADING_COLUMNS) - set(TRUST_COLUMNS)
                    - {"score_std", "error_causes"} - {m + suffix for m in metrics for suffix in ("_mean", "_std")})
    headings = [*LEADING_COLUMNS.values(), *(METRIC_COLUMNS[m] for m in metrics), *(TRUST_COLUMNS[k] for k in trust),
                *others]
    head = "".join(f"<th>{html.escape(h)}</th>" for h in headings)
    body = []
    for r in rows:
        cells = [html_cell(r["env_id"]), html_cell(r["policy"]), html_cell(r["episodes"]),
                 f"{r['score_mean']:.3f} ± {r.get('score_std', 0.0):.3f}", f"{r['success_rate']:.2f}",
                 f"{r['steps_mean']:.1f}"]
        cells += [f"{r[m + '_mean']:.2f} ± {r.get(m + '_std', 0.0):.2f}" if m + "_mean" in r else "-" for m in metrics]
        cells += [_trust_cell(r, k) for k in trust] + [html_cell(r.get(k, "")) for k in others]
        body.append("<tr>" + "".join(f'<td class="num">{c}</td>' if i > 1 else f"<td>{c}</td>"
                                     for i, c in enumerate(cells)) + "</tr>")
    return f'<table id="summary-table"><thead><tr>{head}</tr></thead><tbody>{"".join(body)}</tbody></table>'


__all__ = ["LEADING_COLUMNS", "TRUST_COLUMNS", "html_cell", "summary_table"]
