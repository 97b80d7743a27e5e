"""Robust parsing of the AriGraph prompts' answers (relation canonicalization,
:func:`~textmem_gym.memory.semantic.canonical`, is shared by every memory).

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

import json
import re

from textmem_gym.memory.semantic import RELATION_ALIASES, TripleKey, canonical, normalize

__all__ = ["RELATION_ALIASES", "canonical", "parse_replacements", "parse_triplets"]

_FENCE = re.compile(r"```[a-zA-Z]*|```")
_PREAMBLE = re.compile(r"^\s*(?:extracted triplets|triplets|answer|replacing)\s*:\s*", re.I)
_ITEM_PREFIX = re.compile(r"^\s*(?:[-*\u2022]|\d+[.)])\s*")
_QUOTES = "\"'`[](){}"
_FORBIDDEN_SUBJECTS = frozenset({"you", "i", "player", "agent", "none", ""})
_PAIR = re.compile(r"([^\[\]>]+?)\s*-+>\s*([^\[\]]+?)\s*(?:\]|$)", re.M)

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


def _structured(text: str) -> list[str] | None:
    """The triplets of a structured answer (``{"triplets": [{"subject", "relation", "object"}, ...]}``
    or lists of three) as ``"s, r, o"`` lines; ``None`` when ``text`` is no such JSON."""
    try:
        data = json.loads(text) if text.startswith("{") else None
    except ValueError:
        return None
    items = data.get("triplets") if isinstance(data, dict) else None
    if not isinstance(items, list):
        return None
    lines = []
    for item in items:
        parts = [item.get(k) for k in ("subject", "relation", "object")] if isinstance(item, dict) else item
        if isinstance(parts, list) and len(parts) == 3 and all(isinstance(part, str) for part in parts):
            lines.append(", ".join(part.replace(",", " ") for part in parts))
    return lines


def parse_triplets(answer: str) -> list[TripleKey]:
    """Triples in an answer to the extraction prompt, free text or structured (duplicates and
    the agent's own location dropped).

    Example:
        >>> parse_triplets('{"triplets": [{"subject": "Orsk", "relation": "lies on", "object": "Kodun River"}]}')
        [('orsk', 'lies on', 'kodun river')]
    """
    text = _PREAMBLE.sub("", _FENCE.sub("", answer or "").strip())
    found: list[TripleKey] = []
    structured = _structured(text)
    for chunk in re.split(r";|\n", text) if structured is None else structured:
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
