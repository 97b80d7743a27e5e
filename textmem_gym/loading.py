"""Finding things by name: the one registry lookup (and its error) and the one ``"module:attr"`` loader.

Every registry of textmem_gym (memories, extractors, similarity indexes, game generators, text
encodings, protocols, run backends, policies, RL algorithms...) is a mapping from a name to a thing,
or to the ``"module:attr"`` string of a thing imported on first use. :func:`lookup` finds a name,
:func:`load_named` finds and imports one, and both raise the same ``ValueError`` for an unknown
name: ``unknown <kind> <name>; choose from [<the known names>]``.

The registries that users extend (policies, memories, env backends, text parsers, run backends,
extractors, protocols, QA protocols and methods, memory-probe question kinds, ``textmem-gym``
commands) read their names from an entry-point group instead: every installed package declares its
names there, the library's own in its ``setup.cfg`` exactly like a third party's
(:func:`declared_names`, :func:`declared_targets`, :func:`library_names`, :func:`load_declared`),
so a third party adds any of them without editing the library, and no table of the library names a
module of a floor above it. A name's description is its object's (the first line of its docstring).

Every ``"module:attr"`` is imported by :func:`import_module`: a module that is not on ``sys.path``
is also looked for in the current directory, as ``python -m`` and ``python`` itself do, so a
command of the ``textmem-gym`` console script (``eval --policy mymod:Pick``, ``probe --memory
mypackage.notes:KeywordNotes``, ``memory-bench``, ``reproduce``...) finds the user's modules the
same way. The directory goes last on ``sys.path``: it never shadows an installed package.

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
import importlib.util
import inspect
import os
import re
import sys
import warnings
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from importlib.metadata import PackageNotFoundError, distribution, entry_points
from types import ModuleType
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
        target: Any = import_module(module_name)
    except ImportError as error:
        raise ImportError(f"cannot import {module_name!r} (from {spec!r}): {error}") from error
    for part in attr.split("."):
        try:
            target = getattr(target, part)
        except AttributeError:
            raise AttributeError(f"{module_name!r} has no attribute {attr!r} (from {spec!r})") from None
    return target


def import_module(name: str) -> ModuleType:
    """``importlib.import_module(name)``; a module found nowhere on ``sys.path`` is looked for in the
    current directory too (see the module docstring).

    Raises:
        ImportError: It is not found there either, or importing it fails.

    Example:
        >>> import os, pathlib, tempfile
        >>> folder, before = pathlib.Path(tempfile.mkdtemp()), os.getcwd()
        >>> _ = (folder / "cwd_module_example.py").write_text("ANSWER = 42")
        >>> os.chdir(folder)
        >>> import_module("cwd_module_example").ANSWER
        42
        >>> os.chdir(before)
    """
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as error:
        if not (_is_missing(name, error) and use_working_directory()):
            raise
    return importlib.import_module(name)


def module_exists(name: str) -> bool:
    """Whether module ``name`` can be found (on ``sys.path``, else in the current directory), without
    importing it (its parent packages are imported).

    Raises:
        ImportError: A parent package exists but fails to import (its own bug).

    Example:
        >>> module_exists("collections.abc"), module_exists("no_such_module_anywhere")
        (True, False)
    """
    for attempt in range(2):
        try:
            if importlib.util.find_spec(name) is not None:
                return True
        except ModuleNotFoundError as error:
            if not _is_missing(name, error):
                raise
        if attempt or not use_working_directory():
            return False
    return False


def use_working_directory() -> bool:
    """Puts the current directory last on ``sys.path`` unless it is there already (as ``""`` or its
    path); returns whether it did. The console script does not put it there, unlike ``python``."""
    here = os.getcwd()
    if "" in sys.path or here in sys.path:
        return False
    sys.path.append(here)
    importlib.invalidate_caches()
    return True


def _is_missing(name: str, error: ModuleNotFoundError) -> bool:
    """Whether ``error`` says module ``name`` itself (or a package it is in) was not found, rather than
    something that module imports."""
    missing = error.name or ""
    return bool(missing) and (name == missing or name.startswith(missing + "."))


def check_keywords(kind: str, name: str, factory: Callable[..., Any], keywords: Mapping[str, Any]) -> None:
    """Checks that ``factory`` (found by ``name``) takes ``keywords``, before it is called: one line for a
    mistake instead of the ``TypeError`` of the call, deep in whatever builds it.

    A factory with a ``**kwargs`` takes any keyword; one without a readable signature is left to the call.

    Raises:
        ValueError: A keyword it does not take (the message names it and lists those it takes), or a
            required one missing.

    Example:
        >>> def bm25(k1=1.5, b=0.75): ...
        >>> check_keywords("memory", "bm25", bm25, {"k1": 1.2})
        >>> check_keywords("memory", "bm25", bm25, {"kk": 1})
        Traceback (most recent call last):
        ...
        ValueError: memory 'bm25' does not accept 'kk'; it accepts: ['k1', 'b']
    """
    try:
        signature = inspect.signature(factory)
    except (TypeError, ValueError):  # no signature to read (some built-in callables)
        return
    parameters = signature.parameters.values()
    accepted = [p.name for p in parameters if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
    open_ended = any(p.kind is p.VAR_KEYWORD for p in parameters)
    unknown = [] if open_ended else [key for key in keywords if key not in accepted]
    if unknown:
        raise ValueError(f"{kind} {name!r} does not accept {', '.join(map(repr, unknown))}; it accepts: {accepted}")
    try:
        signature.bind(**keywords)
    except TypeError as error:
        raise ValueError(f"{kind} {name!r}: {error}; it accepts: {accepted}") from None


#: The distribution that installs textmem_gym: the names it declares in an entry-point group are
#: the built-in ones.
LIBRARY_DISTRIBUTION = "textmem-gym"


@dataclass(frozen=True)
class Declared:
    """One name an installed package declares in an entry-point group.

    Attributes:
        name: The name users type (the entry point's name).
        target: What it names, ``"module:attr"`` (imported only when used).
        package: The declaring distribution.

    Example:
        >>> Declared("random", "policies.simple:RandomPolicy", "textmem-gym").built_in
        True
    """

    name: str
    target: str
    package: str

    @property
    def built_in(self) -> bool:
        """Whether the library itself declares it."""
        return canonical_distribution(self.package) == LIBRARY_DISTRIBUTION


def canonical_distribution(name: str) -> str:
    """A distribution name as pip compares them (PEP 503: lower case, runs of ``-_.`` as ``-``).

    Example:
        >>> canonical_distribution("TextMem_Gym")
        'textmem-gym'
    """
    return re.sub(r"[-_.]+", "-", name).lower()


def declared_names(kind: str, group: str) -> dict[str, Declared]:
    """Every name of the entry-point group ``group``: the library's own first, then those of other
    packages in ``sys.path`` order. Reads package metadata only (nothing is imported).

    A name two packages declare (with different targets) is kept from the library, else from the
    first package; the other is ignored with a warning naming both.

    Args:
        kind: What the names name (``"policy"``, ``"env backend"``...), for the warning.
        group: The entry-point group (``"textmem_gym.memories"``...).

    Example:
        >>> memories = declared_names("memory", "textmem_gym.memories")
        >>> memories["arigraph"].target, memories["arigraph"].built_in
        ('textmem_gym.memory.arigraph.memory:AriGraphMemory', True)
    """
    found: dict[str, Declared] = {}
    for entry in _declarations(group, tuple(sys.path)):
        kept = found.setdefault(entry.name, entry)
        if kept.target != entry.target:
            owner = "built in" if kept.built_in else f"added by {kept.package}"
            warnings.warn(f"{kind} name {entry.name!r} from package {entry.package} is ignored: it is {owner}",
                          stacklevel=2)
    return found


@lru_cache(maxsize=64)
def _declarations(group: str, path: tuple[str, ...]) -> tuple[Declared, ...]:
    """The entry points of ``group``, the library's first (read again when ``sys.path`` changes: a
    package installed into a folder put on it is seen at once)."""
    points = [Declared(p.name, p.value, p.dist.name if p.dist is not None else "?") for p in entry_points(group=group)]
    return tuple(sorted(points, key=lambda d: not d.built_in))  # stable: the library's first, the rest in order


def declared_targets(kind: str, group: str) -> dict[str, str]:
    """Every name of the entry-point group ``group`` -> its ``"module:attr"`` (see :func:`declared_names`):
    the table of a registry, read from package metadata each time it is asked for (nothing is imported).

    Example:
        >>> declared_targets("run backend", "textmem_gym.run_backends")
        {'local': 'textmem_gym.execution.local:LocalPool', 'ray': 'textmem_gym.execution.ray_backend:RayRunner'}
    """
    return {name: entry.target for name, entry in declared_names(kind, group).items()}


def library_names(group: str) -> dict[str, str]:
    """The names the library itself declares in the entry-point group ``group``: name -> ``"module:attr"``,
    in declaration order (read from its own metadata only: fast, and no other package can shadow them).

    Raises:
        ImportError: textmem_gym is not installed (its metadata, which holds these names, is missing).

    Example:
        >>> library_names("textmem_gym.run_backends")["local"]
        'textmem_gym.execution.local:LocalPool'
    """
    try:
        points = distribution(LIBRARY_DISTRIBUTION).entry_points.select(group=group)
    except PackageNotFoundError:
        raise ImportError(f"{LIBRARY_DISTRIBUTION} is not installed: its built-in names are entry points of its "
                          "metadata (install it: pip install -e .)") from None
    return {point.name: point.value for point in points}


def load_declared(kind: str, spec: str, group: str) -> Any:
    """The object a name of the entry-point group ``group`` names, or that ``"module:attr"`` names.

    Args:
        kind: What the names name (for errors and warnings).
        spec: A declared name, or ``"package.module:attr"`` (any importable object; no declaration needed).
        group: The entry-point group.

    Raises:
        ValueError: Neither a declared name nor an importable ``"module:attr"`` (the message lists the
            declared names).

    Example:
        >>> load_declared("run backend", "local", "textmem_gym.run_backends").__name__
        'LocalPool'
        >>> load_declared("run backend", "collections:OrderedDict", "textmem_gym.run_backends").__name__
        'OrderedDict'
        >>> load_declared("run backend", "cluster", "textmem_gym.run_backends")
        Traceback (most recent call last):
        ...
        ValueError: unknown run backend 'cluster'; choose from ['local', 'ray']
    """
    declared = declared_names(kind, group)
    if spec in declared:
        return load_object(declared[spec].target)
    if ":" in spec:
        try:
            return load_object(spec)
        except (ImportError, AttributeError) as error:
            raise unknown_name(kind, spec, sorted(declared), detail=str(error)) from None
    raise unknown_name(kind, spec, sorted(declared))
