"""``textmem-gym memory-bench`` on one short shipped trajectory and two memories (the full run is a benchmark):
records per trajectory x memory, resume, overwrite, interruption, per-backend summaries, exports."""

from __future__ import annotations

import csv
import dataclasses
import io
import json
import shutil
from pathlib import Path

import pytest

from textmem_gym.cli import main
from textmem_gym.qa.bench.run import BenchInterrupted, run_bench
from textmem_gym.qa.bench.summary import summarize
from textmem_gym.qa.bench.trajectories import load_trajectories, replay_trajectory
from textmem_gym.qa.probes.replay import ReplayMismatch

BM25 = "textmem_gym.memory.passages.memory:BM25Memory"
MEMORIES = ["full-history", BM25]
TRAJECTORY = "twx-coin-short"
ARGS = ["memory-bench", "--memories", ",".join(MEMORIES), "--trajectories", TRAJECTORY, "--budgets", "64,1024",
        "--per-kind", "2"]


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


@pytest.fixture(scope="module")
def recorded(tmp_path_factory) -> tuple[Path, str]:
    """One bench run through the command line: its results file and what it printed (stdout)."""
    out = tmp_path_factory.mktemp("bench") / "bench.jsonl"
    capture = io.StringIO()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("sys.stdout", capture)
        assert main([*ARGS, "--out", str(out)]) == 0
    return out, capture.getvalue()


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
    (coin,) = load_trajectories([TRAJECTORY])
    assert len(replay_trajectory(coin).steps) == len(coin.commands) + 1
    digests = list(coin.digests)
    digests[5] = "0" * len(digests[5])
    with pytest.raises(ReplayMismatch, match="step 5"):
        replay_trajectory(dataclasses.replace(coin, digests=digests))


def test_the_bench_checks_the_replay_it_probes_with(tmp_path, monkeypatch):
    """The bench replays each trajectory once (in the probe) and checks that replay's observations against
    the digests: a changed digest stops it, and nothing is recorded."""
    import textmem_gym.qa.bench.run as bench

    (coin,) = load_trajectories([TRAJECTORY])
    digests = list(coin.digests)
    digests[7] = "0" * len(digests[7])
    monkeypatch.setattr(bench, "load_trajectories", lambda names: [dataclasses.replace(coin, digests=digests)])
    out = tmp_path / "bench.jsonl"
    with pytest.raises(ReplayMismatch, match="step 7"):
        run_bench(["full-history"], trajectories=[TRAJECTORY], per_kind=1, out=out)
    assert not out.exists()


def test_records_per_trajectory_and_memory_and_the_printed_table(recorded):
    out, printed = recorded
    records = _lines(out)
    assert [(r["kind"], r["trajectory"], r["backend"], r["memory"]) for r in records] == \
        [("memory-bench", TRAJECTORY, "twx", memory) for memory in MEMORIES]
    for record in records:
        assert record["config"]["per_kind"] == 2 and record["config"]["budgets"] == [64, 1024]
        assert record["updates"] == len(load_trajectories([TRAJECTORY])[0].commands) + 1 == len(record["update_ms"])
        assert record["questions"] and all(set(q["answer_recall"]) == {"64", "1024"} for q in record["questions"])
        assert all(set(q["context_tokens"]) == set(q["context_ms"]) == {"64", "1024"} for q in record["questions"])
        assert all(set(q["first_mention"]) == {"64", "1024"} for q in record["questions"])
    lines = printed.splitlines()
    assert lines[0].startswith("| memory | kind | n | R@64 | R@1024 |")
    shown = [line.split(" | ")[0].lstrip("| ") for line in lines if line.startswith("| ") and "---" not in line][1:]
    assert list(dict.fromkeys(shown)) == MEMORIES  # the order given, not alphabetical
    recall_cells = [cell for line in lines[2:] if line.startswith("| ") for cell in line.split(" | ")[3:5]]
    assert recall_cells and all(cell == "-" or cell.isdigit() for cell in recall_cells)  # integer percentages
    assert any(line.startswith("R@B: answer recall") and "n: questions" in line and "-:" in line for line in lines)


