"""The ``llm`` extractor: AriGraph's triplet-extraction and outdated-triplet prompts
(appendix E, stored as ``prompts/triplets.txt`` and ``prompts/outdated.txt``) through an
:class:`~textmem_gym.llm.calls.Ask`.

The room header and movement (``-= Kitchen =-`` after ``go north``) are still read
deterministically, as the paper's graph agent does for exits ("expert knowledge about what
elements of the semantic graph can represent locations and exits"), so routes and ``go to``
work with LLM extraction too. Relations are mapped to the memory's vocabulary by
:func:`~textmem_gym.memory.arigraph.parse.canonical`.

LLM calls go through ``ask`` (a policy passes its ``LLMCalls.ask``, so they are fitted to the
context window, counted by kind and recorded in the trajectory; standalone, a
:class:`~textmem_gym.llm.calls.ClientAsk` over a client). Kinds and what they may lose to fit
the context window (never the instructions, the observation or the new triples):

* ``arigraph_triplets``: the example triples (section ``example_triples``), oldest first;
* ``arigraph_outdated``: the existing triples incident to the new ones (section
  ``existing_triples``), least relevant first: those not sharing a subject with a new triple
  before those that do, fewer shared entities before more, then the longest unconfirmed (oldest
  last assertion) first, then the oldest. The prompt still lists the kept ones in the memory's order.

Untrimmed, the prompts are exactly the paper's templates filled as before.

Example:
    >>> from textmem_gym.llm import LLMClient, LocalOpenAIServer
    >>> from textmem_gym.memory.semantic import TripleStore
    >>> with LocalOpenAIServer(script=["apple, is on, table"]) as server:
    ...     extractor = LLMExtractor(client=LLMClient(model="m", base_url=server.base_url))
    ...     extractor.extract("An apple lies on the table.", "look", {}, TripleStore()).triples
    [('apple', 'is on', 'table')]
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from textmem_gym.llm.calls import Ask, ClientAsk
from textmem_gym.llm.prompts import PromptFolder, Trimmable
from textmem_gym.memory.arigraph.parse import canonical, parse_replacements, parse_triplets
from textmem_gym.memory.extractors.base import (
    UNREADABLE_ANSWER,
    BaseExtractor,
    Extraction,
    FailedUpdates,
    answer_failure,
)
from textmem_gym.memory.extractors.rules import move_direction, room_name
from textmem_gym.memory.semantic import (
    SpatialMap,
    Triple,
    TripleKey,
    TripleStore,
    direction_relation,
    exclusive_conflicts,
)

#: This package's prompt templates (``prompts/*.txt``).
PROMPTS = PromptFolder(__package__)

REPLACEMENT_MODES = ("llm", "llm+structural", "structural")


#: The prompt kinds of this extractor (accounting keys of a policy's ``calls_by_kind``).
KIND_TRIPLETS, KIND_OUTDATED = "arigraph_triplets", "arigraph_outdated"


def _quoted(triple: Sequence[str]) -> str:
    return f'"{", ".join(triple)}"'


def relevance_order(existing: Sequence[Triple], new: Sequence[TripleKey]) -> list[Triple]:
    """``existing`` most relevant to the ``new`` triples first (the outdated prompt drops from the end).

    Relevance: sharing a subject with a new triple (the usual replacement: the same thing in a new
    place or state), then the number of entities shared with the new triples, then the latest
    step that asserted the triple, then the triple's id (newer first for both).

    Example:
        >>> from textmem_gym.memory.semantic import Triple
        >>> old = [Triple(0, "kitchen", "has exit", "north", 0), Triple(1, "knife", "is on", "table", 0),
        ...        Triple(2, "table", "is at", "kitchen", 0)]
        >>> [t.id for t in relevance_order(old, [("knife", "is in", "inventory")])]
        [1, 2, 0]
    """
    subjects = {s for s, _, _ in new}
    entities = {e for s, _, o in new for e in (s, o)}

    def key(t: Triple) -> tuple[int, int, int, int]:
        shared = (t.subject in entities) + (t.object in entities)
        return (-(t.subject in subjects), -shared, -max(t.steps, default=t.start), -t.id)

    return sorted(existing, key=key)


class LLMExtractor(BaseExtractor):
    """Triplet extraction and outdated-triplet detection by an LLM (the model reads any game's
    text: a backend's text parser handed over is kept unused).

    Args:
        ask: The :class:`~textmem_gym.llm.calls.Ask` the prompts go through (a policy's
            ``LLMCalls.ask``); by default a :class:`~textmem_gym.llm.calls.ClientAsk` over
            ``client``.
        client: An :class:`~textmem_gym.llm.LLMClient` used when ``ask`` is not given; by default
            one is built from ``model``/``base_url``/``api_key`` or the ``OPENAI_*`` environment variables.
        model, base_url, api_key: Used when neither ``ask`` nor ``client`` is given.
        replacement: ``"llm"`` (the paper: the outdated-triplet prompt), ``"llm+structural"``
            (also the deterministic one-location/one-state rule) or ``"structural"`` (no
            second LLM call).
        examples: Recently extracted triples shown as examples in the extraction prompt.
        max_tokens: Completion limit per call of the default :class:`~textmem_gym.llm.calls.ClientAsk`
            (a given ``ask`` sets its own).
        structured: Send the triplet call's answer schema (``prompts/triplets.schema.json``: a JSON
            list of subject/relation/object) as a structured-output request, where the endpoint takes
            one; the prompt is unchanged and the answer is read by the same parser either way.

    Attributes:
        failures: Calls that gave no answer (``None`` from ``ask``) this episode.
        failed_updates: Updates whose model-made part added nothing, by cause, over the extractor's life
            (:class:`~textmem_gym.memory.extractors.base.FailedUpdates`; the memory's ``failures`` part):
            ``LLMError`` (a call gave no answer), ``EmptyAnswer`` (a blank answer to either prompt),
            ``UnreadableAnswer`` (no triple could be read from the triplet answer). Nothing stands in for
            the model: such an update keeps only the room header's movement triple.
    """

    def __init__(self, ask: Ask | None = None, *, client: Any = None, model: str | None = None,
                 base_url: str | None = None, api_key: str | None = None, replacement: str = "llm",
                 examples: int = 10, max_tokens: int = 512, structured: bool = False) -> None:
        if replacement not in REPLACEMENT_MODES:
            raise ValueError(f"replacement must be one of {REPLACEMENT_MODES}, got {replacement!r}")
        if ask is None:
            if client is None:
                from textmem_gym.llm import LLMClient

                client = LLMClient(model=model, base_url=base_url, api_key=api_key)
            ask = ClientAsk(client, max_tokens)
        self.ask: Ask = ask
        self.client, self.replacement = client, replacement
        self.examples, self.max_tokens = examples, max_tokens
        self.schema = PROMPTS.schema("triplets") if structured else None
        self.failed_updates = FailedUpdates()
        self.reset()

    def reset(self) -> None:
        """Forgets the current room and the example triples."""
        self.location: str | None = None
        self._recent: list[TripleKey] = []
        self.failures = 0

    def _ask(self, kind: str, build: Callable[[], str], trim: Sequence[Trimmable],
             schema: dict[str, Any] | None = None) -> str:
        """The model's answer; ``""`` (counted in ``failures``) when the call gave none. A call that gave
        none, or a blank answer, fails the update (:attr:`failed_updates`)."""
        answer = self.ask(kind, build, trim=trim, schema=schema)
        cause = answer_failure(answer)
        if cause is not None:
            self.failed_updates.fail(cause)
        if answer is None:
            self.failures += 1
            return ""
        return answer

    def extract(self, observation: str, action: str, info: dict[str, Any], store: TripleStore) -> Extraction:
        """Asks the triplet-extraction prompt; adds the movement triple from the header. An answer
        from which no triple can be read fails the update (``UnreadableAnswer``)."""
        self.failed_updates.begin()
        examples = Trimmable("example_triples", [", ".join(t) for t in self._recent[-self.examples:]],
                             drop="first", empty="none yet")
        answer = self._ask(KIND_TRIPLETS, lambda: PROMPTS.render("triplets", example=examples.text(),
                                                                  observation=observation), [examples],
                           self.schema)
        rooms = set(SpatialMap(store).locations())
        room = room_name(observation)
        if room:
            rooms.add(room)
        triples = [canonical(t, rooms) for t in parse_triplets(answer)]
        if answer.strip() and not triples:
            self.failed_updates.fail(UNREADABLE_ANSWER)
        direction = move_direction(action)
        if room and self.location and direction and room != self.location:
            triples.append((room, direction_relation(direction), self.location))
        if room:
            self.location = room
        self._recent = (self._recent + triples)[-self.examples:]
        return Extraction(triples=triples, location=self.location)

    def outdated(self, existing: Sequence[Triple], new: Sequence[TripleKey]) -> list[Triple]:
        """The outdated-triplet prompt over the triples incident to the new ones."""
        if not existing or not new:
            return []
        found = exclusive_conflicts(existing, new) if self.replacement != "llm" else []
        if self.replacement == "structural":
            return found
        shown = [f'"{t.text()}"' for t in existing]
        candidates = Trimmable("existing_triples", [f'"{t.text()}"' for t in relevance_order(existing, new)],
                               drop="last", order=shown)
        new_text = "; ".join(_quoted(t) for t in new)
        answer = self._ask(KIND_OUTDATED, lambda: PROMPTS.render("outdated", ex_triplets=candidates.text(),
                                                                  new_triplets=new_text), [candidates])
        by_key = {t.as_tuple(): t for t in existing}
        for old, _ in parse_replacements(answer):
            triple = by_key.get(old) or by_key.get(canonical(old))
            if triple is not None and triple not in found:
                found.append(triple)
        return found
