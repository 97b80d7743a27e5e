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
from typing import Any, Protocol

import networkx as nx

from textmem_gym.loading import load_object
from textmem_gym.memory.triples import TripleKey


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

    def as_dict(self) -> dict[str, int]:
        """Plain dict for ``info``."""
        return dict(self.__dict__)


class Memory(Protocol):
    """A memory architecture as the wrapper and the policies use it."""

    location: str | None
    stats: UpdateStats

    def reset(self) -> None:
        """Empties the memory for a new episode."""

    def update(self, observation: str, action: str, info: dict[str, Any]) -> None:
        """Learns from one step (``action`` is ``""`` for the reset observation)."""

    def retrieve(self, query: str | list[str]) -> Any:
        """What the memory recalls for ``query``."""

    def render(self, query: str | list[str] | None = None) -> str:
        """The memory as prompt text (relevant to ``query`` when given)."""

    def believed_triples(self) -> list[TripleKey]:
        """The triples believed now."""

    def known_locations(self) -> list[str]:
        """Rooms the memory knows."""

    def unexplored_exits(self) -> dict[str, list[str]]:
        """Room -> directions not explored yet."""

    def route(self, start: str, goal: str) -> list[tuple[str, str]] | None:
        """Shortest known path ``[(direction, room), ...]`` or ``None``."""

    def door(self, room: str, direction: str) -> tuple[str, str | None] | None:
        """``(door, believed state)`` on an exit, if a door is known there."""

    def to_networkx(self) -> nx.MultiDiGraph:
        """The memory as a graph."""

    def save(self, path: str | Path) -> None:
        """Writes the memory as JSON."""


#: Memory name -> ``"module:Class"``; later architectures add one line each.
MEMORIES: dict[str, str] = {
    "arigraph": "textmem_gym.memory.arigraph.memory:AriGraphMemory",
    "stma": "textmem_gym.memory.stma.memory:STMAMemory",
    "davis": "textmem_gym.memory.davis.memory:DAVISMemory",
}


def memory_class(name: str) -> type:
    """The class registered under ``name``."""
    if name not in MEMORIES:
        raise ValueError(f"unknown memory {name!r}; choose from {sorted(MEMORIES)}")
    return load_object(MEMORIES[name])


def make_memory(memory: str | Memory = "arigraph", **options: Any) -> Memory:
    """Builds a memory by name (a memory object is returned unchanged)."""
    if not isinstance(memory, str):
        if options:
            raise ValueError("memory options only apply when the memory is given by name")
        return memory
    return memory_class(memory)(**options)
