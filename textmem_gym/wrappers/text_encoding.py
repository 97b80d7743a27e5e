"""Text to fixed-size arrays for RL: hashed bag-of-words and padded token-id sequences.

Both encoders share one :class:`HashTokenizer`: a word (lower-cased run of letters/digits) maps
to an id in ``[1, hash_size)`` by CRC-32 (stable across processes and platforms, unlike
``hash``); ``0`` is padding. With the same ``hash_size``, a bag-of-words index *is* a token id,
so a model can share one embedding table between states and commands.

Example:
    >>> bow = BagOfWords(hash_size=64, max_count=3)
    >>> vector = bow.encode("Take the knife. The knife is sharp.")
    >>> vector.shape, vector.dtype.name, int(vector.max())
    ((64,), 'uint8', 2)
    >>> TokenIds(hash_size=64, max_length=5).encode("go north").tolist()
    [1, 19, 0, 0, 0]
"""

from __future__ import annotations

import functools
import re
import zlib
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces

from textmem_gym.loading import lookup

_WORD = re.compile(r"[a-z0-9]+")

#: Default number of hash buckets (token ids ``1..hash_size-1``; ``0`` is padding).
DEFAULT_HASH_SIZE: int = 1024


def _check_positive(name: str, value: Any, minimum: int = 1) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < minimum:
        raise ValueError(f"{name} must be an int >= {minimum}, got {value!r}")
    return value


@dataclass(frozen=True)
class HashTokenizer:
    """Words to ids in ``[1, hash_size)`` by CRC-32; deterministic across processes.

    Args:
        hash_size: Number of ids including the padding id ``0`` (at least 2).

    Example:
        >>> HashTokenizer(hash_size=1024).ids("Open the FRIDGE!")
        [527, 775, 783]
    """

    hash_size: int = DEFAULT_HASH_SIZE

    def __post_init__(self) -> None:
        _check_positive("hash_size", self.hash_size, 2)

    @staticmethod
    def words(text: str) -> list[str]:
        """Lower-cased runs of ASCII letters and digits (punctuation and accents dropped)."""
        if not isinstance(text, str):
            raise TypeError(f"text must be a str, got {type(text).__name__}")
        return _WORD.findall(text.lower())

    def token_id(self, word: str) -> int:
        """The id of one word."""
        return _token_id(word, self.hash_size)

    def ids(self, text: str) -> list[int]:
        """The ids of the words of ``text``, in order."""
        if not isinstance(text, str):
            raise TypeError(f"text must be a str, got {type(text).__name__}")
        return list(_text_ids(text, self.hash_size))


@functools.lru_cache(maxsize=8_192)
def _text_ids(text: str, hash_size: int) -> tuple[int, ...]:
    return tuple(_token_id(word, hash_size) for word in _WORD.findall(text.lower()))


@functools.lru_cache(maxsize=65_536)
def _token_id(word: str, hash_size: int) -> int:
    return 1 + zlib.crc32(word.encode("ascii")) % (hash_size - 1)


@functools.lru_cache(maxsize=64)
def _tokenizer(hash_size: int) -> HashTokenizer:
    return HashTokenizer(hash_size)


class TextEncoder:
    """Base of the encoders: a Gymnasium ``Box`` space and ``encode(text) -> array`` in it."""

    kind: ClassVar[str] = "base"
    hash_size: int

    @property
    def tokenizer(self) -> HashTokenizer:
        """The tokenizer (same ``hash_size``)."""
        return _tokenizer(self.hash_size)

    def space(self) -> spaces.Box:
        """The space every encoded text lies in."""
        raise NotImplementedError

    def encode(self, text: str) -> np.ndarray:
        """One text as a fixed-size array."""
        raise NotImplementedError

    def encode_many(self, texts: Sequence[str], rows: int) -> np.ndarray:
        """``rows`` encodings stacked (missing rows are zeros: empty text / all padding)."""
        space = self.space()
        out = np.zeros((rows, *space.shape), dtype=space.dtype)
        for row, text in enumerate(texts[:rows]):
            out[row] = self.encode(text)
        return out

    def config(self) -> dict[str, Any]:
        """JSON-able settings; :func:`make_text_encoder` rebuilds the encoder from them."""
        return {"kind": self.kind, **asdict(self)}  # type: ignore[call-overload]


@dataclass(frozen=True)
class BagOfWords(TextEncoder):
    """Hashed bag-of-words: ``uint8`` counts per bucket, clipped to ``max_count``.

    Args:
        hash_size: Buckets (vector length); bucket ``0`` is never used.
        max_count: Counts are clipped here, so values lie in ``[0, max_count]``.
    """

    kind: ClassVar[str] = "bow"
    hash_size: int = DEFAULT_HASH_SIZE
    max_count: int = 3

    def __post_init__(self) -> None:
        _check_positive("hash_size", self.hash_size, 2)
        _check_positive("max_count", self.max_count)
        if self.max_count > 255:
            raise ValueError(f"max_count must be <= 255 (uint8), got {self.max_count}")

    def space(self) -> spaces.Box:
        return spaces.Box(0, self.max_count, shape=(self.hash_size,), dtype=np.uint8)

    def encode(self, text: str) -> np.ndarray:
        counts = np.bincount(self.tokenizer.ids(text), minlength=self.hash_size)
        return np.minimum(counts, self.max_count).astype(np.uint8)


@dataclass(frozen=True)
class TokenIds(TextEncoder):
    """Padded token-id sequence: the first ``max_length`` word ids, then zeros (``int32``).

    Args:
        hash_size: Ids lie in ``[0, hash_size)``; ``0`` is padding.
        max_length: Sequence length (longer texts are cut, keeping their beginning).
    """

    kind: ClassVar[str] = "tokens"
    hash_size: int = DEFAULT_HASH_SIZE
    max_length: int = 128

    def __post_init__(self) -> None:
        _check_positive("hash_size", self.hash_size, 2)
        _check_positive("max_length", self.max_length)

    def space(self) -> spaces.Box:
        return spaces.Box(0, self.hash_size - 1, shape=(self.max_length,), dtype=np.int32)

    def encode(self, text: str) -> np.ndarray:
        out = np.zeros(self.max_length, dtype=np.int32)
        ids = self.tokenizer.ids(text)[: self.max_length]
        out[: len(ids)] = ids
        return out


#: Encoder kinds by name (``"bow"``, ``"tokens"``).
TEXT_ENCODERS: dict[str, type[TextEncoder]] = {"bow": BagOfWords, "tokens": TokenIds}


def make_text_encoder(kind: str | dict[str, Any] | TextEncoder = "bow", **options: Any) -> TextEncoder:
    """An encoder by kind (``"bow"``/``"tokens"``), from a :meth:`TextEncoder.config`, or as given.

    Example:
        >>> make_text_encoder("tokens", max_length=16).space().shape
        (16,)
        >>> make_text_encoder({"kind": "bow", "hash_size": 32, "max_count": 1}).space().shape
        (32,)
    """
    if isinstance(kind, TextEncoder):
        return kind
    if isinstance(kind, dict):
        options = {**{k: v for k, v in kind.items() if k != "kind"}, **options}
        kind = kind.get("kind", "bow")
    return lookup("text encoding", kind, TEXT_ENCODERS)(**options)
