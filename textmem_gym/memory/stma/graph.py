"""Graph operations of STMA's spatial memory.

- The entity similarity of Algorithm 1 (:class:`~textmem_gym.memory.entities.BM25EntityIndex`
  and :class:`~textmem_gym.memory.entities.EmbeddingEntityIndex`) lives in the shared
  :mod:`textmem_gym.memory.entities` (DAVIS's graph QA uses it too); it is re-exported here.
- :func:`k_hop`: Algorithm 3 (``single_source_shortest_path_length`` with cutoff ``K``).
- :func:`rank_subgraph` and :func:`retrieve_subgraph`: Algorithm 1 (top-``n`` entities, ``K``-hop
  expansion, the edges between candidate vertices), most relevant first or in the given order.
- :func:`transitive_directions` and :func:`describe`: the deterministic relation aggregator
  (A west of B, B west of C => A west of C; triples as sentences).

Example:
    >>> from textmem_gym.memory.semantic import TripleStore
    >>> store = TripleStore()
    >>> for s, o in (("a", "b"), ("b", "c"), ("c", "d")):
    ...     _ = store.add(s, "is west of", o, 0)
    >>> sorted(t for t in transitive_directions(store.active()) if t[0] == "a")
    [('a', 'is west of', 'c'), ('a', 'is west of', 'd')]
    >>> sorted(k_hop(graph_of(store.active()), ["a"], 2))
    ['a', 'b', 'c']
    >>> [t.as_tuple() for t in rank_subgraph(store.active(), "where is d", top_n=1, k=2)]
    [('c', 'is west of', 'd'), ('b', 'is west of', 'c')]
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

import networkx as nx

from textmem_gym.memory.entities import BM25EntityIndex, EmbeddingEntityIndex, EntityIndex
from textmem_gym.memory.semantic import AT, HAS_EXIT, IN, IS, ON, Triple, TripleKey, relation_direction

__all__ = ["BM25EntityIndex", "EmbeddingEntityIndex", "EntityIndex", "describe", "graph_of", "hop_distances",
           "k_hop", "rank_around", "rank_subgraph", "retrieve_subgraph", "sentence", "transitive_directions"]


def graph_of(triples: Iterable[Triple]) -> nx.MultiDiGraph:
    """The triples as a directed multigraph (edge key = triple id)."""
    graph = nx.MultiDiGraph()
    for t in triples:
        graph.add_edge(t.subject, t.object, key=t.id, relation=t.relation)
    return graph


def hop_distances(graph: nx.Graph, vertices: Sequence[str], k: int) -> dict[str, tuple[int, int]]:
    """Every vertex within ``k`` hops (edges in either direction) of ``vertices``, mapped to
    ``(hops, rank)`` of its nearest vertex (the earlier one in ``vertices`` on a tie)."""
    undirected = graph.to_undirected(as_view=True) if graph.is_directed() else graph
    nearest: dict[str, tuple[int, int]] = {}
    for rank, vertex in enumerate(vertices):
        if vertex in undirected:
            for node, hops in nx.single_source_shortest_path_length(undirected, vertex, cutoff=k).items():
                nearest[node] = min(nearest.get(node, (hops, rank)), (hops, rank))
    return nearest


def k_hop(graph: nx.Graph, vertices: Sequence[str], k: int) -> set[str]:
    """Algorithm 3: every vertex within ``k`` hops (edges in either direction) of ``vertices``."""
    return set(hop_distances(graph, vertices, k))


def rank_subgraph(triples: Sequence[Triple], query: str, top_n: int = 8, k: int = 3,
                  index: Callable[[Iterable[str]], Any] = BM25EntityIndex) -> list[Triple]:
    """Algorithm 1, most relevant first: the top-``n`` entities by similarity to ``query``
    (``index`` builds the entity index: BM25 by default, or an :class:`EmbeddingEntityIndex`),
    their ``k``-hop neighbourhood, and the triples whose two ends are both candidates, ordered by
    the hops from their nearer end to a seed entity, then that seed's rank, then newest first."""
    if not triples:
        return []
    graph = graph_of(triples)
    return rank_around(triples, graph, index(graph.nodes).top(query, top_n), k)


