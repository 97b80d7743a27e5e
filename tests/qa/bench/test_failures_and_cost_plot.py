"""memory-bench's failure columns (failed updates by cause) and its accuracy-against-cost figure, from records."""

from __future__ import annotations

import csv
import importlib.util
import io
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from textmem_gym.memory.adoption import adopt
from textmem_gym.qa.bench.summary import format_bench_table, summarize, to_csv


def record(memory: str, trajectory: str, failed: dict[str, int] | None, tokens: int = 0) -> dict[str, Any]:
    """One memory-bench record of two updates and one question."""
    return {"kind": "memory-bench", "trajectory": trajectory, "backend": "twx", "memory": memory,
            "config": {"budgets": [1024]}, "update_ms": [10.0, 30.0], "updates": 2, "build_tokens": tokens,
            "failed_updates": failed,
            "questions": [{"question_kind": "location", "answer_recall": {"1024": True},
                           "first_mention": {"1024": True}, "structural_em": None, "offered": False,
                           "context_ms": {"1024": 2.0}, "context_tokens": {"1024": 40}}]}


RECORDS = [record("mem0", "t-a", {"BadRequestError": 2}, 900), record("mem0", "t-b", {"ValidationError": 1}, 700),
           record("bm25", "t-a", None)]


def test_failures_are_summed_by_cause_into_rows_tables_and_csv() -> None:
    rows = {r["memory"]: r for r in summarize(RECORDS) if r["backend"] == "all" and r["question_kind"] == "all"}
    assert rows["mem0"]["failed_updates"] == 3
    assert rows["mem0"]["failed_by_cause"] == {"BadRequestError": 2, "ValidationError": 1}
    assert rows["bm25"]["failed_updates"] is None  # not counted is not zero
    table = format_bench_table(RECORDS)
    assert "| failed |" in table.splitlines()[0]
    assert "3 (BadRequestError 2, ValidationError 1) |" in table and "| 40 | - |" in table
    parsed = {r["memory"]: r for r in csv.DictReader(io.StringIO(to_csv(summarize(RECORDS))))}
    assert parsed["mem0"]["failed_updates"] == "3" and "BadRequestError" in parsed["mem0"]["failed_by_cause"]


def test_a_memory_counts_failures_only_where_it_says_so() -> None:
    class Notes:
        def update(self, observation: str, action: str, info: dict) -> None:
            return None

        def context(self, question: str, budget: int) -> list[str]:
            return []

    class Counts(Notes):
        def __init__(self) -> None:
            self.failed_updates = Counter({"RefusalError": 1})

    assert adopt(Counts()).offers("failures") and adopt(Counts()).failed_updates() == {"RefusalError": 1}
    assert adopt(Notes()).failed_updates() is None  # not counted, which is not zero


@pytest.mark.skipif(importlib.util.find_spec("matplotlib") is None, reason="needs the plot extra")
def test_accuracy_against_cost_figure(tmp_path: Path) -> None:
    from textmem_gym.qa.bench.plot import plot_cost

    path = plot_cost(RECORDS, tmp_path / "cost.png", title="floor")
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    with pytest.raises(ValueError, match="at 256 tokens"):
        plot_cost(RECORDS, tmp_path / "none.png", budget=256)
