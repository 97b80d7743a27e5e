"""``FullHistoryMemory``: every step so far, newest first, as far as the budget goes.

Each update becomes one line, ``step i: > command: observation`` (``step 0: observation`` for the
reset), whitespace collapsed. Its context is those lines newest first, cut to the budget
(:func:`~textmem_gym.memory.budget.fit_budget`): what a reader with that many tokens of raw
history would see. It offers ``reset`` and nothing else.

Example:
    >>> memory = FullHistoryMemory()
    >>> memory.update("-= Kitchen =- You see a table.", "", {})
    >>> memory.update("You take the knife.", "take knife", {})
    >>> memory.context("What did I do?", 64)
    ['step 1: > take knife: You take the knife.', 'step 0: -= Kitchen =- You see a table.']
    >>> memory.context("What did I do?", 12)
    ['step 1: > take knife: You take the knife.']
"""

from __future__ import annotations

from typing import Any

from textmem_gym.memory.budget import fit_budget


def step_line(index: int, observation: str, action: str) -> str:
    """One step as a line: ``step i: > action: observation`` (no action part at the reset).

    Example:
        >>> step_line(3, "You open the  fridge.", "open fridge")
        'step 3: > open fridge: You open the fridge.'
    """
    said = " ".join(observation.split())
    return f"step {index}: > {action}: {said}" if action else f"step {index}: {said}"


class FullHistoryMemory:
    """Every step so far (see the module docstring)."""

    name = "full-history"

    def __init__(self) -> None:
        self.lines: list[str] = []

    def reset(self) -> None:
        """Forgets every step."""
        self.lines = []

    def update(self, observation: str, action: str, info: dict[str, Any]) -> None:
        """Keeps the step as one line."""
        self.lines.append(step_line(len(self.lines), observation, action))

    def context(self, question: str, budget: int) -> list[str]:
        """The steps newest first, within ``budget`` tokens."""
        return fit_budget(self.lines[::-1], budget)


__all__ = ["FullHistoryMemory", "step_line"]
