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
import warnings
from collections.abc import Callable
from functools import lru_cache
from importlib.metadata import entry_points
from typing import Any

from textmem_gym.loading import load_object, unknown_name
from textmem_gym.memory.protocol import Memory, check_memory, is_memory

#: Entry-point group through which packages (the library included) add memory names.
ENTRY_POINT_GROUP = "textmem_gym.memories"


@lru_cache(maxsize=1)
def _declared() -> dict[str, str]:
    found: dict[str, str] = {}
    for point in entry_points(group=ENTRY_POINT_GROUP):
        if point.name in found and found[point.name] != point.value:
            warnings.warn(f"memory name {point.name!r} is declared twice; keeping {found[point.name]!r}",
                          stacklevel=2)
            continue
        found[point.name] = point.value
    return found


def available_memories() -> dict[str, str]:
    """Memory name -> ``"module:Class"`` of every installed package (the library's own included), sorted."""
    return dict(sorted(_declared().items()))


def memory_factory(name: str) -> Callable[..., Any]:
    """The factory (usually a class) behind a memory name or ``"module:Class"``.

    Raises:
        ValueError: Unknown name, or a ``module:Class`` that cannot be imported (one line).
    """
    declared = available_memories()
    if name in declared:
        return load_object(declared[name])
    if ":" in name:
        try:
            return load_object(name)
        except (ImportError, AttributeError) as error:
            raise unknown_name("memory", name, declared, detail=str(error)) from None
    raise unknown_name("memory", name, declared)


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
    """A memory's name: its ``name`` attribute where it has one, else its class name."""
    name = getattr(memory, "name", None)
    return name if isinstance(name, str) and name else type(memory).__name__


def make_memory(memory: str | Memory = "arigraph", **options: Any) -> Memory:
    """Builds a memory by name or ``"module:Class"``; a memory object is checked and returned.

    Raises:
        ValueError: Unknown name, or options given with a memory object.
        TypeError: The object (or what the factory returned) is not a memory (one line).
    """
    if not isinstance(memory, str):
        if options:
            raise ValueError("memory options only apply when the memory is given by name")
        return check_memory(memory)
    built = memory_factory(memory)(**options)
    if not is_memory(built):
        raise TypeError(f"memory {memory!r} built a {type(built).__name__}, which is not a memory: it needs "
                        "update(observation, action, info) and context(question, budget)")
    return built


__all__ = ["ENDPOINT_KEYWORDS", "ENTRY_POINT_GROUP", "available_memories", "endpoint_options", "factory_parameters",
           "make_memory", "memory_factory", "memory_name"]
