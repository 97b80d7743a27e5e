"""Answering a probe question: with the model from a memory's context, or structurally.

With a model, every memory's context (``context(question, budget)``) goes through the QA methods'
answering machinery (:class:`~textmem_gym.qa.methods.base.LLMQAMethod`): the same chain-of-thought
answer prompt (``qa/prompts/answer_texts.txt``) with the context as its ``texts`` section, the same
answer schema, the same parser, and the prompt fitted to one context window for every memory (the
context loses its last lines first; trims are counted in ``detail["context_trims"]``). An answer
the parser cannot read is ``""`` with ``fallback`` ``unparseable``, never replaced.

Structurally, a memory answers without a model from the optional parts it offers, as detected once
when it was adopted (:func:`~textmem_gym.memory.adoption.adopt`, :mod:`textmem_gym.memory.protocol`);
a question whose parts it does not offer is "not offered" (``None``):

============= ================== =================================================================
kind          parts              structural answer
============= ================== =================================================================
location,     beliefs            the holder of the last believed location triple of the thing's :func:`believed_name`
long-horizon
abstention    beliefs            that holder, else ``unknown``
contents      beliefs            the things believed in / on the holder, sorted
two-hop       beliefs            the things believed in / on what is believed in the room (the room
                                 believed ``<d> of`` the start, for the direction form)
path          beliefs, map       the directions of the memory's ``route``
state-history beliefs, history   the thing's holder in ``triple_history()`` believed at the update
                                 that ended step ``k`` (``start <= update < end``)
counting      beliefs, history   ``open``: the history triples ``(Y, is, open)`` begun by then; no
                                 part records entering a room, so ``enter`` is not offered
============= ================== =================================================================

``actions``, ``changes`` and ``recipe`` have no structural answer. Steps in ``triple_history`` are
update indices (the reset is update 0); a :data:`Clock` maps each agent decision to the update that
ended it.

Example:
    >>> from textmem_gym.memory.adoption import adopt
    >>> from textmem_gym.memory.oracle.memory import OracleMemory
    >>> oracle = adopt(OracleMemory())
    >>> oracle.update("", "", {"facts": [("P", "at", "kitchen"), ("knife", "on", "table")]})
    >>> question = ProbeQuestion("location:knife", "location", 0, "Where is the knife?", ("table",), {"thing": "knife"})
    >>> structural_answer(oracle, question, {0: 0})
    'table'
    >>> structural_answer(oracle, ProbeQuestion("state-history:knife", "state-history", 0, "?", ("table",),
    ...                                         {"thing": "knife", "at": 0}), {0: 0}) is None
    True
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from typing import Any

from textmem_gym.llm import Trimmable
from textmem_gym.memory.adoption import Adopted
from textmem_gym.memory.belief_metrics import head_phrase_alignment
from textmem_gym.memory.semantic import AT, IS, LOCATION_RELATIONS, Triple, relation_direction
from textmem_gym.qa.api import Answer
from textmem_gym.qa.data import Paragraph
from textmem_gym.qa.methods.base import NOTHING, Final, LLMQAMethod
from textmem_gym.qa.probes.questions import UNKNOWN_ANSWERS, ProbeQuestion

#: Agent decision -> index of the memory update that ended it.
Clock = Mapping[int, int]


class ProbeAnswerer(LLMQAMethod):
    """The QA answer prompt over a memory's context (one per memory; all share the settings).

    Args:
        **options: As :class:`~textmem_gym.qa.methods.base.LLMQAMethod` (``model``, ``base_url``,
            ``client_options`` with the one ``context_window``, ``max_tokens``).
    """

    name = "probe"

    def __init__(self, *args: Any, **options: Any) -> None:
        super().__init__(*args, **options)
        self._lines: list[str] = []

    def answer_from(self, question: str, lines: list[str]) -> Answer:
        """Answers ``question`` from the context ``lines``, with what it cost."""
        self._lines = list(lines)
        return self.answer(question, ())

    def respond(self, question: str, paragraphs: tuple[Paragraph, ...]) -> Final:
        """The answer prompt with the context as its ``texts`` section (trimmed from its end)."""
        texts = Trimmable("texts", self._lines, drop="last", sep="\n", empty=NOTHING)
        final = self.final_answer("answer_texts", question, [texts])
        final.detail["context_lines"] = len(self._lines)
        return final


def believed_name(thing: str, names: Collection[str]) -> str:
    """The name the memory believes ``thing`` under: ``thing`` itself, else the one believed name
    sharing its head-noun phrase (:func:`~textmem_gym.memory.belief_metrics.head_phrase_alignment`:
    the question says Jericho's ``sword``, the game printed and the memory believes ``elvish sword``);
    an ambiguous name stays as asked.

    Example:
        >>> believed_name("sword", {"elvish sword", "lamp"}), believed_name("sword", {"sword", "elvish sword"})
        ('elvish sword', 'sword')
        >>> believed_name("sword", {"elvish sword", "rusty sword"})
        'sword'
    """
    if thing in names:
        return thing
    found = list(head_phrase_alignment(names, {thing}))
    return found[0] if len(found) == 1 else thing


def _holder(memory: Adopted, thing: str) -> str:
    located = [(s, o) for s, r, o in memory.believed_triples() if r in LOCATION_RELATIONS]
    name = believed_name(thing, {s for s, _ in located})
    holders = [o for s, o in located if s == name]
    return holders[-1] if holders else ""


def _location(memory: Adopted, question: ProbeQuestion, clock: Clock) -> str:
    return _holder(memory, question.args["thing"])


def _abstention(memory: Adopted, question: ProbeQuestion, clock: Clock) -> str:
    return _holder(memory, question.args["thing"]) or UNKNOWN_ANSWERS[0]


def _held(memory: Adopted, holders: set[str], relation: str) -> str:
    return ", ".join(sorted({s for s, r, o in memory.believed_triples() if o in holders and r == relation}))


def _contents(memory: Adopted, question: ProbeQuestion, clock: Clock) -> str:
    return _held(memory, {question.args["holder"]}, question.args["relation"])


def _two_hop(memory: Adopted, question: ProbeQuestion, clock: Clock) -> str:
    triples = memory.believed_triples()
    room = question.args["room"]
    if "start" in question.args:
        rooms = [a for a, r, b in triples if b == question.args["start"]
                 and relation_direction(r) == question.args["direction"]]
        room = rooms[-1] if rooms else ""
    in_room = {s for s, r, o in triples if r == AT and o == room}
    return _held(memory, in_room, question.args["relation"])


def _path(memory: Adopted, question: ProbeQuestion, clock: Clock) -> str:
    believed_map = memory.map
    assert believed_map is not None  # the kind needs the map part (STRUCTURAL)
    route = believed_map.route(question.args["start"], question.args["goal"])
    return ", ".join(direction for direction, _ in route or [])


def _history(memory: Adopted) -> list[Triple]:
    history = memory.history
    assert history is not None  # the kind needs the history part (STRUCTURAL)
    return history.triple_history()


def _state_history(memory: Adopted, question: ProbeQuestion, clock: Clock) -> str:
    update = clock[question.args["at"]]
    located = [t for t in _history(memory) if t.relation in LOCATION_RELATIONS]
    name = believed_name(question.args["thing"], {t.subject for t in located})
    held = [t for t in located if t.subject == name and t.start <= update and (t.end is None or update < t.end)]
    return max(held, key=lambda t: t.start).object if held else ""


def _counting(memory: Adopted, question: ProbeQuestion, clock: Clock) -> str | None:
    if question.args["event"] != "open":
        return None
    update = clock[question.step]
    return str(sum(1 for t in _history(memory) if t.subject == question.args["target"]
                   and t.relation == IS and t.object == "open" and t.start <= update))


#: A structural answer: ``(adopted memory, question, clock) -> answer`` (``None``: not offered for this question).
Structural = Callable[[Adopted, ProbeQuestion, Clock], "str | None"]
#: Question kind -> the parts it needs (names of :data:`~textmem_gym.memory.protocol.PARTS`) and its
#: structural answer (kinds not listed have none).
STRUCTURAL: dict[str, tuple[frozenset[str], Structural]] = {
    "location": (frozenset({"beliefs"}), _location),
    "long-horizon": (frozenset({"beliefs"}), _location),
    "abstention": (frozenset({"beliefs"}), _abstention),
    "contents": (frozenset({"beliefs"}), _contents),
    "two-hop": (frozenset({"beliefs"}), _two_hop),
    "path": (frozenset({"beliefs", "map"}), _path),
    "state-history": (frozenset({"beliefs", "history"}), _state_history),
    "counting": (frozenset({"beliefs", "history"}), _counting),
}


def structural_answer(memory: Adopted, question: ProbeQuestion, clock: Clock) -> str | None:
    """The adopted ``memory``'s structural answer to ``question`` (``""``: it believes nothing that answers;
    ``None``: not offered, as the memory lacks a part it needs or the kind has no structural answer). The
    parts are those detected when it was adopted (:attr:`~textmem_gym.memory.adoption.Adopted.parts`)."""
    needs, answer = STRUCTURAL.get(question.kind, (frozenset(), None))
    if answer is None or not needs <= memory.parts:
        return None
    return answer(memory, question, clock)


__all__ = ["STRUCTURAL", "Clock", "ProbeAnswerer", "believed_name", "structural_answer"]
