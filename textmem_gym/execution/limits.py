"""One limit on requests in flight per LLM endpoint, shared by every process of an evaluation.

:class:`EndpointLimits` hands out *leases*: at most ``limit`` requests to one endpoint (its
``base_url``) hold a lease at once. A parallel evaluation keeps one ``EndpointLimits`` where
every worker can reach it (a :mod:`multiprocessing` manager for local workers, a Ray actor for
Ray tasks); each worker hands it, as a :class:`~textmem_gym.llm.slots.RequestLimits` naming the
worker, to the policy it builds (:func:`~textmem_gym.execution.tasks.run_task`), whose
:class:`~textmem_gym.llm.LLMClient` (``limits=``) then takes a lease around every HTTP attempt
(:meth:`~textmem_gym.llm.slots.RequestLimits.lease`), on top of its own per-process ``concurrency``.
Retries and 429 back-off still happen in the client, outside the lease (waiting holds no slot).

A lease names its owner (a worker) and expires after the attempt's timeout plus a margin, so a
worker that dies during a request cannot hold its slot forever: the local pool frees a dead
worker's leases at once (:meth:`EndpointLimits.release_owner`), and otherwise the lease lapses.

Example:
    >>> limits = EndpointLimits(1)
    >>> first = limits.acquire("http://h/v1", "worker-1", lease_s=30, wait_s=0)
    >>> limits.acquire("http://h/v1/", "worker-2", lease_s=30, wait_s=0) is None  # same endpoint: full
    True
    >>> limits.release(first)
    >>> limits.acquire("http://h/v1", "worker-2", lease_s=30, wait_s=0) is not None
    True
"""

from __future__ import annotations

import itertools
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from textmem_gym.llm.slots import DEFAULT_CONCURRENCY


def endpoint_key(base_url: str) -> str:
    """The endpoint a limit applies to: ``base_url`` without a trailing slash, case-folded host.

    Example:
        >>> endpoint_key("HTTP://Localhost:8000/v1/")
        'http://localhost:8000/v1'
    """
    scheme, sep, rest = base_url.strip().partition("://")
    host, slash, path = rest.partition("/")
    return f"{scheme.lower()}{sep}{host.lower()}{slash}{path}".rstrip("/")


@dataclass
class _Lease:
    endpoint: str
    owner: str
    expires: float


class EndpointLimits:
    """At most ``limit`` leases per endpoint at once (thread-safe; share it through a proxy).

    Args:
        limit: Requests in flight allowed per endpoint.
    """

    def __init__(self, limit: int) -> None:
        if not isinstance(limit, int) or limit < 1:
            raise ValueError(f"the request limit must be an int >= 1, got {limit!r}")
        self.limit = limit
        self._leases: dict[int, _Lease] = {}
        self._peaks: dict[str, int] = {}
        self._tokens = itertools.count(1)
        self._changed = threading.Condition()

    def acquire(self, endpoint: str, owner: str, lease_s: float, wait_s: float) -> int | None:
        """Takes a lease on ``endpoint`` for ``owner``, waiting at most ``wait_s`` seconds.

        Returns:
            The lease's token (give it to :meth:`release`), or ``None`` if none came free in time.
        """
        endpoint = endpoint_key(endpoint)
        deadline = time.monotonic() + max(0.0, wait_s)
        with self._changed:
            while True:
                now = time.monotonic()
                self._expire(now)
                held = self._held(endpoint)
                if held < self.limit:
                    token = next(self._tokens)
                    self._leases[token] = _Lease(endpoint, owner, now + lease_s)
                    self._peaks[endpoint] = max(self._peaks.get(endpoint, 0), held + 1)
                    return token
                if now >= deadline:
                    return None
                next_expiry = min(lease.expires for lease in self._leases.values() if lease.endpoint == endpoint)
                self._changed.wait(max(0.001, min(deadline, next_expiry) - now))

    def release(self, token: int) -> None:
        """Ends a lease (a lease already expired or freed is ignored)."""
        with self._changed:
            if self._leases.pop(token, None) is not None:
                self._changed.notify_all()

    def release_owner(self, owner: str) -> int:
        """Ends every lease ``owner`` holds (its process died); returns how many."""
        with self._changed:
            tokens = [token for token, lease in self._leases.items() if lease.owner == owner]
            for token in tokens:
                del self._leases[token]
            if tokens:
                self._changed.notify_all()
            return len(tokens)

    def in_flight(self, endpoint: str) -> int:
        """Leases held now on ``endpoint``."""
        with self._changed:
            self._expire(time.monotonic())
            return self._held(endpoint_key(endpoint))

    def peak(self, endpoint: str) -> int:
        """Most leases ever held at once on ``endpoint``."""
        with self._changed:
            return self._peaks.get(endpoint_key(endpoint), 0)

    def _held(self, endpoint: str) -> int:
        return sum(1 for lease in self._leases.values() if lease.endpoint == endpoint)

    def _expire(self, now: float) -> None:
        for token in [t for t, lease in self._leases.items() if lease.expires <= now]:
            del self._leases[token]


def default_request_limit(policy_kwargs: Mapping[str, Any] | None = None) -> int:
    """The request limit when none is given: the policy's ``concurrency`` argument, else the client's default.

    Example:
        >>> default_request_limit({"concurrency": 3}), default_request_limit() >= 1
        (3, True)
    """
    given = (policy_kwargs or {}).get("concurrency")
    return given if isinstance(given, int) and given >= 1 else DEFAULT_CONCURRENCY


__all__ = ["EndpointLimits", "default_request_limit", "endpoint_key"]
