"""The shared request limit: leases per endpoint, freed by owner or when they lapse."""

from __future__ import annotations

import threading

from textmem_gym.execution.limits import EndpointLimits
from textmem_gym.llm.client import installed, request_slot


def test_a_dead_owners_leases_are_freed_and_lapsed_leases_do_not_count():
    limits = EndpointLimits(2)
    limits.acquire("http://a/v1", "dead", lease_s=60, wait_s=0)
    limits.acquire("http://a/v1", "dead", lease_s=60, wait_s=0)
    assert limits.acquire("http://a/v1", "alive", lease_s=60, wait_s=0) is None
    assert limits.acquire("http://b/v1", "alive", lease_s=60, wait_s=0) is not None  # another endpoint
    assert limits.release_owner("dead") == 2 and limits.in_flight("http://a/v1") == 0
    limits.acquire("http://a/v1", "gone", lease_s=0, wait_s=0)  # lapses at once
    assert limits.in_flight("http://a/v1") == 0 and limits.peak("http://a/v1") == 2


def test_request_slots_of_many_threads_never_exceed_the_limit():
    limits, inside, most, lock = EndpointLimits(3), [0], [0], threading.Lock()

    def request() -> None:
        with request_slot("http://a/v1", attempt_timeout=30):
            with lock:
                inside[0] += 1
                most[0] = max(most[0], inside[0])
            threading.Event().wait(0.01)
            with lock:
                inside[0] -= 1

    with installed(limits, "test"):
        threads = [threading.Thread(target=request) for _ in range(12)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert most[0] == 3 and limits.in_flight("http://a/v1") == 0
