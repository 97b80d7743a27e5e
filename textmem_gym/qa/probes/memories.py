"""The memories a probe asks: each fed the replayed steps, each giving a context for a question.

Every probe memory offers the same four things (:class:`ProbeMemory`): ``feed`` one replayed
primitive step, ``context`` for a question (lines, most worth keeping first: what the one token
budget trims last), ``beliefs`` for structural answers (``None``: it has none) and ``build_tokens``
(what building it cost so far). They are found by name in :data:`PROBE_MEMORIES`:

============== ================================================================================
name           context
============== ================================================================================
``arigraph``,  the architecture's own ``render(question)`` (:data:`textmem_gym.memory.MEMORIES`,
``stma``,      fed ``(observation, command, info without privileged keys)`` through the Memory
``davis``      protocol; ``extractor`` ``rules`` or ``llm``); structural answers from its believed
               triples and ``route``
``full-history`` every step so far (command and observation), oldest trimmed first
``summary``    an LLM running summary (rewritten after every step from the last 5 steps, the
               observation and the previous summary; ``prompts/probe_summary.txt``) and the last 5 steps
``oracle``     the privileged true state now (facts in the memory vocabulary, the player's room, the
               recipe), ranked by BM25 against the question; structural answers from the truth
============== ================================================================================

Only ``oracle`` reads the privileged facts; the others see what the agent saw.

Example:
    >>> from textmem_gym.qa.probes.replay import ReplayStep
    >>> memory = make_probe_memory("full-history")
    >>> memory.feed(ReplayStep(0, "", "-= Kitchen =- You see a table.", {}, ()))
    >>> memory.feed(ReplayStep(1, "take knife", "You take the knife.", {}, ()))
    >>> shown_context(memory, "What did I do?")
    ['step 0: -= Kitchen =- You see a table.', 'step 1: > take knife: You take the knife.']
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from textmem_gym.llm import LLMCalls, LLMClient, Trimmable
from textmem_gym.llm.calls import PromptFolder
from textmem_gym.loading import lookup
from textmem_gym.memory.base import Memory, make_memory
from textmem_gym.memory.ground_truth import map_facts
from textmem_gym.memory.retrieval import make_index
from textmem_gym.memory.semantic import TripleKey
from textmem_gym.qa.probes.questions import direction_graph, recipe_ingredients, shortest_paths
from textmem_gym.qa.probes.replay import ReplayStep

#: The probe prompts (``textmem_gym/qa/prompts/probe_*.txt``).
PROMPTS = PromptFolder("textmem_gym.qa")
#: Prompt kind of the summary memory's update (accounting key).
KIND_SUMMARY = "probe_summary"


@dataclass(frozen=True)
class Context:
    """A memory's context for one question.

    Attributes:
        items: The lines, most worth keeping first (the budget drops the last first).
        order: The order the prompt shows them in (``None``: as ``items``).
    """

    items: list[str]
    order: list[str] | None = None


class Beliefs(Protocol):
    """What structural answers read: the triples believed now and a route between rooms."""

    def triples(self) -> list[TripleKey]:
        """The triples believed now, oldest first."""

    def route(self, start: str, goal: str) -> list[str] | None:
        """Directions of the shortest believed path (``None``: none known)."""


@runtime_checkable
class ProbeMemory(Protocol):
    """A memory as a probe uses it (see the module docstring).

    Attributes:
        name: Its name in :data:`PROBE_MEMORIES`.
        config: Its settings, recorded with each results row.
    """

    name: str
    config: dict[str, Any]

    def feed(self, step: ReplayStep) -> None:
        """Reads one replayed primitive step (``step.command`` is ``""`` for the reset)."""

    def context(self, question: str) -> Context:
        """The lines the model reads to answer ``question``."""

    def beliefs(self) -> Beliefs | None:
        """Its beliefs for structural answers, ``None`` when it keeps none."""

    def build_tokens(self) -> dict[str, int]:
        """``prompt_tokens`` and ``completion_tokens`` spent building it so far."""

    def close(self) -> None:
        """Releases its LLM client, if any."""


class _MemoryBeliefs:
    """:class:`Beliefs` of a Memory-protocol memory."""

    def __init__(self, memory: Memory) -> None:
        self.memory = memory

    def triples(self) -> list[TripleKey]:
        return self.memory.believed_triples()

    def route(self, start: str, goal: str) -> list[str] | None:
        path = self.memory.route(start, goal)
        return None if path is None else [direction for direction, _ in path]


class GraphProbe:
    """A memory of :data:`textmem_gym.memory.MEMORIES` (AriGraph, STMA, DAVIS) fed through its protocol.

    Args:
        memory: Its registry name.
        extractor: ``rules`` or ``llm`` (the paper's prompts through ``llm``'s client).
        llm: Endpoint settings of the ``llm`` extractor (``model``, ``base_url``, ``api_key``,
            ``client_options``); its own client, so its tokens are the memory's building tokens.
    """

    def __init__(self, memory: str, *, extractor: str = "rules", llm: dict[str, Any] | None = None) -> None:
        self.name = memory
        self.config: dict[str, Any] = {"extractor": extractor}
        self.client: LLMClient | None = None
        options: dict[str, Any] = {}
        if extractor == "llm":
            settings = dict(llm or {})
            self.client = LLMClient(**{**settings.pop("client_options", {}), **settings})
            options["extractor_options"] = {"client": self.client}
        self.memory: Memory = make_memory(memory, extractor=extractor, **options)
        self.memory.reset()

    def feed(self, step: ReplayStep) -> None:
        """The step's observation, command and public info into the memory."""
        self.memory.update(step.observation, step.command, step.info)

    def context(self, question: str) -> Context:
        """``render(question)``, one item per line."""
        return Context([line for line in self.memory.render(question).splitlines() if line.strip()])

    def beliefs(self) -> Beliefs:
        """The believed triples and the memory's ``route``."""
        return _MemoryBeliefs(self.memory)

    def build_tokens(self) -> dict[str, int]:
        """The ``llm`` extractor's tokens (0 with ``rules``)."""
        return _usage(self.client)

    def close(self) -> None:
        if self.client is not None:
            self.client.close()


