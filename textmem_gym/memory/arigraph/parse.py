"""Robust parsing of the AriGraph prompts' answers, and relation canonicalization.

LLMs answer the triplet prompt as ``"s, r, o; s, r, o"`` but also with numbered lines,
quotes, brackets, code fences or a preamble; the replacement prompt as
``[["s, r, o" -> "s, r, o"], ...]`` with the same noise. These parsers never raise.

Example:
    >>> parse_triplets('Extracted triplets: "Kitchen, contains, apple"; 2. apple, is on, table\\nyou, are in, kitchen')
    [('kitchen', 'contains', 'apple'), ('apple', 'is on', 'table')]
    >>> parse_replacements('[["apple, is on, table" -> "apple, is in, inventory"]]')
    [(('apple', 'is on', 'table'), ('apple', 'is in', 'inventory'))]
    >>> canonical(("hall", "east of", "kitchen")), canonical(("kitchen", "contains", "apple"))
    (('hall', 'is east of', 'kitchen'), ('apple', 'is at', 'kitchen'))
"""

from __future__ import annotations

import re

from textmem_gym.memory.relations import AT, DIRECTIONS, IN, ON, direction_relation
from textmem_gym.memory.triples import TripleKey, normalize

_FENCE = re.compile(r"```[a-zA-Z]*|```")
_PREAMBLE = re.compile(r"^\s*(?:extracted triplets|triplets|answer|replacing)\s*:\s*", re.I)
_ITEM_PREFIX = re.compile(r"^\s*(?:[-*\u2022]|\d+[.)])\s*")
_QUOTES = "\"'`[](){}"
_FORBIDDEN_SUBJECTS = frozenset({"you", "i", "player", "agent", "none", ""})
_PAIR = re.compile(r"([^\[\]>]+?)\s*-+>\s*([^\[\]]+?)\s*(?:\]|$)", re.M)

#: Relation phrasings LLMs use -> the memory's relation (spatial and location ones matter for
#: routes, unexplored exits and the belief metric).
RELATION_ALIASES: dict[str, str] = {
    **{f"{d} of": direction_relation(d) for d in DIRECTIONS},
    **{f"is {d} of": direction_relation(d) for d in DIRECTIONS},
    **{f"located {d} of": direction_relation(d) for d in DIRECTIONS},
    "in": IN, "inside": IN, "is inside": IN, "located in": IN, "is located in": IN,
    "on": ON, "is on top of": ON, "located on": ON, "is located on": ON,
    "at": AT, "is located at": AT, "located at": AT,
    "state": "is", "has state": "is", "is currently": "is",
    "has exit to": "has exit", "has an exit": "has exit", "exit": "has exit", "has exits": "has exit",
}


def _split_triplet(text: str) -> TripleKey | None:
    text = _ITEM_PREFIX.sub("", text).strip().strip(_QUOTES).strip()
    parts = [p.strip().strip(_QUOTES).strip() for p in text.split(",")]
    parts = [p for p in parts if p]
    if len(parts) < 3:
        return None
    subject, relation, obj = parts[0], " ".join(parts[1:-1]), parts[-1]
    triple = (normalize(subject), normalize(relation), normalize(obj.rstrip(".")))
    if triple[0] in _FORBIDDEN_SUBJECTS or triple[2] in ("none", "") or len(" ".join(triple).split()) > 12:
        return None
    return triple


def parse_triplets(answer: str) -> list[TripleKey]:
    """Triples in an answer to the extraction prompt (duplicates and the agent's own
    location dropped)."""
    text = _PREAMBLE.sub("", _FENCE.sub("", answer or "").strip())
    found: list[TripleKey] = []
    for chunk in re.split(r";|\n", text):
        triple = _split_triplet(_PREAMBLE.sub("", chunk))
        if triple is not None and triple not in found:
            found.append(triple)
    return found


def parse_replacements(answer: str) -> list[tuple[TripleKey, TripleKey]]:
    """``(outdated, actual)`` pairs in an answer to the replacement prompt."""
    text = _FENCE.sub("", answer or "")
    pairs = []
    for left, right in _PAIR.findall(text):
        old, new = _split_triplet(left.strip(" ,[")), _split_triplet(right)
        if old is not None and new is not None:
            pairs.append((old, new))
    return pairs


def canonical(triple: TripleKey, rooms: frozenset[str] | set[str] = frozenset()) -> TripleKey:
    """Maps relation phrasings to the memory's vocabulary; ``contains`` is turned around:
    ``(room, contains, x)`` -> ``(x, is at, room)`` for a known room, else ``(x, is in, holder)``."""
    subject, relation, obj = triple
    if relation in ("contains", "has", "has item"):
        return (obj, AT if subject in rooms or not rooms else IN, subject)
    return (subject, RELATION_ALIASES.get(relation, relation), obj)
