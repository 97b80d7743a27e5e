"""Memory architectures for text-game agents, as plug-ins: each implements the :class:`Memory`
protocol and registers in :data:`MEMORIES` (``arigraph``, ``stma``, ``davis``: siblings over the
shared graph parts of :mod:`~textmem_gym.memory.graph_memory`, none importing another).

Example:
    >>> from textmem_gym.memory import make_memory
    >>> memory = make_memory("arigraph", extractor="rules")
    >>> memory.update("-= Hall =-\\nYou see a chest.", "", {})
    >>> memory.believed_triples()
    [('chest', 'is at', 'hall')]
"""

from __future__ import annotations

from textmem_gym.memory.base import MEMORIES, Memory, UpdateStats, make_memory, memory_class
from textmem_gym.memory.belief_metrics import BeliefAccuracy, score_beliefs
from textmem_gym.memory.extractors import EXTRACTORS, make_extractor

__all__ = ["EXTRACTORS", "MEMORIES", "BeliefAccuracy", "Memory", "UpdateStats", "make_extractor",
           "make_memory", "memory_class", "score_beliefs"]