def test_summary_rows_per_backend_kind_and_budget_with_all_rows(recorded):
    out, _ = recorded
    records = _lines(out)
    rows = summarize(records, MEMORIES)
    keys = [(r["memory"], r["backend"], r["question_kind"], r["budget"]) for r in rows]
    assert len(keys) == len(set(keys))
    assert {r["backend"] for r in rows} == {"twx", "all"}
    assert {r["budget"] for r in rows} == {64, 1024}
    overall = {(r["memory"], r["backend"], r["budget"]): r for r in rows if r["question_kind"] == "all"}
    for memory in MEMORIES:
        asked = [q for r in records if r["memory"] == memory for q in r["questions"]]
        assert overall[(memory, "all", 64)]["questions"] == len(asked)
        recall = sum(q["answer_recall"]["1024"] for q in asked) / len(asked)
        assert overall[(memory, "twx", 1024)]["answer_recall"] == pytest.approx(recall, abs=1e-4)
    for row in rows:  # cost columns on every row
        assert row["build_tokens_per_step"] == 0.0  # rules extraction: no model builds these memories
        assert 0 <= row["update_ms_p50"] <= row["update_ms_p95"] and 0 <= row["context_ms_p50"] <= row["context_ms_p95"]
        assert row["context_tokens"] is not None and row["first_mention"] is not None
        assert row["trajectories"] == [TRAJECTORY] and row["config"]["per_kind"] == 2
    # a second backend's records: per-backend rows for each, and "all" rows that pool both
    other = [{**r, "trajectory": "nethack-room-short", "backend": "nethack"} for r in records]
    pooled = summarize(records + other, MEMORIES)
    by_backend = {(r["memory"], r["backend"], r["question_kind"], r["budget"]): r for r in pooled}
    for memory in MEMORIES:
        twx, nethack, both = (by_backend[(memory, b, "all", 64)] for b in ("twx", "nethack", "all"))
        assert both["questions"] == twx["questions"] + nethack["questions"]
        assert both["trajectories"] == [TRAJECTORY, "nethack-room-short"]
    assert [r["backend"] for r in pooled if r["memory"] == BM25 and r["question_kind"] == "all" and r["budget"] == 64] \
        == ["twx", "nethack", "all"]


def test_rerun_skips_what_is_recorded_and_writes_nothing_twice(recorded, tmp_path, capsys):
    out = tmp_path / "bench.jsonl"
    shutil.copy(recorded[0], out)
    before = out.read_text()
    assert main([*ARGS, "--out", str(out)]) == 0
    captured = capsys.readouterr()
    assert "skipped 2 of 2 trajectory x memory runs already recorded" in captured.err
    assert "checking that" not in captured.err and "replaying" not in captured.err  # no game is made again
    assert out.read_text() == before  # nothing replaced, nothing appended
    assert captured.out == recorded[1]  # the same summary, from the records


def test_overwrite_runs_this_plan_again_and_keeps_other_rows(recorded, tmp_path, capsys):
    out = tmp_path / "bench.jsonl"
    foreign = {"env_id": "TextMem/Cooking-v0", "policy": "random", "seed": 0, "episode": 0, "normalized_score": 0.0,
               "won": False, "steps": 3}
    out.write_text(recorded[0].read_text() + json.dumps(foreign) + "\n")
    assert main([*ARGS, "--memories", "full-history", "--out", str(out), "--overwrite"]) == 0
    assert "overwrite: dropped 1 records" in capsys.readouterr().err
    rows = _lines(out)
    assert foreign in rows
    assert sorted(r.get("memory", "") for r in rows if r.get("kind") == "memory-bench") == sorted(MEMORIES)
    assert main(["memory-bench", "--overwrite", "--trajectories", TRAJECTORY]) == 2  # needs --out


def test_an_interrupted_run_keeps_what_finished_and_resumes(tmp_path):
    out = tmp_path / "bench.jsonl"
    lines: list[str] = []

    def progress(line: str) -> None:
        lines.append(line)
        if line.startswith("[1/2]"):
            raise KeyboardInterrupt

    assert lines == []
    with pytest.raises(BenchInterrupted, match=f"1 of 2 trajectory x memory runs recorded in {out}") as stopped:
        run_bench(MEMORIES, trajectories=[TRAJECTORY], budgets=(64,), per_kind=1, out=out, progress=progress)
    assert isinstance(stopped.value, KeyboardInterrupt)
    assert lines[0].startswith("memory-bench: 1 trajectory x 2 memories = 2 runs")  # the first line comes before any work
    assert [r["memory"] for r in _lines(out)] == ["full-history"]
    resumed: list[str] = []
    rows = run_bench(MEMORIES, trajectories=[TRAJECTORY], budgets=(64,), per_kind=1, out=out, progress=resumed.append)
    assert any(line.startswith("skipped 1 of 2") for line in resumed)
    assert [r["memory"] for r in _lines(out)] == MEMORIES
    assert {r["memory"] for r in rows} == set(MEMORIES)


