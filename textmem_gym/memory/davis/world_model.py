"""DAVIS's world model from golden trajectories (section 4.2, appendix B): every transition of
the gold paths of ``variations`` training variations is stored in a temporal KG (episode =
variation). Test episodes then read it (read-only) on test variations.

The gold paths come from the env backend, handed over as the ``gold`` source (ScienceWorld:
:func:`textmem_gym.envs.scienceworld.gold.gold_trajectories`); this module imports no backend.
Built graphs of the deterministic ``rules`` extractor are cached as JSON in the cache dir.

Example:
    >>> from textmem_gym.envs.scienceworld.gold import gold_trajectories
    >>> kg = build_world_model("find-living-thing", variations=1, gold=gold_trajectories)  # doctest: +SKIP
    >>> kg.entities("location")[:2]  # doctest: +SKIP
    ['art studio', 'bathroom']
    >>> demo = Demonstration("train-0", "Find a frog.", "This room is called the kitchen.", [])
    >>> [f.text() for f in record_world_model([demo]).facts]
    ['[ep train-0, t=0] task, is, find a frog.']
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from textmem_gym.memory.davis.kg import TemporalKG
from textmem_gym.memory.davis.memory import DAVISMemory
from textmem_gym.paths import cache_dir


class GoldPath(Protocol):
    """One training variation's gold path as a backend gives it (e.g. ScienceWorld's ``GoldTrajectory``).

    Attributes:
        label: The variation's episode name in the world model (``"train-0"``).
        objective: The task description.
        observation: The first observation.
        steps: ``(action, observation, score)`` of each gold action, in order.
    """

    @property
    def label(self) -> str: ...

    @property
    def objective(self) -> str: ...

    @property
    def observation(self) -> str: ...

    @property
    def steps(self) -> Sequence[tuple[str, str, int]]: ...


@dataclass
class Demonstration:
    """A :class:`GoldPath` written by hand (or read from elsewhere than a simulator)."""

    label: str
    objective: str
    observation: str
    steps: Sequence[tuple[str, str, int]] = field(default_factory=list)


#: ``(task, variations, split=..., simplification=...) -> gold paths``: a backend's gold source.
GoldSource = Callable[..., Iterable[GoldPath]]


def world_model_path(task: str, variations: int, split: str = "train") -> Path:
    """Where the ``rules`` world model of a task is cached."""
    return cache_dir("davis") / f"{task}-{split}-{variations}-rules.json"


def build_world_model(task: str, variations: int = 5, *, gold: GoldSource, split: str = "train",
                      extractor: str = "rules", llm: Any = None, simplification: str = "easy",
                      cache: bool = True) -> TemporalKG:
    """The temporal KG of the gold trajectories of the first ``variations`` variations of ``split``.

    Args:
        task: Task name of the backend (ScienceWorld: ``find-living-thing``).
        variations: Training variations played (5 in the paper).
        gold: The backend's gold source (it checks ``task`` and ``variations``).
        split: Split the variations come from (``train``; never the test split of evaluation).
        extractor: ``rules`` or ``llm`` (with ``llm``, a ``(kind, prompt) -> answer`` callable).
        simplification: The backend's simplification (ScienceWorld: ``easy``, DAVIS's setting).
        cache: Reuse / write the cached JSON (``rules`` only).

    Returns:
        A read-only :class:`TemporalKG`.
    """
    path = world_model_path(task, variations, split)
    if cache and extractor == "rules" and path.exists():
        return TemporalKG.load(path, read_only=True)
    kg = record_world_model(gold(task, variations, split=split, simplification=simplification), extractor, llm)
    if cache and extractor == "rules":
        kg.save(path)
    return kg


def record_world_model(paths: Iterable[GoldPath], extractor: str = "rules", llm: Any = None) -> TemporalKG:
    """A read-only temporal KG of every transition of ``paths`` (one episode per path)."""
    memory = DAVISMemory(extractor, llm=llm)
    kg = TemporalKG()
    for gold in paths:
        _record(memory, kg, gold)
    kg.read_only = True
    return kg


def _record(memory: DAVISMemory, kg: TemporalKG, gold: GoldPath) -> None:
    """Plays one gold path into ``kg``: the memory records every transition."""
    memory.reset()
    memory.kg, memory.episode_label = kg, gold.label
    kg.add("task", "is", gold.objective, 0, episode=gold.label)
    memory.update(gold.observation, "", {"score": 0, "objective": gold.objective})
    for action, observation, score in gold.steps:
        memory.update(observation, action, {"score": score})
