"""Lexical affinity between things and places, for the explorer's tidying rule (no LLM).

Things tend to belong with places whose names share a word with theirs (a tv remote on the tv
stand, a dumbbell on the dumbbell rack, a bath towel in the bathroom). From the believed
triples of a memory, :class:`PlaceIndex` finds items lying where nothing in their name fits,
whose name does fit another known piece of furniture or room: the candidates to move.

Example:
    >>> related("bath towel", "Bathroom"), related("fantasy book", "bookcase"), related("milk", "sofa")
    (True, True, False)
    >>> index = PlaceIndex([("sofa", "is at", "living room"), ("tv stand", "is at", "den"),
    ...                     ("tv remote", "is on", "sofa")], ["living room", "den"])
    >>> index.misplaced()
    {'tv remote': [('den', 'tv stand')]}
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable

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


class PlaceIndex:
    """Where things are, from ``(subject, relation, object)`` triples and the known rooms."""

    def __init__(self, triples: Iterable[tuple[str, str, str]], rooms: Iterable[str]) -> None:
        triples = list(triples)
        self.rooms = list(rooms)
        self.room_of = {s: o for s, r, o in triples if r == "is at" and o in self.rooms}
        self.place_of = {s: o for s, r, o in triples if r in PLACED and o in self.room_of}

    def targets(self, item: str) -> list[tuple[str, str | None]]:
        """``(room, furniture or None)`` places whose name fits ``item``, other than where it is."""
        here = self.place_of.get(item)
        room_here = self.room_of.get(here or "")
        found: list[tuple[str, str | None]] = [(room, f) for f, room in self.room_of.items()
                                               if f != here and f != item and related(item, f)]
        found += [(room, None) for room in self.rooms if room != room_here and related(item, room)]
        return found

    def misplaced(self) -> dict[str, list[tuple[str, str | None]]]:
        """Items whose place and room do not fit their name while another known place does."""
        out = {}
        for item, place in self.place_of.items():
            if related(item, place) or related(item, self.room_of[place]):
                continue
            targets = self.targets(item)
            if targets:
                out[item] = targets
        return out
