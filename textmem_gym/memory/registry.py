"""Memories by name, found the way policies are: an object, ``"module:Class"``, or an entry point.

:func:`make_memory` accepts

- a memory object (anything with ``update`` and ``context``), returned as it is;
- a name of the entry-point group ``textmem_gym.memories`` (value ``"module:Class"``). The
  library's own memories (``arigraph``, ``stma``, ``davis``, ``bm25``, ...) are declared there in
  ``setup.cfg`` exactly like a third party's, so this module names no memory;
- ``"package.module:Class"``: any importable factory returning a memory.

Whatever the factory returns is checked: an object without the two methods is refused with one line.

Example:
    >>> "arigraph" in available_memories()
    True
    >>> type(make_memory("textmem_gym.memory.history.memory:FullHistoryMemory")).__name__
    'FullHistoryMemory'
    >>> make_memory("notes")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: unknown memory 'notes'; choose from [...]
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from textmem_gym.loading import check_keywords, declared_names, load_declared
from textmem_gym.memory.protocol import Memory, Named, check_memory, is_memory

#: Entry-point group through which packages (the library included) add memory names.
ENTRY_POINT_GROUP = "textmem_gym.memories"


def available_memories() -> dict[str, str]:
    """Memory name -> ``"module:Class"`` of every installed package (the library's own included), sorted."""
    return {name: entry.target for name, entry in sorted(declared_names("memory", ENTRY_POINT_GROUP).items())}


def memory_factory(name: str) -> Callable[..., Any]:
    """The factory (usually a class) behind a memory name or ``"module:Class"``.

    Raises:
        ValueError: Unknown name, or a ``module:Class`` that cannot be imported (one line).
    """
    return load_declared("memory", name, ENTRY_POINT_GROUP)


#: Endpoint keywords a memory's factory may take (a model that builds the memory: summary, HippoRAG, Mem0).
ENDPOINT_KEYWORDS = ("model", "base_url", "api_key", "client_options")


def factory_parameters(factory: Callable[..., Any]) -> set[str]:
    """The keyword names ``factory`` takes (empty when it has no signature to read)."""
    try:
        return set(inspect.signature(factory).parameters)
    except (TypeError, ValueError):  # a builtin or C factory
        return set()


def endpoint_options(factory: Callable[..., Any], llm: dict[str, Any]) -> dict[str, Any]:
    """The endpoint settings of ``llm`` (:data:`ENDPOINT_KEYWORDS`) that ``factory`` takes; none without a model.

    Example:
        >>> def summary(*, model=None, base_url=None, recent=5): ...
        >>> endpoint_options(summary, {"model": "m", "base_url": "http://x", "api_key": "k"})
        {'model': 'm', 'base_url': 'http://x'}
        >>> endpoint_options(summary, {"base_url": "http://x"})
        {}
    """
    if not llm.get("model"):
        return {}
    parameters = factory_parameters(factory)
    return {key: llm[key] for key in ENDPOINT_KEYWORDS if key in parameters and llm.get(key) is not None}


def memory_name(memory: object) -> str:
    """A memory's name: its ``name`` part (a non-empty string) where it offers one, else its class name.

    Example:
        >>> class Notes:
        ...     def update(self, observation, action, info): ...
        ...     def context(self, question, budget): return []
        >>> memory_name(make_memory("arigraph")), memory_name(Notes())
        ('arigraph', 'Notes')
    """
    name = memory.name if isinstance(memory, Named) else None
    return name if isinstance(name, str) and name else type(memory).__name__


def make_memory(memory: str | Memory = "arigraph", **options: Any) -> Memory:
    """Builds a memory by name or ``"module:Class"``; a memory object is checked and returned.

    Raises:
        ValueError: Unknown name, options given with a memory object, or options its factory does not
            take (the message lists those it takes).
        TypeError: The object (or what the factory returned) is not a memory (one line).
    """
    if not isinstance(memory, str):
        if options:
            raise ValueError("memory options only apply when the memory is given by name")
        return check_memory(memory)
    factory = memory_factory(memory)
    check_keywords("memory", memory, factory, options)  # one line naming the options it takes
    built = factory(**options)
    if not is_memory(built):
        raise TypeError(f"memory {memory!r} built a {type(built).__name__}, which is not a memory: it needs "
                        "update(observation, action, info) and context(question, budget)")
    return built


__all__ = ["ENDPOINT_KEYWORDS", "ENTRY_POINT_GROUP", "available_memories", "endpoint_options", "factory_parameters",
           "make_memory", "memory_factory", "memory_name"]
