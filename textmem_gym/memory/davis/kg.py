"""DAVIS's temporal knowledge graph (section 3.2): ``(subject, relation, object, step)`` tuples
with entity types; facts are only ever added (``G_{t+1} = G_t U {(v_i, e_j, v_k, tau)}``).

Each fact also names its ``episode`` (a training variation of the world model, or the current
episode), so time is ``(episode, step)``. :meth:`TemporalKG.expand` is the retrieval of
section 3.4: the path between the selected entities plus their ``k``-hop neighbourhood, edges
ordered by time.

Example:
    >>> kg = TemporalKG()
    >>> _ = kg.add("agent", "moved to", "kitchen", 1, types={"agent": PERSON, "kitchen": LOCATION})
    >>> _ = kg.add("apple", "is in", "kitchen", 2)
    >>> _ = kg.add("agent", "moved to", "hallway", 3, types={"hallway": LOCATION})
    >>> for fact in kg.expand(["agent", "apple"], hops=1):
    ...     print(fact.text())
    [ep 0, t=1] agent, moved to, kitchen
    [ep 0, t=2] apple, is in, kitchen
    [ep 0, t=3] agent, moved to, hallway
    >>> kg.entities(LOCATION)
    ['hallway', 'kitchen']
"""

from __future__ import annotations

import heapq
import json
import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import networkx as nx

from textmem_gym.memory.semantic import normalize

PERSON, OBJECT, LOCATION = "person", "object", "location"
ENTITY_TYPES: tuple[str, ...] = (PERSON, OBJECT, LOCATION)
FORMAT = "textmem-davis-tkg"


@dataclass(frozen=True)
class Fact:
    """One temporal tuple ``(subject, relation, object, step)`` of episode ``episode``."""

    id: int
    subject: str
    relation: str
    object: str
    step: int
    episode: int | str = 0

    def text(self) -> str:
        """``[ep E, t=S] subject, relation, object``."""
        return f"[ep {self.episode}, t={self.step}] {self.subject}, {self.relation}, {self.object}"


