"""Results file: durable appends, incomplete tails, summaries."""

from __future__ import annotations

import json
import multiprocessing
import random
import statistics

import pytest

from textmem_gym.results import ResultsFile, format_table, summarize


def _result(env_id="E", policy="p", seed=0, score=0.5, won=False, steps=10, **extra):
    return {"env_id": env_id, "policy": policy, "seed": seed, "episode": seed, "game_seed": None,
            "normalized_score": score, "won": won, "steps": steps, **extra}


def test_incomplete_last_line_is_ignored_and_cut_before_the_next_append(tmp_path):
    path = tmp_path / "r.jsonl"
    store = ResultsFile(path)
    store.append(_result(seed=0))
    with path.open("a") as handle:
        handle.write('{"env_id": "E", "policy": "p", "se')  # a crash mid-write
    assert [r["seed"] for r in store.read()] == [0]
    store.append(_result(seed=1))
    lines = path.read_text().splitlines()
    assert [json.loads(line)["seed"] for line in lines] == [0, 1]


def _append_many(path, worker):
    store = ResultsFile(path)
    for i in range(25):
        store.append(_result(seed=worker * 100 + i, note="x" * 2000))


def test_concurrent_appends_from_processes_keep_every_line_whole(tmp_path):
    path = tmp_path / "r.jsonl"
    procs = [multiprocessing.Process(target=_append_many, args=(path, w)) for w in range(4)]
    for proc in procs:
        proc.start()
    for proc in procs:
        proc.join(60)
    results = ResultsFile(path).read()
    assert len(results) == 100
    assert len({r["seed"] for r in results}) == 100
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.jsonl"]  # no r.jsonl.lock left beside it


def _locked_counter(path, rounds):
    """Read-modify-write of a counter under the results file's lock: a lost update means two holders."""
    from textmem_gym.locking import TidyLock

    lock = TidyLock(path)
    for _ in range(rounds):
        with lock:
            value = int(path.read_text() or 0)
            path.write_text(str(value + 1))


def test_the_lock_excludes_writers_although_its_file_is_removed_after_each_hold(tmp_path):
    """Waiters that opened a lock file its holder then removed try again on the new one: never two holders."""
    path = tmp_path / "counter"
    path.write_text("0")
    procs = [multiprocessing.Process(target=_locked_counter, args=(path, 200)) for _ in range(4)]
    for proc in procs:
        proc.start()
    for proc in procs:
        proc.join(120)
    assert [proc.exitcode for proc in procs] == [0, 0, 0, 0]
    assert path.read_text() == "800"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["counter"]


def test_a_dropped_run_leaves_no_lock_or_scratch_file(tmp_path):
    store = ResultsFile(tmp_path / "r.jsonl")
    store.append(_result(seed=0))
    store.append(_result(seed=1))
    assert store.drop({("E", "p", 0, 0, None, None)}) == 1
    assert [r["seed"] for r in store.read()] == [1]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.jsonl"]


def test_summary_groups_by_env_and_policy():
    rows = summarize([_result(score=1.0, won=True, steps=4), _result(score=0.0, steps=8),
                      _result(policy="q", score=0.25, policy_stats={"prompt_tokens": 100})])
    by_policy = {r["policy"]: r for r in rows}
    assert by_policy["p"]["score_mean"] == pytest.approx(0.5)
    assert by_policy["p"]["score_std"] == pytest.approx(0.5)
    assert by_policy["p"]["success_rate"] == pytest.approx(0.5)
    assert by_policy["p"]["steps_mean"] == pytest.approx(6.0)
    assert by_policy["q"]["prompt_tokens_mean"] == pytest.approx(100)
    table = format_table(rows)
    assert "| E | p | 2 | 0.500 ± 0.500 | 0.50 | 6.0 |" in table
    assert "prompt_tokens" in table.splitlines()[0]


def test_best_k_of_n_takes_each_instances_best_attempts_then_pools_them():
    rng = random.Random(3)
    attempts = {seed: [round(rng.random(), 3) for _ in range(5)] for seed in (10, 11)}
    results = [_result(score=s, seed=i, game_seed=g) for g, scores in attempts.items() for i, s in enumerate(scores)]
    row = summarize(results, best_of=(3, 5))[0]
    best = [s for scores in attempts.values() for s in sorted(scores)[-3:]]
    assert row["score_best_mean"] == pytest.approx(sum(best) / 6)
    assert row["score_best_std"] == pytest.approx(statistics.pstdev(best))
    assert row["score_mean"] == pytest.approx(sum(sum(s) for s in attempts.values()) / 10)
    assert row["score_best_mean"] >= row["score_mean"] and row["best_of"] == "3 of 5"
    table = format_table([row])
    assert "best 3 of 5" in table.splitlines()[0] and f"{row['score_best_mean']:.3f}" in table


def test_best_k_of_n_with_fewer_attempts_keeps_them_all_and_bad_k_is_refused():
    row = summarize([_result(score=0.2, seed=0), _result(score=0.6, seed=1)], best_of=(3, 5))[0]
    assert row["score_best_mean"] == pytest.approx(0.4)
    for bad in [(0, 5), (6, 5), 3]:
        with pytest.raises(ValueError, match="best_of"):
            summarize([_result()], best_of=bad)


def test_unwinnable_instances_are_counted_once_each_and_shown():
    results = [_result(seed=i, game_seed=g, winnable=w) for g, w in ((1, True), (2, False), (3, False)) for i in (0, 1)]
    row = summarize(results)[0]
    assert (row["instances"], row["unwinnable_instances"]) == (3, 2)
    assert "2 of 3" in format_table([row]) and "unwinnable" in format_table([row]).splitlines()[0]
    assert "unwinnable" not in format_table(summarize([_result()]))


def test_nethack_rows_show_the_deepest_dungeon_level_mean_and_std(tmp_path):
    from textmem_gym.report import summary_table
    from textmem_gym.runner import EvalConfig, evaluate

    pytest.importorskip("nle")
    out = tmp_path / "nethack.jsonl"
    evaluate("TextMem/NetHack-RoomObs-v0", "netplay-heuristic", EvalConfig(episodes=2, max_steps=10, out=out, progress=False))
    levels = [r["max_dungeon_level"] for r in ResultsFile(out).read()]
    assert len(levels) == 2 and all(level >= 1 for level in levels)
    row = summarize(ResultsFile(out).read())[0]
    assert (row["max_dungeon_level_mean"], row["max_dungeon_level_std"]) == (statistics.fmean(levels),
                                                                             statistics.pstdev(levels))
    table = format_table([row])
    assert table.splitlines()[0].endswith("| deepest level | BALROG progression % |")
    assert f"| {statistics.fmean(levels):.2f} ± {statistics.pstdev(levels):.2f} |" in table
    assert "<th>deepest level</th>" in summary_table([row])
    assert "max_dungeon_level_std" not in summary_table([row])
    # rows without the field (other backends) add no column; a mixed table shows "-" for them
    assert "deepest level" not in format_table(summarize([_result()]))
    assert format_table(summarize([_result(), *ResultsFile(out).read()])).splitlines()[2].endswith("| - |")
