"""Open information extraction for HippoRAG: the triples of one passage, with or without a model.

HippoRAG 2 (Gutiérrez et al., 2025, "From RAG to Memory") indexes a passage by an LLM's OpenIE:
named entities first, then triples conditioned on them. Two readers are offered:

- :class:`LLMOpenIE` asks an OpenAI-compatible endpoint through an
  :class:`~textmem_gym.llm.calls.Ask` (``prompts/openie.txt``, its answer schema
  ``prompts/openie.schema.json`` sent as a structured-output request where the endpoint takes one).
  Entities and triples come in one call (HippoRAG 2 makes two); triples are kept as given, entities
  that appear in no triple are dropped (the graph's phrase nodes come from triples, as in the paper).
  A call that gives no usable answer yields no triples (nothing stands in for the model) and is counted
  by cause in :attr:`LLMOpenIE.failed_updates` (the memory's ``failures`` part).
- :class:`RulesOpenIE`, with no model (the default), reads two kinds of text:

  * game text through the project's :class:`~textmem_gym.memory.extractors.rules.RulesExtractor`
    (``knife, is on, table``; ``table, is at, kitchen``...);
  * prose (QA paragraphs, notes, dialogue) through a proper-name reader: the phrases of a sentence
    are its runs of capitalised words (a sentence's first word only when it is not a common
    opener such as "The" or "She") and its numbers of 3-4 digits (years); consecutive phrases of a
    sentence give a triple whose relation is the words between them, and a sentence naming one
    phrase only is tied to the passage's first phrase (its topic, usually the title entity).

Example:
    >>> reader = RulesOpenIE()
    >>> reader.read("Alice Marlow is the daughter of Henrik Olsen. She was born in 1950.", "")
    [('alice marlow', 'is the daughter of', 'henrik olsen'), ('alice marlow', 'she was born in', '1950')]
    >>> reader.read("-= Kitchen =-\\nYou see a table. You see a knife on the table.", "")
    [('table', 'is at', 'kitchen'), ('knife', 'is on', 'table')]
"""

from __future__ import annotations

import re
from typing import Any, Protocol

from textmem_gym.llm.answers import parse_json_object
from textmem_gym.llm.calls import Ask
from textmem_gym.llm.prompts import PromptFolder
from textmem_gym.memory.extractors.base import UNREADABLE_ANSWER, FailedUpdates, answer_failure
from textmem_gym.memory.extractors.rules import RulesExtractor
from textmem_gym.memory.semantic import TripleKey, TripleStore, normalize

#: This package's prompts (``prompts/*.txt`` and their ``*.schema.json``).
PROMPTS = PromptFolder(__package__)
#: The prompt kind of the OpenIE call (accounting key).
KIND_OPENIE = "hipporag_openie"

_SENTENCE = re.compile(r"[^.!?\n]+")
_WORD = re.compile(r"[A-Za-z][\w'-]*|\d{3,4}\b")
#: Capitalised words that open sentences without naming anything.
OPENERS: frozenset[str] = frozenset(
    "a an the this that these those there here it its he she they we you i his her their our your my "
    "in on at as after before when while however but and or if so then also although though from by "
    "with for of to one some many most".split())
#: Lower-case words allowed inside a name ("Bank of England", "Isle of Man").
CONNECTORS: frozenset[str] = frozenset({"of", "de", "da", "von", "van", "del"})


class OpenIE(Protocol):
    """What HippoRAG needs from a reader: the triples of one passage."""

    def reset(self) -> None:
        """Starts a new episode."""

    def read(self, observation: str, action: str) -> list[TripleKey]:
        """The triples of the passage (``action`` is ``""`` in QA)."""


def _names(sentence: str) -> list[tuple[int, int, str]]:
    """``(start, end, phrase)`` of the proper names and years of ``sentence``, in order."""
    words = list(_WORD.finditer(sentence))
    found: list[tuple[int, int, str]] = []
    run: list[re.Match[str]] = []

    def close() -> None:
        while run and run[-1].group().lower() in CONNECTORS:
            run.pop()
        if run:
            found.append((run[0].start(), run[-1].end(), " ".join(m.group() for m in run)))
        run.clear()

    for position, word in enumerate(words):
        text = word.group()
        if text.isdigit():
            close()
            found.append((word.start(), word.end(), text))
        elif text[0].isupper() and not (position == 0 and text.lower() in OPENERS):
            run.append(word)
        elif run and text in CONNECTORS:
            run.append(word)
        else:
            close()
    close()
    return found


def read_names(text: str) -> list[TripleKey]:
    """Triples between the proper names of each sentence (see the module docstring)."""
    triples: list[TripleKey] = []
    topic: str | None = None
    for sentence in _SENTENCE.findall(text):
        names = _names(sentence)
        if not names:
            continue
        if topic is None:
            topic = normalize(names[0][2])
        if len(names) == 1 and normalize(names[0][2]) != topic:
            relation = normalize(sentence[:names[0][0]]) or "mentions"
            triples.append((topic, relation, normalize(names[0][2])))
        for (_, end, left), (start, _, right) in zip(names, names[1:]):
            relation = normalize(re.sub(r"[^\w\s'-]", " ", sentence[end:start])) or "and"
            triples.append((normalize(left), relation, normalize(right)))
    return triples


