"""The shared request limit: leases per endpoint, freed by owner or when they lapse, taken by the clients given
the limits (and only by them: nothing is installed per process)."""

from __future__ import annotations

import asyncio
import threading

from policies import make_policy
from tests.execution.agents import CountingResponder
from textmem_gym.execution.limits import EndpointLimits
from textmem_gym.execution.tasks import RunConfig, plan_tasks, run_task
from textmem_gym.llm import LLMClient, LocalOpenAIServer, RequestLimits
from textmem_gym.results import config_id

USER = [{"role": "user", "content": "What now?"}]


def test_a_dead_owners_leases_are_freed_and_lapsed_leases_do_not_count():
    limits = EndpointLimits(2)
    limits.acquire("http://a/v1", "dead", lease_s=60, wait_s=0)
    limits.acquire("http://a/v1", "dead", lease_s=60, wait_s=0)
    assert limits.acquire("http://a/v1", "alive", lease_s=60, wait_s=0) is None
    assert limits.acquire("http://b/v1", "alive", lease_s=60, wait_s=0) is not None  # another endpoint
    assert limits.release_owner("dead") == 2 and limits.in_flight("http://a/v1") == 0
    limits.acquire("http://a/v1", "gone", lease_s=0, wait_s=0)  # lapses at once
    assert limits.in_flight("http://a/v1") == 0 and limits.peak("http://a/v1") == 2


def test_leases_of_many_threads_never_exceed_the_limit():
    shared, inside, most, lock = EndpointLimits(3), [0], [0], threading.Lock()
    limits = RequestLimits(shared, owner="test")

    def request() -> None:
        with limits.lease("http://a/v1", attempt_timeout=30):
            with lock:
                inside[0] += 1
                most[0] = max(most[0], inside[0])
            threading.Event().wait(0.01)
            with lock:
                inside[0] -= 1

    threads = [threading.Thread(target=request) for _ in range(12)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert most[0] == 3 and shared.in_flight("http://a/v1") == 0


def test_a_client_given_the_limits_holds_a_lease_per_attempt_and_one_without_is_free():
    responder, shared = CountingResponder(0.05), EndpointLimits(1)
    with LocalOpenAIServer(responder=responder) as server:
        limited = LLMClient(model="m", base_url=server.base_url, concurrency=4,
                            limits=RequestLimits(shared, owner="test"))
        assert limited.chat_many([USER] * 6) and responder.most == 1  # 4 threads, held to the shared 1
        assert shared.peak(server.base_url) == 1 and shared.in_flight(server.base_url) == 0
        free = LLMClient(model="m", base_url=server.base_url, concurrency=4)  # the same process, no limits given
        free.chat_many([USER] * 8)
    assert responder.most > 1 and shared.peak(server.base_url) == 1


def test_async_calls_take_their_leases_off_the_event_loop():
    responder, shared = CountingResponder(0.05), EndpointLimits(1)
    with LocalOpenAIServer(responder=responder) as server:
        client = LLMClient(model="m", base_url=server.base_url, limits=RequestLimits(shared, owner="test"))

        async def many() -> list[str]:
            results = await asyncio.gather(*(client.achat(USER) for _ in range(4)))
            await client.aclose()
            return [result.text for result in results]

        assert asyncio.run(many()) == ["ok"] * 4
    assert responder.most == 1 and shared.peak(server.base_url) == 1


def test_run_task_gives_the_limits_to_a_policy_that_names_them_and_builds_others_as_they_are():
    shared = EndpointLimits(1)
    tasks = plan_tasks(["TextMem/CookingRL-L1-v0"], [None], episodes=1, seed=0, multi_trial=False)
    with LocalOpenAIServer(responder=CountingResponder(0.0)) as server:
        config = RunConfig.build("tests.execution.agents:OneCall", {"base_url": server.base_url}, max_steps=2,
                                 in_process=True)
        rows = run_task(config, tasks[0], limits=RequestLimits(shared, owner="driver"))
        assert server.calls == 2
    assert rows[0]["steps"] == 2 and shared.peak(server.base_url) == 1  # its calls held leases
    random_rows = run_task(RunConfig.build("random", max_steps=2, in_process=True), tasks[0],
                           limits=RequestLimits(shared, owner="driver"))  # RandomPolicy takes no limits
    assert random_rows[0]["steps"] == 2


def test_a_library_llm_policy_hands_the_limits_to_its_client_and_records_none_of_them():
    shared = EndpointLimits(1)
    tasks = plan_tasks(["TextMem/CookingRL-L1-v0"], [None], episodes=1, seed=0, multi_trial=False, policy="react",
                       config=config_id(make_policy("react", model="m").policy_config()))
    with LocalOpenAIServer(responder=CountingResponder(0.0)) as server:
        config = RunConfig.build("react", {"model": "m", "base_url": server.base_url}, max_steps=2, in_process=True)
        limited = run_task(config, tasks[0], limits=RequestLimits(shared, owner="driver"))
        assert server.calls > 0 and shared.peak(server.base_url) == 1  # its client took a lease per attempt
        free = run_task(config, tasks[0])
    assert limited[0]["policy_config"] == free[0]["policy_config"]
    assert limited[0]["policy_stats"]["calls"] == free[0]["policy_stats"]["calls"] > 0
