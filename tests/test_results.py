"""Results file: durable appends, incomplete tails, summaries."""

from __future__ import annotations

import json
import multiprocessing

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
