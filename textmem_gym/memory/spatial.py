"""The spatial map held in semantic memory: rooms, exits, doors, routes, unexplored exits.

``(A, "is north of", B)`` means going north from B leads to A. Inverse edges are added by the
memory and marked ``inferred``.

Example:
    >>> from textmem_gym.memory.triples import TripleStore
    >>> store = TripleStore()
    >>> _ = store.add("kitchen", "is south of", "hall", 1)
    >>> _ = store.add("hall", "is north of", "kitchen", 1, inferred=True)
    >>> _ = store.add("hall", "has exit", "south", 1)
    >>> _ = store.add("hall", "has exit", "east", 1)
    >>> SpatialMap(store).route("hall", "kitchen")
    [('south', 'kitchen')]
    >>> SpatialMap(store).unexplored_exits("hall")
    ['east']
"""

from __future__ import annotations

from collections import deque

from textmem_gym.memory.relations import (
    AT,
    HAS_EXIT,
    IS,
    direction_relation,
    door_direction,
    door_relation,
    opposite,
    relation_direction,
)
from textmem_gym.memory.triples import TripleKey, TripleStore, normalize


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

    def locations(self) -> list[str]:
        """Every room the memory knows (from exits, spatial relations and ``is at``)."""
        rooms: set[str] = set()
        for relation in self.store.relations():
            if relation_direction(relation) is not None:
                rooms.update(x for t in self.store.with_relation(relation) for x in (t.subject, t.object))
            elif relation == HAS_EXIT or door_direction(relation) is not None:
                rooms.update(t.subject for t in self.store.with_relation(relation))
            elif relation == AT:
                rooms.update(t.object for t in self.store.with_relation(relation))
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

