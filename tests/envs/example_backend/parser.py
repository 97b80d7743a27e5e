"""How memories read the Cellar's text: its :class:`~textmem_gym.memory.extractors.base.TextParser`.

The env names it as ``"module:Class"`` (``CellarEnv.text_parser``: no entry point needed), and hands
over the ground truth with it (:meth:`CellarRules.observed_truth`, whose ``map_facts`` is the Cellar's
fact mapper); ``MemoryGraphWrapper`` builds it and hands it to the memory's extractor, so no memory
guesses which game it reads.

=========================================================  =================================================
Cellar text                                                triples
=========================================================  =================================================
``You are in the hall.`` + ``You see a key and a lamp.``   ``("key", "is at", "hall")``...
``Exits lead west and north.``                             ``("hall", "has exit", "west")``...
arriving after ``go north`` from the hall                  ``("garden", "is north of", "hall")``, reversed
``The chest is locked.`` / ``In the chest is a coin.``     ``("chest", "is", "locked")``, ``("coin", "is in",
                                                           "chest")``
``You take the key.`` / ``You drop the key.``              ``("key", "is in", "inventory")`` / ``"is at"`` here
``You are carrying a key and a lamp.``                     the believed inventory, replaced
=========================================================  =================================================

A room description is a snapshot: things believed in the room and not shown any more are invalidated.

Example:
    >>> from textmem_gym.memory.semantic import TripleStore
    >>> rules = CellarRules()
    >>> out = rules.extract("You are in the pantry. You see a key. Exits lead south and east.", "go north", {},
    ...                     TripleStore())
    >>> out.location, sorted(out.triples)  # doctest: +NORMALIZE_WHITESPACE
    ('pantry', [('key', 'is at', 'pantry'), ('pantry', 'has exit', 'east'), ('pantry', 'has exit', 'south')])
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from textmem_gym.memory.extractors.base import Extraction
from textmem_gym.memory.ground_truth import ObservedTruth
from textmem_gym.memory.semantic import (
    AT,
    HAS_EXIT,
    IN,
    INVENTORY,
    IS,
    OPPOSITE,
    Triple,
    TripleKey,
    TripleStore,
    direction_relation,
    exclusive_conflicts,
    normalize,
)

_ROOM = re.compile(r"You are in the (\w+)\.")
_SEE = re.compile(r"You see (.+?)\.")
_EXITS = re.compile(r"Exits lead (.+?)\.")
_STATE = re.compile(r"The (\w+) is (open|locked)\.")
_INSIDE = re.compile(r"In the (\w+) is a (\w+)\.")
_TAKE, _DROP = re.compile(r"^You take the (\w+)\."), re.compile(r"^You drop the (\w+)\.")
_CARRYING = re.compile(r"^You are carrying (.+?)\.")
_UNLOCKED = re.compile(r"^You unlock the (\w+)")


def names(listing: str) -> list[str]:
    """``"a key and a lamp"`` -> ``["key", "lamp"]``."""
    return [part.removeprefix("a ") for part in listing.split(" and ") if part != "nothing"]


class CellarRules:
    """The Cellar's text parser (see the module docstring).

    Attributes:
        location: The room the agent is in, as the text last showed it.
    """

    def __init__(self) -> None:
        self.location: str | None = None

    def extract(self, observation: str, action: str, info: dict[str, Any], store: TripleStore) -> Extraction:
        """The triples of one step and the believed ones it shows to be gone."""
        out = Extraction()
        if (room := _ROOM.search(observation)) is not None:
            self._room(out, room.group(1), observation, action, store)
        elif (taken := _TAKE.match(observation)) is not None:
            out.triples.append((taken.group(1), IN, INVENTORY))
        elif (dropped := _DROP.match(observation)) is not None and self.location:
            out.triples.append((dropped.group(1), AT, self.location))
        elif (carrying := _CARRYING.match(observation)) is not None:
            shown = names(carrying.group(1))
            out.triples += [(item, IN, INVENTORY) for item in shown]
            out.outdated += [t.as_tuple() for t in store.incident(INVENTORY) if t.subject not in shown]
        elif (unlocked := _UNLOCKED.match(observation)) is not None:
            out.triples.append((unlocked.group(1), IS, "open"))
        out.triples += [(thing, IN, holder) for holder, thing in _INSIDE.findall(observation)]
        out.location = self.location
        return out

    def _room(self, out: Extraction, room: str, text: str, action: str, store: TripleStore) -> None:
        direction = action.strip().lower().removeprefix("go ")
        if self.location and room != self.location and direction in OPPOSITE:  # walked here: a link
            out.triples += [(room, direction_relation(direction), self.location),
                            (self.location, direction_relation(OPPOSITE[direction]), room)]
        self.location = room
        seen = names(match.group(1)) if (match := _SEE.search(text)) else []
        out.triples += [(thing, AT, room) for thing in seen]
        out.triples += [(thing, IS, state) for thing, state in _STATE.findall(text)]
        out.triples += [(room, HAS_EXIT, d) for d in names(exits.group(1))] if (exits := _EXITS.search(text)) else []
        out.outdated += [t.as_tuple() for t in store.incident(room)
                         if t.relation == AT and t.object == normalize(room) and t.subject not in seen]

    def outdated(self, existing: Sequence[Triple], new: Sequence[TripleKey]) -> list[Triple]:
        """Structural replacement: one location per thing, one state, one neighbour per direction."""
        return exclusive_conflicts(existing, new)

    @staticmethod
    def observed_truth() -> ObservedTruth:
        """The ground truth of the Cellar's facts: TextWorld's predicates, so TextWorld's tracker."""
        return ObservedTruth()

    @staticmethod
    def builds(name: str) -> bool:
        """Every name is printed by the game (none is built)."""
        return False
