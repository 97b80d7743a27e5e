"""DAVIS's ScienceWorld protocol (Table 7).

The 30 ScienceWorld tasks, three test variations each, the ``easy`` simplification and at most
100 steps (Table 5); the paper reports the mean and std of the score (0-100) per task. The
paper sampled its test variations at random and did not list them: this protocol plays the
first three test variations of each task.
"""

from __future__ import annotations

from textmem_gym.envs.scienceworld.ids import STEP_LIMIT, TASKS, env_id
from textmem_gym.protocols.base import Cell, Protocol

PROTOCOL = Protocol(
    name="davis",
    title="DAVIS (2025), Table 7: ScienceWorld, 30 tasks x 3 test variations, easy, 100 steps",
    cells=tuple(Cell(task.task_id, env_id(name), STEP_LIMIT, game_seeds=(0, 1, 2),
                     note="first three test variations (the paper's random draw is not published)")
                for name, task in TASKS.items()),
    attempts=1,
    step_accounting="every command sent to the game counts one step",
    scale=100.0,
    own_row="DAVIS",
    policy_rows={"davis": "DAVIS", "react": "ReAct", "reflexion": "Reflexion", "saycan": "SayCan", "rap": "RAP"},
)
