"""What a memory is: two methods, and the optional parts an instrument uses where they are offered.

A **memory** is any object with

- ``update(observation, action, info)``: learns from one step (``action`` is ``""`` at reset);
- ``context(question, budget) -> list[str]``: what it recalls for ``question``, most relevant
  first, within ``budget`` tokens (counted by :func:`textmem_gym.memory.budget.count_tokens`).

That is all the wrapper, the probes, the QA protocols, ``memory-bench`` and the trajectories ask
for, as a policy is anything with ``act``. Everything else is an **optional part**
(:data:`PARTS`), each a small protocol; an instrument uses a part where a memory offers it and
reports it as "not offered" elsewhere (:func:`offered_parts`):

=============== ==================================== =========================================
part            methods                              used by
=============== ==================================== =========================================
``reset``       ``reset()``                          a new episode (else the memory is rebuilt)
``render``      ``render(query)``                    the wrapper's ``belief`` text
``beliefs``     ``believed_triples()``               structural probe answers, belief metrics
``history``     ``triple_history()``                 past states (validity intervals)
``map``         ``location``, ``known_locations()``, ``go to`` macros, the wrapper's info
                ``unexplored_exits()``, ``route()``,
                ``door()``
``export``      ``to_json()``, ``save()``,           trajectories, MCP, the web app
                ``load()``, ``to_networkx()``,
                ``draw()``
``parser``      ``use_parser(parser)``               the env backend's text parser
``build_cost``  ``build_tokens()``                   tokens a model spent building it
``failures``    ``failed_updates`` (a Counter)       failed model-made updates, by cause
``sources``     ``sources(question, k)``             supporting-paragraph recall@k (QA)
``close``       ``close()``                          releases clients
``stats``       ``stats`` (an :class:`UpdateStats`)  the wrapper's ``info["memory"]``
``invalidate``  ``invalidate(subject, relation,      ``go to`` forgets an exit the game refused
                object)``
``privileged``  ``privileged`` (info key names)      the privileged ``info`` keys it is given
``name``        ``name`` (a string)                  its name in results rows
=============== ==================================== =========================================

A memory is fed by one path only: :func:`textmem_gym.memory.adoption.adopt` detects its parts once,
hands it the env backend's text parser where it offers ``parser`` and gives ``update`` the ``info``
without the privileged keys it does not declare in ``privileged``.

Example:
    >>> class Notes:
    ...     def __init__(self):
    ...         self.lines = []
    ...     def update(self, observation, action, info):
    ...         self.lines.append(observation)
    ...     def context(self, question, budget):
    ...         return fit_budget(self.lines[::-1], budget)
    >>> notes = check_memory(Notes())
    >>> notes.update("You see a lamp.", "", {})
    >>> notes.context("where is the lamp?", 64)
    ['You see a lamp.']
    >>> offered_parts(notes)["map"]
    False
    >>> check_memory(object())
    Traceback (most recent call last):
    ...
    TypeError: object is not a memory: it needs update(observation, action, info) and context(question, budget)
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any, Protocol, TypedDict, runtime_checkable

import networkx as nx

from textmem_gym.memory.budget import fit_budget  # noqa: F401  (the module example uses it)
from textmem_gym.memory.extractors import TextParser
from textmem_gym.memory.semantic import Triple, TripleKey


class UpdateStats(TypedDict):
    """What one update changed, and the running totals (the ``stats`` part): the counts by name, as the
    wrapper's ``info["memory"]`` gives them (a ``dict``: made without running any code of its own).

    Example:
        >>> UpdateStats(added=2, invalidated=0, believed=5, total=5, episodes=1)
        {'added': 2, 'invalidated': 0, 'believed': 5, 'total': 5, 'episodes': 1}
    """

    added: int
    """Triples newly believed this step."""
    invalidated: int
    """Triples that stopped being believed this step."""
    believed: int
    """Triples believed now."""
    total: int
    """Triples ever believed."""
    episodes: int
    """Episodic vertices."""


@runtime_checkable
class Memory(Protocol):
    """The two methods every memory has (see the module docstring)."""

    def update(self, observation: str, action: str, info: dict[str, Any]) -> None:
        """Learns from one step (``action`` is ``""`` for the reset observation)."""

    def context(self, question: str, budget: int) -> list[str]:
        """What it recalls for ``question``: lines, most relevant first, within ``budget`` tokens."""


@runtime_checkable
class Resettable(Protocol):
    """Optional part ``reset``: empties the memory for a new episode."""

    def reset(self) -> None:
        """Empties the memory."""


@runtime_checkable
class Renders(Protocol):
    """Optional part ``render``: the memory as prompt text (the wrapper's ``belief``)."""

    def render(self, query: str | list[str] | None = None) -> str:
        """The memory as prompt text, relevant to ``query`` when given."""


@runtime_checkable
class HasBeliefs(Protocol):
    """Optional part ``beliefs``: the triples believed now."""

    def believed_triples(self) -> list[TripleKey]:
        """The triples believed now, oldest first."""


@runtime_checkable
class HasHistory(Protocol):
    """Optional part ``history``: every triple ever believed with its validity interval."""

    def triple_history(self) -> list[Triple]:
        """Every triple ever believed (``start``, ``end`` steps), oldest first."""


@runtime_checkable
class HasMap(Protocol):
    """Optional part ``map``: the believed map, its routes and doors (``go to`` macros use it).

    Attributes:
        location: The current location, as believed (``None``: not known).
    """

    location: str | None

    def known_locations(self) -> list[str]:
        """Rooms the memory knows (``[]`` before any)."""

    def unexplored_exits(self) -> dict[str, list[str]]:
        """Room -> directions not explored yet."""

    def route(self, start: str, goal: str) -> list[tuple[str, str]] | None:
        """Shortest known path ``[(direction, room), ...]``; ``[]`` if there, ``None`` if unknown."""

    def door(self, room: str, direction: str) -> tuple[str, str | None] | None:
        """``(door, believed state)`` on an exit, if a door is known there."""


@runtime_checkable
class Exportable(Protocol):
    """Optional part ``export``: JSON, files, a networkx graph and a picture."""

    def to_json(self) -> dict[str, Any]:
        """The whole memory as JSON-ready data."""

    def save(self, path: str | Path) -> None:
        """Writes :meth:`to_json` to ``path``."""

    def load(self, path: str | Path) -> None:
        """Replaces the memory by one written with :meth:`save`."""

    def to_networkx(self, *, history: bool = False, episodic: bool = False) -> nx.MultiDiGraph:
        """The memory as a graph."""

    def draw(self, path: str | Path, **options: Any) -> Path:
        """Writes a PNG picture; returns its path."""


@runtime_checkable
class ReadsParser(Protocol):
    """Optional part ``parser``: reads the game's text with the env backend's parser."""

    def use_parser(self, parser: TextParser | None) -> None:
        """Uses ``parser`` (``None``: the generic reading)."""


@runtime_checkable
class HasBuildCost(Protocol):
    """Optional part ``build_cost``: what a model spent building the memory so far."""

    def build_tokens(self) -> dict[str, int]:
        """``prompt_tokens`` and ``completion_tokens`` spent building it."""


@runtime_checkable
class HasSources(Protocol):
    """Optional part ``sources``: which updates it recalls for a question, ranked (QA recall@k)."""

    def sources(self, question: str, k: int) -> list[int]:
        """Indices of the updates (0 = the first ``update``) it recalls, best first, at most ``k``."""


@runtime_checkable
class CountsFailures(Protocol):
    """Optional part ``failures``: updates whose model-made part added nothing, counted by cause (mem0,
    graphiti: the endpoint refused the prompt, or the answer was not the schema); never replaced by a
    fallback counted as the model's work.

    Attributes:
        failed_updates: Cause (the error's class name) -> how many updates failed so.
    """

    failed_updates: Counter[str]


@runtime_checkable
class Closeable(Protocol):
    """Optional part ``close``: releases clients or files."""

    def close(self) -> None:
        """Releases what the memory holds."""


@runtime_checkable
class HasStats(Protocol):
    """Optional part ``stats``: what the last update changed (the wrapper's ``info["memory"]``).

    Attributes:
        stats: The counts of the last update and the running totals.
    """

    stats: UpdateStats


@runtime_checkable
class Forgets(Protocol):
    """Optional part ``invalidate``: stops believing a triple (a ``go to`` whose move the game refused)."""

    def invalidate(self, subject: str, relation: str, obj: str) -> bool:
        """Stops believing ``(subject, relation, obj)`` now; returns whether it was believed."""


@runtime_checkable
class ReadsPrivileged(Protocol):
    """Optional part ``privileged``: the privileged ``info`` keys it reads (the oracle's ``{"facts"}``).

    Attributes:
        privileged: Key names of :data:`~textmem_gym.envs.privileged.PRIVILEGED_KEYS`; every other
            privileged key is taken out of the ``info`` it is given.
    """

    privileged: frozenset[str]


@runtime_checkable
class Named(Protocol):
    """Optional part ``name``: its name in results rows (else its class name).

    Attributes:
        name: The name (``"arigraph"``).
    """

    name: str


#: Optional part name -> its protocol (what :func:`offered_parts` checks).
PARTS: dict[str, type] = {
    "reset": Resettable,
    "render": Renders,
    "beliefs": HasBeliefs,
    "history": HasHistory,
    "map": HasMap,
    "export": Exportable,
    "parser": ReadsParser,
    "build_cost": HasBuildCost,
    "failures": CountsFailures,
    "sources": HasSources,
    "close": Closeable,
    "stats": HasStats,
    "invalidate": Forgets,
    "privileged": ReadsPrivileged,
    "name": Named,
}


def is_memory_class(cls: type) -> bool:
    """Whether instances of ``cls`` have the two methods of a memory (callable ``update`` and ``context``)."""
    return callable(getattr(cls, "update", None)) and callable(getattr(cls, "context", None))


def is_memory(obj: object) -> bool:
    """Whether ``obj`` has the two methods of a memory (callable ``update`` and ``context``)."""
    return is_memory_class(type(obj))


def check_memory(obj: Any) -> Memory:
    """``obj`` if it is a memory, else a one-line ``TypeError``.

    Raises:
        TypeError: ``obj`` lacks ``update`` or ``context``.
    """
    if not is_memory(obj):
        raise TypeError(f"{type(obj).__name__} is not a memory: it needs update(observation, action, info) "
                        "and context(question, budget)")
    return obj


def offered_parts(memory: object) -> dict[str, bool]:
    """Optional part name -> whether ``memory`` offers it (see :data:`PARTS`)."""
    return {name: isinstance(memory, part) for name, part in PARTS.items()}


def build_tokens(memory: object) -> dict[str, int]:
    """The memory's ``build_tokens()`` where offered, else zeros (a memory built without a model)."""
    if isinstance(memory, HasBuildCost):
        usage = memory.build_tokens()
        return {"prompt_tokens": int(usage.get("prompt_tokens", 0)),
                "completion_tokens": int(usage.get("completion_tokens", 0))}
    return {"prompt_tokens": 0, "completion_tokens": 0}


__all__ = ["PARTS", "Closeable", "CountsFailures", "Exportable", "Forgets", "HasBeliefs", "HasBuildCost", "HasHistory",
           "HasMap", "HasSources", "HasStats", "Memory", "Named", "ReadsParser", "ReadsPrivileged", "Renders",
           "Resettable", "UpdateStats", "build_tokens", "check_memory", "is_memory", "is_memory_class", "offered_parts"]
