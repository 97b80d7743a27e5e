"""Semantic memory storage: triples with validity intervals, indexed by entity.

A triple is never deleted: invalidating it sets the step it stopped being believed, so the
history ("where was the knife before?") stays answerable.

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
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass, field
from functools import lru_cache
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
        return (self.subject, self.relation, self.object)

    def text(self) -> str:
        """``"subject, relation, object"`` (the papers' prompt format)."""
        return f"{self.subject}, {self.relation}, {self.object}"


class TripleStore:
    """All triples ever believed, with indexes by entity and by active key."""

    def __init__(self) -> None:
        self.triples: list[Triple] = []
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
        key = (normalize(subject), normalize(relation), normalize(obj))
        tid = self._active.get(key)
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
        if not triple.steps or triple.steps[-1] != step:
            triple.steps.append(step)
        return tid

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
        return True

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
        """Active triples having ``entity`` as subject or object."""
        return [self.triples[i] for i in sorted(self._by_entity.get(normalize(entity), ()))]

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
