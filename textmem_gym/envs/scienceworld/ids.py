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


#: Task name -> :class:`Task`.
TASKS: dict[str, Task] = {
    "boil": Task("1-1", "Matter", "Changes of State (Boiling)", (14, 7, 9)),
    "melt": Task("1-2", "Matter", "Changes of State (Melting)", (14, 7, 9)),
    "freeze": Task("1-3", "Matter", "Changes of State (Freezing)", (14, 7, 9)),
    "change-the-state-of-matter-of": Task("1-4", "Matter", "Changes of State (Any)", (14, 7, 9)),
    "use-thermometer": Task("2-1", "Measurement", "Use Thermometer", (270, 135, 135)),
    "measure-melting-point-known-substance": Task("2-2", "Measurement", "Measuring Melting Point (known)",
                                                  (218, 109, 109)),
    "measure-melting-point-unknown-substance": Task("2-3", "Measurement", "Measuring Melting Point (unknown)",
                                                    (150, 75, 75)),
    "power-component": Task("3-1", "Electricity", "Create a circuit", (10, 5, 5)),
    "power-component-renewable-vs-nonrenewable-energy": Task("3-2", "Electricity",
                                                             "Renewable vs Non-renewable Energy",
                                                             (10, 5, 5)),
    "test-conductivity": Task("3-3", "Electricity", "Test Conductivity (known)", (450, 225, 225)),
    "test-conductivity-of-unknown-substances": Task("3-4", "Electricity", "Test Conductivity (unknown)",
                                                    (300, 150, 150)),
    "find-living-thing": Task("4-1", "Classification", "Find a living thing", (150, 75, 75)),
    "find-non-living-thing": Task("4-2", "Classification", "Find a non-living thing", (150, 75, 75)),
    "find-plant": Task("4-3", "Classification", "Find a plant", (150, 75, 75)),
    "find-animal": Task("4-4", "Classification", "Find an animal", (150, 75, 75)),
    "grow-plant": Task("5-1", "Biology", "Grow a plant", (62, 31, 33)),
    "grow-fruit": Task("5-2", "Biology", "Grow a fruit", (62, 31, 33)),
    "chemistry-mix": Task("6-1", "Chemistry", "Mixing (generic)", (16, 8, 8)),
    "chemistry-mix-paint-secondary-color": Task("6-2", "Chemistry", "Mixing paints (secondary colours)",
                                                (18, 9, 9)),
    "chemistry-mix-paint-tertiary-color": Task("6-3", "Chemistry", "Mixing paints (tertiary colours)",
                                               (18, 9, 9)),
    "lifespan-longest-lived": Task("7-1", "Biology", "Identify longest-lived animal", (62, 31, 32)),
    "lifespan-shortest-lived": Task("7-2", "Biology", "Identify shortest-lived animal", (62, 31, 32)),
    "lifespan-longest-lived-then-shortest-lived": Task("7-3", "Biology",
                                                       "Identify longest-then-shortest-lived animal",
                                                       (62, 31, 32)),
    "identify-life-stages-1": Task("8-1", "Biology", "Identify life stages (plant)", (6, 3, 5)),
    "identify-life-stages-2": Task("8-2", "Biology", "Identify life stages (animal)", (4, 2, 4)),
    "inclined-plane-determine-angle": Task("9-1", "Forces", "Inclined Planes (determine angle)",
                                           (84, 42, 42)),
    "inclined-plane-friction-named-surfaces": Task("9-2", "Forces", "Friction (known surfaces)",
                                                   (692, 346, 348)),
    "inclined-plane-friction-unnamed-surfaces": Task("9-3", "Forces", "Friction (unknown surfaces)",
                                                     (80, 40, 42)),
    "mendelian-genetics-known-plant": Task("10-1", "Biology", "Mendelian Genetics (known plants)",
                                           (60, 30, 30)),
    "mendelian-genetics-unknown-plant": Task("10-2", "Biology", "Mendelian Genetics (unknown plants)",
                                             (240, 120, 120)),
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
