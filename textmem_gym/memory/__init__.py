"""Memories for text-game agents, as plug-ins: a memory is any object with ``update`` and
``context`` (:class:`Memory`); everything else is an optional part (:data:`PARTS`,
:func:`offered_parts`). Memories are found by name through the entry-point group
``textmem_gym.memories`` (:func:`available_memories`, :func:`make_memory`), where the library's
own (``arigraph``, ``stma``, ``davis``: siblings over the shared graph parts of
:mod:`~textmem_gym.memory.graph_memory`, none importing another) are declared like anyone's.

Example:
    >>> from textmem_gym.memory import make_memory, offered_parts
    >>> memory = make_memory("arigraph", extractor="rules")
    >>> memory.update("-= Hall =-\\nYou see a chest.", "", {})
    >>> memory.believed_triples()
    [('chest', 'is at', 'hall')]
    >>> memory.context("where is the chest?", 13)
    ['chest, is at, hall', 'Current location: hall']
    >>> offered_parts(memory)["map"], offered_parts(memory)["sources"]
    (True, False)
"""

from __future__ import annotations

from textmem_gym.memory.base import UpdateStats
from textmem_gym.memory.belief_metrics import BeliefAccuracy, score_beliefs
from textmem_gym.memory.budget import count_tokens, fit_budget
from textmem_gym.memory.extractors import EXTRACTORS, make_extractor
from textmem_gym.memory.protocol import PARTS, Memory, check_memory, is_memory, offered_parts
from textmem_gym.memory.registry import available_memories, make_memory, memory_factory, memory_name

__all__ = ["EXTRACTORS", "PARTS", "BeliefAccuracy", "Memory", "UpdateStats", "available_memories", "check_memory",
           "count_tokens", "fit_budget", "is_memory", "make_extractor", "make_memory", "memory_factory",
           "memory_name", "offered_parts", "score_beliefs"]
