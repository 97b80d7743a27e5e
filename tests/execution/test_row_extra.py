"""``evaluate(row_extra=...)``: fields the driver adds to results rows (written, never sent to a worker)."""

from __future__ import annotations

import os

import textmem_gym
from textmem_gym.results import ResultsFile

ENV = "TextMem/CookingRL-L1-v0"


def test_row_extra_is_computed_by_the_driver_written_to_the_file_and_kept_on_resume(tmp_path):
    out, calls = tmp_path / "r.jsonl", []

    def extra(env_id, game_seed):  # a closure: could not be pickled to a worker
        calls.append(os.getpid())
        return {"walkthrough_steps": 8, "winnable": game_seed != 57138, "steps": -1}

    results = textmem_gym.evaluate(ENV, "random", textmem_gym.EvalConfig(episodes=2, max_steps=3, out=out, game_seeds=[57137, 57138],
                                   workers=2, row_extra=extra))
    assert set(calls) == {os.getpid()} and len(calls) >= 4
    written = sorted(ResultsFile(out).read(), key=lambda r: (r["game_seed"], r["seed"]))
    assert [(r["game_seed"], r["winnable"], r["walkthrough_steps"]) for r in written] == [
        (57137, True, 8), (57137, True, 8), (57138, False, 8), (57138, False, 8)]
    assert {r["steps"] for r in written} == {3}  # a field the result has is never replaced
    assert sorted(results, key=lambda r: (r["game_seed"], r["seed"])) == written

    again = textmem_gym.evaluate(ENV, "random", textmem_gym.EvalConfig(episodes=2, max_steps=3, out=out, game_seeds=[57137, 57138],
                                 row_extra={(ENV, 57137): {"note": "resumed"}}))
    assert len(ResultsFile(out).read()) == 4  # nothing re-run or rewritten
    assert [r.get("note") for r in again] == ["resumed", "resumed", None, None]