def rank_around(triples: Sequence[Triple], graph: nx.MultiDiGraph, seeds: Sequence[str], k: int) -> list[Triple]:
    """:func:`rank_subgraph` once its seed entities are chosen (``graph`` is :func:`graph_of` ``triples``):
    the triples within ``k`` hops of ``seeds``, most relevant first.

    Example:
        >>> from textmem_gym.memory.semantic import TripleStore
        >>> store = TripleStore()
        >>> _ = store.add("knife", "is on", "table", 0), store.add("table", "is at", "hall", 0)
        >>> [t.as_tuple() for t in rank_around(store.active(), graph_of(store.active()), ["knife"], 1)]
        [('knife', 'is on', 'table')]
    """
    nearest = hop_distances(graph, seeds, k)
    found = [(min(nearest[t.subject], nearest[t.object]), -position, t) for position, t in enumerate(triples)
             if t.subject in nearest and t.object in nearest]
    return [t for *_, t in sorted(found, key=lambda item: (item[0], item[1]))]


def retrieve_subgraph(triples: Sequence[Triple], query: str, top_n: int = 8, k: int = 3,
                      index: Callable[[Iterable[str]], Any] = BM25EntityIndex) -> list[Triple]:
    """The triples of :func:`rank_subgraph`, in the order of ``triples`` (oldest first)."""
    kept = {id(t) for t in rank_subgraph(triples, query, top_n, k, index)}
    return [t for t in triples if id(t) in kept]


def transitive_directions(triples: Iterable[Triple | TripleKey], max_chain: int = 6) -> list[TripleKey]:
    """Direction facts that follow from chains of the same direction and are not stated:
    ``(a, is west of, b)`` and ``(b, is west of, c)`` give ``(a, is west of, c)``."""
    keys = [t.as_tuple() if isinstance(t, Triple) else tuple(t) for t in triples]
    stated = set(keys)
    inferred: list[TripleKey] = []
    by_relation: dict[str, dict[str, list[str]]] = {}
    for s, r, o in keys:
        if relation_direction(r) is not None:
            by_relation.setdefault(r, {}).setdefault(s, []).append(o)
    for relation, edges in sorted(by_relation.items()):
        for start in sorted(edges):
            frontier, seen = list(edges[start]), {start, *edges[start]}
            for _ in range(max_chain - 1):
                nxt = [o for v in frontier for o in edges.get(v, ()) if o not in seen]
                for o in nxt:
                    seen.add(o)
                    if (start, relation, o) not in stated:
                        inferred.append((start, relation, o))
                frontier = nxt
    return list(dict.fromkeys(inferred))


_SENTENCE = {AT: "The {s} is in the {o}.", IN: "The {s} is in the {o}.", ON: "The {s} is on the {o}.",
             HAS_EXIT: "The {s} has an exit to the {o}.", IS: "The {s} is {o}."}


def sentence(triple: TripleKey) -> str:
    """One triple as an English sentence."""
    s, r, o = triple
    if r in _SENTENCE:
        return _SENTENCE[r].format(s=s, o=o)
    direction = relation_direction(r)
    if direction is not None:
        where = {"up": "above", "down": "below"}.get(direction, f"to the {direction} of")
        return f"The {s} is {where} the {o}."
    return f"The {s} {r} {o}."


def describe(triples: Sequence[Triple | TripleKey]) -> str:
    """The deterministic relation aggregator: stated facts as sentences, then what follows."""
    keys = [t.as_tuple() if isinstance(t, Triple) else tuple(t) for t in triples]
    lines = [sentence(k) for k in keys]  # type: ignore[arg-type]
    inferred = transitive_directions(keys)  # type: ignore[arg-type]
    if inferred:
        lines.append("It follows that: " + " ".join(sentence(k) for k in inferred))
    return " ".join(lines) if lines else "Nothing is known about the surroundings yet."
