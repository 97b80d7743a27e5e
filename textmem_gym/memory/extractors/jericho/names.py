"""Names as the game prints them: articles dropped, lists split, a name found in a text."""

from __future__ import annotations

import re
from functools import lru_cache

_ARTICLES = ("a ", "an ", "the ", "some ", "your ")


def bare(phrase: str) -> str:
    """``phrase`` without its article and closing punctuation (``"A brass lantern."`` -> ``"brass lantern"``)."""
    phrase = " ".join(phrase.split()).strip(" .!")
    low = phrase.lower()
    for article in _ARTICLES:
        if low.startswith(article):
            return phrase[len(article):].strip()
    return phrase


#: A parenthesized remark holding none (Inform's ``(which is closed)``).
_REMARK = re.compile(r"\([^()]*\)")
#: ``and`` between two capitalized words, inside a title-case name (``the Legends and Lore of Pentari``).
_TITLE_AND = re.compile(r"\b([A-Z][\w'-]*) and (?=[A-Z])")


def unremarked(text: str) -> str:
    """``text`` without Inform's parenthesized remarks, nested ones too (innermost first).

    Example:
        >>> unremarked("a keyring (on which are two keys (a key to the house and a key to the cellar)) here")
        'a keyring here'
    """
    while _REMARK.search(text):
        text = _REMARK.sub("", text)
    return re.sub(r"\s+(?=[\s,.!?]|$)", "", text)


def split_things(text: str) -> list[str]:
    """``"a lunch, and a clove of garlic"`` -> ``["lunch", "clove of garlic"]`` (Inform's
    parenthesized remarks dropped); an ``and`` between two capitalized words is part of a title.

    Example:
        >>> split_things("a sword and a copy of the Legends and Lore of Pentari")
        ['sword', 'copy of the Legends and Lore of Pentari']
        >>> split_things("your umbrella and a keyring (on which are two keys (a key and a key))")
        ['umbrella', 'keyring']
    """
    text = _TITLE_AND.sub(lambda m: m.group(1) + " \x00 ", unremarked(text))
    parts = re.split(r",\s*(?:and\s+)?|\s+and\s+", text.strip().rstrip(".!"))
    return [name for name in (bare(p.replace(" \x00 ", " and ")) for p in parts) if name]


@lru_cache(maxsize=8192)
def _name_pattern(name: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![\w-]){re.escape(name)}(?:e?s)?(?![\w-])")


def printed(name: str, text: str) -> bool:
    """Whether ``name`` appears in ``text`` as a whole phrase (lower case; a plural allowed)."""
    return bool(name) and _name_pattern(name.lower()).search(text) is not None

