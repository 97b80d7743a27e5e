"""Semantic memory: triples with validity intervals, the relation vocabulary they use, and the map
they hold (rooms, exits, doors, routes, unexplored exits).

A triple is never deleted: invalidating it sets the step it stopped being believed, so the
history ("where was the knife before?") stays answerable.

Relations are short phrases an LLM reads naturally (``("knife", "is on", "table")``). The
spatial ones carry directions so that routes and unexplored exits can be computed:
``(A, "is north of", B)`` means going north from B leads to A; the memory adds the inverse edges
and marks them ``inferred``. Some relations are functional (a thing has one location, one
open/closed/locked state; a room one neighbour per direction): :func:`exclusive_conflicts` finds the
believed triples a new one replaces.

Example:
    >>> store = TripleStore()
    >>> tid = store.add("knife", "is on", "table", step=0)
    >>> store.invalidate(tid, step=3)
    True
    >>> _ = store.add("knife", "is in", "inventory", step=3)
    >>> [t.as_tuple() for t in store.active()]
    [('knife', 'is in', 'inventory')]
    >>> [(t.object, t.start, t.end) for t in store.history("knife")]
    [('table', 0, 3), ('inventory', 3, None)]
    >>> direction_relation("north"), relation_direction("is north of"), opposite("north")
    ('is north of', 'north', 'south')
    >>> _ = store.add("kitchen", "is south of", "hall", 1)
    >>> _ = store.add("hall", "is north of", "kitchen", 1, inferred=True)
    >>> _ = store.add("hall", "has exit", "south", 1)
    >>> _ = store.add("hall", "has exit", "east", 1)
    >>> SpatialMap(store).route("hall", "kitchen"), SpatialMap(store).unexplored_exits("hall")
    ([('south', 'kitchen')], ['east'])
    >>> [t.as_tuple() for t in exclusive_conflicts(store.active(), [("knife", "is on", "counter")])]
    [('knife', 'is in', 'inventory')]
"""

from __future__ import annotations

from collections import defaultdict, deque
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass, field
from functools import cached_property, lru_cache
from typing import Any

TripleKey = tuple[str, str, str]


@lru_cache(maxsize=1 << 16)
def normalize(text: str) -> str:
    """Canonical form of an entity or relation: trimmed, inner spaces collapsed, lower case
    (games print one name in several cases: ``-= Room Ae =-`` for ``Room AE``)."""
    return " ".join(str(text).lower().split())


@dataclass
class Triple:
    """One semantic edge with its validity interval.

    Attributes:
        id: Index in the store.
        subject: Source vertex.
        relation: Edge label.
        object: Target vertex.
        start: Step at which it was first believed.
        end: Step at which it stopped being believed (``None``: still believed).
        inferred: Derived rather than read (e.g. the inverse of a traversed exit).
        steps: Steps whose observation asserted it.
    """

    id: int
    subject: str
    relation: str
    object: str
    start: int
    end: int | None = None
    inferred: bool = False
    steps: list[int] = field(default_factory=list)

    @property
    def active(self) -> bool:
        """Whether the triple is currently believed."""
        return self.end is None

    def as_tuple(self) -> TripleKey:
        """``(subject, relation, object)``."""
        return self.key

    @cached_property
    def key(self) -> TripleKey:
        """``(subject, relation, object)``, built once (a triple's three names never change)."""
        return (self.subject, self.relation, self.object)

    def text(self) -> str:
        """``"subject, relation, object"`` (the papers' prompt format)."""
        return f"{self.subject}, {self.relation}, {self.object}"


@dataclass
class Extraction:
    """The knowledge read from one step (what every extractor returns).

    Attributes:
        triples: Triples asserted by this step.
        outdated: Believed triples this step shows to be false (invalidated even without a
            replacement).
        location: The room the agent is in, when the step tells it.
    """

    triples: list[TripleKey] = field(default_factory=list)
    outdated: list[TripleKey] = field(default_factory=list)
    location: str | None = None


