"""Retrieval: similarity search over triples (an incremental BM25 index, the default, and dense
embeddings) and the episodic memory searched by the triples found (AriGraph's equation (1)).

Both keep an index updated as triples come and go, so a query never re-embeds or rescans
every triple (the AriGraph reference code re-embeds all edges on each query). BM25 only scores
the triples sharing a query token (posting lists); very common tokens (relation words like
``is``) are skipped once they are in more than ``max_df`` of the triples, and a token whose
posting list is longer than ``max_postings`` is only read when the query has no rarer token
(rare tokens dominate BM25 anyway), so a query's cost does not grow with the graph.

Example:
    >>> index = BM25Index()
    >>> index.add(0, "knife, is on, table")
    >>> index.add(1, "apple, is in, fridge")
    >>> [tid for tid, _ in index.search("where is the knife", 2)]
    [0]

The episodic memory keeps one vertex per step (its observation) and an episodic edge to every
triple extracted at that step:

    >>> memory = EpisodicMemory()
    >>> memory.add(0, "go north", "You are in the kitchen. A knife is on the table.", [0, 1])
    >>> memory.add(1, "take knife", "Taken.", [2])
    >>> [(e.step, round(s, 3)) for e, s in memory.search([0, 2], k=2)]
    [(0, 0.5)]
"""

from __future__ import annotations

import functools
import heapq
import math
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Protocol

import numpy as np

from textmem_gym.loading import lookup

_TOKEN = re.compile(r"[a-z0-9]+")
#: Words carrying no content in queries and triples.
STOPWORDS: frozenset[str] = frozenset(
    "a an the of to in on at is are was be it its you your i and or with from for by this that "
    "there here what where which who how".split())


def tokenize(text: str) -> list[str]:
    """Lower-case alphanumeric tokens without stopwords."""
    return [t for t in _TOKEN.findall(text.lower()) if t not in STOPWORDS]


@functools.lru_cache(maxsize=1 << 14)
def query_tokens(text: str) -> frozenset[str]:
    """The distinct tokens of a query (kept: the same rooms and things are asked about every step)."""
    return frozenset(tokenize(text))


def _rank(item: tuple[int, float]) -> tuple[float, int]:
    return (-item[1], item[0])


@functools.lru_cache(maxsize=8192)
def one_line(text: str) -> str:
    """``text`` on one line, whitespace collapsed (kept: the same episodes are shown step after step).

    Example:
        >>> one_line("You see\\n  a chest.")
        'You see a chest.'
    """
    return " ".join(text.split())


def passage_text(observation: str, action: str) -> str:
    """One memory update (a step, or a paragraph in QA) as one line: ``"> action | observation"``
    (just the observation when ``action`` is ``""``), whitespace collapsed.

    Example:
        >>> passage_text("You take  the knife.", "take knife")
        '> take knife | You take the knife.'
    """
    text = " ".join(observation.split())
    return f"> {' '.join(action.split())} | {text}" if action.strip() else text


class SimilarityIndex(Protocol):
    """What the memory needs from a similarity backend."""

    def add(self, item: int, text: str) -> None:
        """Indexes ``text`` under id ``item``."""

    def remove(self, item: int) -> None:
        """Drops ``item`` from the index."""

    def search(self, query: str, k: int, candidates: Iterable[int] = ()) -> list[tuple[int, float]]:
        """The ``k`` best items for ``query`` (``candidates`` are always scored too)."""


