"""Local worker processes: same results as one process, resume, multi-trial groups, dead workers, errors."""

from __future__ import annotations

import pytest

import textmem_gym
from policies import make_policy
from tests.execution.agents import CountingResponder
from textmem_gym.core.errors import PolicyNotReady, RunAborted
from textmem_gym.execution import EpisodeFailed
from textmem_gym.llm import LocalOpenAIServer
from textmem_gym.results import ResultsFile

ENV = "TextMem/CookingRL-L1-v0"


def rows(results: list[dict]) -> list[dict]:
    """Results rows without their wall times (the only field allowed to differ)."""
    return [{k: v for k, v in r.items() if k != "wall_time_s"} for r in results]


def test_workers_give_the_same_results_as_one_process_and_resume(tmp_path):
    out = tmp_path / "r.jsonl"
    reference = textmem_gym.evaluate(ENV, "random", textmem_gym.EvalConfig(episodes=6, seed=4, max_steps=12))
    textmem_gym.evaluate(ENV, "random", textmem_gym.EvalConfig(episodes=2, seed=4, max_steps=12, out=out))
    resumed = textmem_gym.evaluate(ENV, "random", textmem_gym.EvalConfig(episodes=6, seed=4, max_steps=12, out=out, workers=3))
    assert rows(resumed) == rows(reference)
    written = ResultsFile(out).read()
    assert sorted(r["seed"] for r in written) == list(range(4, 10))  # each episode exactly once
    assert rows(sorted(written, key=lambda r: r["seed"])) == rows(reference)


def test_a_policy_object_needs_one_worker():
    with pytest.raises(ValueError, match="workers=1"):
        textmem_gym.evaluate(ENV, make_policy("random"), textmem_gym.EvalConfig(workers=2))


def test_trials_of_a_game_play_in_order_in_one_worker_and_resume_replays_earlier_ones(tmp_path):
    spec, out = "tests.execution.agents:Trials", tmp_path / "r.jsonl"
    textmem_gym.evaluate(ENV, spec, textmem_gym.EvalConfig(episodes=2, max_steps=2, out=out, workers=2))
    results = textmem_gym.evaluate([ENV, "TextMem/Cooking-v0"], spec, textmem_gym.EvalConfig(episodes=3, max_steps=2, out=out, workers=2))
    assert [(r["env_id"], r["policy_stats"]["trial"]) for r in results] == \
        [(ENV, 0), (ENV, 1), (ENV, 2), ("TextMem/Cooking-v0", 0), ("TextMem/Cooking-v0", 1), ("TextMem/Cooking-v0", 2)]
    assert len(ResultsFile(out).read()) == 6


def test_a_task_whose_worker_dies_is_played_again_and_written_once(tmp_path):
    out = tmp_path / "r.jsonl"
    kwargs = {"marker_dir": str(tmp_path), "crash_seed": 2}
    results = textmem_gym.evaluate(ENV, "tests.execution.agents:CrashOnce", textmem_gym.EvalConfig(episodes=4, max_steps=3, out=out,
                                   workers=2, policy_kwargs=kwargs))
    assert (tmp_path / "crashed-2").exists()  # the worker did die
    assert [r["seed"] for r in results] == [0, 1, 2, 3] and all(r["steps"] == 3 for r in results)
    assert sorted(r["seed"] for r in ResultsFile(out).read()) == [0, 1, 2, 3]


def test_an_episode_error_names_the_episode_and_keeps_finished_ones(tmp_path):
    with pytest.raises(EpisodeFailed, match="broken policy"):
        textmem_gym.evaluate(ENV, "tests.execution.agents:Broken", textmem_gym.EvalConfig(episodes=2, max_steps=2, workers=2,
                             out=tmp_path / "r.jsonl"))


def test_one_request_limit_holds_across_worker_processes():
    responder = CountingResponder(0.1)
    with LocalOpenAIServer(responder=responder) as server:
        results = textmem_gym.evaluate(ENV, "tests.execution.agents:OneCall", textmem_gym.EvalConfig(episodes=8, max_steps=3, workers=4,
                                       max_concurrent_requests=2, policy_kwargs={"base_url": server.base_url}))
        assert server.calls == 24 and len(results) == 8
    assert responder.most == 2  # 4 workers, each free to send: the shared limit held them to 2


def test_workers_write_each_episodes_trajectory_named_by_its_key(tmp_path):
    from textmem_gym.trajectories import read_trajectory, trajectory_path

    results = textmem_gym.evaluate(ENV, "random", textmem_gym.EvalConfig(episodes=2, max_steps=3, workers=2, trajectories=tmp_path / "t",
                                   trajectory_prompts="keys"))
    for row in results:
        path = trajectory_path(tmp_path / "t", row)
        assert row["trajectory"] == str(path) and read_trajectory(path).complete
        assert len(read_trajectory(path).steps) == row["steps"]


def test_a_policy_that_is_not_ready_stops_the_run_before_anything_is_played(tmp_path):
    out = tmp_path / "r.jsonl"
    for workers in (1, 2):
        with pytest.raises(PolicyNotReady, match=r"^no LLM server answers at http://127.0.0.1:9/v1$"):
            textmem_gym.evaluate(ENV, "tests.execution.agents:NotReady",
                                 textmem_gym.EvalConfig(episodes=2, max_steps=2, workers=workers, out=out))
        assert not out.exists()


@pytest.mark.parametrize("workers", [1, 2])
def test_a_run_aborted_midway_keeps_finished_rows_and_resumes(tmp_path, workers):
    out, marker = tmp_path / "r.jsonl", tmp_path / "endpoint-back"
    config = textmem_gym.EvalConfig(episodes=4, max_steps=2, workers=workers, out=out,
                                    policy_kwargs={"abort_seed": 2, "marker": str(marker)})
    with pytest.raises(RunAborted, match="stopped answering"):
        textmem_gym.evaluate(ENV, "tests.execution.agents:AbortAt", config)
    finished = sorted(r["seed"] for r in ResultsFile(out).read())
    # played before the abort: kept (with workers, the other worker's episode may have been cut off too)
    assert finished == [0, 1] if workers == 1 else (2 not in finished and 0 < len(finished) < 4)
    marker.touch()  # the endpoint is back: the re-run plays only what is missing
    results = textmem_gym.evaluate(ENV, "tests.execution.agents:AbortAt", config)
    assert [r["seed"] for r in results] == [0, 1, 2, 3]
    assert sorted(r["seed"] for r in ResultsFile(out).read()) == [0, 1, 2, 3]  # nothing written twice
