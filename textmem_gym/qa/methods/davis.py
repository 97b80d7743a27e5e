"""DAVIS world-model QA (DAVIS paper, section 4.4, Table 3): the same
:class:`~textmem_gym.memory.davis.memory.DAVISMemory` the ScienceWorld agent uses, built from
paragraphs, asked through DAVIS's inner monologue.

1. **Build.** Each paragraph is one update of the temporal KG (timestamp = its position): the
   ``llm`` extractor (kind ``davis_extract``) summarizes it with pronouns resolved and gives typed
   tuples ``[subject, relation, object, type, type]``. A paragraph has no action and no "before"
   observation, so each is read on its own (:class:`~textmem_gym.qa.methods.arigraph.ParagraphReader`).
2. **Inner monologue** (Algorithm 2 over the question): each turn the model either asks the world
   model one simple sub-question or gives the direct answer (kind ``qa_monologue``); a
   sub-question goes to the memory's graph QA (section 3.4: choose entity types and two entities,
   expand the subgraph, order its edges by time, let the LLM answer from that sequence: kinds
   ``davis_qa_select`` and ``davis_qa``), and the pair joins the monologue.
3. **Answer.** After ``turns`` turns without a direct answer, the chain-of-thought answer prompt
   (kind ``qa_answer``) over the monologue and the facts graph QA retrieved.

A monologue turn the parser cannot read ends the monologue (counted in ``detail["turn_parse_failures"]``);
the final answer then comes from the answer prompt, as after the last turn.

Example:
    >>> from textmem_gym.llm import LocalOpenAIServer
    >>> def reply(messages):
    ...     prompt = messages[-1]["content"]
    ...     if "You build the temporal knowledge graph" in prompt:
    ...         return '```\\n[["vellmar island", "has", "lighthouse", "location", "object"]]\\n```'
    ...     if "Step 1: choose the entity types" in prompt:
    ...         return '{"types": ["location"], "entities": ["vellmar island"]}'
    ...     if "temporal knowledge graph of past experience" in prompt:
    ...         return "Vellmar Island has a lighthouse."
    ...     if "Conversation with the world model so far:\\n(nothing asked yet)" in prompt:
    ...         return '{"thought": "ask", "sub_question": "What is on Vellmar Island?", "direct_answer": ""}'
    ...     return '{"thought": "known", "sub_question": "", "direct_answer": "a lighthouse"}'
    >>> with LocalOpenAIServer(reply) as server:
    ...     method = DAVISQA(model="m", base_url=server.base_url)
    ...     answer = method.answer("What is on Vellmar Island?", ["Vellmar Island has a lighthouse."])
    >>> answer.text, answer.detail["monologue"][0][1], answer.calls_by_kind["qa_monologue"]
    ('a lighthouse', 'Vellmar Island has a lighthouse.', 2)
"""

from __future__ import annotations

from typing import Any

from textmem_gym.llm import Trimmable
from textmem_gym.memory.davis.extraction import DavisLLMExtractor
from textmem_gym.memory.davis.memory import DAVISMemory
from textmem_gym.qa.data import Paragraph
from textmem_gym.qa.methods.arigraph import ParagraphReader
from textmem_gym.qa.methods.base import PROMPTS, Final, LLMQAMethod, paragraph_text, texts_section

#: Prompt kind of a monologue turn.
KIND_MONOLOGUE = "qa_monologue"
#: The extraction kind of DAVIS's ``llm`` extractor (building tokens).
KIND_EXTRACT = "davis_extract"


class TypedParagraphReader(ParagraphReader):
    """:class:`ParagraphReader` that also hands over the reader's entity types (DAVIS's KG keeps them)."""

    def entity_types(self, triples: list[Any]) -> dict[str, str]:
        """The reader's types of the entities of ``triples``."""
        types: dict[str, str] = self.reader.entity_types(triples)
        return types


class DAVISQA(LLMQAMethod):
    """DAVIS QA: paragraphs into a :class:`DAVISMemory`, then an inner monologue with its graph QA.

    Args:
        turns: Monologue turns before the answer prompt is asked (``k`` of Algorithm 2).
        hops: Neighbourhood size of graph QA's subgraph expansion.
        max_facts: Facts given to one graph-QA answer (the latest when more were retrieved).
        **options: Passed to :class:`~textmem_gym.qa.methods.base.LLMQAMethod`.
    """

    name = "davis"
    build_kinds = frozenset({KIND_EXTRACT})

    def __init__(self, *args: Any, turns: int = 3, hops: int = 1, max_facts: int = 60, **options: Any) -> None:
        super().__init__(*args, **options)
        if not isinstance(turns, int) or isinstance(turns, bool) or turns < 1:
            raise ValueError(f"turns must be a positive int, got {turns!r}")
        reader = TypedParagraphReader(DavisLLMExtractor(self.llm.ask, structured=True))
        self.memory = DAVISMemory(reader, llm=self.llm.ask, hops=hops, max_facts=max_facts)
        self.turns = turns
        self.config.update(turns=turns, hops=hops, max_facts=max_facts)

    def build(self, paragraphs: tuple[Paragraph, ...]) -> None:
        """A fresh temporal KG of ``paragraphs`` (timestamp = position)."""
        self.memory.reset()
        for paragraph in paragraphs:
            self.memory.update(paragraph_text(paragraph), "", {})

    def turn(self, question: str, monologue: list[tuple[str, str]]) -> tuple[str, str] | None:
        """One monologue turn: ``(sub_question, direct_answer)`` (one of them empty), or ``None``
        when the call failed or neither could be read."""
        schema = PROMPTS.schema("monologue")
        said = Trimmable("monologue", [f"Q: {q}\nA: {a}" for q, a in monologue], sep="\n", empty="(nothing asked yet)")
        def build() -> str:
            return PROMPTS.render("monologue", question=question, monologue=said.text())

        raw = self.llm.ask(KIND_MONOLOGUE, build, max_tokens=self.max_tokens, schema=schema, trim=[said])
        parsed = self.llm.read(KIND_MONOLOGUE, raw, schema, need=()) if raw is not None else None
        if parsed is None:
            return None
        asked, answered = (str(parsed.get(k) or "").strip() for k in ("sub_question", "direct_answer"))
        if answered and answered.lower() != "unknown":
            return "", answered
        return (asked, "") if asked else None

    def respond(self, question: str, paragraphs: tuple[Paragraph, ...]) -> Final:
        """Build, monologue, answer."""
        self.build(paragraphs)
        monologue: list[tuple[str, str]] = []
        facts: dict[str, None] = {}
        failures = 0
        for _ in range(self.turns):
            step = self.turn(question, monologue)
            if step is None:
                failures += 1
                break
            asked, answered = step
            if answered:
                return self._final(Final(answered), monologue, facts, failures)
            result = self.memory.graph_qa(asked)
            monologue.append((asked, result.answer))
            facts.update(dict.fromkeys(f.text() for f in result.facts))
        texts = texts_section("texts", [f"Q: {q} A: {a}" for q, a in monologue])
        shown = Trimmable("facts", list(facts), drop="first", empty="none")
        final = self.final_answer("answer_graph", question, [texts, shown])
        return self._final(final, monologue, facts, failures)

    def _final(self, final: Final, monologue: list[tuple[str, str]], facts: dict[str, None], failures: int) -> Final:
        final.detail.update(monologue=monologue, facts=len(facts), turn_parse_failures=failures,
                            triples=len(self.memory.kg.facts))
        return final


__all__ = ["KIND_EXTRACT", "KIND_MONOLOGUE", "DAVISQA", "TypedParagraphReader"]
