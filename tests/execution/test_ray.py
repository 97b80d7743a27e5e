"""The Ray backend on a real local Ray instance (2 CPUs): same results and resume, retried dead workers,
the request limit in a Ray actor."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

import textmem_gym
from tests.execution.agents import CountingResponder
from textmem_gym.llm import LocalOpenAIServer
from textmem_gym.results import ResultsFile

ray = pytest.importorskip("ray")
ENV = "TextMem/CookingRL-L1-v0"


@pytest.fixture(scope="module", autouse=True)
def local_ray() -> Iterator[None]:
    """One local Ray instance for this module, shut down after."""
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


def rows(results: list[dict]) -> list[dict]:
    return [{k: v for k, v in r.items() if k != "wall_time_s"} for r in results]


def test_ray_tasks_give_the_same_results_as_one_process_and_resume(tmp_path):
    out = tmp_path / "r.jsonl"
    reference = textmem_gym.evaluate(ENV, "random", textmem_gym.EvalConfig(episodes=4, seed=2, max_steps=10))
    textmem_gym.evaluate(ENV, "random", textmem_gym.EvalConfig(episodes=1, seed=2, max_steps=10, out=out))
    resumed = textmem_gym.evaluate(ENV, "random", textmem_gym.EvalConfig(episodes=4, seed=2, max_steps=10, out=out, backend="ray", workers=2))
    assert rows(resumed) == rows(reference)
    assert sorted(r["seed"] for r in ResultsFile(out).read()) == [2, 3, 4, 5]
    assert ray.is_initialized()  # a Ray instance it did not start is left running


def test_a_ray_task_whose_worker_dies_is_retried_and_written_once(tmp_path):
    out = tmp_path / "r.jsonl"
    results = textmem_gym.evaluate(ENV, "tests.execution.agents:CrashOnce", textmem_gym.EvalConfig(episodes=3, max_steps=2, out=out,
                                   backend="ray", workers=2,
                                   policy_kwargs={"marker_dir": str(tmp_path), "crash_seed": 1}))
    assert (tmp_path / "crashed-1").exists()
    assert [r["seed"] for r in results] == [0, 1, 2] and all(r["steps"] == 2 for r in results)
    assert sorted(r["seed"] for r in ResultsFile(out).read()) == [0, 1, 2]


def test_the_request_limit_holds_across_ray_tasks():
    responder = CountingResponder(0.1)
    with LocalOpenAIServer(responder=responder) as server:
        textmem_gym.evaluate(ENV, "tests.execution.agents:OneCall", textmem_gym.EvalConfig(episodes=4, max_steps=3, backend="ray",
                             workers=2, max_concurrent_requests=1, policy_kwargs={"base_url": server.base_url}))
        assert server.calls == 12
    assert responder.most == 1