class BM25Index:
    """Okapi BM25 over short texts, updated incrementally. Additions and removals are applied, in
    order, when the index is next read (a memory whose belief nobody reads never pays for them).

    Args:
        k1: Term-frequency saturation.
        b: Length normalization.
        max_df: Query tokens found in more than this fraction of documents are ignored (their
            IDF is near zero and their posting lists are the whole index).
        max_postings: Posting lists longer than this are skipped when a rarer query token
            was scored.
    """

    def __init__(self, k1: float = 1.2, b: float = 0.75, max_df: float = 0.2, max_postings: int = 256):
        self.k1, self.b, self.max_df, self.max_postings = k1, b, max_df, max_postings
        self._postings: dict[str, dict[int, int]] = defaultdict(dict)
        self._lengths: dict[int, int] = {}
        self._total_length = 0
        self._tokens_of: dict[int, tuple[str, ...]] = {}
        self._weights: dict[str, dict[int, float]] = {}  # token -> its term of each item's score (until a change)
        self._pending: list[tuple[int, str | None]] = []  # (item, text) to add or (item, None) to remove, in order

    def __len__(self) -> int:
        self._settle()
        return len(self._lengths)

    def add(self, item: int, text: str) -> None:
        """Indexes ``text`` under ``item`` (re-adding replaces)."""
        self._pending.append((item, text))
        if len(self._pending) > 4096:
            self._settle()

    def remove(self, item: int) -> None:
        """Drops ``item`` (no-op if absent)."""
        self._pending.append((item, None))

    def _settle(self) -> None:
        """Applies the pending additions and removals."""
        if not self._pending:
            return
        pending, self._pending = self._pending, []
        self._weights.clear()
        for item, text in pending:
            if text is None:
                self._drop(item)
            else:
                self._index(item, text)

    def _index(self, item: int, text: str) -> None:
        if item in self._lengths:
            self._drop(item)
        counts = Counter(tokenize(text))
        for token, count in counts.items():
            self._postings[token][item] = count
        length = sum(counts.values())
        self._lengths[item] = length
        self._total_length += length
        self._tokens_of[item] = tuple(counts)

    def _drop(self, item: int) -> None:
        if item not in self._lengths:
            return
        for token in self._tokens_of.pop(item):
            postings = self._postings[token]
            postings.pop(item, None)
            if not postings:
                del self._postings[token]
        self._total_length -= self._lengths.pop(item)

    def idf(self, token: str) -> float:
        """BM25 inverse document frequency (non-negative variant)."""
        self._settle()
        n, df = len(self._lengths), len(self._postings.get(token, ()))
        return math.log(1.0 + (n - df + 0.5) / (df + 0.5))

    def scores(self, query: str, candidates: Iterable[int] = ()) -> dict[int, float]:
        """BM25 score of every item sharing a (not too common) token with ``query``."""
        self._settle()
        n = len(self._lengths)
        if n == 0:
            return {}
        lengths, postings_of = self._lengths, self._postings
        scores: dict[int, float] = {c: 0.0 for c in candidates if c in lengths}
        tokens = sorted((len(postings_of.get(t, ())), t) for t in query_tokens(query))
        scored_any = False
        for df, token in tokens:
            if not df or (n > 50 and df > self.max_df * n) or (scored_any and df > self.max_postings):
                continue
            scored_any = True
            for item, weight in self._token_weights(token).items():
                scores[item] = scores.get(item, 0.0) + weight
        return scores

    def _token_weights(self, token: str) -> dict[int, float]:
        """``token``'s term of the score of each item holding it; kept until the index changes
        (the term depends on every item through the IDF and the average length)."""
        weights = self._weights.get(token)
        if weights is None:
            average = self._total_length / len(self._lengths)
            idf, k1, b, lengths = self.idf(token), self.k1, self.b, self._lengths
            weights = {item: idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * lengths[item] / average))
                       for item, tf in self._postings[token].items()}
            self._weights[token] = weights
        return weights

    def search(self, query: str, k: int, candidates: Iterable[int] = ()) -> list[tuple[int, float]]:
        """The ``k`` best ``(item, score)`` pairs, best first (ties: lower id first)."""
        scores = self.scores(query, candidates)
        if len(scores) > 8 * k:
            return heapq.nlargest(k, scores.items(), key=lambda kv: (kv[1], -kv[0]))
        return sorted(scores.items(), key=_rank)[:k]


Embedder = Callable[[Sequence[str]], np.ndarray]


