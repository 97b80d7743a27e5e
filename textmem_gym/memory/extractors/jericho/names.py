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


#: Words that name no thing by themselves (Inform's ``(first taking them off)``, ``You see nothing here``).
_NO_THING = frozenset({"it", "them", "him", "her", "me", "you", "us", "yourself", "itself", "himself", "herself",
                       "themselves", "nothing", "everything", "something", "anything", "all", "other", "others",
                       "this", "that", "these", "those", "each", "one"})
#: What follows a thing's name to say where or how it lies (``small metal box attached to the wall``, ``cord
#: dangling in mid-air``, ``shovel lying``): a participle and the phrase it heads; a bracket left open.
_PLACED_AFTER = re.compile(
    r"\s+(?:(?:lying|sitting|standing|resting|hanging|dangling|floating|leaning|hovering|bobbing|swinging|sticking"
    r"|protruding|jutting|lurking|waiting|sleeping|perched|propped|lodged|stuck|parked|piled|scattered|strewn)"
    r"(?:\s.*)?|[a-z]{4,}ed\s+(?:to|on|onto|upon|in|into|inside|from|at|by|under|beneath|over|against|beside|near"
    r"|with|across|around|through|between|above|below|behind|along|off)\b.*)$"
    r"|\s*\([^)]*$")


def thing_name(name: str) -> str:
    """A printed name as the name of a thing: without what follows it to say where or how it lies, ``""`` when
    it names no thing (a pronoun, ``nothing``).

    Example:
        >>> thing_name("small metal box attached to the wall"), thing_name("shovel lying"), thing_name("them")
        ('small metal box', 'shovel', '')
        >>> thing_name("large pizza box (in"), thing_name("wedding ring"), thing_name("oil painting on the wall")
        ('large pizza box', 'wedding ring', 'oil painting on the wall')
    """
    name = _PLACED_AFTER.sub("", name.strip())
    return "" if name.lower() in _NO_THING else name


@lru_cache(maxsize=8192)
def _name_pattern(name: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![\w-]){re.escape(name)}(?:e?s)?(?![\w-])")


def printed(name: str, text: str) -> bool:
    """Whether ``name`` appears in ``text`` as a whole phrase (lower case; a plural allowed)."""
    return bool(name) and _name_pattern(name.lower()).search(text) is not None

