"""Open information extraction for HippoRAG: the triples of one passage, with or without a model.

HippoRAG 2 (Gutiérrez et al., 2025, "From RAG to Memory") indexes a passage by an LLM's OpenIE:
named entities first, then triples conditioned on them. Two readers are offered:

- :class:`LLMOpenIE` asks an OpenAI-compatible endpoint through an
  :class:`~textmem_gym.llm.calls.Ask` (``prompts/openie.txt``, its answer schema
  ``prompts/openie.schema.json`` sent as a structured-output request where the endpoint takes one).
  Entities and triples come in one call (HippoRAG 2 makes two); triples are kept as given, entities
  that appear in no triple are dropped (the graph's phrase nodes come from triples, as in the paper).
  A call that gives no usable answer yields no triples and is counted in :attr:`LLMOpenIE.failures`.
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

    Args:
        ask: The asker the prompt goes through (a :class:`~textmem_gym.llm.calls.ClientAsk`).
        structured: Send the answer schema as a structured-output request.

    Attributes:
        failures: Passages whose call gave no usable answer.
    """

    def __init__(self, ask: Ask, *, structured: bool = True) -> None:
        self.ask = ask
        self.schema = PROMPTS.schema("openie") if structured else None
        self.failures = 0

    def reset(self) -> None:
        """Nothing to forget (each passage is read alone); the failure count is kept."""

    def read(self, observation: str, action: str) -> list[TripleKey]:
        """The model's triples for the passage (``[]``, counted, when the answer is unusable)."""
        passage = f"> {action}\n{observation}" if action else observation
        answer = self.ask(KIND_OPENIE, PROMPTS.render("openie", passage=passage), schema=self.schema)
        parsed = parse_json_object(answer or "", required=["triples"]).value
        if parsed is None:
            self.failures += 1
            return []
        return list(dict.fromkeys(_triples(parsed["triples"])))


def _triples(rows: Any) -> list[TripleKey]:
    """The well-formed ``[subject, relation, object]`` rows of a model's answer, normalised."""
    if not isinstance(rows, list):
        return []
    kept: list[TripleKey] = []
    for row in rows:
        if isinstance(row, list) and len(row) == 3 and all(isinstance(part, str) and part.strip() for part in row):
            kept.append((normalize(row[0]), normalize(row[1]), normalize(row[2])))
    return kept


__all__ = ["CONNECTORS", "KIND_OPENIE", "LLMOpenIE", "OPENERS", "OpenIE", "PROMPTS", "RulesOpenIE", "read_names"]
