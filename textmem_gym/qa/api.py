"""One QA API over documents: ``method.answer(question, documents) -> Answer``.

Every method of the papers' QA tables (BM25 top-3, embeddings top-3, full context, gold
supporting paragraphs, AriGraph QA, DAVIS world-model QA) and the games' other memories (STMA, a
running summary) is a :class:`QAMethod`: an object with ``name``, ``config``, ``answer`` and
``close``. Methods are found by name through the entry-point group ``textmem_gym.qa_methods``
(:data:`QA_METHODS`: ``name -> "module:Factory"``, declared by the library in its ``setup.cfg`` as by
any other package, imported on first use by the project's one lookup,
:func:`textmem_gym.loading.load_declared`);
``"package.module:Factory"`` names a method outside the library, and ``"memory:NAME"`` any memory
(:mod:`textmem_gym.qa.methods.memory`: ``memory:bm25``, ``memory:hipporag``,
``memory:package.module:Class``; a memory object is given as ``make_method("memory", memory=obj)``).

A method may also offer the optional part ``recall`` (:class:`Recalls`): what it would put in
front of its reader at each token budget and the paragraphs it ranks for the question, found
without asking any model. The protocols turn it into answer recall at a budget and
supporting-paragraph recall@k (:mod:`textmem_gym.qa.recall`), with or without a model answering.

An :class:`Answer` keeps what the method's model said and what it cost: the answer text (never
replaced: an answer the parser cannot read gives ``""`` with ``parse_failed`` and ``fallback``
set), the tokens split into what building a memory from the documents cost (``build``) and what
answering cost, the calls by kind, the latency and the cost where the client prices the model.

Example:
    >>> from textmem_gym.qa.api import QA_METHODS  # read from the entry points when imported
    >>> sorted(QA_METHODS)
    ['arigraph', 'bm25', 'davis', 'embedding', 'full-context', 'gold', 'memory', 'stma', 'summary']
    >>> as_paragraphs(["Vellmar Island has a lighthouse."])[0].title
    ''
    >>> Tokens(prompt=120, completion=30, build_prompt=100, build_completion=20).answer_prompt
    20
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from textmem_gym.fallbacks import FALLBACK_CAUSES
from textmem_gym.loading import declared_targets, load_declared, load_object, lookup
from textmem_gym.qa.data import Paragraph

#: A document given to a method: a paragraph, or bare text (an untitled, non-supporting paragraph).
Document = Paragraph | str

#: The entry-point group of the QA methods: name -> ``"module:Factory"`` (a factory taking the method's
#: keyword options).
ENTRY_POINT_GROUP = "textmem_gym.qa_methods"


def __getattr__(name: str) -> Any:
    """``QA_METHODS``: every declared method name -> ``"module:Factory"``, read from the installed packages'
    metadata when asked for (a package installed since is seen)."""
    if name == "QA_METHODS":
        return declared_targets("QA method", ENTRY_POINT_GROUP)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
#: ``"memory:NAME"`` is the ``memory`` method over the memory ``NAME`` (a registered name or ``module:Class``).
MEMORY_PREFIX = "memory:"


@dataclass(frozen=True)
class Tokens:
    """Tokens one answer cost.

    Attributes:
        prompt: Prompt tokens of every call (building and answering).
        completion: Completion tokens of every call.
        build_prompt: Of ``prompt``, those spent building a memory from the documents (extraction).
        build_completion: Of ``completion``, those spent building the memory.

    Example:
        >>> Tokens(prompt=10, completion=4).total
        14
    """

    prompt: int = 0
    completion: int = 0
    build_prompt: int = 0
    build_completion: int = 0

    @property
    def total(self) -> int:
        """Prompt plus completion tokens."""
        return self.prompt + self.completion

    @property
    def answer_prompt(self) -> int:
        """Prompt tokens of answering (key items, retrieval questions, the answer itself)."""
        return self.prompt - self.build_prompt

    @property
    def answer_completion(self) -> int:
        """Completion tokens of answering."""
        return self.completion - self.build_completion


@dataclass(frozen=True)
class Answer:
    """A method's answer to one question and what it cost.

    Attributes:
        text: The model's direct answer; ``""`` when there is none (see ``fallback``).
        tokens: The tokens spent (:class:`Tokens`).
        calls: LLM calls made (chat and embedding requests).
        latency: Wall time of :meth:`QAMethod.answer`, in seconds.
        cost_usd: Cost where the client prices the model; ``None`` otherwise.
        parse_failed: The answer came back but held no direct answer the parser could read.
        fallback: Why ``text`` is not the model's answer as asked (a key of
            :data:`~textmem_gym.fallbacks.FALLBACK_CAUSES`: ``unparseable``, ``llm_error``,
            ``context_overflow``), else ``None``.
        calls_by_kind: Calls per prompt kind (``qa_answer``, ``arigraph_triplets``, ...).
        detail: What the method used (retrieved titles, key items, triples, ...), for the row.
    """

    text: str
    tokens: Tokens = field(default_factory=Tokens)
    calls: int = 0
    latency: float = 0.0
    cost_usd: float | None = None
    parse_failed: bool = False
    fallback: str | None = None
    calls_by_kind: dict[str, int] = field(default_factory=dict)
    detail: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.fallback is not None:
            lookup("fallback cause", self.fallback, FALLBACK_CAUSES)

    def as_row(self) -> dict[str, Any]:
        """The answer as results-row fields (tokens flattened, answering tokens added).

        Example:
            >>> row = Answer("Oslo", Tokens(prompt=50, completion=5, build_prompt=30)).as_row()
            >>> row["prediction"], row["prompt_tokens"], row["answer_prompt_tokens"], row["build_prompt_tokens"]
            ('Oslo', 50, 20, 30)
        """
        tokens = self.tokens
        return {"prediction": self.text, "prompt_tokens": tokens.prompt, "completion_tokens": tokens.completion,
                "build_prompt_tokens": tokens.build_prompt, "build_completion_tokens": tokens.build_completion,
                "answer_prompt_tokens": tokens.answer_prompt, "answer_completion_tokens": tokens.answer_completion,
                "calls": self.calls, "latency_s": round(self.latency, 4), "cost_usd": self.cost_usd,
                "parse_failed": self.parse_failed, "fallback": self.fallback,
                "calls_by_kind": dict(self.calls_by_kind), "detail": dict(self.detail)}


@runtime_checkable
class QAMethod(Protocol):
    """What every QA method offers.

    Attributes:
        name: Its registry name.
        config: Its settings (model, top-k, ...), recorded with each results row.
    """

    name: str
    config: dict[str, Any]

    def answer(self, question: str, documents: Sequence[Document]) -> Answer:
        """Answers ``question`` from ``documents`` (a question's paragraphs, in file order)."""

    def close(self) -> None:
        """Releases the method's client."""


@dataclass(frozen=True)
class Recalled:
    """What a method recalls for one question, found without a model (the optional part ``recall``).

    Attributes:
        contexts: Budget (tokens) -> the lines the method would show its reader within that budget,
            most relevant first (longer contexts are cut to the budget before they are read).
        sources: Indices of the question's paragraphs (file order) the method ranks for it, best
            first; ``None`` when it ranks none ("not offered": full context reads them in file order).
    """

    contexts: dict[int, list[str]]
    sources: list[int] | None = None


@runtime_checkable
class Recalls(Protocol):
    """Optional part ``recall`` of a QA method: its context and ranked paragraphs, with no model."""

    def recall(self, question: str, documents: Sequence[Document], budgets: Sequence[int], k: int) -> Recalled:
        """The lines it recalls for ``question`` at each of ``budgets``, and its first ``k`` paragraphs."""


def as_paragraphs(documents: Sequence[Document]) -> tuple[Paragraph, ...]:
    """``documents`` as paragraphs (bare text becomes an untitled, non-supporting paragraph).

    Example:
        >>> [p.text for p in as_paragraphs(["One.", Paragraph("T", "Two.", ("Two.",), True)])]
        ['One.', 'Two.']
    """
    return tuple(d if isinstance(d, Paragraph) else Paragraph("", str(d), (str(d),), False) for d in documents)


def make_method(name: str, **options: Any) -> QAMethod:
    """The QA method registered as ``name`` (or ``"package.module:Factory"``, or ``"memory:MEMORY"``:
    the ``memory`` method over ``MEMORY``), built with ``options``.

    Raises:
        ValueError: If ``name`` is neither registered nor a ``module:Factory`` (the message lists
            the registered methods).

    Example:
        >>> make_method("gold", model="m", base_url="http://127.0.0.1:9/v1").name
        'gold'
        >>> make_method("grep")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        ValueError: unknown QA method 'grep'; choose from ['arigraph', 'bm25', 'davis', ..., 'summary']
        >>> make_method("memory:tests.no_such_module:Notes")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        ValueError: unknown memory 'tests.no_such_module:Notes': cannot import 'tests.no_such_module' ...
    """
    if name.startswith(MEMORY_PREFIX):
        name, options = "memory", {**options, "memory": name[len(MEMORY_PREFIX):]}
    outside = ":" in name and name not in declared_targets("QA method", ENTRY_POINT_GROUP)
    factory = load_object(name) if outside else load_declared("QA method", name, ENTRY_POINT_GROUP)
    method = factory(**options)
    if not isinstance(method, QAMethod):
        raise TypeError(f"{name} did not build a QA method (needs name, config, answer, close)")
    return method


__all__ = ["ENTRY_POINT_GROUP", "MEMORY_PREFIX", "Answer", "Document", "QAMethod", "Recalled", "Recalls", "Tokens",
           "as_paragraphs", "make_method"]
