"""BM25 and dense retrieval over what was seen: the retrieval baselines among the memories.

Every update becomes one passage (:func:`passage_text`: the action and the observation of a game
step, or one paragraph in QA, where the action is ``""``), indexed as it comes. For a question,
:meth:`PassageMemory.context` returns the passages the index ranks best, most relevant first, fit
to the token budget by :func:`~textmem_gym.memory.budget.fit_budget`; :meth:`PassageMemory.sources`
gives their update indices (QA supporting-paragraph recall@k). Nothing is extracted and no model is
asked, so the build costs no tokens.

- :class:`BM25Memory` ranks with the project's :class:`~textmem_gym.memory.retrieval.BM25Index`;
  a passage sharing no content word with the question is never recalled.
- :class:`DenseMemory` ranks every passage by cosine similarity of sentence embeddings (the
  shipped MiniLM model by default, or any ``embed`` callable, or an endpoint's embeddings through
  an :class:`~textmem_gym.llm.LLMClient`).

Example:
    >>> memory = BM25Memory()
    >>> memory.update("-= Kitchen =-\\nYou see a fridge.", "", {})
    >>> memory.update("You put the apple in the fridge.", "put apple in fridge", {})
    >>> memory.context("where is the apple?", 64)
    ['> put apple in fridge | You put the apple in the fridge.']
    >>> memory.sources("what is in the kitchen?", 2)
    [0]
"""

from __future__ import annotations

from typing import Any

from textmem_gym.memory.budget import fit_budget
from textmem_gym.memory.retrieval import (
    BM25Index,
    DenseIndex,
    Embedder,
    SimilarityIndex,
    client_embedder,
    passage_text,
)


class PassageMemory:
    """Top-k passages of a similarity index; subclasses choose the index (:meth:`new_index`).

    Attributes:
        passages: The text of every update, in order (index = update number).
    """

    name = "passages"

    def __init__(self) -> None:
        self.passages: list[str] = []
        self.index: SimilarityIndex = self.new_index()

    def new_index(self) -> SimilarityIndex:
        """A new, empty similarity index."""
        raise NotImplementedError

    def reset(self) -> None:
        """Forgets every passage."""
        self.passages = []
        self.index = self.new_index()

    def update(self, observation: str, action: str, info: dict[str, Any]) -> None:
        """Indexes the step (or paragraph) as the next passage."""
        text = passage_text(observation, action)
        self.index.add(len(self.passages), text)
        self.passages.append(text)

    def sources(self, question: str, k: int) -> list[int]:
        """Update indices of the ``k`` passages ranked best for ``question``, best first."""
        if k <= 0 or not self.passages:
            return []
        return [item for item, _ in self.index.search(question, k)]

    def context(self, question: str, budget: int) -> list[str]:
        """The ranked passages, most relevant first, within ``budget`` tokens."""
        ranked = self.sources(question, len(self.passages))
        return fit_budget([self.passages[i] for i in ranked], budget)


class BM25Memory(PassageMemory):
    """Okapi BM25 top-k over the passages (:class:`~textmem_gym.memory.retrieval.BM25Index`).

    Args:
        k1, b: BM25's term-frequency saturation and length normalization.
    """

    name = "bm25"

    def __init__(self, *, k1: float = 1.2, b: float = 0.75) -> None:
        self.k1, self.b = k1, b
        super().__init__()

    def new_index(self) -> SimilarityIndex:
        """A new BM25 index."""
        return BM25Index(k1=self.k1, b=self.b)


class DenseMemory(PassageMemory):
    """Cosine similarity of sentence embeddings over the passages (every passage is ranked).

    Args:
        embed: ``texts -> (n, dim)`` array; by default the shipped MiniLM model
            (:func:`~textmem_gym.memory.embeddings.minilm_embedder`, the ``embeddings`` extra).
        client: An :class:`~textmem_gym.llm.LLMClient` whose endpoint serves ``/v1/embeddings``
            (used when ``embed`` is not given).
    """

    name = "dense"

    def __init__(self, *, embed: Embedder | None = None, client: Any = None) -> None:
        if embed is None:
            if client is not None:
                embed = client_embedder(client)
            else:
                from textmem_gym.memory.embeddings import minilm_embedder

                embed = minilm_embedder()
        self.embed = embed
        super().__init__()

    def new_index(self) -> SimilarityIndex:
        """A new dense index over :attr:`embed`."""
        return DenseIndex(self.embed)


__all__ = ["BM25Memory", "DenseMemory", "PassageMemory", "passage_text"]
