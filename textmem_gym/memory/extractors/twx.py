"""TextWorld Express text for memory: the TWX envs' text parser and the matching ground truth.

The TWX env hands this parser over (:attr:`~textmem_gym.envs.twx.env.TWXEnv.text_parser` names
:class:`TWXRules`; :class:`~textmem_gym.wrappers.MemoryGraphWrapper` passes it to the memory's
extractor), so no memory guesses that it is playing TWX; nothing in the memories imports this
module. It lives here, not in ``envs/twx/``, because it speaks the memory's vocabulary (a floor
above the envs); the reading of TWX's templates is the backend's own
(:mod:`textmem_gym.envs.twx.text`), shared with the env's privileged facts.

==============================================================  ==========================================
TWX text                                                        triples
==============================================================  ==========================================
``You are in the kitchen.`` + ``you see a stove``               ``("stove", "is at", "kitchen")``
``a counter that has a knife ... on it``                        ``("knife", "is on", "counter")``
``a fridge that is closed`` / ``An open fridge, that contains``  ``("fridge", "is", "closed")``, ``(x, "is in",
                                                                "fridge")``
``To the North you see the corridor.``                          ``("corridor", "is north of", "kitchen")``,
                                                                ``("kitchen", "is south of"...)`` reversed,
                                                                ``("kitchen", "has exit", "north")``
``To the West you see a closed plain door.``                    ``("kitchen", "has door to the west", "plain
                                                                door")``, ``("plain door", "is", "closed")``
``You take the knife.`` / ``inventory``                         ``("knife", "is in", "inventory")``
``You put the X in the Y.``                                     ``(X, "is in" or "is on", Y)`` (as Y holds)
``You open the fridge. The fridge contains a X.``               ``("fridge", "is", "open")``, ``(X, "is in",
                                                                "fridge")``
==============================================================  ==========================================

A room description is a snapshot: believed things of the room, of its supporters and open
containers, and exits no longer shown are invalidated; an ``inventory`` answer replaces the believed
inventory; ``prepare meal`` uses up the cookbook's ingredients. TWX names things alike (a trash can in
the kitchen and another in the bathroom, two wood doors, two blue belts): a thing lying in, or on or
in furniture of, another room than the agent's is never replaced (:meth:`TWXRules.outdated`), since
nothing leaves a room but through the agent's hands there.

What it cannot see (TWX's text does not tell it):

- what a closed container holds until it is opened (nor what it holds once closed again: the last
  contents seen stay believed);
- which of two things of one name the text speaks of: two doors called ``wood door`` share one
  believed open/closed state (the last the text showed), and a feedback line (``You take the knife.``)
  is read as about the one in the agent's room;
- a room not yet named (a neighbour behind a closed door is known once the door opens);
- the cookbook's ingredients before it is read, and what cooking does to a thing's name beyond the
  adjectives TWX prints (``sliced``, ``grilled``...: dropped from names).

The ground truth (:class:`TWXObservedTruth`) is TextWorld's (:class:`~textmem_gym.memory.ground_truth.ObservedTruth`;
the env's facts use TextWorld's predicates) plus what TWX's text shows and TextWorld's does not:
a neighbouring room named in the description (``To the North you see the corridor``) counts
as observed before it is walked. Of things of one name in several states at once (two wood doors,
one open), the truth holds the state the text showed last, which is all a memory keyed by names
can hold; an open one of them shows what it holds.

Example:
    >>> from textmem_gym.memory.semantic import TripleStore
    >>> rules = TWXRules()
    >>> out = rules.extract("You are in the hall. You also see a chest that is closed. \\n"
    ...                     "To the North you see the kitchen. ", "look around", {}, TripleStore())
    >>> out.location, sorted(out.triples)  # doctest: +NORMALIZE_WHITESPACE
    ('hall', [('chest', 'is', 'closed'), ('chest', 'is at', 'hall'), ('hall', 'has exit', 'north'),
     ('hall', 'is south of', 'kitchen'), ('kitchen', 'is north of', 'hall')])
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from functools import lru_cache
from typing import Any

from textmem_gym.envs.privileged import FactTriple
from textmem_gym.envs.twx.text import RoomView, object_name, read_inventory, read_room, split_names
from textmem_gym.memory.extractors.base import Extraction
from textmem_gym.memory.ground_truth import ObservedTruth
from textmem_gym.memory.semantic import (
    AT,
    HAS_EXIT,
    IN,
    INVENTORY,
    IS,
    LOCATION_RELATIONS,
    ON,
    OPPOSITE,
    Triple,
    TripleKey,
    TripleStore,
    direction_relation,
    door_direction,
    door_relation,
    exclusive_conflicts,
    normalize,
)

_TAKE = re.compile(r"^You take the (.+?)\.")
_PUT = re.compile(r"^You put the (.+?) in the (.+?)\.")
_OPEN = re.compile(r"^You open the (.+?)\.(?: The .+? contains (.+?)\.| It's empty inside\.)?")
_CLOSE = re.compile(r"^You close the (.+?)\.")
_EAT = re.compile(r"^You eat the (.+?)\.")
_MEAL = "Adding the meal to your inventory."
_INGREDIENTS = re.compile(r"Ingredients:\n(.*?)\n\s*\n", re.S)
_DOOR_FEEDBACK = re.compile(r"^You (open|close) the (.+? door)(?:, revealing the (.+?)\.| to the (.+?)\.)")
#: :func:`~textmem_gym.envs.twx.text.read_room`, kept per text: a game describes the same rooms again
#: and again (the views are only read, never changed).
_read_room = lru_cache(maxsize=4096)(read_room)


def room_triples(view: RoomView) -> list[TripleKey]:
    """The triples of one room description (see the module docstring)."""
    room = view.room
    triples: list[TripleKey] = [(t, {"at": AT, "on": ON, "in": IN}[r], h) for t, r, h in view.things]
    triples += [(thing, IS, state) for thing, state in view.states.items()]
    for direction, neighbour in view.exits.items():
        triples.append((room, HAS_EXIT, direction))
        if neighbour is not None:
            triples += [(neighbour, direction_relation(direction), room),
                        (room, direction_relation(OPPOSITE[direction]), neighbour)]
    for direction, (door, state) in view.doors.items():
        triples += [(room, door_relation(direction), door), (door, IS, state)]
    return triples


class TWXRules:
    """The TWX envs' :class:`~textmem_gym.memory.extractors.base.TextParser` (see the module docstring).

    Attributes:
        location: The room the agent is in, as the text last showed it.
        ingredients: The cookbook's ingredients, once read (used up by ``prepare meal``).
    """

    def __init__(self) -> None:
        self.location: str | None = None
        self.ingredients: list[str] = []
        self._supporters: set[str] = set()
        self._holder_rooms: dict[str, set[str]] = {}

    def extract(self, observation: str, action: str, info: dict[str, Any], store: TripleStore) -> Extraction:
        """Triples of one step and the believed ones it shows to be gone."""
        out = Extraction()
        view = _read_room(observation)
        if view is not None:
            self._room(out, view, store)
        else:
            self._feedback(out, observation, action, store)
        out.location = self.location
        return out

    def outdated(self, existing: Sequence[Triple], new: Sequence[TripleKey]) -> list[Triple]:
        """Structural replacement (one location per thing, one state, one neighbour per direction),
        except that a thing lying in another room than the agent's is never replaced: TWX names
        things alike (a trash can in the kitchen, another in the bathroom; two blue belts), and nothing
        leaves a room but through the agent's hands, in that room.

        Example:
            >>> from textmem_gym.memory.semantic import TripleStore
            >>> store = TripleStore()
            >>> _ = store.add("trash can", "is at", "kitchen", 0)
            >>> TWXRules().outdated(store.active(), [("trash can", "is at", "bathroom")])
            []
            >>> rules = TWXRules()
            >>> rules.location = "kitchen"
            >>> [t.as_tuple() for t in rules.outdated(store.active(), [("trash can", "is in", "inventory")])]
            [('trash can', 'is at', 'kitchen')]
            >>> rules.location = "bathroom"  # taken here: the kitchen's is another
            >>> rules.outdated(store.active(), [("trash can", "is in", "inventory")])
            []
        """
        here = normalize(self.location) if self.location else None
        return [t for t in exclusive_conflicts(existing, new) if not self._elsewhere(t, here)]

    def _elsewhere(self, triple: Triple, here: str | None) -> bool:
        """Whether ``triple`` places its thing in another room than ``here`` (lying there, or on or in
        furniture only seen there)."""
        if triple.relation == AT:
            return triple.object != here
        rooms = self._holder_rooms.get(triple.object, set())
        return triple.relation in (ON, IN) and bool(rooms) and here not in rooms

    @staticmethod
    def observed_truth() -> TWXObservedTruth:
        """The ground truth of the TWX envs' facts in this parser's vocabulary."""
        return TWXObservedTruth()

    @staticmethod
    def builds(name: str) -> bool:
        """Every name comes from TWX's text as printed (none is built)."""
        return False

    # -- rooms ---------------------------------------------------------------------------
    def _room(self, out: Extraction, view: RoomView, store: TripleStore) -> None:
        self.location = view.room
        self._supporters |= view.supporters
        out.triples += room_triples(view)
        shown = {normalize(t) for t in out.triples}
        room = normalize(view.room)
        holders = {normalize(t) for t, r, _ in view.things if r == "at"}
        for holder in holders:
            self._holder_rooms.setdefault(holder, set()).add(room)
        open_ = {normalize(t) for t, s in view.states.items() if s == "open"} | \
            {normalize(h) for _, r, h in view.things if r == "in"}
        # what can be stale lies in this room or on/in its things: their incident triples, not the whole store
        near = sorted({t.id: t for e in (room, *holders) for t in store.incident(e)}.items())
        for _, t in near:
            key = t.as_tuple()
            if key in shown:
                continue
            stale = ((t.relation == AT and t.object == room) or (t.relation == HAS_EXIT and t.subject == room)
                     or (t.relation == ON and t.object in holders)
                     or (t.relation == IN and t.object in open_ and t.object in holders))
            if stale:
                out.outdated.append(key)

    # -- feedback ------------------------------------------------------------------------
    def _feedback(self, out: Extraction, observation: str, action: str, store: TripleStore) -> None:
        text = observation.strip()
        items = read_inventory(text)
        if items is not None:
            self._inventory(out, items, store)
        elif (match := _TAKE.match(text)) is not None:
            out.triples.append((match.group(1), IN, INVENTORY))
        elif (match := _PUT.match(text)) is not None:
            holder = match.group(2)
            out.triples.append((match.group(1), ON if holder in self._supporters else IN, holder))
        elif (match := _DOOR_FEEDBACK.match(text)) is not None:
            self._door(out, match, action)
        elif (match := _OPEN.match(text)) is not None:
            self._opened(out, match, store)
        elif (match := _CLOSE.match(text)) is not None:
            out.triples.append((match.group(1), IS, "closed"))
        elif (match := _EAT.match(text)) is not None:
            out.outdated += _located(store, match.group(1))
        elif text.startswith(_MEAL):
            out.triples.append(("meal", IN, INVENTORY))
            for ingredient in self.ingredients:
                out.outdated += _located(store, ingredient)
        if (recipe := _INGREDIENTS.search(observation + "\n\n")) is not None:
            self.ingredients = [line.strip() for line in recipe.group(1).splitlines() if line.strip()]

    def _inventory(self, out: Extraction, items: list[str], store: TripleStore) -> None:
        out.triples += [(item, IN, INVENTORY) for item in items]
        shown = {normalize(item) for item in items}
        out.outdated += [t.as_tuple() for t in store.incident(INVENTORY)
                         if t.relation == IN and t.object == INVENTORY and t.subject not in shown]

    def _opened(self, out: Extraction, match: re.Match[str], store: TripleStore) -> None:
        holder = match.group(1)
        things = split_names(match.group(2)) if match.group(2) else []
        out.triples.append((holder, IS, "open"))
        out.triples += [(thing, IN, holder) for thing in things]
        shown = {normalize(t) for t in things}
        out.outdated += [t.as_tuple() for t in store.incident(holder)
                         if t.relation == IN and t.object == normalize(holder) and t.subject not in shown]

    def _door(self, out: Extraction, match: re.Match[str], action: str) -> None:
        door = object_name(match.group(2))
        out.triples.append((door, IS, "open" if match.group(1) == "open" else "closed"))
        direction = action.strip().rsplit(" ", 1)[-1]
        neighbour = match.group(3) or match.group(4)
        if self.location and neighbour and direction in OPPOSITE:
            out.triples += [(neighbour, direction_relation(direction), self.location),
                            (self.location, direction_relation(OPPOSITE[direction]), neighbour)]


