"""Probing memories over a recorded episode: replay, questions, answers, one results row each.

:func:`probe_episode` replays the episode in its env made with privileged facts
(:func:`~textmem_gym.qa.probes.replay.replay_episode`), generates the questions at the chosen steps
(:func:`~textmem_gym.qa.probes.questions.generate_questions`), then builds each memory with
:func:`~textmem_gym.memory.registry.make_memory` (a name, ``"module:Class"`` or a memory object),
adopts it as the wrapper does (:func:`~textmem_gym.memory.adoption.adopt`: the text parser of the
episode's env backend handed over), feeds it every replayed step as ``update(observation, command,
info)`` (``info`` without the privileged keys, unless the memory declares the ones it reads in
``privileged``: the oracle's ``{"facts"}``) and, at each chosen step, asks it that step's questions in
each answer mode:

- ``recall`` (no model): ``context(question, B)`` for each budget ``B`` of ``budgets``
  (:data:`~textmem_gym.qa.recall.BUDGETS`), read by :func:`~textmem_gym.qa.probes.recall.recalled`;
- ``structural`` (no model): from the optional parts the memory offers
  (:func:`~textmem_gym.qa.probes.answering.structural_answer`); "not offered" rows say which
  memory lacks the part (``offered: false``, no EM);
- ``llm``: the model over ``context(question, budget)``, every memory the same model, prompt and window.

Every row (``"kind": "probe"``) records ``answer_recall`` and ``first_mention`` (``str(B) -> bool``,
:func:`~textmem_gym.qa.probes.recall.first_mentioned`) at each budget, ``context_tokens``
(``str(B) ->`` the tokens of what ``context(question, B)`` returned, before the cut), and, in the first
row of each question (its ``recall`` row), ``context``: the lines read at the largest budget (cut to
it), so a miss can be looked at; the other rows of the question hold no ``context``. It records the
memory's build tokens (its ``build_tokens()`` where offered, else the tokens of the extractor client
the probe built), its build time per update so far (``build_ms_per_step``) and the time of its
``context`` calls for the question (``query_ms``, mean over the budgets). Rows are appended to a
JSONL file as they are made; a re-run skips the rows the file holds (:func:`probe_key`) and does
not even feed a memory whose rows are all there.

Example:
    >>> from textmem_gym.qa.probes.replay import RecordedEpisode
    >>> episode = RecordedEpisode("TextMem/CookingRL-L1-v0", {}, 0, [["look"]], [], label="demo", ident="demo")
    >>> rows = probe_episode(episode, ["oracle", "full-history"], ProbeConfig(kinds=("location",),
    ...                      answers=("recall", "structural")), check=False)
    >>> sorted({(r["memory"], r["answer_mode"], r["em"]) for r in rows})
    [('full-history', 'recall', None), ('full-history', 'structural', None), ('oracle', 'recall', None), \
('oracle', 'structural', 1.0)]
    >>> {r["memory"]: r["answer_recall"]["256"] for r in rows if r["answer_mode"] == "recall"}
    {'oracle': True, 'full-history': True}
    >>> {r["memory"]: r["first_mention"]["256"] for r in rows if r["answer_mode"] == "recall"}
    {'oracle': True, 'full-history': True}
    >>> [("context" in r, sorted(r["context_tokens"], key=int)) for r in rows][:2]
    [(True, ['256', '512', '1024', '2048']), (False, ['256', '512', '1024', '2048'])]
"""

from __future__ import annotations

import json
import statistics
import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from textmem_gym.llm import LLMClient
from textmem_gym.llm.prompts import RESERVE_TOKENS
from textmem_gym.loading import lookup
from textmem_gym.memory.adoption import Adopted, adopt, parser_for
from textmem_gym.memory.budget import count_tokens, fit_budget
from textmem_gym.memory.protocol import Memory
from textmem_gym.memory.registry import (
    ENDPOINT_KEYWORDS,
    endpoint_options,
    factory_parameters,
    make_memory,
    memory_factory,
    memory_name,
)
from textmem_gym.qa.api import Answer
from textmem_gym.qa.probes.answering import Clock, ProbeAnswerer, structural_answer
from textmem_gym.qa.probes.questions import ProbeQuestion, build_timeline, generate_questions, question_generators
from textmem_gym.qa.probes.recall import first_mentioned, recalled
from textmem_gym.qa.probes.replay import RecordedEpisode, Replay, ReplayStep, replay_episode
from textmem_gym.qa.recall import BUDGETS
from textmem_gym.qa.scoring import score
from textmem_gym.results import ResultsFile, config_id

#: The ``kind`` of a probe results row.
ROW_KIND = "probe"
#: How a question is answered: ``recall`` (answer recall only), ``structural`` (from the memory's
#: parts) or ``llm`` (the model over the memory's context).
ANSWER_MODES = ("recall", "structural", "llm")
#: A probe row's identity: episode, step, question, memory, answer mode, configuration id.
ProbeKey = tuple[str, int, str, str, str, "str | None"]
#: The privileged ``info`` keys a replay holds (what a memory may declare in ``privileged``).
REPLAYED_PRIVILEGED = frozenset({"facts"})