class DenseIndex:
    """Cosine similarity over embeddings computed once per triple text (cached by text).

    Rows live in a growing matrix (capacity doubles), so adding is amortized O(dim) and a
    query is one matrix-vector product over the stored rows.

    Args:
        embed: Maps a list of texts to a ``(n, dim)`` array, e.g.
            :func:`sentence_transformer_embedder`, :func:`openai_embedder` or
            :func:`client_embedder`.
    """

    def __init__(self, embed: Embedder):
        self.embed = embed
        self._cache: dict[str, np.ndarray] = {}
        self._rows: dict[int, int] = {}
        self._ids: list[int] = []
        self._matrix = np.zeros((0, 0), dtype=np.float32)

    def __len__(self) -> int:
        return len(self._ids)

    def _vector(self, text: str) -> np.ndarray:
        if text not in self._cache:
            vector = np.asarray(self.embed([text])[0], dtype=np.float32)
            self._cache[text] = vector / (np.linalg.norm(vector) or 1.0)
        return self._cache[text]

    def add(self, item: int, text: str) -> None:
        """Embeds ``text`` (once per distinct text) and stores it under ``item``."""
        vector = self._vector(text)
        self.remove(item)
        size = len(self._ids)
        if self._matrix.shape[0] <= size or self._matrix.shape[1] != vector.shape[0]:
            grown = np.zeros((max(16, 2 * size), vector.shape[0]), dtype=np.float32)
            if size:
                grown[:size] = self._matrix[:size]
            self._matrix = grown
        self._matrix[size] = vector
        self._rows[item] = size
        self._ids.append(item)

    def remove(self, item: int) -> None:
        """Drops ``item`` (the last row moves into its place)."""
        row = self._rows.pop(item, None)
        if row is None:
            return
        last = len(self._ids) - 1
        if row != last:
            moved = self._ids[last]
            self._matrix[row] = self._matrix[last]
            self._ids[row] = moved
            self._rows[moved] = row
        self._ids.pop()

    def search(self, query: str, k: int, candidates: Iterable[int] = ()) -> list[tuple[int, float]]:
        """The ``k`` most similar items (one matrix-vector product, no re-embedding)."""
        if not self._ids:
            return []
        sims = self._matrix[: len(self._ids)] @ self._vector(query)
        top = np.argsort(-sims, kind="stable")[:k]
        return [(self._ids[i], float(sims[i])) for i in top]


def sentence_transformer_embedder(model_path: str) -> Embedder:
    """Embeddings from a local sentence-transformers model (``pip install sentence-transformers``)."""
    try:
        from sentence_transformers import SentenceTransformer
    except ImportError as error:  # pragma: no cover - optional dependency
        raise ImportError("dense retrieval with a model path needs `pip install sentence-transformers`") from error
    model = SentenceTransformer(model_path)
    return lambda texts: np.asarray(model.encode(list(texts)))


def openai_embedder(model: str, *, base_url: str | None = None, api_key: str | None = None) -> Embedder:
    """Embeddings from an OpenAI-compatible ``/v1/embeddings`` endpoint (OpenAI, vLLM, Ollama)."""
    import os

    from openai import OpenAI

    client = OpenAI(base_url=base_url or os.environ.get("OPENAI_BASE_URL"),
                    api_key=api_key or os.environ.get("OPENAI_API_KEY") or "none")

    def embed(texts: Sequence[str]) -> np.ndarray:
        response = client.embeddings.create(model=model, input=list(texts))
        return np.asarray([row.embedding for row in response.data], dtype=np.float32)

    return embed


def client_embedder(client: object) -> Embedder:
    """Embeddings through a :class:`~textmem_gym.llm.LLMClient` (cached and accounted)."""
    return lambda texts: np.asarray(client.embed(list(texts)), dtype=np.float32)  # type: ignore[attr-defined]


