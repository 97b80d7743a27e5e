"""A local pool of worker processes that play :class:`~textmem_gym.execution.tasks.EpisodeTask`\\ s.

Each worker is one process that plays one task at a time and sends its results rows back to the
driver over its own pipe; only the driver writes results. A worker that dies (killed, out of
memory, a crash in native code) is replaced and its task is played again from the start, up to
``max_retries`` times; the leases it held on LLM endpoints are freed at once. Workers exit when
the driver does (even when it is killed), so a resumed run never races a stale worker.

The request limit is one :class:`~textmem_gym.execution.limits.EndpointLimits` held by a
:mod:`multiprocessing` manager process; each worker passes a proxy to it to the policies it builds
(:func:`~textmem_gym.execution.tasks.run_task`), so the LLM clients of every worker share the same
per-endpoint limit.

On Linux, workers are forked from the driver after it has imported the env backends of the
evaluation (see :func:`textmem_gym.runner.evaluate`), so they start warm; elsewhere they are
spawned.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import threading
import time
import traceback
from collections import Counter, deque
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait
from multiprocessing.managers import BaseManager
from typing import Any

from textmem_gym.core.errors import RunAborted
from textmem_gym.execution.limits import EndpointLimits
from textmem_gym.execution.tasks import EpisodeTask, RunConfig, run_task, warm_up
from textmem_gym.llm.slots import Limiter, RequestLimits

Rows = list[dict[str, Any]]


class WorkerLost(RuntimeError):
    """A task's worker died more often than the retries allow."""


class EpisodeFailed(RuntimeError):
    """An episode raised an exception inside a worker (the message holds the worker's traceback)."""


class _LimitsManager(BaseManager):
    """Serves one :class:`EndpointLimits` to the workers."""


_LimitsManager.register("EndpointLimits", EndpointLimits)


def default_start_method() -> str:
    """``fork`` where it exists (workers start warm), else ``spawn``."""
    return "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"