@dataclass(frozen=True)
class ProbeConfig:
    """What a probe asks and how.

    Attributes:
        steps: Agent decisions to ask at; ``"end"`` is the episode's last.
        kinds: Question kinds (default: every kind of :data:`~textmem_gym.qa.probes.questions.GENERATORS`).
        per_kind: Most questions of one kind at one step.
        seed: Seed of the question draw.
        answers: Answer modes (:data:`ANSWER_MODES`).
        extractor: Extractor given to memories that take one (``rules`` or ``llm``).
        llm: Endpoint settings (``model``, ``base_url``, ``api_key``; ``client_options``): the answers,
            the ``llm`` extractor, and, when it names a model, memories that take an endpoint (those of
            these keywords their factory takes: ``summary``, ``hipporag``, ``mem0``).
        options: Memory name -> its own constructor options (they win over ``extractor`` and ``llm``).
        budget: Prompt tokens every model answer's prompt is fitted to (and its context's budget).
        budgets: Token budgets of answer recall.
        max_tokens: Completion limit of an answer.
    """

    steps: tuple[int | str, ...] = ("end",)
    kinds: tuple[str, ...] = ()
    per_kind: int = 5
    seed: int = 0
    answers: tuple[str, ...] = ANSWER_MODES
    extractor: str = "rules"
    llm: dict[str, Any] = field(default_factory=dict)
    options: dict[str, dict[str, Any]] = field(default_factory=dict)
    budget: int = 2048
    budgets: tuple[int, ...] = BUDGETS
    max_tokens: int = 512

    def __post_init__(self) -> None:
        for mode in self.answers:
            lookup("answer mode", mode, dict.fromkeys(ANSWER_MODES))
        kinds = question_generators() if self.kinds else {}  # read when asked: a package installed since is seen
        for kind in self.kinds:
            lookup("question kind", kind, kinds)
        if self.extractor not in ("rules", "llm"):
            raise ValueError(f"unknown extractor {self.extractor!r}; choose from ['llm', 'rules']")
        if self.per_kind < 1 or self.budget < 1 or not self.budgets or min(self.budgets) < 1:
            raise ValueError(f"per_kind, budget and budgets must be positive, got {self.per_kind}, {self.budget} "
                             f"and {list(self.budgets)}")

    def resolve_steps(self, decisions: int) -> list[int]:
        """The steps as agent decisions of an episode of ``decisions`` decisions (sorted, unique).

        Example:
            >>> ProbeConfig(steps=(20, "end", 10)).resolve_steps(48)
            [10, 20, 48]
        """
        resolved = []
        for step in self.steps:
            value = decisions if step == "end" else step
            if not isinstance(value, int) or not 0 <= value <= decisions:
                raise ValueError(f"probe step {step!r} is not 'end' or a step of the episode (0..{decisions})")
            resolved.append(value)
        return sorted(set(resolved))

    def answer_settings(self) -> dict[str, Any]:
        """The answerer's options: the endpoint, and a context window of ``budget`` prompt tokens."""
        options = dict(self.llm.get("client_options") or {})
        options["context_window"] = self.budget + self.max_tokens + RESERVE_TOKENS
        return {**{k: v for k, v in self.llm.items() if k != "client_options"}, "client_options": options,
                "max_tokens": self.max_tokens}


def probe_key(row: dict[str, Any]) -> ProbeKey:
    """The identity of a probe row.

    Example:
        >>> probe_key({"episode_id": "e", "step": 3, "question_id": "location:knife", "memory": "stma",
        ...            "answer_mode": "structural", "config": {}})[:5]
        ('e', 3, 'location:knife', 'stma', 'structural')
    """
    return (row["episode_id"], int(row["step"]), row["question_id"], row["memory"], row["answer_mode"],
            config_id(row.get("config")))


# -- building the memories ------------------------------------------------------------------------


#: Option keys a row does not record (clients, endpoint addresses, keys).
_UNRECORDED = frozenset({"extractor_options", "base_url", "api_key", "client_options"})
#: ``extractor_options`` keys a row does not record (their others, ``max_tokens`` or ``replacement``, change
#: answers: recorded).
_UNRECORDED_EXTRACTOR = frozenset({"client", "ask", "base_url", "api_key", "client_options"})


