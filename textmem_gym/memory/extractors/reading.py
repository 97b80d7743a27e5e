"""Triples from things read: the cooking games' recipe, notes naming which key opens which
locker and where (stored as hearsay, ``is said to be in``: not seen yet), and what was read.

Example:
    >>> for triple in read_text("The steel key opens the yellow locker in Room J.", "read second note"):
    ...     print(triple)
    ('steel key', 'opens', 'yellow locker')
    ('yellow locker', 'is said to be in', 'Room J')
    ('second note', 'says', 'The steel key opens the yellow locker in Room J.')
    >>> text = "Recipe #1\\n\\nIngredients:\\n  red apple\\n\\nDirections:\\n  slice the red apple\\n  prepare meal"
    >>> read_text(text)
    [('recipe', 'requires', 'red apple'), ('red apple', 'needs to be', 'sliced')]
    >>> read_text("Welcome to the kitchen.", "look at the cookbook")
    [('cookbook', 'says', 'Welcome to the kitchen.')]
"""

from __future__ import annotations

import re

from textmem_gym.memory.relations import OPPOSITE
from textmem_gym.memory.triples import TripleKey

_SECTION = re.compile(r"Ingredients:\s*\n(?P<ingredients>.*?)\n\s*\n"
                      r"Directions:\s*\n(?P<directions>.*?)(?:\n\s*\n|\Z)", re.S)
_STEP = re.compile(r"^\s*(\w+) the (.+?)\s*$")
_PARTICIPLE = {"slice": "sliced", "dice": "diced", "chop": "chopped", "fry": "fried", "roast": "roasted",
               "grill": "grilled", "cook": "cooked"}
_OPENS = re.compile(r"\b(?:the )?([\w -]+? key) (?:opens|unlocks|fits) (?:the )?([\w -]+?)"
                    r"(?: (?:in|at) (?:the )?([\w -]+?))?[.!]", re.I)
_READ_VERBS = frozenset({"read", "examine", "x", "look"})
#: What precedes the thing read in a command (``look at the cookbook``: the cookbook).
_READ_OBJECT = re.compile(r"^(?:(?:at|in|into|inside|on|under)\s+)?(?:(?:the|a|an)\s+)?", re.I)


def read_recipe(text: str) -> list[TripleKey]:
    """``recipe requires X`` for each ingredient and ``X needs to be <done>`` per direction."""
    match = _SECTION.search(text)
    if not match:
        return []
    triples: list[TripleKey] = []
    for line in match.group("ingredients").splitlines():
        if line.strip():
            triples.append(("recipe", "requires", line.strip()))
    for line in match.group("directions").splitlines():
        step = _STEP.match(line)
        if step and step.group(1).lower() in _PARTICIPLE:
            triples.append((step.group(2), "needs to be", _PARTICIPLE[step.group(1).lower()]))
    return triples


def read_text(text: str, action: str = "") -> list[TripleKey]:
    """Triples of everything readable in ``text`` (recipes, key notes; with a ``read``/
    ``examine`` action, also ``(thing, says, first sentence)``)."""
    triples = read_recipe(text)
    for key, locker, place in _OPENS.findall(text):
        triples.append((key.strip(), "opens", locker.strip()))
        if place:
            triples.append((locker.strip(), "is said to be in", place.strip()))
    words = action.strip().split(maxsplit=1)
    thing = _READ_OBJECT.sub("", words[1].strip()) if len(words) == 2 else ""
    if thing and thing.lower() not in OPPOSITE and words[0].lower() in _READ_VERBS and text.strip() \
            and "-=" not in text:
        first = re.split(r"(?<=[.!?])\s", " ".join(text.split()), maxsplit=1)[0]
        triples.append((thing, "says", first[:200]))
    return triples
