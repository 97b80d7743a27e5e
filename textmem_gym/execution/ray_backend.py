"""The Ray backend: the same :class:`~textmem_gym.execution.tasks.EpisodeTask`\\ s as Ray tasks.

Runs on a local Ray instance (started here with ``workers`` logical CPUs and shut down after)
or on an existing cluster (``address="auto"`` or ``"HOST:PORT"``; it is left running). At most
``workers`` tasks are in flight; each task asks for ``task_cpus`` CPUs. A task whose worker
process (or node) dies is retried by Ray (``max_retries``); the driver writes a task's rows only
when it completes, and drops rows whose key it already has, so no episode is written twice.

The request limit is one :class:`~textmem_gym.execution.limits.EndpointLimits` inside a small threaded
Ray actor; each task passes a :class:`RayLimits` handle to it to the policy it builds. A lease held by a
worker that died lapses after the request's timeout plus :data:`~textmem_gym.llm.slots.LEASE_MARGIN_S`.

Needs the optional extra: ``pip install "textmem-gym[ray]"``.
"""

from __future__ import annotations

import os
import socket
from collections import deque
from collections.abc import Iterable, Iterator
from typing import Any

from textmem_gym.core.errors import RunAborted
from textmem_gym.execution.limits import EndpointLimits
from textmem_gym.execution.local import EpisodeFailed, WorkerLost
from textmem_gym.execution.tasks import EpisodeTask, RunConfig, run_task
from textmem_gym.llm.slots import RequestLimits

Rows = list[dict[str, Any]]
#: Threads of the limits actor (requests waiting for a lease each hold one for up to a second).
LIMITS_ACTOR_THREADS = 256


def import_ray() -> Any:
    """The ``ray`` module, or a clear error naming the extra that installs it."""
    try:
        import ray
    except ImportError:
        raise ValueError('the Ray backend needs Ray: pip install "textmem-gym[ray]"') from None
    return ray


class RayLimits:
    """A worker's handle on the limits actor, with the :class:`~textmem_gym.llm.slots.Limiter` methods."""

    def __init__(self, actor: Any) -> None:
        self.actor = actor

    def acquire(self, endpoint: str, owner: str, lease_s: float, wait_s: float) -> int | None:
        """See :meth:`EndpointLimits.acquire`."""
        ray = import_ray()
        token: int | None = ray.get(self.actor.acquire.remote(endpoint, owner, lease_s, wait_s))
        return token

    def release(self, token: int) -> None:
        """See :meth:`EndpointLimits.release`."""
        import_ray().get(self.actor.release.remote(token))

    def peak(self, endpoint: str) -> int:
        """See :meth:`EndpointLimits.peak`."""
        peak: int = import_ray().get(self.actor.peak.remote(endpoint))
        return peak


def _play_remote(config: RunConfig, task: EpisodeTask, limits: RayLimits | None) -> Rows:
    """The body of each Ray task."""
    shared = None if limits is None else RequestLimits(limits, f"ray-{socket.gethostname()}-{os.getpid()}")
    return run_task(config, task, limits=shared)


class RayRunner:
    """Plays tasks as Ray tasks.

    Args:
        config: How the tasks build policies and envs.
        workers: Tasks in flight at once (and the CPUs of a Ray instance started here).
        address: An existing cluster (``"auto"``, ``"HOST:PORT"``, ``"ray://HOST:PORT"``); ``None``
            starts a local instance, unless this process is already connected to one.
        request_limit: Requests in flight allowed per LLM endpoint across all tasks.
        max_retries: Times Ray re-runs a task whose worker died.
        task_cpus: CPUs each task asks for (LLM-bound episodes need little: e.g. 0.25).
    """

    def __init__(self, config: RunConfig, workers: int, *, address: str | None = None,
                 request_limit: int | None = None, max_retries: int = 3, task_cpus: float = 1.0) -> None:
        if workers < 1:
            raise ValueError(f"workers must be >= 1, got {workers!r}")
        self.ray = import_ray()
        self.config, self.workers, self.address = config, workers, address
        self.request_limit, self.max_retries, self.task_cpus = request_limit, max_retries, task_cpus
        self.limits: RayLimits | None = None

    def _connect(self) -> bool:
        """Connects to (or starts) Ray; True if this call started the connection."""
        if self.ray.is_initialized():
            return False
        if self.address is None:
            self.ray.init(num_cpus=max(self.workers, 1), include_dashboard=False)
        else:
            self.ray.init(address=self.address)
        return True

    def run(self, tasks: Iterable[EpisodeTask]) -> Iterator[tuple[EpisodeTask, Rows]]:
        """Plays ``tasks``; yields each with its results rows as it completes.

        Raises:
            EpisodeFailed: An episode raised an exception.
            WorkerLost: A task's worker died more than ``max_retries`` times.
        """
        ray = self.ray
        connected_here = self._connect()
        actor = None
        try:
            if self.request_limit is not None:
                actor = ray.remote(num_cpus=0, max_concurrency=LIMITS_ACTOR_THREADS)(EndpointLimits).remote(
                    self.request_limit)
                self.limits = RayLimits(actor)
            remote = ray.remote(_play_remote).options(max_retries=self.max_retries, num_cpus=self.task_cpus)
            config_ref = ray.put(self.config)
            queue: deque[EpisodeTask] = deque(tasks)
            running: dict[Any, EpisodeTask] = {}
            while queue or running:
                while queue and len(running) < self.workers:
                    task = queue.popleft()
                    running[remote.remote(config_ref, task, self.limits)] = task
                done, _ = ray.wait(list(running), num_returns=1)
                for ref in done:
                    task = running.pop(ref)
                    yield task, self._rows(ref, task)
        finally:
            if actor is not None:
                ray.kill(actor)
            if connected_here:
                ray.shutdown()

    def _rows(self, ref: Any, task: EpisodeTask) -> Rows:
        ray = self.ray
        try:
            rows: Rows = ray.get(ref)
        except ray.exceptions.RayTaskError as error:
            if isinstance(error.cause, RunAborted):
                raise RunAborted(str(error.cause)) from None
            raise EpisodeFailed(f"an episode of {task.keys} failed in a Ray task:\n{error}") from None
        except (ray.exceptions.WorkerCrashedError, ray.exceptions.NodeDiedError) as error:
            raise WorkerLost(f"the Ray worker playing {task.keys} died {self.max_retries + 1} times: {error}") from None
        return rows


__all__ = ["RayLimits", "RayRunner", "import_ray"]