def exit_with(driver_pid: int) -> None:
    """Ends this process when ``driver_pid`` is no longer its parent (the driver died); ignores Ctrl-C,
    which the driver handles."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)

    def watch() -> None:
        while os.getppid() == driver_pid:
            time.sleep(0.25)
        os._exit(1)

    threading.Thread(target=watch, name="exit-with-driver", daemon=True).start()


def _worker_main(conn: Connection, config: RunConfig, limits: Limiter | None, owner: str, driver_pid: int) -> None:
    """A worker: plays the tasks the driver sends until it sends ``None`` or goes away."""
    exit_with(driver_pid)
    shared = None if limits is None else RequestLimits(limits, owner)
    while True:
        try:
            task = conn.recv()
        except (EOFError, OSError):
            return
        if task is None:
            return
        try:
            message: tuple[str, Any] = ("done", run_task(config, task, limits=shared))
        except RunAborted as error:  # the driver stops the run with this one line
            message = ("aborted", str(error))
        except Exception:  # the driver re-raises it with this traceback
            message = ("error", traceback.format_exc())
        conn.send(message)


@dataclass(eq=False)
class _Worker:
    process: Any
    conn: Connection
    owner: str
    task: EpisodeTask | None = field(default=None)


class LocalPool:
    """Plays tasks in ``workers`` processes.

    Args:
        config: How the workers build policies and envs.
        workers: Number of worker processes.
        request_limit: Requests in flight allowed per LLM endpoint across all workers
            (``None``: only each client's own ``concurrency``).
        max_retries: Times a task is played again after its worker died.
        start_method: ``multiprocessing`` start method (default: :func:`default_start_method`).
    """

    def __init__(self, config: RunConfig, workers: int, *, request_limit: int | None = None,
                 max_retries: int = 3, start_method: str | None = None) -> None:
        if workers < 1:
            raise ValueError(f"workers must be >= 1, got {workers!r}")
        self.config, self.workers, self.request_limit, self.max_retries = config, workers, request_limit, max_retries
        self.context: Any = multiprocessing.get_context(start_method or default_start_method())
        self.deaths = 0

    @contextmanager
    def _limits(self) -> Iterator[Any]:
        if self.request_limit is None:
            yield None
            return
        manager = _LimitsManager(ctx=self.context)
        manager.start(exit_with, (os.getpid(),))
        try:
            yield manager.EndpointLimits(self.request_limit)  # type: ignore[attr-defined]
        finally:
            manager.shutdown()

    def _start_worker(self, limits: Any, number: int) -> _Worker:
        driver_end, worker_end = self.context.Pipe()
        owner = f"local-worker-{number}"
        process = self.context.Process(target=_worker_main, name=owner, daemon=True,
                                       args=(worker_end, self.config, limits, owner, os.getpid()))
        process.start()
        worker_end.close()
        return _Worker(process, driver_end, owner)

    def run(self, tasks: Iterable[EpisodeTask]) -> Iterator[tuple[EpisodeTask, Rows]]:
        """Plays ``tasks``; yields each task with its results rows as it finishes (in finishing order).

        One env of each id is made in this process first (:func:`~textmem_gym.execution.tasks.warm_up`),
        so workers forked from it start with their games generated and backends imported.

        Raises:
            EpisodeFailed: An episode raised an exception (the other workers are stopped first).
            textmem_gym.core.errors.RunAborted: A policy stopped the run (a dead LLM endpoint).
            WorkerLost: A task's worker died more than ``max_retries`` times.
        """
        queue: deque[EpisodeTask] = deque(tasks)
        warm_up(self.config, queue)
        attempts: Counter[EpisodeTask] = Counter()
        pool: list[_Worker] = []
        started = 0
        with self._limits() as limits:
            try:
                while queue or any(w.task is not None for w in pool):
                    self._drop_idle_dead(pool, limits)
                    while queue and any(w.task is None for w in pool):
                        self._assign(next(w for w in pool if w.task is None), queue.popleft())
                    while queue and len(pool) < self.workers:
                        started += 1
                        pool.append(self._start_worker(limits, started))
                        self._assign(pool[-1], queue.popleft())
                    busy = [w for w in pool if w.task is not None]
                    wait([w.conn for w in busy] + [w.process.sentinel for w in busy])
                    for worker in busy:
                        finished = self._collect(worker, pool, queue, attempts, limits)
                        if finished is not None:
                            yield finished
            finally:
                self._stop(pool)

    @staticmethod
    def _drop_idle_dead(pool: list[_Worker], limits: Any) -> None:
        """Forgets idle workers that died (after sending their last result), freeing their leases."""
        for worker in [w for w in pool if w.task is None and not w.process.is_alive()]:
            pool.remove(worker)
            worker.conn.close()
            if limits is not None:
                limits.release_owner(worker.owner)

    @staticmethod
    def _assign(worker: _Worker, task: EpisodeTask) -> None:
        worker.task = task
        worker.conn.send(task)

    def _collect(self, worker: _Worker, pool: list[_Worker], queue: deque[EpisodeTask],
                 attempts: Counter[EpisodeTask], limits: Any) -> tuple[EpisodeTask, Rows] | None:
        """The finished task of ``worker`` if it sent one; handles its death or its error."""
        task = worker.task
        assert task is not None
        try:
            if worker.conn.poll():
                kind, payload = worker.conn.recv()
                if kind == "aborted":
                    raise RunAborted(payload)
                if kind == "error":
                    raise EpisodeFailed(f"an episode of {task.keys} failed in a worker:\n{payload}")
                worker.task = None
                return task, payload
        except (EOFError, OSError):
            pass  # the pipe broke: the worker died while answering
        else:
            if worker.process.is_alive():
                return None
        self.deaths += 1
        pool.remove(worker)
        worker.conn.close()
        worker.process.join(timeout=5)
        if limits is not None:
            limits.release_owner(worker.owner)
        attempts[task] += 1
        if attempts[task] > self.max_retries:
            raise WorkerLost(f"the worker playing {task.keys} died {attempts[task]} times "
                             f"(exit code {worker.process.exitcode}); giving up")
        queue.appendleft(task)
        return None

    @staticmethod
    def _stop(pool: list[_Worker]) -> None:
        for worker in pool:
            if worker.task is None:
                try:
                    worker.conn.send(None)
                except OSError:
                    pass
            else:
                worker.process.terminate()
        for worker in pool:
            worker.process.join(timeout=10)
            if worker.process.is_alive():
                worker.process.kill()
                worker.process.join()
            worker.conn.close()


__all__ = ["EpisodeFailed", "LocalPool", "WorkerLost", "default_start_method", "exit_with"]