def memory_options(spec: str, config: ProbeConfig) -> dict[str, Any]:
    """The options ``spec`` is built with: ``config.options[spec]``, then ``extractor`` and the endpoint
    keywords (:data:`~textmem_gym.memory.registry.ENDPOINT_KEYWORDS`) where its factory takes them (an
    ``llm`` extractor's client is added by :func:`build_memory`).

    Example:
        >>> memory_options("arigraph", ProbeConfig(options={"arigraph": {"depth": 3}}))
        {'depth': 3, 'extractor': 'rules'}
        >>> memory_options("summary", ProbeConfig(llm={"model": "m", "base_url": "http://x"}))
        {'model': 'm', 'base_url': 'http://x'}
    """
    options = dict(config.options.get(spec, {}))
    factory = memory_factory(spec)
    if "extractor" in factory_parameters(factory):
        options.setdefault("extractor", config.extractor)
    return {**endpoint_options(factory, config.llm), **options}


def recorded_options(options: dict[str, Any]) -> dict[str, Any]:
    """What a row (and a memory-bench record) keeps of a memory's options: no client, no endpoint address, no key
    (``extractor_options`` only where they hold more than those).

    Example:
        >>> recorded_options({"extractor": "llm", "base_url": "http://x", "extractor_options": {"client": object()}})
        {'extractor': 'llm'}
        >>> recorded_options({"extractor": "llm", "extractor_options": {"client": object(), "max_tokens": 256}})
        {'extractor': 'llm', 'extractor_options': {'max_tokens': 256}}
    """
    kept = {k: v for k, v in options.items() if k not in _UNRECORDED}
    extractor = options.get("extractor_options")
    if isinstance(extractor, dict) and extractor.keys() - _UNRECORDED_EXTRACTOR:
        kept["extractor_options"] = {k: v for k, v in extractor.items() if k not in _UNRECORDED_EXTRACTOR}
    recorded: dict[str, Any] = json.loads(json.dumps(kept, sort_keys=True, default=str))
    return recorded


@dataclass
class ProbedMemory:
    """One memory under probe, with what the probe measures of it.

    Attributes:
        label: Its name in the rows (the name or ``module:Class`` given, else :func:`memory_name`).
        adopted: The memory, adopted (:func:`~textmem_gym.memory.adoption.adopt`): its parts, the
            backend's parser, the one ``update`` path.
        config: What its rows record of its options.
        clients: Clients the probe built for it (closed with it; their tokens are its build tokens
            when it offers no ``build_tokens``).
        update_s: Seconds spent in its ``update``.
        updates: Updates so far.
    """

    label: str
    adopted: Adopted
    config: dict[str, Any]
    clients: list[LLMClient] = field(default_factory=list)
    update_s: float = 0.0
    updates: int = 0

    @property
    def memory(self) -> Memory:
        """The memory."""
        return self.adopted.memory

    @property
    def privileged(self) -> frozenset[str]:
        """The privileged ``info`` keys it is given (those it declares)."""
        return self.adopted.privileged

    def feed(self, step: ReplayStep) -> None:
        """One replayed step, through the adopted ``update`` (privileged facts only when declared)."""
        info = {**step.info, "facts": list(step.facts)} if "facts" in self.adopted.privileged else step.info
        started = time.perf_counter()
        self.adopted.update(step.observation, step.command, info)
        self.update_s += time.perf_counter() - started
        self.updates += 1

    def build_tokens(self) -> dict[str, int]:
        """Its ``build_tokens()`` where offered, else its clients' tokens."""
        if self.adopted.offers("build_cost"):
            return self.adopted.build_tokens()
        usages = [client.usage.as_dict() for client in self.clients]
        return {k: sum(int(u[k]) for u in usages) for k in ("prompt_tokens", "completion_tokens")}

    def build_ms_per_step(self) -> float:
        """Mean milliseconds per update so far."""
        return 1000 * self.update_s / max(self.updates, 1)

    def close(self) -> None:
        """Closes the memory (where it offers ``close``) and the probe's clients."""
        self.adopted.close()
        for client in self.clients:
            client.close()


def memory_label(spec: str | Memory) -> str:
    """A memory's name in the rows: the string given, else :func:`~textmem_gym.memory.registry.memory_name`."""
    return spec if isinstance(spec, str) else memory_name(spec)


def _config_of(spec: str | Memory, config: ProbeConfig) -> dict[str, Any]:
    return recorded_options(memory_options(spec, config)) if isinstance(spec, str) else {}


#: ``extractor_options`` keys with which the caller hands the extractor its own model (no client is built).
_OWN_MODEL = ("client", "ask")


