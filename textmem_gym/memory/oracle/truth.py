"""Reading the true state: the map's shortest paths and the recipe, from facts.

Shared by the oracle memory and the probe questions (which ask about the same truth).

Example:
    >>> graph = direction_graph([("garden", "is north of", "kitchen")])
    >>> dict(graph), shortest_paths(graph, "kitchen", "garden")
    ({'kitchen': {'north': 'garden'}}, [['north']])
"""

from __future__ import annotations

import re
from collections import defaultdict, deque
from collections.abc import Iterable

from textmem_gym.envs.privileged import FactTriple
from textmem_gym.memory.semantic import TripleKey, normalize, relation_direction


def direction_graph(triples: Iterable[TripleKey]) -> dict[str, dict[str, str]]:
    """Room -> direction -> room, from ``(a, is <d> of, b)`` triples (go ``d`` from ``b`` to reach ``a``)."""
    graph: dict[str, dict[str, str]] = defaultdict(dict)
    for a, relation, b in triples:
        direction = relation_direction(relation)
        if direction:
            graph[b][direction] = a
    return graph


def shortest_paths(graph: dict[str, dict[str, str]], start: str, goal: str, limit: int = 8) -> list[list[str]]:
    """Every shortest direction sequence from ``start`` to ``goal`` (sorted; at most ``limit``).

    Example:
        >>> shortest_paths({"a": {"east": "b", "south": "c"}, "b": {"south": "d"}, "c": {"east": "d"}}, "a", "d")
        [['east', 'south'], ['south', 'east']]
    """
    paths: list[list[str]] = []
    queue: deque[tuple[str, list[str]]] = deque([(start, [])])
    best: dict[str, int] = {start: 0}
    while queue:
        room, path = queue.popleft()
        if paths and len(path) >= len(paths[0]):
            break
        for direction, nxt in sorted(graph.get(room, {}).items()):
            if nxt == goal:
                paths.append([*path, direction])
            elif best.get(nxt, len(path) + 1) >= len(path) + 1:
                best[nxt] = len(path) + 1
                queue.append((nxt, [*path, direction]))
    return sorted(paths)[:limit]


def recipe_ingredients(facts: Iterable[FactTriple]) -> list[str]:
    """The recipe's ingredients in its order (TextWorld's ``(x, base, ingredient_i)`` and
    ``(ingredient_i, in, RECIPE)`` facts), ``[]`` when the game has no recipe.

    Example:
        >>> recipe_ingredients([("ingredient_1", "in", "RECIPE"), ("ingredient_0", "in", "RECIPE"),
        ...                     ("egg", "base", "ingredient_1"), ("salt", "base", "ingredient_0")])
        ['salt', 'egg']
    """
    facts = list(facts)
    slots = {s for s, r, o in facts if r == "in" and o == "RECIPE"}
    base = {o: normalize(s) for s, r, o in facts if r == "base" and o in slots}
    return [base[slot] for slot in sorted(base, key=lambda slot: int(re.sub(r"\D", "", slot) or 0))]


__all__ = ["direction_graph", "recipe_ingredients", "shortest_paths"]