def make_index(similarity: str | SimilarityIndex = "bm25", **options: object) -> SimilarityIndex:
    """Builds a similarity index by name: ``bm25`` (default), ``sentence-transformers``
    (``model_path=...``) or ``openai`` (``client=LLMClient(...)``, or ``model=...``,
    ``base_url``, ``api_key`` for a bare OpenAI-compatible endpoint)."""
    if not isinstance(similarity, str):
        return similarity
    builders: dict[str, Callable[..., SimilarityIndex]] = {
        "bm25": lambda **o: BM25Index(**o),
        "sentence-transformers": lambda model_path, **o: DenseIndex(sentence_transformer_embedder(model_path)),
        "openai": lambda model=None, client=None, **o: DenseIndex(
            client_embedder(client) if client is not None else openai_embedder(model or "text-embedding-3-small", **o)),
    }
    return lookup("similarity", similarity, builders)(**options)


# ---- episodic memory ----


@dataclass
class Episode:
    """One episodic vertex.

    Attributes:
        step: Environment step (0 = the reset observation).
        action: Action that led to the observation (``""`` at reset).
        observation: Full observation text.
        triples: Ids of the triples extracted from it (the episodic edge).
        location: Where the memory believed the agent was after it (``None``: not known).
    """

    step: int
    action: str
    observation: str
    triples: list[int] = field(default_factory=list)
    location: str | None = None


def episodic_relevance(n_matched: int, n_total: int) -> float:
    """Equation (1): ``n / max(N, 1) * log2(max(N, 1))``; one-triple observations get zero."""
    n_total = max(n_total, 1)
    return n_matched / n_total * math.log2(n_total)


class EpisodicMemory:
    """Episodic vertices, grouped by their episodic edge (episodes linked to the same triples),
    with a reverse index triple id -> groups.

    A game re-describes the same room many times: those episodes link the same triples, so they
    share one group, and a search scores each group once (its episodes all have its score; only
    its ``k`` most recent can be among the ``k`` best, ties going to the most recent). A search
    costs the groups its triples touch, not every episode that ever repeated them.
    """

    def __init__(self) -> None:
        self.episodes: list[Episode] = []
        self._groups: dict[tuple[int, ...], list[int]] = {}  # triple ids -> their episodes' indexes, in order
        self._by_triple: dict[int, list[tuple[int, ...]]] = defaultdict(list)  # triple id -> groups linking it

    def __len__(self) -> int:
        return len(self.episodes)

    def add(self, step: int, action: str, observation: str, triples: Iterable[int],
            location: str | None = None) -> None:
        """Adds the vertex of ``step`` (``location``: where the agent was believed to be after it)
        and its episodic edge."""
        ids = sorted(set(triples))
        index = len(self.episodes)
        self.episodes.append(Episode(step, action, observation, ids, location))
        key = tuple(ids)
        group = self._groups.get(key)
        if group is None:
            group = self._groups[key] = []
            for tid in ids:
                self._by_triple[tid].append(key)
        group.append(index)

    def search(self, triples: Iterable[int], k: int) -> list[tuple[Episode, float]]:
        """The ``k`` episodes most relevant to the retrieved ``triples`` (score > 0), best first
        (ties: most recent first)."""
        matched: dict[tuple[int, ...], int] = defaultdict(int)
        for tid in set(triples):
            for key in self._by_triple.get(tid, ()):
                matched[key] += 1
        scored = ((i, score) for key, n in matched.items() if (score := episodic_relevance(n, len(key))) > 0
                  for i in self._groups[key][-k:])
        best = heapq.nlargest(k, scored, key=lambda s: (s[1], s[0])) if k > 0 else []
        return [(self.episodes[i], score) for i, score in best]

    def to_json(self) -> list[dict[str, Any]]:
        """Every episode as a JSON-ready dict."""
        return [asdict(e) for e in self.episodes]

    @classmethod
    def from_json(cls, rows: Iterable[dict[str, Any]]) -> EpisodicMemory:
        """Rebuilds the memory written by :meth:`to_json`."""
        memory = cls()
        for row in rows:
            memory.add(row["step"], row["action"], row["observation"], row["triples"], row.get("location"))
        return memory
