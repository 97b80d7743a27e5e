"""``textmem-gym memory-bench`` on one short shipped trajectory and two memories (the full run is a benchmark)."""

from __future__ import annotations

import dataclasses
import json

import pytest

from textmem_gym.cli import main
from textmem_gym.qa.bench.run import run_bench
from textmem_gym.qa.bench.trajectories import load_trajectories, replay_trajectory
from textmem_gym.qa.probes.replay import ReplayMismatch

BM25 = "textmem_gym.memory.passages.memory:BM25Memory"


def test_shipped_set_covers_every_backend_short_and_long():
    trajectories = load_trajectories()
    backends = {"textworld", "twx", "jericho", "scienceworld", "nethack"}
    assert {t.backend for t in trajectories} == backends
    assert {t.backend for t in trajectories if len(t.commands) >= 300} == backends
    assert {t.backend for t in trajectories if len(t.commands) <= 50} == backends
    assert all(len(t.digests) == len(t.commands) + 1 for t in trajectories)
    with pytest.raises(ValueError, match="twx-coin-short"):
        load_trajectories(["no-such-trajectory"])


def test_replay_is_checked_against_the_recorded_digests():
    (coin,) = load_trajectories(["twx-coin-short"])
    assert len(replay_trajectory(coin).steps) == len(coin.commands) + 1
    digests = list(coin.digests)
    digests[5] = "0" * len(digests[5])
    with pytest.raises(ReplayMismatch, match="step 5"):
        replay_trajectory(dataclasses.replace(coin, digests=digests))


def test_cli_writes_one_row_per_memory_kind_budget_and_prints_the_table(tmp_path, capsys):
    out = tmp_path / "bench.jsonl"
    assert main(["memory-bench", "--memories", f"full-history,{BM25}", "--trajectories", "twx-coin-short",
                 "--budgets", "64,1024", "--per-kind", "2", "--out", str(out)]) == 0
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    keys = [(r["memory"], r["question_kind"], r["budget"]) for r in rows]
    assert len(keys) == len(set(keys)) and {r["memory"] for r in rows} == {"full-history", BM25}
    assert {r["budget"] for r in rows} == {64, 1024}
    kinds = {r["question_kind"] for r in rows}
    assert {"location", "abstention", "counting"} <= kinds
    assert all(0.0 <= r["answer_recall"] <= 1.0 and r["questions"] > 0 and r["query_ms"] >= 0 for r in rows)
    assert all(r["build_tokens"] == 0 for r in rows)  # no model builds these memories
    table = capsys.readouterr().out
    assert "| full-history | location |" in table and "R@64" in table and "R@1024" in table
    again = run_bench(["full-history", BM25], trajectories=["twx-coin-short"], budgets=(64, 1024), per_kind=2)
    assert [(r["memory"], r["question_kind"], r["budget"], r["answer_recall"], r["structural_em"]) for r in again] \
        == [(r["memory"], r["question_kind"], r["budget"], r["answer_recall"], r["structural_em"]) for r in rows]


def test_unknown_memory_is_one_line(capsys):
    assert main(["memory-bench", "--memories", "no-such-memory", "--trajectories", "twx-coin-short"]) != 0
    assert "no-such-memory" in capsys.readouterr().err


def test_a_trajectory_that_cannot_be_played_here_stops_the_bench_before_any_work(tmp_path, monkeypatch, capsys):
    """A missing Jericho ROM (no ROM directory, an empty cache, a mirror that refuses) is one line and
    exit 2, before the playable trajectory listed first is probed and before anything is written."""
    monkeypatch.delenv("TEXTMEM_ROMS_DIR", raising=False)
    monkeypatch.setenv("TEXTMEM_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("TEXTMEM_ROMS_URL", "http://127.0.0.1:9/roms")
    out = tmp_path / "bench.jsonl"
    status = main(["memory-bench", "--memories", "full-history", "--trajectories",
                   "twx-coin-short,jericho-zork1-short", "--out", str(out)])
    captured = capsys.readouterr()
    assert status == 2 and not out.exists()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and "jericho-zork1-short" in lines[0] and "zork1.z5" in lines[0]
    assert "twx-coin-short" not in captured.err and captured.out == ""
