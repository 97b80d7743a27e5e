"""The ``TextMem/ScienceWorld-*`` ids: one per ScienceWorld task (the DAVIS benchmark).

Each id is ``TextMem/ScienceWorld-<Task>-v0`` with ``<Task>`` the ScienceWorld task name in
CamelCase (``find-living-thing`` -> ``TextMem/ScienceWorld-FindLivingThing-v0``). Every id
runs with DAVIS's settings: the ``easy`` simplification and at most :data:`STEP_LIMIT` steps.
This module does not import ScienceWorld (nor start Java).

Example:
    >>> env_id("find-living-thing")
    'TextMem/ScienceWorld-FindLivingThing-v0'
    >>> ENV_TABLE[env_id("boil")].kwargs
    {'task': 'boil'}
    >>> split_variations("boil", "test")
    range(21, 30)
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import NamedTuple

from textmem_gym.envs.entry import EnvEntry

SCIENCEWORLD_ENTRY = "textmem_gym.envs.scienceworld.env:ScienceWorldEnv"

#: DAVIS's maximum steps per task (Table 5).
STEP_LIMIT = 100


class Task(NamedTuple):
    """One ScienceWorld task, as in ScienceWorld's ``tasks.json``, plus its split sizes.

    Attributes:
        task_id: ScienceWorld's (and DAVIS's) task number, e.g. ``"4-1"``.
        topic: ScienceWorld topic.
        title: Task title.
        splits: Number of (train, dev, test) variations. ScienceWorld's splits are consecutive
            ranges of variation indices in that order (the tests check this against the engine);
            knowing them lets an env load its variation without loading the task twice.
    """

    task_id: str
    topic: str
    title: str
    splits: tuple[int, int, int]


#: Task name -> :class:`Task`, in ScienceWorld's order: the table of ``tasks.json`` beside this module
#: (name -> ``[task_id, topic, title, [train, dev, test]]``), data as ScienceWorld's own ``tasks.json`` is.
TASKS: dict[str, Task] = {
    name: Task(task_id, topic, title, (train, dev, test))
    for name, (task_id, topic, title, (train, dev, test))
    in json.loads(Path(__file__).with_name("tasks.json").read_text(encoding="utf-8")).items()
}

SPLITS = ("train", "dev", "test")


def split_variations(task: str, split: str) -> range:
    """The variation indices of a split: ``split_variations("boil", "test")`` -> ``range(21, 30)``."""
    sizes = TASKS[task].splits
    index = SPLITS.index(split)
    start = sum(sizes[:index])
    return range(start, start + sizes[index])


def camel_case(task: str) -> str:
    """``"find-living-thing"`` -> ``"FindLivingThing"`` (digits kept: ``identify-life-stages-1`` ->
    ``IdentifyLifeStages1``)."""
    return "".join(part[:1].upper() + part[1:] for part in task.split("-"))


def env_id(task: str) -> str:
    """The registered id of a ScienceWorld task name."""
    return f"TextMem/ScienceWorld-{camel_case(task)}-v0"


def _entry(task: str) -> EnvEntry:
    task_id, topic, title, _ = TASKS[task]
    description = f"ScienceWorld {task_id} {topic}: {title} (DAVIS settings: easy, 100 steps)"
    return EnvEntry(SCIENCEWORLD_ENTRY, {"task": task}, STEP_LIMIT, description, 100)


ENV_TABLE: dict[str, EnvEntry] = {env_id(task): _entry(task) for task in TASKS}
