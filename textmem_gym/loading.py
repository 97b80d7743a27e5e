"""Finding things by name: the one registry lookup (and its error) and the one ``"module:attr"`` loader.

Every registry of textmem_gym (memories, extractors, similarity indexes, game generators, text
encodings, protocols, run backends, policies, RL algorithms...) is a mapping from a name to a thing,
or to the ``"module:attr"`` string of a thing imported on first use. :func:`lookup` finds a name,
:func:`load_named` finds and imports one, and both raise the same ``ValueError`` for an unknown
name: ``unknown <kind> <name>; choose from [<the known names>]``.

Example:
    >>> COLORS = {"red": "#f00", "green": "#0f0"}
    >>> lookup("color", "red", COLORS)
    '#f00'
    >>> lookup("color", "blue", COLORS)
    Traceback (most recent call last):
    ...
    ValueError: unknown color 'blue'; choose from ['green', 'red']
    >>> load_named("container", "ordered", {"ordered": "collections:OrderedDict"}).__name__
    'OrderedDict'
    >>> load_object("collections:OrderedDict").__name__
    'OrderedDict'
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable, Mapping
from typing import Any, TypeVar

T = TypeVar("T")


def unknown_name(kind: str, name: object, known: Iterable[str], *, detail: str = "") -> ValueError:
    """The error for a name no registry holds, listing the valid names in the order given.

    Args:
        kind: What the name names (``"memory"``, ``"Jericho game"``...).
        name: The name asked for.
        known: The valid names.
        detail: Why the name is unknown, when there is more to say (``"no module 'x'"``).

    Example:
        >>> str(unknown_name("policy", "x:y", ["random", "react"], detail="no module 'x'"))
        "unknown policy 'x:y': no module 'x'; choose from ['random', 'react']"
    """
    because = f": {detail}" if detail else ""
    return ValueError(f"unknown {kind} {name!r}{because}; choose from {list(known)}")


def lookup(kind: str, name: object, table: Mapping[str, T]) -> T:
    """``table[name]``, or a ``ValueError`` naming ``kind``, ``name`` and the sorted valid names.

    Raises:
        ValueError: ``name`` is not a key of ``table`` (or not a string at all).
    """
    if not isinstance(name, str) or name not in table:
        raise unknown_name(kind, name, sorted(table))
    return table[name]


def load_named(kind: str, name: object, table: Mapping[str, str]) -> Any:
    """The object whose ``"module:attr"`` string ``table`` holds under ``name`` (see :func:`lookup`).

    Raises:
        ValueError: ``name`` is unknown (the message lists the valid names).
        ImportError, AttributeError: As :func:`load_object`.
    """
    return load_object(lookup(kind, name, table))


def load_object(spec: str) -> Any:
    """The object named by ``"package.module:attr"`` (``attr`` may be dotted: ``"mod:Class.method"``).

    Raises:
        ValueError: ``spec`` is not of the form ``"module:attr"``.
        ImportError: The module cannot be imported (the message names ``spec``).
        AttributeError: The module has no such attribute (the message names ``spec``).
    """
    module_name, sep, attr = spec.partition(":")
    if not sep or not module_name or not attr:
        raise ValueError(f"expected 'module:attr', got {spec!r}")
    try:
        target: Any = importlib.import_module(module_name)
    except ImportError as error:
        raise ImportError(f"cannot import {module_name!r} (from {spec!r}): {error}") from error
    for part in attr.split("."):
        try:
            target = getattr(target, part)
        except AttributeError:
            raise AttributeError(f"{module_name!r} has no attribute {attr!r} (from {spec!r})") from None
    return target
