"""The memory interface every architecture implements, and the registry of memories by name.

Example:
    >>> memory = make_memory("arigraph")
    >>> memory.reset()
    >>> memory.update("-= Kitchen =-\\nYou see a table.", "", {})
    >>> memory.believed_triples()
    [('table', 'is at', 'kitchen')]
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import networkx as nx

from textmem_gym.loading import load_named
from textmem_gym.memory.extractors import TextParser
from textmem_gym.memory.retrieval import Episode
from textmem_gym.memory.semantic import Triple, TripleKey


@dataclass
class UpdateStats:
    """What one update changed, and the running totals.

    Attributes:
        added: Triples newly believed this step.
        invalidated: Triples that stopped being believed this step.
        believed: Triples believed now.
        total: Triples ever believed.
        episodes: Episodic vertices.
    """

    added: int = 0
    invalidated: int = 0
    believed: int = 0
    total: int = 0
    episodes: int = 0


@runtime_checkable
class Memory(Protocol):
    """A memory architecture: everything the wrapper, the macro actions, the policies, the
    servers, the web app and the trajectories use. Every registered memory implements all of it
    (AriGraph, STMA and DAVIS through the shared :class:`~textmem_gym.memory.graph_memory.GraphMemory`);
    a method with nothing to say returns an empty value (``[]``, ``{}``, ``None``), as documented.

    Attributes:
        name: The name in :data:`MEMORIES` (``"arigraph"``, ``"stma"``, ``"davis"``).
        location: The current location, as believed (``None``: not known).
        stats: What the last update changed (:class:`UpdateStats`).
        step: Updates since the reset, minus one (``-1`` before the first).
        version: Moves on whenever the content changes, so callers may cache what they derive.
    """

    name: str
    location: str | None
    stats: UpdateStats
    step: int
    version: int

    # -- lifecycle -----------------------------------------------------------------------
    def reset(self) -> None:
        """Empties the memory for a new episode."""

    def update(self, observation: str, action: str, info: dict[str, Any]) -> None:
        """Learns from one step (``action`` is ``""`` for the reset observation)."""

    def invalidate(self, subject: str, relation: str, obj: str) -> bool:
        """Stops believing a triple now (kept with its validity interval); whether it was believed."""

    def use_parser(self, parser: TextParser | None) -> None:
        """Reads the game's text with the env backend's ``parser`` (``None``: the generic reading)."""

    # -- recall --------------------------------------------------------------------------
    def retrieve(self, query: str | list[str]) -> Any:
        """What the memory recalls for ``query`` (the architecture's own result type)."""

    def render(self, query: str | list[str] | None = None) -> str:
        """The memory as prompt text (relevant to ``query`` when given)."""

    # -- beliefs -------------------------------------------------------------------------
    def believed_triples(self) -> list[TripleKey]:
        """The triples believed now, oldest first."""

    def triple_history(self) -> list[Triple]:
        """Every triple ever believed with its validity interval (``start``, ``end``), oldest first."""

    def episodes(self) -> list[Episode]:
        """The episodic vertices (one per update: action and observation), oldest first."""

    # -- locations -----------------------------------------------------------------------
    def known_locations(self) -> list[str]:
        """Rooms the memory knows (``[]`` before any)."""

    def unexplored_exits(self) -> dict[str, list[str]]:
        """Room -> directions not explored yet (``{}`` when none is known)."""

    def route(self, start: str, goal: str) -> list[tuple[str, str]] | None:
        """Shortest known path ``[(direction, room), ...]``; ``[]`` if there, ``None`` if unknown."""

    def door(self, room: str, direction: str) -> tuple[str, str | None] | None:
        """``(door, believed state)`` on an exit, if a door is known there (else ``None``)."""

    # -- export --------------------------------------------------------------------------
    def to_networkx(self, *, history: bool = False, episodic: bool = False) -> nx.MultiDiGraph:
        """The memory as a graph (invalidated edges too with ``history``; episodic vertices with ``episodic``)."""

    def to_json(self) -> dict[str, Any]:
        """The whole memory as JSON-ready data (what trajectories keep at the end of an episode)."""

    def save(self, path: str | Path) -> None:
        """Writes :meth:`to_json` to ``path``."""

    def load(self, path: str | Path) -> None:
        """Replaces the believed state by one written with :meth:`save`."""

    def draw(self, path: str | Path, **options: Any) -> Path:
        """Writes a PNG picture of the believed graph; returns its path."""


#: Memory name -> ``"module:Class"``; later architectures add one line each.
MEMORIES: dict[str, str] = {
    "arigraph": "textmem_gym.memory.arigraph.memory:AriGraphMemory",
    "stma": "textmem_gym.memory.stma.memory:STMAMemory",
    "davis": "textmem_gym.memory.davis.memory:DAVISMemory",
}


def memory_class(name: str) -> type:
    """The class registered under ``name``."""
    return load_named("memory", name, MEMORIES)


def make_memory(memory: str | Memory = "arigraph", **options: Any) -> Memory:
    """Builds a memory by name (a memory object is returned unchanged)."""
    if not isinstance(memory, str):
        if options:
            raise ValueError("memory options only apply when the memory is given by name")
        return memory
    return memory_class(memory)(**options)
