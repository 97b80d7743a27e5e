"""Running many episodes: tasks built from specs, a local process pool, a Ray backend, progress.

:func:`textmem_gym.runner.evaluate` plans an evaluation as
:class:`~textmem_gym.execution.tasks.EpisodeTask`\\ s and hands them to one of
:data:`BACKENDS`; only the driver writes results. Each backend yields ``(task, rows)`` as tasks
finish, whatever the order.

- ``local``: ``workers=1`` plays in the driver's process; more workers use :class:`LocalPool`.
- ``ray``: :class:`~textmem_gym.execution.ray_backend.RayRunner` (optional extra ``ray``).

Example:
    >>> sorted(BACKENDS)
    ['local', 'ray']
"""

from textmem_gym.execution.local import EpisodeFailed, LocalPool, WorkerLost
from textmem_gym.execution.progress import Progress
from textmem_gym.execution.tasks import Episode, EpisodeTask, RunConfig, plan_tasks, run_task

#: Backend name -> what runs its tasks (``"module:attr"``, imported when used).
BACKENDS: dict[str, str] = {
    "local": "textmem_gym.execution.local:LocalPool",
    "ray": "textmem_gym.execution.ray_backend:RayRunner",
}

__all__ = ["BACKENDS", "Episode", "EpisodeFailed", "EpisodeTask", "LocalPool", "Progress", "RunConfig", "WorkerLost",
           "plan_tasks", "run_task"]