class TripleStore:
    """All triples ever believed, with indexes by entity and by active key.

    Attributes:
        triples: Every triple ever believed, by id.
        revision: Moves on whenever the set of believed triples changes (a new triple, an
            invalidation; re-asserting a believed triple only records its step), so a caller can
            keep what it derived from the believed graph (a search) until then.
        map_revision: Moves on whenever a believed triple the map is made of changes
            (:data:`MAP_RELATIONS`: rooms, exits, doors; see :class:`SpatialMap`).
    """

    def __init__(self) -> None:
        self.triples: list[Triple] = []
        self.revision = self.map_revision = 0
        self._incident: dict[str, list[Triple]] = {}
        self._active: dict[TripleKey, int] = {}
        self._by_entity: dict[str, set[int]] = defaultdict(set)  # active ids per entity
        self._history: dict[str, list[int]] = defaultdict(list)  # all ids per entity
        self._by_relation: dict[str, set[int]] = defaultdict(set)  # active ids per relation

    def __len__(self) -> int:
        return len(self._active)

    def add(self, subject: str, relation: str, obj: str, step: int, *, inferred: bool = False) -> int:
        """Believes a triple from ``step`` on; an already believed one only records the step.

        Returns:
            The triple's id.
        """
        return self.add_key((normalize(subject), normalize(relation), normalize(obj)), step, inferred=inferred)[0]

    def add_key(self, key: TripleKey, step: int, *, inferred: bool = False) -> tuple[int, bool]:
        """:meth:`add` of a key already in canonical form (:func:`normalize`).

        Returns:
            The triple's id, and whether it is newly believed.

        Example:
            >>> store = TripleStore()
            >>> store.add_key(("knife", "is on", "table"), 0), store.add_key(("knife", "is on", "table"), 1)
            ((0, True), (0, False))
        """
        tid = self._active.get(key)
        new = tid is None
        if tid is not None:
            triple = self.triples[tid]
            triple.inferred = triple.inferred and inferred
        else:
            tid = len(self.triples)
            triple = Triple(tid, *key, start=step, inferred=inferred)
            self.triples.append(triple)
            self._active[key] = tid
            for entity in (key[0], key[2]):
                self._by_entity[entity].add(tid)
                self._history[entity].append(tid)
            self._by_relation[key[1]].add(tid)
            self._changed(key[1])
        if not triple.steps or triple.steps[-1] != step:
            triple.steps.append(step)
        return tid, new

    def invalidate(self, tid: int, step: int) -> bool:
        """Stops believing triple ``tid`` at ``step``; returns whether it was active."""
        triple = self.triples[tid]
        if not triple.active:
            return False
        triple.end = step
        del self._active[triple.as_tuple()]
        self._by_entity[triple.subject].discard(tid)
        self._by_entity[triple.object].discard(tid)
        self._by_relation[triple.relation].discard(tid)
        self._changed(triple.relation)
        return True

    def _changed(self, relation: str) -> None:
        self.revision += 1
        self._incident.clear()
        if relation in MAP_RELATIONS:
            self.map_revision += 1

    def find(self, subject: str, relation: str, obj: str) -> int | None:
        """The id of an active triple, or ``None``."""
        return self._active.get((normalize(subject), normalize(relation), normalize(obj)))

    def active(self) -> list[Triple]:
        """Currently believed triples, oldest first."""
        return [self.triples[i] for i in sorted(self._active.values())]

    def active_keys(self) -> set[TripleKey]:
        """Currently believed triples as tuples."""
        return set(self._active)

    def incident(self, entity: str) -> list[Triple]:
        """Active triples having ``entity`` as subject or object (kept per entity until the believed
        triples change: the same rooms and things are looked at step after step)."""
        entity = normalize(entity)
        found = self._incident.get(entity)
        if found is None:
            found = self._incident[entity] = [self.triples[i] for i in sorted(self._by_entity.get(entity, ()))]
        return list(found)

    def with_relation(self, relation: str) -> list[Triple]:
        """Active triples with ``relation``."""
        return [self.triples[i] for i in sorted(self._by_relation.get(relation, ()))]

    def relations(self) -> list[str]:
        """Relations of the active triples."""
        return sorted(r for r, ids in self._by_relation.items() if ids)

    def entities(self) -> list[str]:
        """Vertices with at least one active triple."""
        return sorted(e for e, ids in self._by_entity.items() if ids)

    def history(self, entity: str) -> list[Triple]:
        """Every triple that ever mentioned ``entity``, in the order believed."""
        return [self.triples[i] for i in self._history.get(normalize(entity), ())]

    def believed_at(self, step: int) -> list[Triple]:
        """Triples believed at ``step`` (start <= step < end)."""
        return [t for t in self.triples if t.start <= step and (t.end is None or step < t.end)]

    def __iter__(self) -> Iterator[Triple]:
        return iter(self.triples)

    # -- persistence ---------------------------------------------------------------------
    def to_json(self) -> list[dict[str, Any]]:
        """Every triple as a JSON-ready dict."""
        return [asdict(t) for t in self.triples]

    @classmethod
    def from_json(cls, rows: Iterable[dict[str, Any]]) -> TripleStore:
        """Rebuilds a store written by :meth:`to_json`."""
        store = cls()
        for row in rows:
            triple = Triple(**row)
            if triple.id != len(store.triples):
                raise ValueError(f"triple ids must be consecutive, got {triple.id}")
            store.triples.append(triple)
            for entity in (triple.subject, triple.object):
                store._history[entity].append(triple.id)
                if triple.active:
                    store._by_entity[entity].add(triple.id)
            if triple.active:
                store._active[triple.as_tuple()] = triple.id
                store._by_relation[triple.relation].add(triple.id)
        return store


