"""Lexical affinity between things and places, for the explorer's tidying rule (no LLM).

Things tend to belong with places whose names share a word with theirs (a tv remote on the tv
stand, a dumbbell on the dumbbell rack, a bath towel in the bathroom).
:class:`policies.explorer_commonsense.HomeIndex` joins this with TextWorld Commonsense's object list.

Example:
    >>> related("bath towel", "Bathroom"), related("fantasy book", "bookcase"), related("milk", "sofa")
    (True, True, False)
"""

from __future__ import annotations

import os
import re

STOP_WORDS = frozenset({"room", "area", "the", "of", "and", "a", "an"})
MIN_PREFIX = 4
PLACED = ("is on", "is in")


def name_words(name: str) -> set[str]:
    """Content words of a name."""
    return {w for w in re.findall(r"[a-z]+", name.lower()) if w not in STOP_WORDS and len(w) >= 2}


def related(a: str, b: str) -> bool:
    """Whether two names share a word (or a common prefix of at least four letters)."""
    return any(x == y or len(os.path.commonprefix([x, y])) >= MIN_PREFIX
               for x in name_words(a) for y in name_words(b))
