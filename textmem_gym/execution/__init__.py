"""Running many episodes: tasks built from specs, a local process pool, a Ray backend, progress.

:func:`textmem_gym.runner.evaluate` plans an evaluation as
:class:`~textmem_gym.execution.tasks.EpisodeTask`\\ s and hands them to a run backend; only the
driver writes results. Each backend yields ``(task, rows)`` as tasks finish, whatever the order.
Run backends are found by name (:func:`run_backend`) in the entry-point group
``textmem_gym.run_backends``, where the library declares its own in ``setup.cfg`` like a third
party's (or as ``"module:Class"``):

- ``local``: ``workers=1`` plays in the driver's process; more workers use :class:`LocalPool`.
- ``ray``: :class:`~textmem_gym.execution.ray_backend.RayRunner` (optional extra ``ray``).

A run backend is a class built as ``Backend(run_config, workers, request_limit=..., max_retries=...)``
whose ``run(tasks)`` yields each :class:`EpisodeTask` with its results rows (:class:`RunBackend`).

Example:
    >>> run_backends()
    ['local', 'ray']
    >>> run_backend("local") is LocalPool
    True
"""

from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any, Protocol

from textmem_gym.core.registry import factory_parameters
from textmem_gym.execution.local import EpisodeFailed, LocalPool, WorkerLost
from textmem_gym.execution.progress import Progress
from textmem_gym.execution.tasks import Episode, EpisodeTask, RunConfig, plan_tasks, run_task
from textmem_gym.loading import declared_names, load_declared, unknown_name

#: Entry-point group through which packages (the library included) add run backends (``"module:Class"``).
ENTRY_POINT_GROUP = "textmem_gym.run_backends"


class RunBackend(Protocol):
    """What a run backend's class builds: it plays tasks and yields each with its results rows."""

    def run(self, tasks: Iterable[EpisodeTask]) -> Iterator[tuple[EpisodeTask, list[dict[str, Any]]]]:
        """Plays ``tasks``; yields ``(task, rows)`` as each finishes (any order)."""


def run_backends() -> list[str]:
    """The names of every installed run backend (entry-point group ``textmem_gym.run_backends``), sorted."""
    return sorted(declared_names("run backend", ENTRY_POINT_GROUP))


def check_run_backend(name: str, options: Mapping[str, Any] | None = None) -> None:
    """Checks that ``name`` is an installed run backend or a ``"module:Class"``, and that its class
    takes ``options`` (the backend is imported only when there are options to check).

    Raises:
        ValueError: Neither (the message lists the installed ones), or an option the backend's class
            does not take (the message lists the ones it takes).

    Example:
        >>> check_run_backend("ray"); check_run_backend("mypackage.pool:Pool")
        >>> check_run_backend("slurm")
        Traceback (most recent call last):
        ...
        ValueError: unknown run backend 'slurm'; choose from ['local', 'ray']
        >>> check_run_backend("local", {"address": "auto"})
        Traceback (most recent call last):
        ...
        ValueError: run backend 'local' takes no option 'address'; it takes: ['max_retries', ...
    """
    if ":" not in name and name not in (names := run_backends()):
        raise unknown_name("run backend", name, names)
    if not options:
        return
    parameters = factory_parameters(run_backend(name), skip=2)
    for option in options:
        if parameters is not None and not parameters.accepts(option):
            raise ValueError(f"run backend {name!r} takes no option {option!r}; it takes: "
                             f"{sorted(parameters.annotations)}")


def run_backend(name: str) -> Callable[..., RunBackend]:
    """The class of run backend ``name`` (a declared name or ``"module:Class"``), imported now.

    Raises:
        ValueError: Unknown name (the message lists the installed ones).
    """
    return load_declared("run backend", name, ENTRY_POINT_GROUP)


__all__ = ["ENTRY_POINT_GROUP", "Episode", "EpisodeFailed", "EpisodeTask", "LocalPool", "Progress", "RunBackend",
           "RunConfig", "WorkerLost", "check_run_backend", "plan_tasks", "run_backend", "run_backends",
           "run_task"]