def llm_extractor_options(label: str, options: dict[str, Any], llm: dict[str, Any],
                          clients: list[LLMClient]) -> dict[str, Any]:
    """The ``extractor_options`` of a memory built with the ``llm`` extractor: those given (``options``'
    ``extractor_options``), with a client on the endpoint added (and appended to ``clients``) unless they
    hand over a ``client`` or an ``ask`` of their own. Endpoint settings among them (``model``,
    ``base_url``, ``api_key``, ``client_options``) override the probe's ``llm`` for that client; the other
    options (``max_tokens``, ``replacement``...) go to the memory with it.

    Raises:
        TypeError: ``extractor_options`` is not a dict (one line).
        ValueError: No model for the client, given or in ``OPENAI_MODEL`` (one line).

    Example:
        >>> from textmem_gym.llm import LLMClient
        >>> built: list[LLMClient] = []
        >>> given = {"extractor": "llm", "extractor_options": {"max_tokens": 256, "model": "m2"}}
        >>> merged = llm_extractor_options("arigraph", given, {"model": "m", "base_url": "http://127.0.0.1:9/v1"},
        ...                                built)
        >>> sorted(merged), merged["max_tokens"], merged["client"] is built[0], built[0].model
        (['client', 'max_tokens'], 256, True, 'm2')
        >>> own = {"client": built[0]}
        >>> llm_extractor_options("arigraph", {"extractor_options": own}, {"model": "m"}, []) == own
        True
    """
    given = options.get("extractor_options")
    if given is None:
        given = {}
    if not isinstance(given, dict):
        raise TypeError(f"extractor_options of {label!r} must be a dict, got {type(given).__name__}")
    if any(key in given for key in _OWN_MODEL):
        return dict(given)
    endpoint = {key: given[key] for key in ENDPOINT_KEYWORDS if key in given}
    settings = {**llm, **endpoint}
    client_options = dict(settings.pop("client_options", None) or {})
    try:
        client = LLMClient(**{**client_options, **settings})
    except ValueError as error:
        raise ValueError(f"memory {label!r} with the llm extractor: {error}") from None
    clients.append(client)
    return {**{k: v for k, v in given.items() if k not in endpoint}, "client": client}


def build_memory(spec: str | Memory, config: ProbeConfig, *, env_id: str | None = None) -> ProbedMemory:
    """The memory ``spec`` (built with :func:`memory_options`, or the object given, reset where it offers it),
    adopted with the text parser of ``env_id``'s backend (:func:`~textmem_gym.memory.adoption.parser_for`),
    as the wrapper adopts it in that env.

    A memory built with the ``llm`` extractor always gets a client on the endpoint, its ``extractor_options``
    merged with it (:func:`llm_extractor_options`), so a memory that asks for a model never builds without one.

    Args:
        spec: A memory name, ``"module:Class"`` or a memory object.
        config: The probe's configuration (extractor, endpoint, options).
        env_id: The env id of the replayed episode (``None``: no backend parser).

    Raises:
        ValueError: Unknown name, options the memory refuses, the ``llm`` extractor without a model, or a
            memory declaring privileged keys a replay does not hold: at once, before any update.
        TypeError: Not a memory, or ``extractor_options`` not a dict (one line).
    """
    clients: list[LLMClient] = []
    if isinstance(spec, str):
        options = memory_options(spec, config)
        if options.get("extractor") == "llm":
            options["extractor_options"] = llm_extractor_options(memory_label(spec), options, config.llm, clients)
        try:
            adopted = adopt(make_memory(spec, **options), parser=parser_for(env_id) if env_id else None)
        except BaseException:
            for client in clients:
                client.close()
            raise
    else:
        adopted = adopt(make_memory(spec), parser=parser_for(env_id) if env_id else None)
        adopted.reset()
    if adopted.privileged - REPLAYED_PRIVILEGED:
        raise ValueError(f"memory {memory_label(spec)!r} reads privileged {sorted(adopted.privileged)}; a probe "
                         f"replay holds {sorted(REPLAYED_PRIVILEGED)}")
    return ProbedMemory(memory_label(spec), adopted, _config_of(spec, config), clients)


# -- asking ---------------------------------------------------------------------------------------


def _row_config(config: ProbeConfig, memory_config: dict[str, Any], mode: str) -> dict[str, Any]:
    """The configuration a row records (what changes the answer; no endpoint address, no key)."""
    asked: dict[str, Any] = {"budgets": list(config.budgets)} if mode == "recall" else {}
    if mode == "llm":
        asked = {"model": config.llm.get("model"), "budget": config.budget, "max_tokens": config.max_tokens}
    return {**memory_config, **asked}


