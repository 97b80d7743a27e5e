"""QA methods that give the model paragraphs: ranked top-k (BM25, served embeddings), all of
them (full context) or the gold supporting ones (the upper bound of AriGraph's Table 2).

All four ask the same chain-of-thought answer prompt (``prompts/answer_texts.txt``), so they differ
only in which paragraphs the model reads. Ranking uses the project's similarity indexes
(:func:`textmem_gym.memory.retrieval.make_index`: ``bm25``, or ``openai``: the endpoint's
``/v1/embeddings`` through the method's client, accounted with its calls). The paragraphs shown
lose the least relevant first to fit the context window (the last in file order for full
context and gold).

Each offers the optional part ``recall`` (:class:`~textmem_gym.qa.api.Recalls`), with no model:
its context at a budget is the paragraphs it would show, in the order it shows them, without a
top-k cut (BM25 and embeddings: every paragraph, best first; full context: file order; gold: the
supporting ones), for the budget to cut; the paragraphs it ranks are the ranking (BM25,
embeddings), the supporting ones (gold: the upper bound), or none for full context (file order
is no ranking: "not offered").

Example:
    >>> from textmem_gym.llm import LocalOpenAIServer
    >>> docs = ["Vellmar Island: a lighthouse stands here.", "Orsk is a town.", "Tallow Bay is calm."]
    >>> with LocalOpenAIServer(script=['{"chain_of_thought": "read it", "direct_answer": "a lighthouse"}']) as s:
    ...     method = BM25Method(model="m", base_url=s.base_url, top_k=1)
    ...     answer = method.answer("What stands on Vellmar Island?", docs)
    >>> answer.text, answer.calls, answer.detail["retrieved"]
    ('a lighthouse', 1, [0])
    >>> BM25Method(top_k=1).recall("What stands on Vellmar Island?", docs, [8], 2).sources  # no model needed
    [0]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from textmem_gym.memory.retrieval import SimilarityIndex, make_index
from textmem_gym.qa.api import Document, Recalled, as_paragraphs
from textmem_gym.qa.data import Paragraph
from textmem_gym.qa.methods.base import Final, LLMQAMethod, paragraph_text, texts_section


class ContextMethod(LLMQAMethod):
    """Answers from the paragraphs :meth:`choose` picks (subclasses pick)."""

    #: Whether :meth:`order` is a ranking for the question (recall@k), not file order.
    ranks = False

    def order(self, question: str, paragraphs: tuple[Paragraph, ...]) -> list[int]:
        """Indexes of every paragraph the method would show, most relevant first (no top-k cut)."""
        raise NotImplementedError

    def choose(self, question: str, paragraphs: tuple[Paragraph, ...]) -> list[int]:
        """Indexes of the paragraphs shown, most relevant first."""
        return self.order(question, paragraphs)

    def recall(self, question: str, documents: Sequence[Document], budgets: Sequence[int], k: int) -> Recalled:
        """The paragraphs of :meth:`order` as the context at every budget; the ranking where it is one."""
        paragraphs = as_paragraphs(documents)
        order = self.order(question, paragraphs)
        lines = [" ".join(paragraph_text(paragraphs[i]).split()) for i in order]
        return Recalled({budget: lines for budget in budgets}, order[:k] if self.ranks else None)

    def respond(self, question: str, paragraphs: tuple[Paragraph, ...]) -> Final:
        """The answer prompt over the chosen paragraphs."""
        chosen = self.choose(question, paragraphs)
        texts = texts_section("texts", [paragraph_text(paragraphs[i]) for i in chosen])
        final = self.final_answer("answer_texts", question, [texts])
        final.detail["retrieved"] = chosen
        return final


class FullContextMethod(ContextMethod):
    """Every paragraph, in file order (``GPT-4 full context`` of AriGraph's Table 2)."""

    name = "full-context"

    def order(self, question: str, paragraphs: tuple[Paragraph, ...]) -> list[int]:
        """All of them."""
        return list(range(len(paragraphs)))


class GoldMethod(ContextMethod):
    """The gold supporting paragraphs, in file order (``GPT-4 + supporting facts``: the upper bound)."""

    name = "gold"
    ranks = True

    def order(self, question: str, paragraphs: tuple[Paragraph, ...]) -> list[int]:
        """The supporting ones."""
        return [i for i, p in enumerate(paragraphs) if p.is_supporting]


class RankedMethod(ContextMethod):
    """The ``top_k`` paragraphs most similar to the question.

    Args:
        top_k: Paragraphs shown (3 in the papers' tables).
        similarity: ``bm25`` or ``openai`` (served embeddings through the method's client).
        **options: Passed to :class:`~textmem_gym.qa.methods.base.LLMQAMethod`.
    """

    name = "ranked"
    similarity = "bm25"
    ranks = True

    def __init__(self, *args: Any, top_k: int = 3, **options: Any) -> None:
        super().__init__(*args, **options)
        if not isinstance(top_k, int) or isinstance(top_k, bool) or top_k < 1:
            raise ValueError(f"top_k must be a positive int, got {top_k!r}")
        self.top_k = top_k
        self.config.update(top_k=top_k, similarity=self.similarity)
        self._ranked: tuple[str, tuple[Paragraph, ...], list[int]] | None = None

    def index(self) -> SimilarityIndex:
        """A new, empty similarity index."""
        return make_index(self.similarity)

    def order(self, question: str, paragraphs: tuple[Paragraph, ...]) -> list[int]:
        """Every paragraph, best first by the index (the last question's ranking is kept, so
        answering and recall rank once)."""
        if self._ranked is None or self._ranked[:2] != (question, paragraphs):
            index = self.index()
            for i, paragraph in enumerate(paragraphs):
                index.add(i, paragraph_text(paragraph))
            self._ranked = (question, paragraphs, [i for i, _ in index.search(question, len(paragraphs))])
        return list(self._ranked[2])

    def choose(self, question: str, paragraphs: tuple[Paragraph, ...]) -> list[int]:
        """The ``top_k`` best by the index, best first."""
        return self.order(question, paragraphs)[:self.top_k]


class BM25Method(RankedMethod):
    """BM25 top-k (``BM25 (top-3)``), with the project's :class:`~textmem_gym.memory.retrieval.BM25Index`."""

    name = "bm25"


class EmbeddingMethod(RankedMethod):
    """Embedding top-k (``Ada-002 (top-3)``): the endpoint's embeddings (``embedding_model`` of the client).

    Raises:
        ValueError: At the first question, if the endpoint serves no embeddings.
    """

    name = "embedding"
    similarity = "openai"

    def __init__(self, *args: Any, **options: Any) -> None:
        super().__init__(*args, **options)
        self.config["embedding_model"] = self.llm.client.embedding_model if self.no_model is None else None

    def unavailable(self) -> str | None:
        """A reason when no model is configured or the endpoint serves no embeddings (asked once)."""
        if self.no_model is not None:
            return f"needs an endpoint serving embeddings ({self.no_model})"
        if self.llm.serves_embeddings():
            return None
        return f"the endpoint serves no embeddings (model {self.llm.client.embedding_model!r})"

    def index(self) -> SimilarityIndex:
        """A dense index over the client's embeddings."""
        reason = self.unavailable()
        if reason is not None:
            raise ValueError(f"embedding top-k cannot run: {reason}; use bm25, or an endpoint serving /v1/embeddings")
        return make_index("openai", client=self.llm.client)


__all__ = ["BM25Method", "ContextMethod", "EmbeddingMethod", "FullContextMethod", "GoldMethod", "RankedMethod"]
