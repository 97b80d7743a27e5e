"""What one update of a graph memory changed (:class:`UpdateStats`), and the memory names callers
import from here: the protocol lives in :mod:`textmem_gym.memory.protocol`, the registry in
:mod:`textmem_gym.memory.registry`.

The old sixteen-method ``Memory`` is gone: a memory is two methods (``update``, ``context``) and
what the old contract held is now the union of the optional parts (:data:`~textmem_gym.memory.protocol.PARTS`),
all of which :class:`~textmem_gym.memory.graph_memory.GraphMemory` offers.

Example:
    >>> memory = make_memory("arigraph")
    >>> memory.update("-= Kitchen =-\\nYou see a table.", "", {})
    >>> memory.believed_triples()
    [('table', 'is at', 'kitchen')]
    >>> UpdateStats(added=1).believed
    0
"""

from __future__ import annotations

from dataclasses import dataclass

from textmem_gym.memory.protocol import Memory, check_memory, offered_parts
from textmem_gym.memory.registry import available_memories, make_memory


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
        """The counts by name (what ``dataclasses.asdict`` gives, without its deep copy: a step's cost).

        Example:
            >>> UpdateStats(added=2, believed=5).as_dict()
            {'added': 2, 'invalidated': 0, 'believed': 5, 'total': 0, 'episodes': 0}
        """
        return {"added": self.added, "invalidated": self.invalidated, "believed": self.believed,
                "total": self.total, "episodes": self.episodes}


__all__ = ["Memory", "UpdateStats", "available_memories", "check_memory", "make_memory", "offered_parts"]
