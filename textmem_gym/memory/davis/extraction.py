"""Tuples of one transition ``(o_t || a_t || o_{t+1})`` for DAVIS's temporal KG, with entity
types: deterministically (:class:`DavisRulesExtractor`) or by an LLM (:class:`DavisLLMExtractor`).

The rules read ScienceWorld's text (``This room is called the X. In it, you see: ...``,
doors, containers, ``You move to ...``, ``You focus on ...``) and, for TextWorld-style text,
the ``rules`` extractor; every action also becomes an event ``(agent, verb, object)``.
Coreference: DAVIS resolved it with Stanza/CoreNLP, whose models cannot be downloaded here;
the ``llm`` extractor asks the LLM to resolve pronouns while it summarizes the transition,
and the rules need none (game text names things in full).

The ``llm`` extractor's call (kind ``davis_extract``) goes through an
:class:`~textmem_gym.llm.calls.Ask` (a policy's, or a :class:`~textmem_gym.llm.calls.ClientAsk`):
to fit the context window it may lose the end of the observation *before* the action
(section ``context``, split after each sentence and line, the last pieces first, so the room's
name and first lines stay longest); the instructions, the action and the observation after it
are never trimmed.

Example:
    >>> from textmem_gym.memory.semantic import TripleStore
    >>> out = DavisRulesExtractor().extract(
    ...     "This room is called the kitchen. In it, you see:\\n\\tthe agent\\n\\ta fridge (containing milk)\\n"
    ...     "You also see:\\n\\tA door to the hallway (that is open)", "go to kitchen", {}, TripleStore())
    >>> out.location, out.triples[:3]
    ('kitchen', [('agent', 'go to', 'kitchen'), ('fridge', 'is in', 'kitchen'), ('milk', 'is in', 'fridge')])
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from textmem_gym.llm.calls import Ask
from textmem_gym.llm.prompts import PromptFolder, Trimmable, text_pieces
from textmem_gym.memory.davis.kg import LOCATION, OBJECT, PERSON
from textmem_gym.memory.extractors import BaseExtractor, Extraction, TextParser, make_extractor
from textmem_gym.memory.extractors.base import (
    EMPTY_ANSWER,
    FALLBACK,
    UNREADABLE_ANSWER,
    FailedUpdates,
    answer_failure,
)
from textmem_gym.memory.semantic import AT, IN, ON, Triple, TripleKey, TripleStore, normalize

#: This package's prompt templates (``prompts/*.txt``).
PROMPTS = PromptFolder(__package__)

_ROOM = re.compile(r"This (?:room|outside location) is called the (.+?)\.")
_ITEMS = re.compile(r"(?:In it, you see|Here,? you see):\s*\n(.*?)(?:\nYou also see:\s*\n(.*))?$", re.S)
_DOOR = re.compile(r"A door to the (.+?) \(that is (open|closed)\)")
_MOVE_TO = re.compile(r"You (?:move|teleport) to the (.+?)\.")
_MOVE_THING = re.compile(r"You move the (.+?) to the (.+?)\.")
_FOCUS = re.compile(r"You focus on the (.+?)\.")
_ARTICLE = re.compile(r"^(?:a substance called |an? |the |some )", re.I)
_TWO_WORD_VERBS = ("pick up", "focus on", "look at", "look in", "go to", "teleport to", "look around", "put down",
                   "turn on", "turn off", "move", "pour", "open", "close", "connect", "use", "mix", "read", "eat")
PEOPLE = frozenset({"agent", "you", "player"})


def _name(phrase: str) -> str:
    return normalize(_ARTICLE.sub("", phrase.strip().rstrip(".")))


def action_event(action: str) -> TripleKey | None:
    """``focus on common toad`` -> ``("agent", "focus on", "common toad")``."""
    text = " ".join(action.lower().split())
    if not text:
        return None
    verb = next((v for v in _TWO_WORD_VERBS if text == v or text.startswith(v + " ")), text.split()[0])
    rest = text[len(verb):].strip()
    return ("agent", verb, rest or "itself")


def _items(block: str, room: str, triples: list[TripleKey]) -> None:
    for line in (x.strip() for x in block.splitlines()):
        if not line or _name(line) in PEOPLE:
            continue
        head, _, tail = line.partition(". ")
        contains = re.search(r"\(containing (.+?)\)", head)
        name = _name(re.sub(r"\s*\(.*", "", head))
        triples.append((name, IN, room))
        if contains and contains.group(1) != "nothing":
            triples += [(_name(x), IN, name) for x in re.split(r", and |, | and ", contains.group(1)) if x.strip()]
        on = re.search(r"On the (.+?) is: (.+)", tail)
        if on:
            triples += [(_name(re.sub(r"\s*\(.*", "", x)), ON, _name(on.group(1)))
                        for x in re.split(r", and |, | and ", on.group(2).rstrip(".")) if x.strip()]


class DavisRulesExtractor(BaseExtractor):
    """Deterministic transition tuples: the action's event, then the backend's text parser's reading
    when one was handed over (:meth:`use_parser`; ScienceWorld's, NetHack's...), else its own patterns
    for ScienceWorld's and TextWorld's text (other text through the ``rules`` extractor)."""

    def __init__(self) -> None:
        self.rules = make_extractor("rules")
        self.reset()

    def reset(self) -> None:
        self.rules.reset()
        self.location: str | None = None
        self.types: dict[str, str] = {"agent": PERSON}

    def use_parser(self, parser: TextParser | None) -> None:
        """The ``rules`` part reads the text its own patterns do not with the backend's ``parser``."""
        super().use_parser(parser)
        self.rules.use_parser(parser)

    def extract(self, observation: str, action: str, info: dict[str, Any], store: TripleStore) -> Extraction:
        triples: list[TripleKey] = []
        event = action_event(action)
        if event:
            triples.append(event)
        if self.parser is not None:  # the backend's own reading of its text (ScienceWorld's too), as arigraph's
            return self._parsed(triples, self.rules.extract(observation, action, info, store))
        room = _ROOM.search(observation)
        moved = _MOVE_TO.search(observation)
        if room or moved:
            self.location = _name((room or moved).group(1))  # type: ignore[union-attr]
            self.types[self.location] = LOCATION
        items = _ITEMS.search(observation)
        if items and self.location:
            _items(items.group(1), self.location, triples)
        for target, state in _DOOR.findall(observation):
            self.types[_name(target)] = LOCATION
            door = f"door to {_name(target)}"
            triples += [(self.location or "here", "has door to", _name(target)), (door, "is", state)]
        for thing, place in _MOVE_THING.findall(observation):
            triples.append((_name(thing), IN, _name(place)))
        triples += [("agent", "focused on", _name(x)) for x in _FOCUS.findall(observation)]
        if not room and not items:
            textworld = self.rules.extract(observation, action, info, store)
            triples += [t for t in textworld.triples if t[1] != "says" or "-=" not in observation]
            self.location = textworld.location or self.location
            for _, r, o in textworld.triples:
                if r == AT:
                    self.types[o] = LOCATION
        return Extraction(triples=list(dict.fromkeys(triples)), location=self.location)

    def _parsed(self, events: list[TripleKey], read: Extraction) -> Extraction:
        """The action's event and what the backend's parser read (rooms typed as locations)."""
        self.location = read.location or self.location
        rooms = {o for _, r, o in read.triples if r == AT} | ({self.location} if self.location else set())
        self.types.update(dict.fromkeys(rooms, LOCATION))
        return Extraction(list(dict.fromkeys(events + read.triples)), read.outdated, self.location)

    def outdated(self, existing: Sequence[Triple], new: Sequence[TripleKey]) -> list[Triple]:
        """The handed parser's replacement when one was handed over, else the structural rule."""
        return self.rules.outdated(existing, new)

    def entity_types(self, triples: list[TripleKey]) -> dict[str, str]:
        """Types of the entities of ``triples``: the agent is a person, rooms are locations."""
        out = {}
        for s, _, o in triples:
            for entity in (s, o):
                out[entity] = self.types.get(entity, PERSON if entity in PEOPLE else OBJECT)
        return out


