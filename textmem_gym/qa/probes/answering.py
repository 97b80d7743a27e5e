"""Answering a probe question: with the model from a memory's context, or structurally.

With a model, every memory's context goes through the QA methods' answering machinery
(:class:`~textmem_gym.qa.methods.base.LLMQAMethod`): the same chain-of-thought answer prompt
(``qa/prompts/answer_texts.txt``) with the context as its ``texts`` section, the same answer schema
sent as a structured-output request, the same parser, and the prompt fitted to one context window
for every memory (the context loses its least worth keeping lines first; trims are counted in
``detail["context_trims"]``). An answer the parser cannot read is ``""`` with ``fallback``
``unparseable``, never replaced.

Structurally, a memory that keeps beliefs answers from them without a model
(:data:`STRUCTURAL`): ``location`` from the believed location triple of the thing, ``contents``
from the believed triples holding things in or on the holder, ``path`` from the memory's ``route``.

Example:
    >>> from textmem_gym.qa.probes.memories import OracleProbe
    >>> from textmem_gym.qa.probes.questions import ProbeQuestion
    >>> from textmem_gym.qa.probes.replay import ReplayStep
    >>> oracle = OracleProbe()
    >>> oracle.feed(ReplayStep(0, "", "", {}, (("P", "at", "kitchen"), ("knife", "on", "table"))))
    >>> question = ProbeQuestion("location:knife", "location", 0, "Where is the knife?", ("table",), {"thing": "knife"})
    >>> structural_answer(oracle, question)
    'table'
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textmem_gym.llm import Trimmable
from textmem_gym.memory.semantic import LOCATION_RELATIONS
from textmem_gym.qa.api import Answer
from textmem_gym.qa.data import Paragraph
from textmem_gym.qa.methods.base import NOTHING, Final, LLMQAMethod
from textmem_gym.qa.probes.memories import Beliefs, Context, ProbeMemory
from textmem_gym.qa.probes.questions import ProbeQuestion


class ProbeAnswerer(LLMQAMethod):
    """The QA answer prompt over a memory's context (one per memory; all share the settings).

    Args:
        **options: As :class:`~textmem_gym.qa.methods.base.LLMQAMethod` (``model``, ``base_url``,
            ``client_options`` with the one ``context_window``, ``max_tokens``).
    """

    name = "probe"

    def __init__(self, *args: Any, **options: Any) -> None:
        super().__init__(*args, **options)
        self._context = Context([])

    def answer_from(self, question: str, context: Context) -> Answer:
        """Answers ``question`` from ``context``, with what it cost."""
        self._context = context
        return self.answer(question, ())

    def respond(self, question: str, paragraphs: tuple[Paragraph, ...]) -> Final:
        """The answer prompt with the context as its ``texts`` section (trimmed from its end)."""
        texts = Trimmable("texts", self._context.items, drop="last", sep="\n", empty=NOTHING,
                          order=self._context.order)
        final = self.final_answer("answer_texts", question, [texts])
        final.detail["context_lines"] = len(self._context.items)
        return final


def _location(beliefs: Beliefs, question: ProbeQuestion) -> str:
    holders = [o for s, r, o in beliefs.triples() if s == question.args["thing"] and r in LOCATION_RELATIONS]
    return holders[-1] if holders else ""


def _contents(beliefs: Beliefs, question: ProbeQuestion) -> str:
    holder, relation = question.args["holder"], question.args["relation"]
    return ", ".join(sorted({s for s, r, o in beliefs.triples() if o == holder and r == relation}))


def _path(beliefs: Beliefs, question: ProbeQuestion) -> str:
    route = beliefs.route(question.args["start"], question.args["goal"])
    return ", ".join(route or [])


#: Question kind -> its structural answer from a memory's beliefs (kinds not listed have none).
STRUCTURAL: dict[str, Callable[[Beliefs, ProbeQuestion], str]] = {
    "location": _location,
    "contents": _contents,
    "path": _path,
}


def structural_answer(memory: ProbeMemory, question: ProbeQuestion) -> str | None:
    """``memory``'s structural answer to ``question`` (``""``: it believes nothing that answers;
    ``None``: it keeps no beliefs, or the kind has no structural answer)."""
    beliefs = memory.beliefs()
    answer = STRUCTURAL.get(question.kind)
    return None if beliefs is None or answer is None else answer(beliefs, question)


__all__ = ["STRUCTURAL", "ProbeAnswerer", "structural_answer"]
