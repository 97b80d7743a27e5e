"""Request slots: how many requests a client may have in flight, alone and with the other processes of a run.

Two limits hold every HTTP attempt of an :class:`~textmem_gym.llm.LLMClient`:

* its own ``concurrency`` (default :data:`DEFAULT_CONCURRENCY`): requests in flight in this process
  (separately for blocking calls and for each event loop);
* the shared limits of an evaluation, when the client is given them (``LLMClient(limits=...)``): a
  :class:`RequestLimits` names the shared :class:`Limiter` (an
  :class:`~textmem_gym.execution.limits.EndpointLimits`, a proxy to it, or a Ray handle) and this
  process, and each attempt holds a *lease* on its endpoint (:meth:`RequestLimits.lease`) for as long
  as it runs. Retries and 429 back-off wait outside the lease (waiting holds no slot).

Nothing is installed per process: a client without ``limits`` is limited by its ``concurrency`` alone,
and a run hands its limits to the policies it builds (see :func:`textmem_gym.execution.tasks.run_task`).

Example:
    >>> from textmem_gym.execution.limits import EndpointLimits
    >>> shared = EndpointLimits(1)
    >>> limits = RequestLimits(shared, owner="worker-1")
    >>> with limits.lease("http://h/v1", attempt_timeout=30):
    ...     shared.in_flight("http://h/v1")
    1
    >>> shared.in_flight("http://h/v1")
    0
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass
from typing import Protocol

#: Requests in flight per process when no limit is given (``LLMClient(concurrency=...)``'s default).
DEFAULT_CONCURRENCY = 8
#: A lease outlives the HTTP attempt it covers by this many seconds (the attempt's own timeout
#: ends it earlier; a lease left by a dead holder lapses after timeout + margin).
LEASE_MARGIN_S = 5.0
#: Longest single wait inside the shared limiter before the caller asks again (keeps a waiting
#: request from pinning a remote call forever).
WAIT_CHUNK_S = 1.0


class Limiter(Protocol):
    """What a worker needs of the shared limits (an :class:`~textmem_gym.execution.limits.EndpointLimits`, a proxy,
    or a Ray handle)."""

    def acquire(self, endpoint: str, owner: str, lease_s: float, wait_s: float) -> int | None:
        """See :meth:`~textmem_gym.execution.limits.EndpointLimits.acquire`."""

    def release(self, token: int) -> None:
        """See :meth:`~textmem_gym.execution.limits.EndpointLimits.release`."""


@dataclass(frozen=True)
class RequestLimits:
    """The shared request limits of a run, as one process takes part in them (picklable when the limiter is).

    Attributes:
        limiter: The shared limits.
        owner: Names this process in its leases (so they can be freed if it dies).
    """

    limiter: Limiter
    owner: str

    @contextmanager
    def lease(self, base_url: str, attempt_timeout: float) -> Iterator[None]:
        """Holds a lease on ``base_url`` for one HTTP attempt of at most ``attempt_timeout`` seconds."""
        token = self._take(base_url, attempt_timeout)
        try:
            yield
        finally:
            self.limiter.release(token)

    @asynccontextmanager
    async def alease(self, base_url: str, attempt_timeout: float) -> AsyncIterator[None]:
        """Async :meth:`lease` (the shared limiter is asked from a thread, never blocking the loop)."""
        token = await asyncio.to_thread(self._take, base_url, attempt_timeout)
        try:
            yield
        finally:
            await asyncio.to_thread(self.limiter.release, token)

    def _take(self, base_url: str, attempt_timeout: float) -> int:
        """Waits (blocking) for a lease on ``base_url`` and returns its token."""
        token = None
        while token is None:
            token = self.limiter.acquire(base_url, self.owner, attempt_timeout + LEASE_MARGIN_S, WAIT_CHUNK_S)
        return token


__all__ = ["DEFAULT_CONCURRENCY", "LEASE_MARGIN_S", "Limiter", "RequestLimits", "WAIT_CHUNK_S"]
