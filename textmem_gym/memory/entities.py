"""Entity similarity shared by the memories: which known entities a query is about.

- :class:`BM25EntityIndex`: Okapi BM25 of the query against entity names (STMA's Algorithm 1
  without an embedding model);
- :class:`EmbeddingEntityIndex`: cosine similarity of embeddings (STMA's Algorithm 1 with one);
- :class:`EntityIndex`: TF-IDF cosine over words and character trigrams (DAVIS's question entities).

Ties go to name order, so retrieval is deterministic.

Example:
    >>> EntityIndex(["red potato", "kitchen", "knife"]).top("where is the potato", 1)
    ['red potato']
    >>> BM25EntityIndex(["red potato", "kitchen", "knife"]).top("where is the potato", 1)
    ['red potato']
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from functools import lru_cache
from typing import Any

import numpy as np

from textmem_gym.memory.retrieval import BM25Index, tokenize

_WORD = re.compile(r"[a-z0-9]+")


@lru_cache(maxsize=65536)
def _features(text: str) -> Counter[str]:
    """Words and character trigrams of ``text`` (cached: callers must not modify the result)."""
    words = tokenize(text) or _WORD.findall(text.lower())
    grams = [f"#{w[i:i + 3]}" for w in words for i in range(max(len(w) - 2, 1))]
    return Counter(words + grams)


class EntityIndex:
    """Cosine similarity of TF-IDF vectors (words + character trigrams) of entity names.

    Example:
        >>> index = EntityIndex(["red potato", "kitchen", "knife"])
        >>> index.top("where is the potato", 1)
        ['red potato']
    """

    def __init__(self, entities: Iterable[str]):
        self.entities = sorted(set(entities))
        self._vectors = [_features(e) for e in self.entities]
        df: Counter[str] = Counter(f for v in self._vectors for f in v)
        n = len(self.entities)
        self._idf = {f: math.log((1 + n) / (1 + d)) + 1.0 for f, d in df.items()}
        self._norms = [self._norm(v) for v in self._vectors]
        self._postings: dict[str, list[tuple[int, int]]] = {}  # feature -> (entity index, count)
        for index, vector in enumerate(self._vectors):
            for feature, count in vector.items():
                self._postings.setdefault(feature, []).append((index, count))

    def _norm(self, vector: Counter[str]) -> float:
        return math.sqrt(sum((c * self._idf.get(f, 0.0)) ** 2 for f, c in vector.items())) or 1.0

    def scores(self, query: str) -> list[tuple[str, float]]:
        """``(entity, cosine similarity)`` for every entity, best first (ties: name order)."""
        q = _features(query)
        q_norm = self._norm(q)
        dots = [0.0] * len(self.entities)
        for feature, c in q.items():  # only the features an entity shares add to its dot product
            weight = self._idf.get(feature, 0.0) ** 2
            for index, count in self._postings.get(feature, ()):
                dots[index] += c * count * weight
        out = [(entity, dot / (norm * q_norm)) for entity, dot, norm in zip(self.entities, dots, self._norms)]
        return sorted(out, key=lambda pair: (-pair[1], pair[0]))

    def top(self, query: str, n: int) -> list[str]:
        """The ``n`` entities most similar to ``query`` (similarity > 0)."""
        return [e for e, s in self.scores(query)[:n] if s > 0]


class BM25EntityIndex:
    """Okapi BM25 (:class:`~textmem_gym.memory.retrieval.BM25Index`) of a query against entity
    names: Algorithm 1's entity similarity without an embedding model.

    Example:
        >>> BM25EntityIndex(["red potato", "kitchen", "knife"]).top("where is the potato", 1)
        ['red potato']
    """

    def __init__(self, entities: Iterable[str]):
        self.entities = sorted(set(entities))
        self.index = BM25Index()
        for number, name in enumerate(self.entities):
            self.index.add(number, name)

    def top(self, query: str, n: int) -> list[str]:
        """The ``n`` entities scoring highest for ``query`` (score > 0; ties: name order)."""
        if n <= 0:
            return []
        return [self.entities[number] for number, score in self.index.search(query, n) if score > 0]


class EmbeddingEntityIndex:
    """Cosine similarity of embeddings (Algorithm 1 with an embedding model), one embedding per
    distinct text kept in ``cache``.

    Args:
        entities: Entity names.
        embed: ``texts -> vectors`` (e.g. :func:`~textmem_gym.memory.retrieval.client_embedder`).
        cache: Text -> unit vector, shared across steps.
    """

    def __init__(self, entities: Iterable[str], embed: Callable[[Sequence[str]], Any],
                 cache: dict[str, np.ndarray] | None = None):
        self.entities, self.embed = sorted(set(entities)), embed
        self.cache = {} if cache is None else cache

    def _vectors(self, texts: Sequence[str]) -> list[np.ndarray]:
        missing = [t for t in dict.fromkeys(texts) if t not in self.cache]
        if missing:
            for text, vector in zip(missing, np.asarray(self.embed(missing), dtype=np.float32)):
                self.cache[text] = vector / (np.linalg.norm(vector) or 1.0)
        return [self.cache[t] for t in texts]

    def top(self, query: str, n: int) -> list[str]:
        """The ``n`` entities most similar to ``query``."""
        if not self.entities or n <= 0:
            return []
        q, *rows = self._vectors([query, *self.entities])
        sims = np.asarray(rows) @ q
        return [self.entities[i] for i in np.argsort(-sims, kind="stable")[:n]]