def _usage(client: LLMClient | None) -> dict[str, int]:
    if client is None:
        return {"prompt_tokens": 0, "completion_tokens": 0}
    usage = client.usage.as_dict()
    return {"prompt_tokens": int(usage["prompt_tokens"]), "completion_tokens": int(usage["completion_tokens"])}


def shown_context(memory: ProbeMemory, question: str) -> list[str]:
    """``memory``'s context for ``question`` as the prompt shows it (before any trimming)."""
    context = memory.context(question)
    return list(context.order if context.order is not None else context.items)


def _step_line(index: int, step: ReplayStep) -> str:
    said = " ".join(step.observation.split())
    return f"step {index}: > {step.command}: {said}" if step.command else f"step {index}: {said}"


class FullHistoryProbe:
    """Every step so far: the context is the whole history, oldest trimmed first."""

    name = "full-history"

    def __init__(self) -> None:
        self.config: dict[str, Any] = {}
        self.lines: list[str] = []

    def feed(self, step: ReplayStep) -> None:
        """Keeps the step."""
        self.lines.append(_step_line(len(self.lines), step))

    def context(self, question: str) -> Context:
        """Newest first for trimming, shown oldest first."""
        return Context(self.lines[::-1], list(self.lines))

    def beliefs(self) -> None:
        """None: a history holds no beliefs."""
        return None

    def build_tokens(self) -> dict[str, int]:
        """Nothing: no model builds it."""
        return _usage(None)

    def close(self) -> None:
        return None


class SummaryProbe(FullHistoryProbe):
    """An LLM running summary plus the last ``recent`` steps.

    Args:
        llm: Endpoint settings (``model``, ``base_url``, ``api_key``, ``client_options``).
        recent: Steps shown besides the summary (and given to each summary update).
        max_tokens: Completion limit of a summary.
    """

    name = "summary"

    def __init__(self, *, llm: dict[str, Any] | None = None, recent: int = 5, max_tokens: int = 256) -> None:
        super().__init__()
        settings = dict(llm or {})
        self.llm = LLMCalls(client_options=settings.pop("client_options", {}), **settings)
        self.recent, self.max_tokens = recent, max_tokens
        self.config = {"recent": recent, "max_tokens": max_tokens}
        self.summary, self.goal, self.failures = "none yet", "", 0

    def feed(self, step: ReplayStep) -> None:
        """Keeps the step and rewrites the summary (kept as it was when the model gives none)."""
        self.goal = self.goal or " ".join(str(step.info.get("objective", "")).split())
        history = Trimmable("history", self.lines[-self.recent:], sep="\n")
        super().feed(step)
        answer = self.llm.ask(KIND_SUMMARY, lambda: PROMPTS.render(
            "probe_summary", goal=self.goal or "unknown", history=history.text(), summary=self.summary,
            observation=self.lines[-1]), max_tokens=self.max_tokens, trim=[history])
        if answer is None or not answer.strip():
            self.failures += 1
            return
        self.summary = " ".join(answer.split())

    def context(self, question: str) -> Context:
        """The summary (kept longest), then the last steps (oldest trimmed first), shown oldest first."""
        summary = f"Summary of the game so far: {self.summary}"
        recent = self.lines[-self.recent:]
        return Context([summary, *recent[::-1]], [summary, *recent])

    def build_tokens(self) -> dict[str, int]:
        """The summary updates' tokens."""
        return _usage(self.llm.client)

    def close(self) -> None:
        self.llm.close()