def _located(store: TripleStore, name: str) -> list[TripleKey]:
    """The believed locations of ``name`` (it is gone: eaten or used up)."""
    return [t.as_tuple() for t in store.incident(name)
            if t.subject == normalize(name) and t.relation in LOCATION_RELATIONS]


class TWXObservedTruth(ObservedTruth):
    """TextWorld's observed truth with TWX's differences: a neighbouring room the text names
    (in a room description, or revealed by opening a door) counts as observed before it is
    walked; a container without a door (TWX's box) shows what it holds; things are seen in the
    current room only (TWX names many things alike: a trash can in the kitchen and another in
    the bathroom)."""

    def reset(self) -> None:
        """New episode."""
        super().reset()
        self._shown_state: dict[str, set[str]] = {}

    def step(self, facts: Iterable[FactTriple], action: str, observation: str | None = None) -> set[TripleKey]:
        """See :meth:`ObservedTruth.step`; a neighbour the text names counts as observed, and of two
        things of one name in two states (two wood doors, one open), the state the text showed last."""
        facts = list(facts)
        for room, direction, neighbour in _neighbours(observation or "", action, self.room):
            self.seen |= {(normalize(neighbour), direction_relation(direction), normalize(room)),
                          (normalize(room), direction_relation(OPPOSITE[direction]), normalize(neighbour))}
        if observation is not None:
            shown: dict[str, set[str]] = {}
            for s, r, o in TWXRules().extract(observation, action, {}, TripleStore()).triples:
                if r == IS:
                    shown.setdefault(normalize(s), set()).add(normalize(o))
            self._shown_state.update(shown)
        truth = super().step(facts, action, observation)
        states: dict[str, set[str]] = {}
        for s, r, o in truth:
            if r == IS:
                states.setdefault(s, set()).add(o)
        last = self._shown_state
        return {t for t in truth if t[1] != IS or len(states[t[0]]) == 1
                or not last.get(t[0], set()) & states[t[0]] or t[2] in last[t[0]]}

    @staticmethod
    def _visible(truth: set[TripleKey], room: str | None) -> set[TripleKey]:
        if room is None:
            return set()
        closed = {s for s, r, o in truth if r == IS and o in ("closed", "locked")} - \
            {s for s, r, o in truth if r == IS and o == "open"}  # of two alike, one open shows what it holds
        shown = {t for t in truth if t[1] == AT and t[2] == room}
        frontier = {t[0] for t in shown}
        while frontier:
            inside = {t for t in truth if t[2] in frontier and (t[1] == ON or (t[1] == IN and t[2] not in closed))}
            shown |= inside
            frontier = {t[0] for t in inside} - frontier
        things = {t[0] for t in shown}
        doors = {o for s, r, o in truth if s == room and door_direction(r)}
        visible = set(shown)
        visible |= {t for t in truth if t[1] == IS and t[0] in things | doors}
        visible |= {t for t in truth if t[0] == room and (t[1] == HAS_EXIT or door_direction(t[1]))}
        return visible


def _neighbours(observation: str, action: str, room: str | None) -> list[tuple[str, str, str]]:
    """``(room, direction, neighbour)`` the text names: a description's exits, a door opened."""
    view = _read_room(observation)
    if view is not None:
        return [(view.room, d, n) for d, n in view.exits.items() if n is not None]
    match = _DOOR_FEEDBACK.match(observation.strip())
    direction = action.strip().rsplit(" ", 1)[-1]
    neighbour = match.group(3) or match.group(4) if match else None
    return [(room, direction, neighbour)] if room and neighbour and direction in OPPOSITE else []
