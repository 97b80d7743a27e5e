"""Episodic memory: one vertex per step (its observation) and an episodic edge to every triple
extracted at that step; scoring by AriGraph's equation (1).

Example:
    >>> memory = EpisodicMemory()
    >>> memory.add(0, "go north", "You are in the kitchen. A knife is on the table.", [0, 1])
    >>> memory.add(1, "take knife", "Taken.", [2])
    >>> [(e.step, round(s, 3)) for e, s in memory.search([0, 2], k=2)]
    [(0, 0.5)]
"""

from __future__ import annotations

import heapq
import math
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass
class Episode:
    """One episodic vertex.

    Attributes:
        step: Environment step (0 = the reset observation).
        action: Action that led to the observation (``""`` at reset).
        observation: Full observation text.
        triples: Ids of the triples extracted from it (the episodic edge).
    """

    step: int
    action: str
    observation: str
    triples: list[int] = field(default_factory=list)


def episodic_relevance(n_matched: int, n_total: int) -> float:
    """Equation (1): ``n / max(N, 1) * log2(max(N, 1))``; one-triple observations get zero."""
    n_total = max(n_total, 1)
    return n_matched / n_total * math.log2(n_total)


class EpisodicMemory:
    """Episodic vertices with a reverse index triple id -> episodes."""

    def __init__(self) -> None:
        self.episodes: list[Episode] = []
        self._by_triple: dict[int, list[int]] = defaultdict(list)

    def __len__(self) -> int:
        return len(self.episodes)

    def add(self, step: int, action: str, observation: str, triples: Iterable[int]) -> None:
        """Adds the vertex of ``step`` and its episodic edge."""
        ids = sorted(set(triples))
        index = len(self.episodes)
        self.episodes.append(Episode(step, action, observation, ids))
        for tid in ids:
            self._by_triple[tid].append(index)

    def search(self, triples: Iterable[int], k: int) -> list[tuple[Episode, float]]:
        """The ``k`` episodes most relevant to the retrieved ``triples`` (score > 0), best first
        (ties: most recent first)."""
        matched: dict[int, int] = defaultdict(int)
        for tid in set(triples):
            for index in self._by_triple.get(tid, ()):
                matched[index] += 1
        scored = ((i, episodic_relevance(n, len(self.episodes[i].triples))) for i, n in matched.items())
        best = heapq.nlargest(k, (s for s in scored if s[1] > 0), key=lambda s: (s[1], s[0]))
        return [(self.episodes[i], score) for i, score in best]

    def to_json(self) -> list[dict[str, Any]]:
        """Every episode as a JSON-ready dict."""
        return [asdict(e) for e in self.episodes]

    @classmethod
    def from_json(cls, rows: Iterable[dict[str, Any]]) -> EpisodicMemory:
        """Rebuilds the memory written by :meth:`to_json`."""
        memory = cls()
        for row in rows:
            memory.add(row["step"], row["action"], row["observation"], row["triples"])
        return memory
