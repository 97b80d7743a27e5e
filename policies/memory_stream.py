"""Generative-Agents retrieval (Park et al., 2023) for the RAG, Simulacra and Reflexion baselines.

Each memory has a text, the step it was made, the step it was last retrieved and an importance
in 1..10. Retrieval scores every candidate by recency ``decay ** age`` (age in steps since last
access), importance and relevance (BM25 similarity to the query: observation and plan), each
min-max normalized over the candidates, and returns the best ``k``.

Example:
    >>> stream = MemoryStream()
    >>> stream.add("You see a red key on the table.", step=0, importance=8)
    >>> stream.add("The corridor is empty.", step=1, importance=1)
    >>> [m.text for m in stream.retrieve("where is the key", step=2, k=1)]
    ['You see a red key on the table.']
"""

from __future__ import annotations

from dataclasses import dataclass

from textmem_gym.memory.retrieval import make_index


@dataclass
class StreamMemory:
    """One memory of the stream."""

    text: str
    step: int
    importance: float
    last_access: int
    kind: str = "observation"


def min_max(values: list[float]) -> list[float]:
    """Scales ``values`` to [0, 1] (all ones when they are equal)."""
    low, high = min(values, default=0.0), max(values, default=0.0)
    return [1.0 if high == low else (v - low) / (high - low) for v in values]


class MemoryStream:
    """A list of memories with recency + importance + relevance retrieval.

    Args:
        decay: Recency decay per step (0.99 in the paper).
        weights: Weights of (recency, importance, relevance).

    Example:
        >>> stream = MemoryStream(decay=0.5)
        >>> for step, text in enumerate(["a red key", "a blue key", "a green key"]):
        ...     stream.add(text, step=step, importance=1)
        >>> [m.text for m in stream.retrieve("key", step=3, k=1)]  # equal relevance: the most recent
        ['a green key']
    """

    def __init__(self, decay: float = 0.99, weights: tuple[float, float, float] = (1.0, 1.0, 1.0),
                 similarity: str = "bm25", **similarity_options: object) -> None:
        self.decay, self.weights, self.similarity = decay, weights, similarity
        self.memories: list[StreamMemory] = []
        self.index = make_index(similarity, **similarity_options)

    def __len__(self) -> int:
        return len(self.memories)

    def add(self, text: str, *, step: int, importance: float, kind: str = "observation") -> None:
        """Adds a memory."""
        self.index.add(len(self.memories), text)
        self.memories.append(StreamMemory(text, step, float(importance), step, kind))

    def retrieve(self, query: str, *, step: int, k: int, exclude_after: int | None = None,
                 by_relevance: bool = False) -> list[StreamMemory]:
        """The ``k`` best memories for ``query`` (those made after step ``exclude_after`` are left out).

        With ``by_relevance`` the top ``k`` by similarity alone, best first (plain RAG); otherwise
        by the weighted score, oldest first.
        """
        candidates = [i for i, m in enumerate(self.memories) if exclude_after is None or m.step <= exclude_after]
        if not candidates or k <= 0:
            return []
        allowed = set(candidates)
        relevance_of = {i: v for i, v in self.index.search(query, len(self.memories), candidates) if i in allowed}
        if by_relevance:
            ranked = sorted(candidates, key=lambda i: (-relevance_of.get(i, 0.0), -i))
            return [self.memories[i] for i in ranked[:k]]
        recency = min_max([self.decay ** (step - self.memories[i].last_access) for i in candidates])
        importance = min_max([self.memories[i].importance for i in candidates])
        relevance = min_max([relevance_of.get(i, 0.0) for i in candidates])
        w = self.weights
        scored = sorted(zip(candidates, (w[0] * a + w[1] * b + w[2] * c for a, b, c in
                                         zip(recency, importance, relevance))), key=lambda p: (-p[1], -p[0]))
        chosen = [self.memories[i] for i, _ in scored[:k]]
        for memory in chosen:
            memory.last_access = step
        return sorted(chosen, key=lambda m: m.step)