@dataclass
class _Asker:
    """Asks one memory its questions and writes the rows."""

    episode: RecordedEpisode
    probed: ProbedMemory
    config: ProbeConfig
    jobs: dict[int, list[tuple[ProbeQuestion, list[str]]]]
    clock: Clock
    write: Callable[[dict[str, Any]], None]
    answerer: ProbeAnswerer | None = None

    def ask(self, step: int) -> None:
        for question, modes in self.jobs.get(step, []):
            read = self._read(question)
            for index, mode in enumerate(modes):
                shown = read if index == 0 else {k: v for k, v in read.items() if k != "context"}
                self.write(self._row(question, mode, shown))

    def _read(self, question: ProbeQuestion) -> dict[str, Any]:
        """The row fields read from the memory's context at each budget (see :func:`probe_episode`)."""
        recall, first, tokens, spent = {}, {}, {}, 0.0
        widest, shown = max(self.config.budgets), []
        for budget in self.config.budgets:
            started = time.perf_counter()
            lines = self.probed.memory.context(question.question, budget)
            spent += time.perf_counter() - started
            recall[str(budget)] = recalled(lines, question, budget)
            first[str(budget)] = first_mentioned(lines, question, budget)
            tokens[str(budget)] = count_tokens("\n".join(lines)) if lines else 0
            if budget == widest:
                shown = fit_budget(lines, budget)
        return {"answer_recall": recall, "first_mention": first, "context_tokens": tokens, "context": shown,
                "query_ms": round(1000 * spent / len(self.config.budgets), 3)}

    def _answer(self, question: ProbeQuestion, mode: str) -> dict[str, Any]:
        if mode == "recall":
            return {"prediction": None, "em": None, "f1": None}
        if mode == "structural":
            text = structural_answer(self.probed.adopted, question, self.clock)
            if text is None:
                return {"prediction": None, "em": None, "f1": None, "offered": False}
            return {**Answer(text).as_row(), **score(text, question), "offered": True}
        assert self.answerer is not None
        answer = self.answerer.answer_from(question.question,
                                           self.probed.memory.context(question.question, self.config.budget))
        return {**answer.as_row(), **score(answer.text, question)}

    def _row(self, question: ProbeQuestion, mode: str, read: dict[str, Any]) -> dict[str, Any]:
        built, result = self.probed.build_tokens(), dict(self.episode.result or {})
        return {"kind": ROW_KIND, "episode_id": self.episode.ident or self.episode.label,
                "trajectory": self.episode.label, "env_id": self.episode.env_id,
                "episode_score": result.get("normalized_score"), "episode_won": result.get("won"),
                "episode_steps": self.episode.decisions, "step": question.step, "question_id": question.id,
                "question_kind": question.kind, "question": question.question, "answers": list(question.answers),
                "memory": self.probed.label, "answer_mode": mode,
                "config": _row_config(self.config, self.probed.config, mode), **self._answer(question, mode),
                **read,
                "build_ms_per_step": round(self.probed.build_ms_per_step(), 3),
                "memory_prompt_tokens": built["prompt_tokens"], "memory_completion_tokens": built["completion_tokens"]}


def probe_episode(episode: RecordedEpisode, memories: Sequence[str | Memory], config: ProbeConfig, *,
                  out: str | Path | None = None, check: bool = True,
                  progress: Callable[[dict[str, Any]], None] | None = None) -> list[dict[str, Any]]:
    """Probes ``memories`` over one recorded episode; returns its rows (those already in ``out`` included).

    Args:
        episode: The recorded episode.
        memories: Names (the ``textmem_gym.memories`` entry points), ``"module:Class"`` or memory objects.
        config: Steps, question kinds, answer modes, budgets, model and options.
        out: JSONL results file (rows appended as made; rows it holds are not asked again).
        check: Check each replayed observation against the recorded one.
        progress: Called with each new row.

    Raises:
        ValueError: An unknown memory, kind or mode (listing the valid ones), a step outside the
            episode, or ``llm`` answers or extraction without a model.
        TypeError: A memory object (or what a name builds) without ``update`` and ``context``.
        ReplayMismatch: The game answered differently from the recording.
    """
    for spec in memories:
        if isinstance(spec, str):
            memory_factory(spec)
        else:
            make_memory(spec)
    _check_model(config)
    replay = replay_episode(episode, check=check)
    steps = config.resolve_steps(episode.decisions)
    parser = parser_for(episode.env_id)  # the backend's reading of its facts, as the memories read its text
    truth = parser.observed_truth() if parser is not None else None
    questions = generate_questions(build_timeline(replay, truth), steps, kinds=config.kinds or None,
                                   per_kind=config.per_kind, seed=config.seed)
    store = ResultsFile(out) if out is not None else None
    done = {probe_key(r): r for r in (store.read() if store else []) if r.get("kind") == ROW_KIND}
    rows = [r for r in done.values() if r["episode_id"] == (episode.ident or episode.label)]

    def write(row: dict[str, Any]) -> None:
        if store is not None:
            store.append(row)
        rows.append(row)
        if progress is not None:
            progress(row)

    for spec in memories:
        jobs = _jobs(episode, spec, config, questions, set(done))
        if jobs:
            _feed(_asker(episode, spec, config, jobs, replay, write), replay.steps, steps)
    return rows


def _check_model(config: ProbeConfig) -> None:
    needs = (["llm answers"] if "llm" in config.answers else []) + \
        (["the llm extractor"] if config.extractor == "llm" else [])
    if needs and not config.llm.get("model"):
        raise ValueError(f"a model is needed for {', '.join(needs)}: give --model (or set OPENAI_MODEL), or ask "
                         "recall and structural answers only")


