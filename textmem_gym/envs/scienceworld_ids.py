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

from textmem_gym.envs.registration import EnvEntry

SCIENCEWORLD_ENTRY = "textmem_gym.envs.scienceworld_env:ScienceWorldEnv"

#: DAVIS's maximum steps per task (Table 5).
STEP_LIMIT = 100

#: Task name -> (ScienceWorld task id, topic, title), as in ScienceWorld's ``tasks.json``.
TASKS: dict[str, tuple[str, str, str]] = {
    "boil": ("1-1", "Matter", "Changes of State (Boiling)"),
    "melt": ("1-2", "Matter", "Changes of State (Melting)"),
    "freeze": ("1-3", "Matter", "Changes of State (Freezing)"),
    "change-the-state-of-matter-of": ("1-4", "Matter", "Changes of State (Any)"),
    "use-thermometer": ("2-1", "Measurement", "Use Thermometer"),
    "measure-melting-point-known-substance": ("2-2", "Measurement", "Measuring Melting Point (known)"),
    "measure-melting-point-unknown-substance": ("2-3", "Measurement", "Measuring Melting Point (unknown)"),
    "power-component": ("3-1", "Electricity", "Create a circuit"),
    "power-component-renewable-vs-nonrenewable-energy": ("3-2", "Electricity",
                                                         "Renewable vs Non-renewable Energy"),
    "test-conductivity": ("3-3", "Electricity", "Test Conductivity (known)"),
    "test-conductivity-of-unknown-substances": ("3-4", "Electricity", "Test Conductivity (unknown)"),
    "find-living-thing": ("4-1", "Classification", "Find a living thing"),
    "find-non-living-thing": ("4-2", "Classification", "Find a non-living thing"),
    "find-plant": ("4-3", "Classification", "Find a plant"),
    "find-animal": ("4-4", "Classification", "Find an animal"),
    "grow-plant": ("5-1", "Biology", "Grow a plant"),
    "grow-fruit": ("5-2", "Biology", "Grow a fruit"),
    "chemistry-mix": ("6-1", "Chemistry", "Mixing (generic)"),
    "chemistry-mix-paint-secondary-color": ("6-2", "Chemistry", "Mixing paints (secondary colours)"),
    "chemistry-mix-paint-tertiary-color": ("6-3", "Chemistry", "Mixing paints (tertiary colours)"),
    "lifespan-longest-lived": ("7-1", "Biology", "Identify longest-lived animal"),
    "lifespan-shortest-lived": ("7-2", "Biology", "Identify shortest-lived animal"),
    "lifespan-longest-lived-then-shortest-lived": ("7-3", "Biology",
                                                   "Identify longest-then-shortest-lived animal"),
    "identify-life-stages-1": ("8-1", "Biology", "Identify life stages (plant)"),
    "identify-life-stages-2": ("8-2", "Biology", "Identify life stages (animal)"),
    "inclined-plane-determine-angle": ("9-1", "Forces", "Inclined Planes (determine angle)"),
    "inclined-plane-friction-named-surfaces": ("9-2", "Forces", "Friction (known surfaces)"),
    "inclined-plane-friction-unnamed-surfaces": ("9-3", "Forces", "Friction (unknown surfaces)"),
    "mendelian-genetics-known-plant": ("10-1", "Biology", "Mendelian Genetics (known plants)"),
    "mendelian-genetics-unknown-plant": ("10-2", "Biology", "Mendelian Genetics (unknown plants)"),
}

#: Task name -> number of (train, dev, test) variations. ScienceWorld's splits are consecutive
#: ranges of variation indices in that order (checked against the engine by the tests); knowing
#: them lets an env load its variation without loading the task twice.
SPLIT_SIZES: dict[str, tuple[int, int, int]] = {
    "boil": (14, 7, 9), "melt": (14, 7, 9), "freeze": (14, 7, 9), "change-the-state-of-matter-of": (14, 7, 9),
    "use-thermometer": (270, 135, 135), "measure-melting-point-known-substance": (218, 109, 109),
    "measure-melting-point-unknown-substance": (150, 75, 75), "power-component": (10, 5, 5),
    "power-component-renewable-vs-nonrenewable-energy": (10, 5, 5), "test-conductivity": (450, 225, 225),
    "test-conductivity-of-unknown-substances": (300, 150, 150), "find-living-thing": (150, 75, 75),
    "find-non-living-thing": (150, 75, 75), "find-plant": (150, 75, 75), "find-animal": (150, 75, 75),
    "grow-plant": (62, 31, 33), "grow-fruit": (62, 31, 33), "chemistry-mix": (16, 8, 8),
    "chemistry-mix-paint-secondary-color": (18, 9, 9), "chemistry-mix-paint-tertiary-color": (18, 9, 9),
    "lifespan-longest-lived": (62, 31, 32), "lifespan-shortest-lived": (62, 31, 32),
    "lifespan-longest-lived-then-shortest-lived": (62, 31, 32), "identify-life-stages-1": (6, 3, 5),
    "identify-life-stages-2": (4, 2, 4), "inclined-plane-determine-angle": (84, 42, 42),
    "inclined-plane-friction-named-surfaces": (692, 346, 348),
    "inclined-plane-friction-unnamed-surfaces": (80, 40, 42), "mendelian-genetics-known-plant": (60, 30, 30),
    "mendelian-genetics-unknown-plant": (240, 120, 120),
}
SPLITS = ("train", "dev", "test")


def split_variations(task: str, split: str) -> range:
    """The variation indices of a split: ``split_variations("boil", "test")`` -> ``range(21, 30)``."""
    sizes = SPLIT_SIZES[task]
    index = SPLITS.index(split)
    start = sum(sizes[:index])
    return range(start, start + sizes[index])


#: Tasks whose gold action sequence (variation 0, ``easy``) is longer than
#: :data:`STEP_LIMIT`: it wins only when the step limit is raised.
LONG_GOLD_SEQUENCES: dict[str, int] = {
    "inclined-plane-friction-unnamed-surfaces": 178,
    "mendelian-genetics-known-plant": 128,
    "mendelian-genetics-unknown-plant": 130,
}


def camel_case(task: str) -> str:
    """``"find-living-thing"`` -> ``"FindLivingThing"`` (digits kept: ``identify-life-stages-1`` ->
    ``IdentifyLifeStages1``)."""
    return "".join(part[:1].upper() + part[1:] for part in task.split("-"))


def env_id(task: str) -> str:
    """The registered id of a ScienceWorld task name."""
    return f"TextMem/ScienceWorld-{camel_case(task)}-v0"


def _entry(task: str) -> EnvEntry:
    task_id, topic, title = TASKS[task]
    description = f"ScienceWorld {task_id} {topic}: {title} (DAVIS settings: easy, 100 steps)"
    return EnvEntry(SCIENCEWORLD_ENTRY, {"task": task}, STEP_LIMIT, description, 100)


ENV_TABLE: dict[str, EnvEntry] = {env_id(task): _entry(task) for task in TASKS}
