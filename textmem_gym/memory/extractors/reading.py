"""Triples from things read: the cooking games' recipe, and notes that name places or keys.

Example:
    >>> text = "Recipe #1\\n\\nIngredients:\\n  red apple\\n\\nDirections:\\n  slice the red apple\\n  prepare meal"
    >>> read_text(text)
    [('recipe', 'requires', 'red apple'), ('red apple', 'needs to be', 'sliced')]
"""

from __future__ import annotations

import re

from textmem_gym.memory.triples import TripleKey

_SECTION = re.compile(r"Ingredients:\s*\n(?P<ingredients>.*?)\n\s*\nDirections:\s*\n(?P<directions>.*?)(?:\n\s*\n|\Z)", re.S)
_STEP = re.compile(r"^\s*(\w+) the (.+?)\s*$")
_PARTICIPLE = {"slice": "sliced", "dice": "diced", "chop": "chopped", "fry": "fried", "roast": "roasted",
               "grill": "grilled", "cook": "cooked"}
_NOTE = re.compile(r"(?:The note|It|The paper|The letter) (?:says|reads)[:,]?\s*[\"']?(.+?)[\"']?\s*$", re.S | re.M)


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


def read_text(text: str) -> list[TripleKey]:
    """Triples of everything readable in ``text`` (currently recipes and notes)."""
    triples = read_recipe(text)
    note = _NOTE.search(text)
    if note:
        triples.append(("note", "says", " ".join(note.group(1).split())[:200]))
    return triples
