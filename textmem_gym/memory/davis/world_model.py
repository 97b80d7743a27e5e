"""DAVIS's world model from golden trajectories (section 4.2, appendix B): the gold action
sequences of ``variations`` training variations of a ScienceWorld task are played in one
ScienceWorld simulator and every transition is stored in a temporal KG (episode = variation).
Test episodes then read it (read-only) on test variations.

Built graphs of the deterministic ``rules`` extractor are cached as JSON in the cache dir.

Example:
    >>> kg = build_world_model("find-living-thing", variations=1)  # doctest: +SKIP
    >>> kg.entities("location")[:2]  # doctest: +SKIP
    ['art studio', 'bathroom']
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textmem_gym.envs.scienceworld.ids import TASKS, split_variations
from textmem_gym.memory.davis.kg import TemporalKG
from textmem_gym.paths import cache_dir


def world_model_path(task: str, variations: int, split: str = "train") -> Path:
    """Where the ``rules`` world model of a task is cached."""
    return cache_dir("davis") / f"{task}-{split}-{variations}-rules.json"


def build_world_model(task: str, variations: int = 5, *, split: str = "train", extractor: str = "rules",
                      llm: Any = None, simplification: str = "easy", cache: bool = True) -> TemporalKG:
    """The temporal KG of the gold trajectories of the first ``variations`` variations of ``split``.

    Args:
        task: ScienceWorld task name (``find-living-thing``).
        variations: Training variations played (5 in the paper).
        split: Split the variations come from (``train``; never the test split of evaluation).
        extractor: ``rules`` or ``llm`` (with ``llm``, a ``(kind, prompt) -> answer`` callable).
        simplification: ScienceWorld simplification (``easy``, DAVIS's setting).
        cache: Reuse / write the cached JSON (``rules`` only).

    Returns:
        A read-only :class:`TemporalKG`.
    """
    if task not in TASKS:
        raise ValueError(f"unknown ScienceWorld task {task!r}")
    chosen = list(split_variations(task, split))[:variations]
    if not isinstance(variations, int) or variations < 1 or len(chosen) < variations:
        raise ValueError(f"variations must be in 1..{len(split_variations(task, split))}, got {variations!r}")
    path = world_model_path(task, variations, split)
    if cache and extractor == "rules" and path.exists():
        return TemporalKG.load(path, read_only=True)
    from textmem_gym.envs.scienceworld.process import ScienceWorldProcess
    from textmem_gym.memory.davis.memory import DAVISMemory

    memory = DAVISMemory(extractor, llm=llm)
    kg = TemporalKG()
    sim = ScienceWorldProcess()
    try:
        for variation in chosen:
            sim.load(task, variation, simplification, generateGoldPath=True)
            _play_gold(sim, memory, kg, f"train-{variation}")
    finally:
        sim.close()
    if cache and extractor == "rules":
        kg.save(path)
    kg.read_only = True
    return kg


def _play_gold(sim: Any, memory: Any, kg: TemporalKG, episode: str) -> None:
    """Plays one variation's gold path; the memory records every transition into ``kg``."""
    memory.reset()
    memory.kg, memory.episode_label = kg, episode
    objective = str(sim.get_task_description())
    kg.add("task", "is", objective, 0, episode=episode)
    memory.update(f"{objective}\n\n{sim.server.step('look around')}", "", {"score": 0, "objective": objective})
    for action in list(sim.get_gold_action_sequence()):
        observation = str(sim.server.step(action))
        memory.update(observation, action, {"score": int(round(100 * float(sim.server.getScore())))})
