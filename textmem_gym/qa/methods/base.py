"""What every LLM QA method shares: one :class:`~textmem_gym.llm.LLMCalls`, the answer
prompts and schemas of ``textmem_gym/qa/prompts/``, and the accounting of one answer.

A method subclasses :class:`LLMQAMethod` and writes :meth:`LLMQAMethod.respond` (what it does with
the question and the paragraphs); :meth:`LLMQAMethod.answer` times it and turns the calls made
since it started into an :class:`~textmem_gym.qa.api.Answer`. Calls of a kind listed in
``build_kinds`` (a memory's extraction) count as building tokens, the others as answering tokens.

Every call goes through ``LLMCalls.ask``, as the game policies' calls do: the kind's JSON schema
is sent as a structured-output request where the endpoint takes one, the prompt is fitted to the
context window (its :class:`~textmem_gym.llm.prompts.Trimmable` sections lose items in the stated
order, counted), and the answer is read by the one free-text parser either way. An answer
without a direct answer is ``parse_failed`` (cause ``unparseable``); a call that failed is cause
``llm_error`` or ``context_overflow``. Neither is replaced by anything: the answer is ``""``.

A method is built without a model when none is configured (no ``model`` and no ``$OPENAI_MODEL``):
its ``config`` names model ``None``, it can still offer what needs no model (the optional part
``recall``), and :meth:`LLMQAMethod.answer` raises the client's one-line error.

Example:
    >>> paragraph_text(Paragraph("Vellmar Island", "A lighthouse stands here.", (), True))
    'Vellmar Island: A lighthouse stands here.'
    >>> PROMPTS.schema("answer")["required"]
    ['chain_of_thought', 'direct_answer']
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from textmem_gym.llm import LLMCalls, Trimmable
from textmem_gym.llm.client import ENV_MODEL
from textmem_gym.llm.prompts import PromptFolder
from textmem_gym.qa.api import Answer, Document, Tokens, as_paragraphs
from textmem_gym.qa.data import Paragraph

#: The QA prompt templates (``textmem_gym/qa/prompts/*.txt``).
PROMPTS = PromptFolder("textmem_gym.qa")
#: Prompt kind of the final answer (accounting key, schema name sent to the server).
KIND_ANSWER = "qa_answer"
#: Shown for a section with nothing in it.
NOTHING = "(nothing found)"


def paragraph_text(paragraph: Paragraph) -> str:
    """A paragraph as a prompt shows it: ``"title: text"`` (the text alone when untitled)."""
    return f"{paragraph.title}: {paragraph.text}" if paragraph.title else paragraph.text


def texts_section(name: str, texts: Sequence[str]) -> Trimmable:
    """Texts shown one per line, best first; the last (least relevant) are dropped first to fit."""
    return Trimmable(name, [" ".join(t.split()) for t in texts], drop="last", sep="\n", empty=NOTHING)


@dataclass
class Final:
    """The final answer of one question as read from the model.

    Attributes:
        text: The direct answer (``""`` when there is none).
        fallback: Why there is none (``unparseable``, ``llm_error``, ``context_overflow``).
        reasoning: The model's chain of thought, when it wrote one.
    """

    text: str
    fallback: str | None = None
    reasoning: str = ""
    detail: dict[str, Any] = field(default_factory=dict)


class LLMQAMethod:
    """Base of the LLM QA methods.

    Args:
        model, base_url, api_key: The endpoint (else the ``OPENAI_*`` environment variables).
        client: Use this :class:`~textmem_gym.llm.LLMClient` instead (shared between methods).
        client_options: Further client arguments (``context_window``, ``timeout``, ``cache``...).
        max_tokens: Completion limit of the answer prompts.

    Attributes:
        llm: The :class:`~textmem_gym.llm.LLMCalls` every call of the method goes through.
        config: The method's settings for results rows (no endpoint address, no key).
        no_model: Why the method cannot answer (no model configured), else ``None``.
    """

    name = "llm"
    #: Prompt kinds whose tokens count as building a memory from the documents.
    build_kinds: frozenset[str] = frozenset()

    def __init__(self, model: str | None = None, base_url: str | None = None, api_key: str | None = None, *,
                 client: Any = None, client_options: dict[str, Any] | None = None, max_tokens: int = 512) -> None:
        self.llm = LLMCalls(model, base_url, api_key, client=client, client_options=client_options)
        self.max_tokens = max_tokens
        configured = client is not None or bool(model or os.environ.get(ENV_MODEL))
        self.no_model = None if configured else f"no model given: pass model= or set ${ENV_MODEL}"
        self.config: dict[str, Any] = {"model": self.llm.client.model if configured else None,
                                       "max_tokens": max_tokens}

    # -- what a method writes -------------------------------------------------------------
    def respond(self, question: str, paragraphs: tuple[Paragraph, ...]) -> Final:
        """The method's answer to ``question`` from ``paragraphs`` (subclasses write it)."""
        raise NotImplementedError

    def unavailable(self) -> str | None:
        """Why the method cannot run on its endpoint (``None``: it can)."""
        return None

    # -- shared steps ----------------------------------------------------------------------
    def final_answer(self, template: str, question: str, trim: Sequence[Trimmable], **fields: Any) -> Final:
        """Asks the chain-of-thought answer prompt ``template`` and reads its direct answer.

        ``trim`` are the sections that may lose items to fit the context window (shown under
        their names in the template); ``fields`` fill the rest.
        """
        schema = PROMPTS.schema("answer")

        def build() -> str:
            return PROMPTS.render(template, question=question, **fields, **{t.name: t.text() for t in trim})

        raw = self.llm.ask(KIND_ANSWER, build, max_tokens=self.max_tokens, schema=schema, trim=trim)
        if raw is None:
            return Final("", fallback=self.llm.failure_cause())
        parsed = self.llm.read(KIND_ANSWER, raw, schema, need=("direct_answer",))
        text = str(parsed.get("direct_answer") or "").strip()
        reasoning = str(parsed.get("chain_of_thought") or "")
        return Final(text, fallback=None if text else "unparseable", reasoning=reasoning)

    # -- the API -----------------------------------------------------------------------------
    def answer(self, question: str, documents: Sequence[Document]) -> Answer:
        """Answers ``question`` from ``documents``, with what it cost (see :class:`~textmem_gym.qa.api.Answer`).

        Raises:
            ValueError: No model is configured (see :attr:`no_model`).
        """
        if self.no_model is not None:
            raise ValueError(self.no_model)
        self.llm.begin_episode()
        self.llm.take_step_calls()
        started = time.perf_counter()
        final = self.respond(question, as_paragraphs(documents))
        latency = time.perf_counter() - started
        return self._account(final, latency)

    def _account(self, final: Final, latency: float) -> Answer:
        calls = self.llm.take_step_calls()
        stats = self.llm.episode_stats()
        build = [c for c in calls if c["kind"] in self.build_kinds]
        tokens = Tokens(prompt=int(stats["prompt_tokens"]), completion=int(stats["completion_tokens"]),
                        build_prompt=sum(int(c["prompt_tokens"]) for c in build),
                        build_completion=sum(int(c["completion_tokens"]) for c in build))
        detail = {**final.detail, "reasoning": final.reasoning} if final.reasoning else dict(final.detail)
        if stats["context_trims"]:
            detail["context_trims"] = dict(stats["context_trims"])
        cost = stats["cost_usd"] if stats["cost_usd"] else None
        return Answer(final.text, tokens, calls=int(stats["calls"]), latency=latency, cost_usd=cost,
                      parse_failed=final.fallback == "unparseable", fallback=final.fallback,
                      calls_by_kind=dict(stats["calls_by_kind"]), detail=detail)

    def close(self) -> None:
        """Closes the client."""
        self.llm.close()


__all__ = ["KIND_ANSWER", "PROMPTS", "Final", "LLMQAMethod", "paragraph_text", "texts_section"]
