"""What one update of a graph memory changed (:class:`UpdateStats`, the ``stats`` part of the protocol), and the
memory names callers import from here: the protocol lives in :mod:`textmem_gym.memory.protocol`, the registry in
:mod:`textmem_gym.memory.registry`.

The old sixteen-method ``Memory`` is gone: a memory is two methods (``update``, ``context``) and
what the old contract held is now the union of the optional parts (:data:`~textmem_gym.memory.protocol.PARTS`),
all of which :class:`~textmem_gym.memory.graph_memory.GraphMemory` offers.

Example:
    >>> memory = make_memory("arigraph")
    >>> memory.update("-= Kitchen =-\\nYou see a table.", "", {})
    >>> memory.believed_triples()
    [('table', 'is at', 'kitchen')]
    >>> memory.stats["added"], memory.stats["believed"]
    (1, 1)
"""

from __future__ import annotations

from textmem_gym.memory.protocol import Memory, UpdateStats, check_memory, offered_parts
from textmem_gym.memory.registry import available_memories, make_memory

__all__ = ["Memory", "UpdateStats", "available_memories", "check_memory", "make_memory", "offered_parts"]