# The relation vocabulary shared by the extractors, the memories and the belief metric.

#: Compass directions of text games and their opposites.
OPPOSITE: dict[str, str] = {
    "north": "south", "south": "north", "east": "west", "west": "east",
    "northeast": "southwest", "southwest": "northeast", "northwest": "southeast",
    "southeast": "northwest", "up": "down", "down": "up",
}
DIRECTIONS: tuple[str, ...] = tuple(OPPOSITE)
#: Abbreviated direction commands (``n``, ``sw``, ``u``...) -> directions.
SHORT_DIRECTIONS: dict[str, str] = {"n": "north", "s": "south", "e": "east", "w": "west", "ne": "northeast",
                                    "nw": "northwest", "se": "southeast", "sw": "southwest", "u": "up", "d": "down"}

#: Location of a thing: in a room, in a container (or ``inventory``), on a supporter.
AT, IN, ON = "is at", "is in", "is on"
LOCATION_RELATIONS: frozenset[str] = frozenset({AT, IN, ON})
#: A room's exit in a direction: ``("kitchen", "has exit", "south")``.
HAS_EXIT = "has exit"
#: Unary states: ``("fridge", "is", "open")``.
IS = "is"
INVENTORY = "inventory"
#: Mutually exclusive values of the ``is`` relation (a new one replaces an old one).
STATE_GROUPS: tuple[frozenset[str], ...] = (
    frozenset({"open", "closed", "locked"}),
)
#: Door states the belief metric scores.
DOOR_STATES: frozenset[str] = STATE_GROUPS[0]


def opposite(direction: str) -> str:
    """The opposite compass direction (``north`` -> ``south``)."""
    return OPPOSITE[direction]


def direction_relation(direction: str) -> str:
    """``north`` -> ``is north of``: ``(A, "is north of", B)`` means A lies north of B."""
    if direction in ("up", "down"):
        return "is above" if direction == "up" else "is below"
    return f"is {direction} of"


def door_relation(direction: str) -> str:
    """``south`` -> ``has door to the south``: ``(room, "has door to the south", door)``."""
    return f"has door to the {direction}"


_DIRECTION_OF = {direction_relation(d): d for d in DIRECTIONS}
_DOOR_OF = {door_relation(d): d for d in DIRECTIONS}
#: The relations the believed map is made of (:meth:`SpatialMap.locations`, :meth:`SpatialMap.unexplored_exits`).
MAP_RELATIONS: frozenset[str] = frozenset({*_DIRECTION_OF, *_DOOR_OF, HAS_EXIT, AT})


def relation_direction(relation: str) -> str | None:
    """The direction of a spatial relation (``is north of`` -> ``north``), else ``None``."""
    return _DIRECTION_OF.get(relation)


def door_direction(relation: str) -> str | None:
    """The direction of a door relation (``has door to the south`` -> ``south``), else ``None``."""
    return _DOOR_OF.get(relation)


def state_group(value: str) -> frozenset[str] | None:
    """The exclusive group a state value belongs to, if any."""
    for group in STATE_GROUPS:
        if value in group:
            return group
    return None


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


def canonical(triple: TripleKey, rooms: frozenset[str] | set[str] = frozenset()) -> TripleKey:
    """Maps relation phrasings to the memory's vocabulary; ``contains`` is turned around:
    ``(room, contains, x)`` -> ``(x, is at, room)`` for a known room, else ``(x, is in, holder)``."""
    subject, relation, obj = triple
    if relation in ("contains", "has", "has item"):
        return (obj, AT if subject in rooms or not rooms else IN, subject)
    return (subject, RELATION_ALIASES.get(relation, relation), obj)


# The spatial map held in semantic memory.

@lru_cache(maxsize=1 << 16)
def inverse_spatial(triple: TripleKey) -> TripleKey | None:
    """``(A, is north of, B)`` -> ``(B, is south of, A)``; ``None`` for other relations."""
    subject, relation, obj = triple
    direction = relation_direction(relation)
    if direction is None:
        return None
    return (obj, direction_relation(opposite(direction)), subject)


