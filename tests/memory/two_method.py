"""A memory of two methods only, for the tests: it keeps the observations and recalls those that
share the most words with the question (importable as ``tests.memory.two_method:Notes``)."""

from __future__ import annotations

from typing import Any

from textmem_gym.memory.budget import fit_budget


class Notes:
    """Every observation, most relevant first (shared words with the question, then the newest)."""

    def __init__(self) -> None:
        self.lines: list[str] = []

    def update(self, observation: str, action: str, info: dict[str, Any]) -> None:
        """Keeps the observation, in one line."""
        self.lines.append(" ".join(observation.split()))

    def context(self, question: str, budget: int) -> list[str]:
        """The observations sharing most words with ``question`` first, within ``budget`` tokens."""
        words = set(question.lower().split())
        ranked = sorted(enumerate(self.lines), key=lambda p: (-len(words & set(p[1].lower().split())), -p[0]))
        return fit_budget([line for _, line in ranked], budget)