def _jobs(episode: RecordedEpisode, spec: str | Memory, config: ProbeConfig, questions: Sequence[ProbeQuestion],
          done: set[ProbeKey]) -> dict[int, list[tuple[ProbeQuestion, list[str]]]]:
    """Step -> the questions (with the modes) ``spec`` still has to answer."""
    ident, label, memory_config = episode.ident or episode.label, memory_label(spec), _config_of(spec, config)
    jobs: dict[int, list[tuple[ProbeQuestion, list[str]]]] = defaultdict(list)
    for question in questions:
        modes = [m for m in config.answers if (ident, question.step, question.id, label, m,
                                               config_id(_row_config(config, memory_config, m))) not in done]
        if modes:
            jobs[question.step].append((question, modes))
    return dict(jobs)


def _clock(replay: Replay) -> dict[int, int]:
    """Agent decision -> index of the update that ended it."""
    return {step.decision: index for index, step in enumerate(replay.steps) if step.last}


def _asker(episode: RecordedEpisode, spec: str | Memory, config: ProbeConfig,
           jobs: dict[int, list[tuple[ProbeQuestion, list[str]]]], replay: Replay,
           write: Callable[[dict[str, Any]], None]) -> _Asker:
    probed = build_memory(spec, config, env_id=episode.env_id)
    answerer = ProbeAnswerer(**config.answer_settings()) if "llm" in config.answers else None
    return _Asker(episode, probed, config, jobs, _clock(replay), write, answerer)


def _feed(asker: _Asker, replayed: Iterable[ReplayStep], steps: Sequence[int]) -> None:
    """Feeds the replayed steps; asks at the end of each chosen decision."""
    try:
        for step in replayed:
            asker.probed.feed(step)
            if step.last and step.decision in steps:
                asker.ask(step.decision)
    finally:
        asker.probed.close()
        if asker.answerer is not None:
            asker.answerer.close()


# -- summaries ----------------------------------------------------------------------------------


def _mean(values: Iterable[float]) -> float | None:
    values = list(values)
    return statistics.fmean(values) if values else None