class SpatialMap:
    """A read-only view of the believed map (rebuilt cheaply from the store's indexes).

    Args:
        store: The semantic memory.
    """

    def __init__(self, store: TripleStore):
        self.store = store

    def neighbors(self, room: str) -> dict[str, str]:
        """``{direction: room reached}`` from ``room`` (from believed spatial triples)."""
        room = normalize(room)
        found: dict[str, str] = {}
        for t in self.store.incident(room):
            direction = relation_direction(t.relation)
            if direction is not None and t.object == room:
                found[direction] = t.subject
        return found

    def exits(self, room: str) -> list[str]:
        """Directions of the believed exits of ``room``."""
        return sorted(t.object for t in self.store.incident(room)
                      if t.subject == normalize(room) and t.relation == HAS_EXIT)

    def unexplored_exits(self, room: str) -> list[str]:
        """Algorithm 3: exits of ``room`` whose destination is not known yet."""
        known = self.neighbors(room)
        return [d for d in self.exits(room) if d not in known]

    def all_unexplored_exits(self) -> dict[str, list[str]]:
        """:meth:`unexplored_exits` of every room that has some, in room order (one pass over the
        exits and the spatial triples, not one per room)."""
        exits: dict[str, list[str]] = defaultdict(list)
        known: dict[str, set[str]] = defaultdict(set)
        for t in self.store.active():
            if t.relation == HAS_EXIT:
                exits[t.subject].append(t.object)
            elif (direction := relation_direction(t.relation)) is not None:
                known[t.object].add(direction)
        found = {room: [d for d in sorted(exits[room]) if d not in known[room]] for room in sorted(exits)}
        return {room: dirs for room, dirs in found.items() if dirs}

    def locations(self) -> list[str]:
        """Every room the memory knows (from exits, spatial relations and ``is at``)."""
        rooms: set[str] = set()
        for t in self.store.active():
            if relation_direction(t.relation) is not None:
                rooms.update((t.subject, t.object))
            elif t.relation == HAS_EXIT or door_direction(t.relation) is not None:
                rooms.add(t.subject)
            elif t.relation == AT:
                rooms.add(t.object)
        return sorted(rooms)

    def door(self, room: str, direction: str) -> tuple[str, str | None] | None:
        """``(door, state)`` on the exit of ``room`` towards ``direction``, if a door is known."""
        relation = door_relation(direction)
        for t in self.store.incident(room):
            if t.subject == normalize(room) and t.relation == relation:
                return t.object, self.state(t.object)
        return None

    def state(self, entity: str) -> str | None:
        """The believed open/closed/locked state of ``entity``."""
        for t in self.store.incident(entity):
            if t.subject == normalize(entity) and t.relation == IS and t.object in ("open", "closed", "locked"):
                return t.object
        return None

    def route(self, start: str, goal: str) -> list[tuple[str, str]] | None:
        """Shortest known path as ``[(direction, room reached), ...]``; ``[]`` if already
        there, ``None`` if unreachable."""
        start, goal = normalize(start), normalize(goal)
        parents: dict[str, tuple[str, str] | None] = {start: None}
        queue = deque([start])
        while queue:
            room = queue.popleft()
            if room == goal:
                break
            for direction, nxt in sorted(self.neighbors(room).items()):
                if nxt not in parents:
                    parents[nxt] = (room, direction)
                    queue.append(nxt)
        if goal not in parents:
            return None
        path: list[tuple[str, str]] = []
        node = goal
        while parents[node] is not None:
            prev, direction = parents[node]  # type: ignore[misc]
            path.append((direction, node))
            node = prev
        return path[::-1]


# Functional relations: which believed triples a new one replaces.

@lru_cache(maxsize=1 << 16)
def _slot(triple: TripleKey) -> tuple[str, ...] | None:
    """The 'functional slot' a triple fills: two triples with the same slot and different
    values cannot both be true (kept per triple: the same ones are compared step after step)."""
    subject, relation, obj = triple
    if relation in LOCATION_RELATIONS:
        return ("location", subject)
    if relation == IS and state_group(obj) is not None:
        return ("state", subject, min(state_group(obj) or ()))
    direction = relation_direction(relation)
    if direction is not None:
        return ("neighbor", obj, direction)
    direction = door_direction(relation)
    if direction is not None:
        return ("door", subject, direction)
    return None


def exclusive_conflicts(existing: Iterable[Triple], new: Iterable[TripleKey]) -> list[Triple]:
    """Existing triples filling the same functional slot as a new triple with another value
    (a thing has one location and one open/closed/locked state; a room one neighbour and one
    door per direction)."""
    slots: dict[tuple[str, ...], set[TripleKey]] = {}
    for subject, relation, obj in new:
        key = (normalize(subject), normalize(relation), normalize(obj))
        slot = _slot(key)
        if slot is not None:
            slots.setdefault(slot, set()).add(key)
    if not slots:
        return []
    conflicts = []
    for t in existing:
        key = t.as_tuple()
        slot = _slot(key)
        if slot in slots and key not in slots[slot]:
            conflicts.append(t)
    return conflicts