_TUPLE = re.compile(r"\[\s*\"([^\"]+)\"\s*,\s*\"([^\"]+)\"\s*,\s*\"([^\"]+)\"\s*"
                    r"(?:,\s*\"(\w+)\"\s*,\s*\"(\w+)\"\s*)?\]")


class DavisLLMExtractor(DavisRulesExtractor):
    """The transition summarized by the LLM (pronouns resolved), then tuples with entity types
    parsed from its answer; the room and movement are still read by the rules (routes).

    Failed updates are counted by cause in :attr:`failed_updates` (the memory's ``failures`` part,
    memory-bench's ``failed`` column). When the call gives no answer (``LLMError``) or a blank one
    (``EmptyAnswer``), the port's fallback (``fallback=True``, the default) lets the rules' tuples
    stand in for the model's, and the update is counted as ``fallback:<cause>`` (``fallback:LLMError``),
    so a row never holds rule-made tuples unflagged; with ``fallback=False`` the update keeps only the
    rules' room and movement tuples and is counted as ``<cause>``. An answer from which no tuple can be
    read keeps those only too (``UnreadableAnswer``).

    Args:
        ask: The :class:`~textmem_gym.llm.calls.Ask` of the call.
        structured: Send the answer schema (``prompts/extract.schema.json``: the summary and the
            typed tuples) as a structured-output request, where the endpoint takes one; the prompt
            is unchanged and the tuples are read the same way.
        fallback: Let the rules' tuples stand in when the call gives no answer (counted).

    Attributes:
        failures: Calls that gave no answer or a blank one, this episode.
        failed_updates: Updates whose model-made part added nothing, by cause, over the extractor's life.

    Example:
        >>> from textmem_gym.llm import LLMClient, LocalOpenAIServer
        >>> from textmem_gym.llm.calls import ClientAsk
        >>> from textmem_gym.memory.semantic import TripleStore
        >>> with LocalOpenAIServer(script=["", "It moved."]) as server:
        ...     extractor = DavisLLMExtractor(ClientAsk(LLMClient(model="m", base_url=server.base_url)))
        ...     stood_in = extractor.extract("You move to the hallway.", "go to hallway", {}, TripleStore())
        ...     _ = extractor.extract("You move to the kitchen.", "go to kitchen", {}, TripleStore())
        >>> stood_in.triples, dict(extractor.failed_updates)
        ([('agent', 'go to', 'hallway')], {'fallback:EmptyAnswer': 1, 'UnreadableAnswer': 1})
    """

    def __init__(self, ask: Ask, *, structured: bool = False, fallback: bool = True) -> None:
        super().__init__()
        self.ask, self.failures, self.fallback = ask, 0, fallback
        self.failed_updates = FailedUpdates()
        self.schema = PROMPTS.schema("extract") if structured else None
        self.previous = ""

    def reset(self) -> None:
        super().reset()
        self.previous = ""

    def extract(self, observation: str, action: str, info: dict[str, Any], store: TripleStore) -> Extraction:
        """The model's tuples with the rules' room and movement (see the class docstring on failures)."""
        self.failed_updates.begin()
        rules = super().extract(observation, action, info, store)
        before = Trimmable("context", text_pieces(self.previous), drop="last", sep="", empty="(start)")
        answer = self.ask("davis_extract", lambda: PROMPTS.render("extract", before=before.text(),
                                                                  action=action or "(none)", after=observation),
                          trim=[before], schema=self.schema)
        self.previous = observation
        if not answer:
            self.failures += 1
            return self._failed(rules, answer)
        found = self._tuples(answer)
        if not found:
            self.failed_updates.fail(answer_failure(answer) or UNREADABLE_ANSWER)
        rules.triples = list(dict.fromkeys(self._movement(rules) + found))
        return rules

    def _tuples(self, answer: str) -> list[TripleKey]:
        """The tuples of ``answer``; the entity types it gives are kept."""
        found = []
        for s, r, o, ts, to in _TUPLE.findall(answer):
            found.append((normalize(s), normalize(r), normalize(o)))
            for entity, kind in ((s, ts), (o, to)):
                if kind.lower() in (PERSON, OBJECT, LOCATION):
                    self.types[normalize(entity)] = kind.lower()
        return found

    @staticmethod
    def _movement(rules: Extraction) -> list[TripleKey]:
        """The rules' tuples kept beside the model's: the agent's and what is in the current room."""
        return [t for t in rules.triples if t[0] == "agent" or t[1] == IN and t[2] == rules.location]

    def _failed(self, rules: Extraction, answer: str | None) -> Extraction:
        """No answer (``None`` or ``""``): the rules' tuples stand in (``fallback:<cause>``), or only their
        room and movement are kept (``<cause>``)."""
        cause = answer_failure(answer) or EMPTY_ANSWER
        self.failed_updates.fail(FALLBACK + cause if self.fallback else cause)
        if not self.fallback:
            rules.triples = self._movement(rules)
        return rules