class _TrueBeliefs:
    """:class:`Beliefs` of the true state."""

    def __init__(self, truth: set[TripleKey]) -> None:
        self.truth = truth

    def triples(self) -> list[TripleKey]:
        return sorted(self.truth)

    def route(self, start: str, goal: str) -> list[str] | None:
        paths = shortest_paths(direction_graph(self.truth), start, goal)
        return paths[0] if paths else None


class OracleProbe:
    """The privileged true state now: the upper bound (never a memory under test)."""

    name = "oracle"

    def __init__(self) -> None:
        self.config: dict[str, Any] = {}
        self.truth: set[TripleKey] = set()
        self.room: str | None = None
        self.recipe: list[str] = []

    def feed(self, step: ReplayStep) -> None:
        """Reads the step's privileged facts."""
        self.truth, self.room = map_facts(step.facts)
        self.recipe = recipe_ingredients(step.facts)

    def lines(self) -> list[str]:
        """The true state as lines: the player's room, the facts, the recipe."""
        lines = [f"you are in the {self.room}"] if self.room else []
        lines += [", ".join(t) for t in sorted(self.truth)]
        return lines + ([f"the recipe needs: {', '.join(self.recipe)}"] if self.recipe else [])

    def context(self, question: str) -> Context:
        """The lines, best BM25 match to ``question`` first."""
        lines, index = self.lines(), make_index("bm25")
        for i, line in enumerate(lines):
            index.add(i, line)
        ranked = [i for i, _ in index.search(question, len(lines))]
        return Context([lines[i] for i in dict.fromkeys([*ranked, *range(len(lines))])])

    def beliefs(self) -> Beliefs:
        """The true triples and the true map's shortest path."""
        return _TrueBeliefs(self.truth)

    def build_tokens(self) -> dict[str, int]:
        """Nothing."""
        return _usage(None)

    def close(self) -> None:
        return None


def _graph_probe(memory: str) -> Callable[..., ProbeMemory]:
    def build(*, extractor: str = "rules", llm: dict[str, Any] | None = None) -> ProbeMemory:
        return GraphProbe(memory, extractor=extractor, llm=llm)
    return build


#: Probe memory name -> factory ``(*, extractor, llm) -> ProbeMemory``.
PROBE_MEMORIES: dict[str, Callable[..., ProbeMemory]] = {
    "arigraph": _graph_probe("arigraph"),
    "stma": _graph_probe("stma"),
    "davis": _graph_probe("davis"),
    "full-history": lambda *, extractor="rules", llm=None: FullHistoryProbe(),
    "summary": lambda *, extractor="rules", llm=None: SummaryProbe(llm=llm),
    "oracle": lambda *, extractor="rules", llm=None: OracleProbe(),
}
#: Memories that call a model while they are built (whatever the extractor).
NEEDS_MODEL: frozenset[str] = frozenset({"summary"})


def make_probe_memory(name: str, *, extractor: str = "rules", llm: dict[str, Any] | None = None) -> ProbeMemory:
    """The probe memory ``name`` (a key of :data:`PROBE_MEMORIES`).

    Raises:
        ValueError: An unknown name (the message lists the names).

    Example:
        >>> make_probe_memory("oracle").name
        'oracle'
        >>> make_probe_memory("notes")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        ValueError: unknown probe memory 'notes'; choose from [...]
    """
    return lookup("probe memory", name, PROBE_MEMORIES)(extractor=extractor, llm=llm)


__all__ = ["KIND_SUMMARY", "NEEDS_MODEL", "PROBE_MEMORIES", "Beliefs", "Context", "FullHistoryProbe", "GraphProbe",
           "OracleProbe", "ProbeMemory", "SummaryProbe", "make_probe_memory",
           "shown_context"]
