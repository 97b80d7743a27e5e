"""``OracleMemory``: the privileged true state now, ranked against the question.

The only built-in memory that reads privileged information: it declares
``privileged = frozenset({"facts"})``, so the probes hand it ``info["facts"]`` (every other memory
gets ``info`` without the privileged keys). Each update replaces its state by the true one: the
facts in the memory vocabulary (as the backend's text parser reads them, handed over through
``use_parser``: :func:`~textmem_gym.memory.ground_truth.map_facts`), the player's
room and the recipe. Its context is those lines ranked by BM25 against the question (ties and the
rest in their order); it offers ``beliefs`` (the true triples) and ``map`` (the true map).

Example:
    >>> oracle = OracleMemory()
    >>> oracle.update("", "", {"facts": [("P", "at", "kitchen"), ("knife", "on", "table"),
    ...                                  ("garden", "north_of", "kitchen")]})
    >>> oracle.context("where is the knife?", 64)[0]
    'knife, is on, table'
    >>> oracle.route("kitchen", "garden"), oracle.location
    ([('north', 'garden')], 'kitchen')
    >>> OracleMemory().update("", "", {})
    Traceback (most recent call last):
    ...
    ValueError: OracleMemory reads info['facts']: make the env with privileged=True
"""

from __future__ import annotations

from typing import Any

from textmem_gym.memory.budget import fit_budget
from textmem_gym.memory.extractors.base import TextParser
from textmem_gym.memory.ground_truth import ObservedTruth, Truth, map_facts
from textmem_gym.memory.oracle.truth import direction_graph, recipe_ingredients, shortest_paths
from textmem_gym.memory.retrieval import make_index
from textmem_gym.memory.semantic import TripleKey


class OracleMemory:
    """The true state now (see the module docstring).

    Attributes:
        privileged: The privileged ``info`` keys it reads.
        location: The player's true room.
    """

    name = "oracle"
    privileged = frozenset({"facts"})

    def __init__(self) -> None:
        self.facts_reader: Truth = ObservedTruth()
        self.reset()

    def use_parser(self, parser: TextParser | None) -> None:
        """Reads the facts with the tracker ``parser`` gives (``None``: TextWorld's predicates)."""
        self.facts_reader = ObservedTruth() if parser is None else parser.observed_truth()

    def reset(self) -> None:
        """Forgets the state."""
        self.truth: set[TripleKey] = set()
        self.location: str | None = None
        self.recipe: list[str] = []

    def update(self, observation: str, action: str, info: dict[str, Any]) -> None:
        """Reads ``info["facts"]``.

        Raises:
            ValueError: ``info`` holds no facts.
        """
        if "facts" not in info:
            raise ValueError("OracleMemory reads info['facts']: make the env with privileged=True")
        self.truth, self.location = map_facts(info["facts"], self.facts_reader)
        self.recipe = recipe_ingredients(info["facts"])

    def lines(self) -> list[str]:
        """The true state as lines: the player's room, the facts, the recipe."""
        lines = [f"you are in the {self.location}"] if self.location else []
        lines += [", ".join(t) for t in sorted(self.truth)]
        return lines + ([f"the recipe needs: {', '.join(self.recipe)}"] if self.recipe else [])

    def context(self, question: str, budget: int) -> list[str]:
        """The lines, best BM25 match to ``question`` first, within ``budget`` tokens."""
        lines, index = self.lines(), make_index("bm25")
        for i, line in enumerate(lines):
            index.add(i, line)
        ranked = [i for i, _ in index.search(question, len(lines))]
        return fit_budget([lines[i] for i in dict.fromkeys([*ranked, *range(len(lines))])], budget)

    def believed_triples(self) -> list[TripleKey]:
        """The true triples."""
        return sorted(self.truth)

    def known_locations(self) -> list[str]:
        """Every room of the true map."""
        graph = direction_graph(self.truth)
        return sorted(set(graph) | {room for exits in graph.values() for room in exits.values()})

    def unexplored_exits(self) -> dict[str, list[str]]:
        """None: the oracle knows every exit."""
        return {}

    def route(self, start: str, goal: str) -> list[tuple[str, str]] | None:
        """The first shortest true path ``[(direction, room), ...]`` (``[]`` if there, ``None``: none)."""
        if start == goal:
            return []
        graph = direction_graph(self.truth)
        paths = shortest_paths(graph, start, goal)
        if not paths:
            return None
        steps, room = [], start
        for direction in paths[0]:
            room = graph[room][direction]
            steps.append((direction, room))
        return steps

    def door(self, room: str, direction: str) -> tuple[str, str | None] | None:
        """None: the oracle's map shows no doors."""
        return None


__all__ = ["OracleMemory"]