class RulesOpenIE:
    """Triples without a model: the rules extractor (game text) and the proper-name reader (prose).

    Its rules extractor keeps its own triple store, so it reads a game step in the light of the
    steps before (the room a thing lies in), as it does inside the graph memories.
    """

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        """Forgets the steps read so far."""
        self.rules = RulesExtractor()
        self.store = TripleStore()
        self.step = 0

    def read(self, observation: str, action: str) -> list[TripleKey]:
        """The triples of the step: the rules extractor's, then the proper-name reader's (no duplicates)."""
        extraction = self.rules.extract(observation, action, {}, self.store)
        for subject, relation, obj in extraction.triples:
            self.store.add(subject, relation, obj, self.step)
        self.step += 1
        triples = [(normalize(s), normalize(r), normalize(o)) for s, r, o in extraction.triples]
        return list(dict.fromkeys(triples + read_names(observation)))


class LLMOpenIE:
    """Triples from a model (``prompts/openie.txt``), one call per passage.

    A passage for which the model gives no triple it meant to give is a failed update, counted once in
    :attr:`failed_updates` by cause: ``LLMError`` (the call gave no answer after the client's retries),
    ``EmptyAnswer`` (a blank answer), ``UnreadableAnswer`` (no JSON object with a ``triples`` list, or
    rows none of which is a well-formed triple). Nothing stands in for the model: the passage gets no
    triple (the memory still indexes its text, which is the game's, not the model's). An answer listing
    no triple (``{"triples": []}``) says the passage states no fact: not a failure.

    Args:
        ask: The asker the prompt goes through (a :class:`~textmem_gym.llm.calls.ClientAsk`).
        structured: Send the answer schema as a structured-output request.

    Attributes:
        failures: Passages whose call gave no usable answer, over the reader's life.
        failed_updates: Those passages by cause
            (:class:`~textmem_gym.memory.extractors.base.FailedUpdates`), over the reader's life: the
            memory's ``failures`` part, memory-bench's ``failed`` column.

    Example:
        >>> from textmem_gym.llm import LLMClient, LocalOpenAIServer
        >>> from textmem_gym.llm.calls import ClientAsk
        >>> from textmem_gym.llm.testing.faults import Fault
        >>> answers = ['{"triples": [["knife", "is on", "table"]]}', Fault("server_error", status=400), "None."]
        >>> with LocalOpenAIServer(script=answers) as server:  # free text: no schema makes "None." JSON
        ...     client = LLMClient(model="m", base_url=server.base_url, max_retries=0)
        ...     reader = LLMOpenIE(ClientAsk(client), structured=False)
        ...     read = [reader.read("You see a knife on the table.", "look") for _ in answers]
        >>> read, dict(reader.failed_updates)
        ([[('knife', 'is on', 'table')], [], []], {'LLMError': 1, 'UnreadableAnswer': 1})
    """

    def __init__(self, ask: Ask, *, structured: bool = True) -> None:
        self.ask = ask
        self.schema = PROMPTS.schema("openie") if structured else None
        self.failures = 0
        self.failed_updates = FailedUpdates()

    def reset(self) -> None:
        """Nothing to forget (each passage is read alone); the failure counts are kept."""

    def read(self, observation: str, action: str) -> list[TripleKey]:
        """The model's triples for the passage (``[]``, counted by cause, when the update failed)."""
        self.failed_updates.begin()
        passage = f"> {action}\n{observation}" if action else observation
        answer = self.ask(KIND_OPENIE, PROMPTS.render("openie", passage=passage), schema=self.schema)
        cause = answer_failure(answer)
        triples = read_triples(answer) if answer is not None and cause is None else None
        if triples is None:
            self.failures += 1
            self.failed_updates.fail(cause or UNREADABLE_ANSWER)
            return []
        return triples


def read_triples(answer: str) -> list[TripleKey] | None:
    """The well-formed triples of a model's OpenIE answer, normalised, without duplicates; ``None`` when
    none can be read: no JSON object with a ``triples`` list, or rows none of which is well formed.

    Example:
        >>> read_triples('{"triples": [["Knife", "is on", "table"], ["knife"]]}'), read_triples('{"triples": []}')
        ([('knife', 'is on', 'table')], [])
        >>> read_triples('{"triples": [["box", "holds", "box"]]}'), read_triples("Nothing to extract.")
        (None, None)
    """
    parsed = parse_json_object(answer, required=["triples"]).value
    rows = parsed["triples"] if parsed is not None else None
    if not isinstance(rows, list):
        return None
    triples = list(dict.fromkeys(_triples(rows)))
    return triples if triples or not rows else None


def _triples(rows: list[Any]) -> list[TripleKey]:
    """The well-formed ``[subject, relation, object]`` rows of a model's answer, normalised: three non-blank
    strings whose subject and object differ (the graph keeps no other)."""
    kept: list[TripleKey] = []
    for row in rows:
        if isinstance(row, list) and len(row) == 3 and all(isinstance(part, str) and part.strip() for part in row):
            subject, relation, obj = (normalize(part) for part in row)
            if subject and obj and subject != obj:
                kept.append((subject, relation, obj))
    return kept


__all__ = ["CONNECTORS", "KIND_OPENIE", "LLMOpenIE", "OPENERS", "OpenIE", "PROMPTS", "RulesOpenIE", "read_names",
           "read_triples"]
