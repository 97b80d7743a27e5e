"""Any memory as a QA method: the question's paragraphs fed as updates, the answer read from its context.

``memory`` (:class:`MemoryQA`) takes any memory (:mod:`textmem_gym.memory.protocol`: an object
with ``update`` and ``context``), found as :func:`textmem_gym.memory.registry.make_memory` finds
it: a registered name (``bm25``, ``hipporag``, ``full-history``...), ``"package.module:Class"``,
a class, or a memory object. On the command line it is ``--method memory:NAME``
(``memory:bm25``, ``memory:package.module:Class``: see :func:`textmem_gym.qa.api.make_method`).

For each question:

1. **Build.** A fresh memory (``reset()`` where offered, else a new one: built again by name or
   class, copied from the object given), adopted as every instrument adopts it
   (:func:`~textmem_gym.memory.adoption.adopt`: its parts detected once; no env, so no backend parser),
   is fed the paragraphs in file order, one update each:
   ``update("title: text", "", {"title": title, "index": i})``. The memory is **not told the
   question** while it reads, as AriGraph QA builds its graph: it meets the question only in
   ``context``, so a memory built from the paragraphs answers any question about them, and its
   recall measures what it kept, not what it was told to keep. (STMA QA and summary QA are told the
   question while they read: the goal a game agent's memory is given.)
2. **Answer.** ``context(question, budget)`` (cut to ``budget`` tokens if it returns more:
   :func:`textmem_gym.memory.budget.fit_budget`) is the chain-of-thought answer prompt's texts,
   with the same prompt, schema and completion budget as every other method.

Tokens a model spent building the memory (its optional ``build_tokens()``) are building tokens
of the answer (:class:`~textmem_gym.qa.api.Tokens`); calls the memory makes with its own client
are not among the answer's ``calls``. With no model, the optional part ``recall``
(:class:`~textmem_gym.qa.api.Recalls`) gives the memory's context at each budget and, where the
memory offers ``sources(question, k)``, the paragraphs it recalls (update index = paragraph
index); a memory is built once for answering and recall of the same paragraphs.

Example:
    >>> from textmem_gym.llm import LocalOpenAIServer
    >>> class Notes:  # a memory in two methods
    ...     def __init__(self):
    ...         self.lines = []
    ...     def update(self, observation, action, info):
    ...         self.lines.append(observation)
    ...     def context(self, question, budget):
    ...         return [line for line in self.lines if "lighthouse" in line]
    >>> docs = ["Vellmar Island: a lighthouse stands here.", "Orsk is a town."]
    >>> with LocalOpenAIServer(script=['{"chain_of_thought": "read it", "direct_answer": "a lighthouse"}']) as s:
    ...     method = MemoryQA(model="m", base_url=s.base_url, memory=Notes())
    ...     answer = method.answer("What stands on Vellmar Island?", docs)
    >>> method.name, answer.text, answer.detail["context_lines"]
    ('memory:Notes', 'a lighthouse', 1)
    >>> recalled = MemoryQA(memory=Notes).recall("What stands there?", docs, [4, 256], 2)  # no model needed
    >>> recalled.contexts, recalled.sources
    ({4: ['Vellmar Island: a lighthouse stands here.'], 256: ['Vellmar Island: a lighthouse stands here.']}, None)
"""

from __future__ import annotations

import copy
import dataclasses
import inspect
from collections.abc import Callable, Sequence
from typing import Any

from textmem_gym.memory.adoption import Adopted, adopt
from textmem_gym.memory.budget import fit_budget
from textmem_gym.memory.protocol import Memory, check_memory, is_memory
from textmem_gym.memory.registry import endpoint_options, make_memory, memory_factory, memory_name
from textmem_gym.qa.api import Answer, Document, Recalled, Tokens, as_paragraphs
from textmem_gym.qa.data import Paragraph
from textmem_gym.qa.methods.base import Final, LLMQAMethod, paragraph_text, texts_section

#: The token budget of the context the answer prompt reads (the largest budget recall is reported at).
DEFAULT_BUDGET = 2048


