"""Gold trajectories of ScienceWorld's training variations, handed to whoever learns from them
(DAVIS's world model: :func:`~textmem_gym.memory.davis.world_model.build_world_model` takes
:func:`gold_trajectories` as its ``gold`` source, so the memory never imports this backend).

Each variation's gold action sequence is played in one ScienceWorld simulator; a trajectory keeps
the task text, the first observation (the task, then ``look around``) and every
``(action, observation, score)`` of the gold path (score 0-100).

Example:
    >>> check_variations("find-living-thing", 2, "train")
    [0, 1]
    >>> trajectory = gold_trajectories("find-living-thing", 1)[0]  # doctest: +SKIP
    >>> trajectory.label, trajectory.steps[-1][2]  # doctest: +SKIP
    ('train-0', 100)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from textmem_gym.envs.scienceworld.ids import TASKS, split_variations

if TYPE_CHECKING:
    from textmem_gym.envs.scienceworld.process import ScienceWorldProcess


@dataclass
class GoldTrajectory:
    """One variation's gold path.

    Attributes:
        label: ``"train-<variation>"`` (the world model's episode name).
        objective: The task description.
        observation: The first observation: the task, a blank line, then ``look around``.
        steps: ``(action, observation, score)`` of each gold action, in order (score 0-100).
    """

    label: str
    objective: str
    observation: str
    steps: list[tuple[str, str, int]] = field(default_factory=list)


def check_variations(task: str, variations: int, split: str = "train") -> list[int]:
    """The first ``variations`` variation indices of ``split``.

    Raises:
        ValueError: For an unknown task or a count outside ``1..len(split)``.
    """
    if task not in TASKS:
        raise ValueError(f"unknown ScienceWorld task {task!r}")
    available = split_variations(task, split)
    chosen = list(available)[:variations] if isinstance(variations, int) else []
    if not isinstance(variations, int) or variations < 1 or len(chosen) < variations:
        raise ValueError(f"variations must be in 1..{len(available)}, got {variations!r}")
    return chosen


def gold_trajectories(task: str, variations: int = 5, *, split: str = "train",
                      simplification: str = "easy") -> list[GoldTrajectory]:
    """The gold paths of the first ``variations`` variations of ``split`` (never the test split
    of an evaluation), played with ``simplification`` (``easy``: DAVIS's setting)."""
    chosen = check_variations(task, variations, split)
    from textmem_gym.envs.scienceworld.process import ScienceWorldProcess

    sim = ScienceWorldProcess()
    try:
        return [_play_gold(sim, task, variation, simplification) for variation in chosen]
    finally:
        sim.close()


def _play_gold(sim: ScienceWorldProcess, task: str, variation: int, simplification: str) -> GoldTrajectory:
    sim.load(task, variation, simplification, generateGoldPath=True)
    objective = str(sim.get_task_description())
    trajectory = GoldTrajectory(f"train-{variation}", objective, f"{objective}\n\n{sim.server.step('look around')}")
    for action in list(sim.get_gold_action_sequence()):
        observation = str(sim.server.step(action))
        trajectory.steps.append((action, observation, int(round(100 * float(sim.server.getScore())))))
    return trajectory
