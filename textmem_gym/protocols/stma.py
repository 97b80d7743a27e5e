"""STMA's TextWorld cooking protocol (Table 1).

Four difficulty levels, eight generated games each, one attempt, a 50-turn limit on every
command; the paper reports the success rate (SR) and the average score (AS, % of the maximum)
with its standard deviation over the level's games. Instances that cannot be won within 50
turns (their walkthrough is longer) are skipped and listed under the table.
"""

from __future__ import annotations

from textmem_gym.protocols.base import Cell, Protocol

PROTOCOL = Protocol(
    name="stma",
    title="STMA (2025), Table 1: TextWorld cooking, 4 levels x 8 games, 50 turns, SR and AS +- sigma",
    cells=tuple(Cell(f"Level {level}", f"TextMem/STMA-Cooking-L{level}-v0", 50, instances=8) for level in range(1, 5)),
    attempts=1,
    winnable_only=True,
    step_accounting="every command sent to the game counts one turn (50-turn limit)",
    scale=100.0,
    reports_success=True,
    own_row="STMA(GPT-4o)",
    policy_rows={"stma": "STMA(GPT-4o)", "react": "ReAct(GPT-4o)", "reflexion": "Reflexion(GPT-4o)",
                 "adaplanner": "AdaPlanner(GPT-4o)"},
)