class MemoryQA(LLMQAMethod):
    """Any memory: paragraphs as updates, ``context(question, budget)`` as the answer prompt's texts.

    Args:
        memory: A registered memory name or ``"package.module:Class"`` (built with
            ``memory_options``), a memory class or factory (called with them), or a memory object
            (copied, never changed).
        budget: Tokens of context the answer prompt reads.
        memory_options: Keyword options of the memory's factory.
        **options: Passed to :class:`~textmem_gym.qa.methods.base.LLMQAMethod`.

    Raises:
        ValueError: Unknown memory name, options with a memory object, or a budget below 1.
        TypeError: ``memory`` (or what its factory builds) is not a memory.
    """

    name = "memory"

    def __init__(self, *args: Any, memory: str | Memory | Callable[..., Any] = "full-history",
                 budget: int = DEFAULT_BUDGET, memory_options: dict[str, Any] | None = None,
                 **options: Any) -> None:
        super().__init__(*args, **options)
        if not isinstance(budget, int) or isinstance(budget, bool) or budget < 1:
            raise ValueError(f"budget must be a positive int, got {budget!r}")
        given = dict(memory_options or {})
        if isinstance(memory, str):  # a model that builds the memory (summary, HippoRAG, Mem0) is the method's
            given = {**endpoint_options(memory_factory(memory), self._endpoint(args, options)), **given}
        self._new, label = _memory_source(memory, given)
        self.name = f"memory:{label}"
        self.budget = budget
        self.adopted: Adopted | None = None
        self._read: tuple[Paragraph, ...] | None = None
        self._build: dict[str, int] = {"prompt_tokens": 0, "completion_tokens": 0}
        self.config.update(memory=label, budget=budget)
        if memory_options:
            self.config["memory_options"] = {k: v if isinstance(v, (str, int, float, bool)) else repr(v)
                                             for k, v in sorted(memory_options.items())}

    @staticmethod
    def _endpoint(args: tuple[Any, ...], options: dict[str, Any]) -> dict[str, Any]:
        """The method's endpoint settings (``model``, ``base_url``, ``api_key``), positional or keyword."""
        named = dict(zip(("model", "base_url", "api_key"), args, strict=False))
        return {**named, **{k: options[k] for k in ("model", "base_url", "api_key") if k in options}}

    @property
    def memory(self) -> Memory | None:
        """The memory that read the last paragraphs (``None`` before any)."""
        return self.adopted.memory if self.adopted is not None else None

    def read(self, paragraphs: tuple[Paragraph, ...]) -> Adopted:
        """The memory of ``paragraphs``: a fresh one fed them in file order (kept for the same paragraphs)."""
        if self.adopted is not None and self._read == paragraphs:
            return self.adopted
        if self.adopted is None or not self.adopted.reset():
            self._close_memory()
            self.adopted = adopt(self._new())
        adopted = self.adopted
        before = adopted.build_tokens()
        for index, paragraph in enumerate(paragraphs):
            adopted.update(paragraph_text(paragraph), "", {"title": paragraph.title, "index": index})
        after = adopted.build_tokens()
        self._build = {key: after[key] - before[key] for key in after}
        self._read = paragraphs
        return adopted

    def respond(self, question: str, paragraphs: tuple[Paragraph, ...]) -> Final:
        """Build, then answer from the context within :attr:`budget`."""
        lines = fit_budget(self.read(paragraphs).context(question, self.budget), self.budget)
        final = self.final_answer("answer_texts", question, [texts_section("texts", lines)])
        final.detail.update(context_lines=len(lines), memory_build_tokens=dict(self._build))
        return final

    def answer(self, question: str, documents: Sequence[Document]) -> Answer:
        """As :meth:`LLMQAMethod.answer`, the memory's own building tokens added to the building tokens."""
        answer = super().answer(question, documents)
        built, tokens = self._build, answer.tokens
        if not any(built.values()):
            return answer
        return dataclasses.replace(answer, tokens=Tokens(
            prompt=tokens.prompt + built["prompt_tokens"], completion=tokens.completion + built["completion_tokens"],
            build_prompt=tokens.build_prompt + built["prompt_tokens"],
            build_completion=tokens.build_completion + built["completion_tokens"]))

    def recall(self, question: str, documents: Sequence[Document], budgets: Sequence[int], k: int) -> Recalled:
        """The memory's ``context(question, budget)`` at each budget and its ``sources(question, k)`` where offered."""
        adopted = self.read(as_paragraphs(documents))
        contexts = {budget: list(adopted.context(question, budget)) for budget in budgets}
        ranked = adopted.sources
        sources = [int(i) for i in ranked.sources(question, k)][:k] if ranked is not None else None
        return Recalled(contexts, sources)

    def close(self) -> None:
        """Closes the memory (where it offers ``close``) and the client."""
        self._close_memory()
        super().close()

    def _close_memory(self) -> None:
        if self.adopted is not None:
            self.adopted.close()
        self.adopted, self._read = None, None


def _memory_source(memory: Any, options: dict[str, Any]) -> tuple[Callable[[], Any], str]:
    """``(build a new memory, its label)`` for a name, a class or factory, or a memory object."""
    if isinstance(memory, str):
        memory_factory(memory)  # an unknown name fails here, before any question
        return (lambda: make_memory(memory, **options)), memory
    if is_memory(memory):
        if options:
            raise ValueError("memory options only apply when the memory is given by name or class")
        template = copy.deepcopy(memory)
        return (lambda: copy.deepcopy(template)), memory_name(memory)
    if not callable(memory):
        check_memory(memory)  # neither a memory nor a factory: its one-line TypeError
    label = memory.__name__ if inspect.isclass(memory) or inspect.isfunction(memory) else type(memory).__name__
    return (lambda: check_memory(memory(**options))), label


__all__ = ["DEFAULT_BUDGET", "MemoryQA"]
