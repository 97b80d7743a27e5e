"""What every extractor returns and the extractor interface.

An extractor turns one step (observation, action, info) into new triples, plus, when it
knows it, triples that are no longer true (e.g. a room re-described without the knife).
The memory asks it which believed triples the new ones replace (:meth:`Extractor.outdated`;
by default the structural rule :func:`~textmem_gym.memory.semantic.exclusive_conflicts`).

An env backend whose text is not that of a text adventure hands its own reading to the
extractors: a :class:`TextParser` (named by the env class,
:attr:`~textmem_gym.envs.text_game.TextGameEnv.text_parser`; the wrapper passes it on through
:meth:`Extractor.use_parser`). No extractor guesses which game it reads.

Example:
    >>> from textmem_gym.memory.semantic import TripleStore
    >>> store = TripleStore()
    >>> _ = store.add("knife", "is on", "table", 0)
    >>> [t.as_tuple() for t in BaseExtractor().outdated(store.active(), [("knife", "is in", "inventory")])]
    [('knife', 'is on', 'table')]
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any, Protocol

from textmem_gym.memory.ground_truth import Truth
from textmem_gym.memory.semantic import Extraction, Triple, TripleKey, TripleStore, exclusive_conflicts


class TextParser(Protocol):
    """An env backend's own reading of its text and facts in the memory's vocabulary (e.g.
    :class:`~textmem_gym.memory.extractors.nethack.NetHackRules` for the NetHack envs)."""

    def extract(self, observation: str, action: str, info: dict[str, Any], store: TripleStore) -> Extraction:
        """Reads one step; ``store`` is the current belief (read-only)."""

    def outdated(self, existing: Sequence[Triple], new: Sequence[TripleKey]) -> list[Triple]:
        """Which of ``existing`` the new triples replace."""

    def observed_truth(self) -> Truth:
        """A new tracker of the observed ground truth in the same vocabulary (belief metrics, ``oracle``)."""

    def builds(self, name: str) -> bool:
        """Whether ``name`` is a name this parser builds from the text's structure rather than
        copies from it (NetHack's positions, ``level 2 x48 y8``): the memory hygiene accepts it
        although the game never printed it (the hygiene of :mod:`~textmem_gym.memory.graph_memory`)."""


class Extractor(Protocol):
    """The extractor interface (``rules``, ``llm``, ``oracle`` and user-defined ones; inherit
    :class:`BaseExtractor` for the defaults).

    Attributes:
        location: The room the extractor believes the agent is in (a memory's ``load`` restores it).
        reads_text: Whether its triples come from the game's text (the memory hygiene applies:
            refusals are not read, never-mentioned names are dropped); ``False`` for the
            privileged ``oracle``, which reads facts.
    """

    location: str | None
    reads_text: bool

    def reset(self) -> None:
        """Forgets per-episode state."""

    def use_parser(self, parser: TextParser | None) -> None:
        """Reads the game's text with the backend's ``parser`` from now on (``None``: the generic
        reading); an extractor that does not read the text by rules keeps it unused."""

    def extract(self, observation: str, action: str, info: dict[str, Any], store: TripleStore) -> Extraction:
        """Reads one step; ``store`` is the current belief (read-only)."""

    def outdated(self, existing: Sequence[Triple], new: Sequence[TripleKey]) -> list[Triple]:
        """Which of ``existing`` (triples incident to the new ones) the new triples replace."""

    def entity_types(self, triples: list[TripleKey]) -> dict[str, str]:
        """``person``/``object``/``location`` of the entities of ``triples`` it knows (DAVIS's KG
        keeps them); ``{}`` from an extractor that does not type entities."""


class BaseExtractor:
    """Defaults of the :class:`Extractor` interface: no per-episode state, the backend's text
    parser kept in :attr:`parser`, replacement by :func:`exclusive_conflicts`, no entity types.

    Attributes:
        location: The room the extractor believes the agent is in (``None``: not known).
        reads_text: ``True``: its triples come from the game's text (memory hygiene applies).
        parser: The backend's text parser handed over by :meth:`use_parser` (``None``: none).

    Example:
        >>> class Nothing(BaseExtractor):
        ...     def extract(self, observation, action, info, store):
        ...         return Extraction()
        >>> extractor = Nothing()
        >>> extractor.reset(); extractor.use_parser(None); extractor.parser is None
        True
    """

    location: str | None = None
    parser: TextParser | None = None
    reads_text: bool = True

    def reset(self) -> None:
        """Forgets per-episode state (none by default)."""

    def use_parser(self, parser: TextParser | None) -> None:
        """Keeps the backend's text parser in :attr:`parser`."""
        self.parser = parser

    def outdated(self, existing: Sequence[Triple], new: Sequence[TripleKey]) -> list[Triple]:
        """See :func:`exclusive_conflicts`."""
        return exclusive_conflicts(existing, new)

    def entity_types(self, triples: list[TripleKey]) -> dict[str, str]:
        """No entity types (``{}``)."""
        return {}


#: Cause of a failed update: the asker gave no answer (an ``Ask`` answers ``None`` only after a
#: :class:`~textmem_gym.llm.errors.LLMError`; its own accounting keeps the fault's detail).
NO_ANSWER = "LLMError"
#: Cause of a failed update: the model answered with blank text.
EMPTY_ANSWER = "EmptyAnswer"
#: Cause of a failed update: the model answered, but nothing the memory reads could be read from it.
UNREADABLE_ANSWER = "UnreadableAnswer"
#: Prefix of a cause whose update kept a rule-made stand-in (DAVIS: ``fallback:LLMError``).
FALLBACK = "fallback:"


def answer_failure(answer: str | None) -> str | None:
    """The cause of a failed update that ``answer`` makes (:data:`NO_ANSWER`, :data:`EMPTY_ANSWER`), else ``None``.

    Example:
        >>> answer_failure(None), answer_failure("  "), answer_failure("apple, is on, table")
        ('LLMError', 'EmptyAnswer', None)
    """
    if answer is None:
        return NO_ANSWER
    return EMPTY_ANSWER if not answer.strip() else None


class FailedUpdates(Counter[str]):
    """Updates of an extractor that asks a model whose model-made part added nothing, by cause, each
    update counted once (its first cause). A memory over such an extractor offers it as its
    ``failures`` part (:class:`~textmem_gym.memory.protocol.CountsFailures`); kept across episodes,
    like the tokens spent.

    Example:
        >>> failed = FailedUpdates()
        >>> failed.begin(); failed.fail("LLMError"); failed.fail("UnreadableAnswer")  # one update, two calls
        >>> failed.begin(); failed.fail("fallback:EmptyAnswer")
        >>> dict(failed)
        {'LLMError': 1, 'fallback:EmptyAnswer': 1}
    """

    _counted: bool = False

    def begin(self) -> None:
        """Starts an update (nothing counted for it yet)."""
        self._counted = False

    def fail(self, cause: str) -> None:
        """Counts the current update as failed by ``cause``, unless it already counted."""
        if not self._counted:
            self[cause] += 1
            self._counted = True


#: The earlier name of :class:`BaseExtractor` (structural replacement).
StructuralOutdated = BaseExtractor