def test_two_configurations_in_one_file_never_merge(recorded, tmp_path):
    out = tmp_path / "bench.jsonl"
    shutil.copy(recorded[0], out)
    lines: list[str] = []
    rows = run_bench(["full-history"], trajectories=[TRAJECTORY], budgets=(64, 1024), per_kind=1, out=out,
                     progress=lines.append)
    assert not any(line.startswith("skipped") for line in lines)  # per_kind 1 is another configuration
    assert {r["config"]["per_kind"] for r in rows} == {1}
    records = _lines(out)
    assert len(records) == 3
    names = {r["memory"] for r in summarize(records) if r["memory"].startswith("full-history")}
    assert len(names) == 2 and all("#" in name for name in names)  # shown apart, each with its configuration id


def test_csv_json_and_plot_exports(recorded, tmp_path, capsys):
    out = tmp_path / "bench.jsonl"
    shutil.copy(recorded[0], out)
    figure = tmp_path / "recall.png"
    assert main([*ARGS, "--out", str(out), "--format", "csv", "--plot", str(figure)]) == 0
    table = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert {row["backend"] for row in table} == {"twx", "all"} and {row["memory"] for row in table} == set(MEMORIES)
    assert all(row["trajectories"] == TRAJECTORY and json.loads(row["config"])["per_kind"] == 2 for row in table)
    assert all(0.0 <= float(row["answer_recall"]) <= 1.0 and row["update_ms_p95"] for row in table)
    assert figure.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert main([*ARGS, "--out", str(out), "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert len(rows) == len(table) and rows[0]["memory"] == "full-history" and rows[0]["trajectories"] == [TRAJECTORY]


def test_grouped_by_backend_and_trajectories_named_in_help(recorded, tmp_path, capsys):
    out = tmp_path / "bench.jsonl"
    shutil.copy(recorded[0], out)
    assert main([*ARGS, "--out", str(out), "--by", "backend", "--quiet"]) == 0
    captured = capsys.readouterr()
    assert captured.out.startswith(f"backend twx: {TRAJECTORY}\n") and captured.err.count("\n") == 1
    assert main([*ARGS, "--out", str(out), "--by", "matrix", "--quiet"]) == 0
    matrix = capsys.readouterr().out.splitlines()
    assert matrix[0] == "| memory | kind | twx |" and matrix[-1].startswith("Cells: R/FM (n) at 1024 tokens")
    assert {line.split(" | ")[0].lstrip("| ") for line in matrix[2:-2]} == set(MEMORIES)
    with pytest.raises(SystemExit):
        main(["memory-bench", "--help"])
    shown = "".join(capsys.readouterr().out.split())  # argparse wraps lines at hyphens
    assert all(t.name in shown for t in load_trajectories())
    assert main(["list", "bench"]) == 0
    listed = capsys.readouterr().out
    assert all(t.name in listed for t in load_trajectories())


def test_unknown_memory_or_option_is_one_line(capsys):
    assert main(["memory-bench", "--memories", "no-such-memory", "--trajectories", TRAJECTORY]) == 2
    assert "no-such-memory" in capsys.readouterr().err
    assert main(["memory-bench", "--memories", "bm25", "--memory-options", '{"bm25": {"kk": 1}}']) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "'kk'" in err and "k1" in err


def test_a_trajectory_that_cannot_be_played_here_stops_the_bench_before_any_work(tmp_path, monkeypatch, capsys):
    """A missing Jericho ROM (no ROM directory, an empty cache, a mirror that refuses) is one line and
    exit 2, before the playable trajectory listed first is probed and before anything is written."""
    monkeypatch.delenv("TEXTMEM_ROMS_DIR", raising=False)
    monkeypatch.setenv("TEXTMEM_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("TEXTMEM_ROMS_URL", "http://127.0.0.1:9/roms")
    out = tmp_path / "bench.jsonl"
    status = main(["memory-bench", "--memories", "full-history", "--trajectories",
                   "twx-coin-short,jericho-zork1-short", "--out", str(out), "--quiet"])
    captured = capsys.readouterr()
    assert status == 2 and not out.exists()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and "jericho-zork1-short" in lines[0] and "zork1.z5" in lines[0]
    assert "twx-coin-short" not in captured.err and captured.out == ""