class TemporalKG:
    """Append-only temporal KG with entity types.

    Args:
        read_only: Refuse additions (a world model during test episodes).
    """

    def __init__(self, read_only: bool = False) -> None:
        self.facts: list[Fact] = []
        self.types: dict[str, str] = {}
        self.read_only = read_only
        self._graph = nx.MultiDiGraph()
        self._episodes: list[int | str] = []
        self._ids: dict[tuple[str, str, str, int, int | str], int] = {}  # fact -> its id (each is stored once)
        self._between: dict[str, dict[str, list[int]]] = {}  # subject -> object -> fact ids, oldest first
        self._last_time: tuple[int, int] = (-1, -1)
        self._in_order = True  # facts were added in time order (then the latest are the last ones)

    def __len__(self) -> int:
        return len(self.facts)

    def add(self, subject: str, relation: str, obj: str, step: int, *, episode: int | str = 0,
            types: dict[str, str] | None = None) -> Fact:
        """Adds a fact at ``step`` (the same fact at the same time is stored once).

        Raises:
            PermissionError: If the graph is read-only.
        """
        if self.read_only:
            raise PermissionError("this temporal KG is read-only (a world model is not changed during tests)")
        s, r, o = normalize(subject), normalize(relation), normalize(obj)
        for name, kind in (types or {}).items():
            if kind not in ENTITY_TYPES:
                raise ValueError(f"entity type must be one of {ENTITY_TYPES}, got {kind!r}")
            self.types[normalize(name)] = kind
        for entity in (s, o):
            self.types.setdefault(entity, OBJECT)
        known = self._ids.get((s, r, o, step, episode))
        if known is not None:
            return self.facts[known]
        fact = Fact(len(self.facts), s, r, o, step, episode)
        self.facts.append(fact)
        self._ids[(s, r, o, step, episode)] = fact.id
        self._between.setdefault(s, {}).setdefault(o, []).append(fact.id)
        self._graph.add_edge(s, o, key=fact.id, relation=r, step=step, episode=episode)
        if episode not in self._episodes:
            self._episodes.append(episode)
        time = (self._episodes.index(episode), step)
        self._in_order = self._in_order and time >= self._last_time
        self._last_time = time
        return fact

    def entities(self, kind: str | None = None) -> list[str]:
        """Entities (of one type when ``kind`` is given), sorted."""
        return sorted(e for e, t in self.types.items() if kind is None or t == kind)

    def order(self, facts: Iterable[Fact]) -> list[Fact]:
        """Facts in time order: episode (in the order added), then step, then insertion."""
        return sorted(set(facts), key=self._time_key())

    def latest(self, n: int) -> list[Fact]:
        """The ``n`` latest facts, in time order (``order(facts)[-n:]`` without sorting them all: the
        last ones when the facts were added in time order, as an episode adds them)."""
        if self._in_order:
            return self.facts[-n:] if n > 0 else []
        key = self._time_key()
        return sorted(heapq.nlargest(n, self.facts, key=key), key=key)

    def _time_key(self) -> Callable[[Fact], tuple[int, int, int]]:
        rank = {e: i for i, e in enumerate(self._episodes)}
        return lambda f: (rank.get(f.episode, len(rank)), f.step, f.id)

    def expand(self, entities: Sequence[str], hops: int = 1, latest: int | None = None) -> list[Fact]:
        """Section 3.4: the shortest path between the first two entities plus the ``hops``-hop
        neighbourhood of each, as time-ordered facts between those vertices (the ``latest`` ones
        only, when given: ``expand(...)[-latest:]``, without reading every older fact between them)."""
        graph = self._graph.to_undirected(as_view=True)
        seeds = [normalize(e) for e in entities if normalize(e) in graph]
        nodes: set[str] = set()
        for seed in seeds:
            nodes |= set(nx.single_source_shortest_path_length(graph, seed, cutoff=hops))
        if len(seeds) >= 2:
            nodes |= set(first_shortest_path(graph, seeds[0], seeds[1]))
        if latest is None or not self._in_order:
            found = self.order(self.facts[key] for _, _, key in self._graph.subgraph(nodes).edges(keys=True))
            return found if latest is None else found[-latest:] if latest > 0 else []
        ids = [i for s in nodes for o, between in self._between.get(s, {}).items() if o in nodes
               for i in between[-latest:]]
        return self.order(self.facts[i] for i in ids)[-latest:] if latest > 0 else []

    def to_networkx(self) -> nx.MultiDiGraph:
        """A copy of the graph (edges carry ``relation``, ``step``, ``episode``; vertices ``type``)."""
        graph = self._graph.copy()
        nx.set_node_attributes(graph, {n: self.types.get(n, OBJECT) for n in graph.nodes}, "type")
        return graph

    # -- persistence ---------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        """JSON-ready content."""
        return {"format": FORMAT, "version": 1, "types": dict(self.types), "facts": [asdict(f) for f in self.facts]}

    @classmethod
    def from_json(cls, data: dict[str, Any], *, read_only: bool = False) -> TemporalKG:
        """Rebuilds a graph written by :meth:`to_json`."""
        if data.get("format") != FORMAT:
            raise ValueError("not a DAVIS temporal KG")
        kg = cls()
        for row in data["facts"]:
            kg.add(row["subject"], row["relation"], row["object"], row["step"], episode=row["episode"])
        kg.types.update(data["types"])
        kg.read_only = read_only
        return kg

    def save(self, path: str | Path) -> None:
        """Writes the graph as JSON (atomically: concurrent builders never expose a partial file)."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_name(f"{path.name}.{os.getpid()}.partial")
        partial.write_text(json.dumps(self.to_json()), encoding="utf-8")
        os.replace(partial, path)

    @classmethod
    def load(cls, path: str | Path, *, read_only: bool = False) -> TemporalKG:
        """Reads a graph written by :meth:`save`."""
        return cls.from_json(json.loads(Path(path).read_text(encoding="utf-8")), read_only=read_only)
def first_shortest_path(graph: nx.Graph, start: str, goal: str) -> list[str]:
    """A shortest path from ``start`` to ``goal`` (``[]``: none), the same however the graph was built.

    Breadth-first with neighbours visited in name order, so ties between shortest paths are broken
    by the vertices' names, never by the order the graph happened to be built in (which
    ``networkx.shortest_path`` follows, and which set iteration elsewhere may vary with Python's
    hash seed: DAVIS's retrieval then differed between processes).

    Example:
        >>> graph = nx.Graph([("a", "c"), ("a", "b"), ("c", "d"), ("b", "d")])
        >>> first_shortest_path(graph, "a", "d"), first_shortest_path(graph, "a", "z")
        (['a', 'b', 'd'], [])
    """
    if start not in graph or goal not in graph:
        return []
    parent: dict[str, str | None] = {start: None}
    frontier = [start]
    while frontier and goal not in parent:
        following: list[str] = []
        for vertex in frontier:
            for neighbour in sorted(graph.neighbors(vertex)):
                if neighbour not in parent:
                    parent[neighbour] = vertex
                    following.append(neighbour)
        frontier = following
    if goal not in parent:
        return []
    path: list[str] = []
    walk: str | None = goal
    while walk is not None:
        path.append(walk)
        walk = parent[walk]
    return path[::-1]