def _recall_rows(items: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """One row per question and memory (every answer mode records the same recall)."""
    unique = {(r["episode_id"], r["step"], r["question_id"], r["memory"]): r for r in items if r.get("answer_recall")}
    return list(unique.values())


def _ranks(rows: Sequence[dict[str, Any]], name: str) -> dict[Any, Any]:
    """The order of a field's values: question kinds as :data:`GENERATORS` lists them, steps by number,
    anything else (memories, answer modes) in the order the rows first hold them."""
    values = list(dict.fromkeys(r.get(name) for r in rows))
    if name == "question_kind":
        kinds = list(question_generators())
        return {v: (kinds.index(v) if v in kinds else len(kinds), str(v)) for v in values}
    if name == "step":
        return {v: (0, v, "") if isinstance(v, int) else (1, 0, str(v)) for v in values}
    return {v: i for i, v in enumerate(values)}


def summarize_probes(rows: Iterable[dict[str, Any]],
                     by: Sequence[str] = ("memory", "answer_mode")) -> list[dict[str, Any]]:
    """Per group: EM and F1 (percent, ``None`` when nothing was answered), answer recall and first-mention
    accuracy (percent) at each budget, prompt tokens per answer, unparsed and trimmed answers, rows not
    offered, build tokens (the most recorded), build ms per step and query ms (means). Groups come in the
    order the rows first name their memories (and answer modes); kinds as
    :data:`~textmem_gym.qa.probes.questions.GENERATORS` lists them, steps by number.

    Args:
        rows: Results rows (others than probe rows are skipped).
        by: Row fields to group by (e.g. ``("memory", "answer_mode", "question_kind", "step")``).

    Example:
        >>> rows = [{"kind": "probe", "memory": "m", "answer_mode": "llm", "em": 1.0, "f1": 1.0, "prompt_tokens": 90},
        ...         {"kind": "probe", "memory": "m", "answer_mode": "llm", "em": 0.0, "f1": 0.5, "prompt_tokens": 110}]
        >>> summary = summarize_probes(rows)[0]
        >>> summary["em"], summary["f1"], summary["prompt_tokens"], summary["recall"]
        (50.0, 75.0, 100.0, {})
    """
    probes = [row for row in rows if row.get("kind") == ROW_KIND]
    groups: dict[tuple[Any, ...], list[dict[str, Any]]] = defaultdict(list)
    for row in probes:
        groups[tuple(row.get(name) for name in by)].append(row)
    ranks = [_ranks(probes, name) for name in by]
    return [{**dict(zip(by, key)), **_summary(items)}
            for key, items in sorted(groups.items(), key=lambda kv: [rank[v] for rank, v in zip(ranks, kv[0])])]


def _summary(items: Sequence[dict[str, Any]]) -> dict[str, Any]:
    answered = [r for r in items if r.get("em") is not None]
    recall_rows = _recall_rows(items)
    budgets = sorted({int(b) for r in recall_rows for b in r["answer_recall"]})
    em, f1 = _mean(r["em"] for r in answered), _mean(r["f1"] for r in answered)
    return {"n": len(answered), "em": None if em is None else 100 * em, "f1": None if f1 is None else 100 * f1,
            "not_offered": sum(r.get("offered") is False for r in items),
            "recall": {b: 100 * statistics.fmean(bool(r["answer_recall"].get(str(b))) for r in recall_rows)
                       for b in budgets},
            "recall_n": len(recall_rows),
            "first_mention": _first_mention(recall_rows, budgets),
            "prompt_tokens": _mean(float(r.get("prompt_tokens") or 0) for r in answered) or 0.0,
            "parse_failures": sum(bool(r.get("parse_failed")) for r in items),
            "trimmed": sum(bool((r.get("detail") or {}).get("context_trims")) for r in items),
            "build_tokens": max((int(r.get("memory_prompt_tokens") or 0) + int(r.get("memory_completion_tokens") or 0)
                                 for r in items), default=0),
            "build_ms_per_step": _mean(float(r["build_ms_per_step"]) for r in items if "build_ms_per_step" in r),
            "query_ms": _mean(float(r["query_ms"]) for r in items if "query_ms" in r)}


def _first_mention(recall_rows: Sequence[dict[str, Any]], budgets: Sequence[int]) -> dict[int, float]:
    """Budget -> first-mention accuracy in percent over the rows recording it (rows written before it
    existed hold none)."""
    held = [r["first_mention"] for r in recall_rows if r.get("first_mention")]
    return {b: 100 * statistics.fmean(bool(f.get(str(b))) for f in held) for b in budgets
            if held and all(str(b) in f for f in held)}


#: The legend printed under the EM/F1 tables.
ANSWER_LEGEND = ("EM/F1 (n): exact match / token F1 in percent (0-100) over n answers; llm: the model over the "
                 "memory's context fitted to one token budget; structural: read off the memory's optional parts "
                 "(beliefs, map, history), no model; not offered: the memory lacks the part; -: no question of "
                 "that column")
#: The legend printed under :func:`recall_table`.
RECALL_LEGEND = ("percent (0-100) of the n questions. R@B: answer recall, the gold answer (or an alias; every "
                 "listed thing) is in the memory's context cut to B tokens. FM@B: first-mention accuracy, the "
                 "first candidate answer that context names is the gold one (a stale holder named first is "
                 "wrong). structural EM: exact match of the answer read off the memory's beliefs, map or "
                 "history, no model; llm EM: the model's answer over the context. -: nothing measured (no "
                 "structural or model answer asked, or none recorded); not offered: the memory lacks the part. "
                 "n: questions asked of the memory")


def format_probe_tables(rows: Sequence[dict[str, Any]], memories: Sequence[str] = ()) -> str:
    """The episodes probed (with their scores); EM/F1 per memory x answer mode by question kind and by
    step; then, per memory x question kind, answer recall and first-mention accuracy at each budget
    beside structural and model EM, build tokens, build ms per step and query ms (:func:`recall_table`),
    each table with its legend. Memories come in the order of ``memories`` (their labels), then in
    the order the rows first name them; all scores are percentages."""
    rows = _in_order([r for r in rows if r.get("kind") == ROW_KIND], memories)
    episodes = {r["episode_id"]: r for r in rows}
    lines = [f"episode {r['trajectory']} ({r['env_id']}): {r['episode_steps']} steps, normalized score "
             f"{_number(r['episode_score'])}, won {r['episode_won']}" for r in episodes.values()]
    answers = [r for r in rows if r["answer_mode"] != "recall"]
    if answers:
        for column in ("question_kind", "step"):
            lines += ["", _table(answers, column)]
        lines += ["", ANSWER_LEGEND]
    return "\n".join([*lines, "", recall_table(rows), "", RECALL_LEGEND])


def _in_order(rows: Sequence[dict[str, Any]], memories: Sequence[str]) -> list[dict[str, Any]]:
    """``rows`` with the memories named in ``memories`` first, in that order (a stable sort)."""
    rank = {name: i for i, name in enumerate(memories)}
    return sorted(rows, key=lambda r: rank.get(r["memory"], len(rank)))


def _number(value: Any) -> str:
    return "-" if value is None else f"{float(value):.3f}"


def _table(rows: Sequence[dict[str, Any]], column: str) -> str:
    """Memory x mode rows, one EM/F1 cell per value of ``column``, then all together."""
    ranks = _ranks(rows, column)
    values = sorted(ranks, key=lambda v: ranks[v])
    cells = {(s["memory"], s["answer_mode"], s[column]): s
             for s in summarize_probes(rows, ("memory", "answer_mode", column))}
    header = ["memory", "answers", *[f"{column.replace('question_', '')} {v}" for v in values], "all EM/F1", "n",
              "prompt tok/answer", "unparsed", "trimmed"]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for total in summarize_probes(rows):
        shown = [_cell(cells.get((total["memory"], total["answer_mode"], v))) for v in values]
        lines.append("| " + " | ".join([total["memory"], total["answer_mode"], *shown, _cell(total), str(total["n"]),
                                        f"{total['prompt_tokens']:.0f}", str(total["parse_failures"]),
                                        str(total["trimmed"])]) + " |")
    return "\n".join(lines)


def _cell(summary: dict[str, Any] | None) -> str:
    """``EM/F1 (n)``; ``not offered`` when no row of the group was answered for that reason; ``-``: none."""
    if summary is None or (summary["em"] is None and not summary["not_offered"]):
        return "-"
    if summary["em"] is None:
        return "not offered"
    return f"{summary['em']:.0f}/{summary['f1']:.0f} ({summary['n']})"


def _em(summary: dict[str, Any] | None) -> str:
    cell = _cell(summary)
    return cell if summary is None or summary["em"] is None else f"{summary['em']:.0f}"


def recall_table(rows: Sequence[dict[str, Any]]) -> str:
    """Memory x question kind (then ``all``): answer recall (``R@B``) and first-mention accuracy (``FM@B``)
    in percent at each budget, structural EM (or ``not offered``), model EM, questions, build tokens,
    build ms per step and query ms (:data:`RECALL_LEGEND` explains the columns).

    Example:
        >>> row = {"kind": "probe", "episode_id": "e", "step": 5, "question_id": "location:knife", "memory": "m",
        ...        "question_kind": "location", "answer_mode": "recall", "em": None, "f1": None,
        ...        "answer_recall": {"256": False, "1024": True}, "first_mention": {"256": False, "1024": False},
        ...        "build_ms_per_step": 0.5, "query_ms": 2.0}
        >>> print(recall_table([row]))  # doctest: +NORMALIZE_WHITESPACE
        | memory | kind | R@256 | R@1024 | FM@256 | FM@1024 | structural EM | llm EM | n | build tok | build ms/step
          | query ms |
        |---|---|---|---|---|---|---|---|---|---|---|---|
        | m | location | 0 | 100 | 0 | 0 | - | - | 1 | 0 | 0.50 | 2.00 |
        | m | all | 0 | 100 | 0 | 0 | - | - | 1 | 0 | 0.50 | 2.00 |
    """
    header, cells = recall_cells(rows)
    return "\n".join(["| " + " | ".join(header) + " |", "|" + "---|" * len(header),
                      *("| " + " | ".join(line) + " |" for line in cells)])


def recall_cells(rows: Sequence[dict[str, Any]]) -> tuple[list[str], list[list[str]]]:
    """The header and cells of :func:`recall_table` (the report draws them as HTML)."""
    rows = [r for r in rows if r.get("kind") == ROW_KIND]
    budgets = sorted({int(b) for r in rows for b in r.get("answer_recall") or {}})
    header = ["memory", "kind", *[f"R@{b}" for b in budgets], *[f"FM@{b}" for b in budgets], "structural EM",
              "llm EM", "n", "build tok", "build ms/step", "query ms"]
    modes = {(s["memory"], s["question_kind"], s["answer_mode"]): s
             for s in summarize_probes(rows, ("memory", "question_kind", "answer_mode"))}
    modes.update({(s["memory"], "all", s["answer_mode"]): s for s in summarize_probes(rows)})
    cells = []
    for memory in dict.fromkeys(r["memory"] for r in rows):
        ranks = _ranks([r for r in rows if r["memory"] == memory], "question_kind")
        kinds = sorted(ranks, key=lambda k: ranks[k])
        cells += [_recall_line(rows, memory, kind, budgets, modes) for kind in [*kinds, "all"]]
    return header, cells


def _recall_line(rows: Sequence[dict[str, Any]], memory: str, kind: str, budgets: Sequence[int],
                 modes: dict[tuple[str, str, str], dict[str, Any]]) -> list[str]:
    group = summarize_probes([r for r in rows if r["memory"] == memory and kind in ("all", r["question_kind"])],
                             ("memory",))[0]
    recall = [f"{group[name][b]:.0f}" if b in group[name] else "-" for name in ("recall", "first_mention")
              for b in budgets]
    return [memory, kind, *recall, _em(modes.get((memory, kind, "structural"))), _em(modes.get((memory, kind, "llm"))),
            str(group["recall_n"]), str(group["build_tokens"]), _ms(group["build_ms_per_step"]),
            _ms(group["query_ms"])]


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


__all__ = ["ANSWER_LEGEND", "ANSWER_MODES", "ENDPOINT_KEYWORDS", "RECALL_LEGEND", "REPLAYED_PRIVILEGED", "ROW_KIND",
           "ProbeConfig", "ProbeKey", "ProbedMemory", "build_memory", "format_probe_tables", "llm_extractor_options",
           "memory_label", "memory_options", "probe_episode", "probe_key", "recall_cells", "recall_table",
           "recorded_options", "summarize_probes"]
