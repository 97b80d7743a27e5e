"""Probing memories over a recorded episode: replay, questions, answers, one results row each.

:func:`probe_episode` replays the episode in its env made with privileged facts
(:func:`~textmem_gym.qa.probes.replay.replay_episode`), generates the questions at the chosen steps
(:func:`~textmem_gym.qa.probes.questions.generate_questions`), then feeds each memory the replayed
steps and, at each chosen step, asks it that step's questions: with the model (every memory the
same model, answer prompt and context window) and, with ``structural``, from its beliefs. Each
answer is one row (``"kind": "probe"``) scored with the QA scorer, appended to a JSONL file as it
is made; a re-run skips the rows the file holds (:func:`probe_key`) and does not even feed a memory
whose rows are all there, so nothing is asked or written twice.

Example:
    >>> from textmem_gym.qa.probes.replay import RecordedEpisode
    >>> episode = RecordedEpisode("TextMem/CookingRL-L1-v0", {}, 0, [["look"]], [], label="demo", ident="demo")
    >>> rows = probe_episode(episode, ["oracle"], ProbeConfig(kinds=("location",), answers=("structural",)),
    ...                      check=False)
    >>> {(r["memory"], r["answer_mode"], r["question_kind"], r["em"]) for r in rows}
    {('oracle', 'structural', 'location', 1.0)}
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from textmem_gym.llm.calls import RESERVE_TOKENS
from textmem_gym.loading import lookup
from textmem_gym.qa.api import Answer
from textmem_gym.qa.probes.answering import ProbeAnswerer, structural_answer
from textmem_gym.qa.probes.memories import NEEDS_MODEL, PROBE_MEMORIES, ProbeMemory, make_probe_memory
from textmem_gym.qa.probes.questions import GENERATORS, ProbeQuestion, build_timeline, generate_questions
from textmem_gym.qa.probes.replay import RecordedEpisode, replay_episode
from textmem_gym.qa.scoring import score
from textmem_gym.results import ResultsFile, config_id

#: The ``kind`` of a probe results row.
ROW_KIND = "probe"
#: How an answer was made: ``llm`` (the model over the memory's context) or ``structural``.
ANSWER_MODES = ("llm", "structural")
#: A probe row's identity: episode, step, question, memory, answer mode, configuration id.
ProbeKey = tuple[str, int, str, str, str, "str | None"]


@dataclass(frozen=True)
class ProbeConfig:
    """What a probe asks and how.

    Attributes:
        steps: Agent decisions to ask at; ``"end"`` is the episode's last.
        kinds: Question kinds (default: every kind of :data:`~textmem_gym.qa.probes.questions.GENERATORS`).
        per_kind: Most questions of one kind at one step.
        seed: Seed of the question draw.
        answers: Answer modes (:data:`ANSWER_MODES`).
        extractor: Extractor of the graph memories (``rules`` or ``llm``).
        llm: Endpoint settings (``model``, ``base_url``, ``api_key``; ``client_options``).
        budget: Prompt tokens every answer prompt is fitted to (context window less the completion limit).
        max_tokens: Completion limit of an answer.
    """

    steps: tuple[int | str, ...] = ("end",)
    kinds: tuple[str, ...] = ()
    per_kind: int = 5
    seed: int = 0
    answers: tuple[str, ...] = ANSWER_MODES
    extractor: str = "rules"
    llm: dict[str, Any] = field(default_factory=dict)
    budget: int = 2048
    max_tokens: int = 512

    def __post_init__(self) -> None:
        for mode in self.answers:
            lookup("answer mode", mode, dict.fromkeys(ANSWER_MODES))
        for kind in self.kinds:
            lookup("question kind", kind, GENERATORS)
        if self.extractor not in ("rules", "llm"):
            raise ValueError(f"unknown extractor {self.extractor!r}; choose from ['llm', 'rules']")
        if self.per_kind < 1 or self.budget < 1:
            raise ValueError(f"per_kind and budget must be positive, got {self.per_kind} and {self.budget}")

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


def _row_config(config: ProbeConfig, memory: ProbeMemory, mode: str) -> dict[str, Any]:
    """The configuration a row records (what changes the answer; no endpoint address, no key)."""
    answering = {"model": config.llm.get("model"), "budget": config.budget, "max_tokens": config.max_tokens} \
        if mode == "llm" else {}
    return {**memory.config, **answering}


@dataclass
class _Asker:
    """Asks one memory its questions and writes the rows."""

    episode: RecordedEpisode
    memory: ProbeMemory
    config: ProbeConfig
    jobs: dict[int, list[tuple[ProbeQuestion, str]]]
    write: Callable[[dict[str, Any]], None]
    answerer: ProbeAnswerer | None = None

    def ask(self, step: int) -> None:
        for question, mode in self.jobs.get(step, []):
            answer = self._answer(question, mode)
            self.write(self._row(question, mode, answer))

    def _answer(self, question: ProbeQuestion, mode: str) -> Answer:
        if mode == "structural":
            return Answer(structural_answer(self.memory, question) or "")
        assert self.answerer is not None
        return self.answerer.answer_from(question.question, self.memory.context(question.question))

    def _row(self, question: ProbeQuestion, mode: str, answer: Answer) -> dict[str, Any]:
        built = self.memory.build_tokens()
        result = dict(self.episode.result or {})
        return {"kind": ROW_KIND, "episode_id": self.episode.ident or self.episode.label,
                "trajectory": self.episode.label, "env_id": self.episode.env_id,
                "episode_score": result.get("normalized_score"), "episode_won": result.get("won"),
                "episode_steps": self.episode.decisions, "step": question.step, "question_id": question.id,
                "question_kind": question.kind, "question": question.question, "answers": list(question.answers),
                "memory": self.memory.name, "answer_mode": mode, "config": _row_config(self.config, self.memory, mode),
                **answer.as_row(), **score(answer.text, question),
                "memory_prompt_tokens": built["prompt_tokens"], "memory_completion_tokens": built["completion_tokens"]}


def probe_episode(episode: RecordedEpisode, memories: Sequence[str], config: ProbeConfig, *,
                  out: str | Path | None = None, check: bool = True,
                  progress: Callable[[dict[str, Any]], None] | None = None) -> list[dict[str, Any]]:
    """Probes ``memories`` over ``episode``; its rows (those ``out`` held, then the new ones).

    Args:
        episode: The recorded episode.
        memories: Names of :data:`~textmem_gym.qa.probes.memories.PROBE_MEMORIES`.
        config: Steps, question kinds, answer modes, model and budget.
        out: JSONL results file (rows appended as made; rows it holds are not asked again).
        check: Check each replayed observation against the recorded one.
        progress: Called with each new row.

    Raises:
        ValueError: An unknown memory, kind or mode (listing the valid ones), a step outside the
            episode, or ``llm`` answers (or the summary memory) without a model.
        ReplayMismatch: The game answered differently from the recording.
    """
    for name in memories:
        lookup("probe memory", name, PROBE_MEMORIES)
    _check_model(memories, config)
    replay = replay_episode(episode, check=check)
    steps = config.resolve_steps(episode.decisions)
    questions = generate_questions(build_timeline(replay), steps, kinds=config.kinds or None,
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

    for name in memories:
        asker = _asker(episode, name, config, questions, set(done), write)
        if asker is not None:
            _feed(asker, replay.steps, steps)
    return rows


def _check_model(memories: Sequence[str], config: ProbeConfig) -> None:
    needs = [m for m in memories if m in NEEDS_MODEL] + (["llm answers"] if "llm" in config.answers else []) + \
        (["the llm extractor"] if config.extractor == "llm" else [])
    if needs and not config.llm.get("model"):
        raise ValueError(f"a model is needed for {', '.join(needs)}: give --model (or set OPENAI_MODEL), or ask "
                         "structural answers only of memories built without one")


def _asker(episode: RecordedEpisode, name: str, config: ProbeConfig, questions: Sequence[ProbeQuestion],
           done: set[ProbeKey], write: Callable[[dict[str, Any]], None]) -> _Asker | None:
    """The memory ``name`` with the questions it still has to answer (``None`` when it has none)."""
    memory = make_probe_memory(name, extractor=config.extractor, llm=config.llm)
    modes = [m for m in config.answers if m == "llm" or memory.beliefs() is not None]
    ident = episode.ident or episode.label
    jobs: dict[int, list[tuple[ProbeQuestion, str]]] = defaultdict(list)
    for question in questions:
        for mode in modes:
            if mode == "structural" and structural_answer(memory, question) is None:
                continue
            key = (ident, question.step, question.id, name, mode, config_id(_row_config(config, memory, mode)))
            if key not in done:
                jobs[question.step].append((question, mode))
    if not jobs:
        memory.close()
        return None
    answerer = ProbeAnswerer(**config.answer_settings()) if "llm" in modes else None
    return _Asker(episode, memory, config, dict(jobs), write, answerer)


def _feed(asker: _Asker, replayed: Iterable[Any], steps: Sequence[int]) -> None:
    """Feeds the replayed steps; asks at the end of each chosen decision."""
    try:
        for step in replayed:
            asker.memory.feed(step)
            if step.last and step.decision in steps:
                asker.ask(step.decision)
    finally:
        asker.memory.close()
        if asker.answerer is not None:
            asker.answerer.close()


# -- summaries ----------------------------------------------------------------------------------


def summarize_probes(rows: Iterable[dict[str, Any]],
                     by: Sequence[str] = ("memory", "answer_mode")) -> list[dict[str, Any]]:
    """Mean EM and F1 (percent), answers, prompt tokens per answer and unparsed answers per group.

    Args:
        rows: Results rows (others than probe rows are skipped).
        by: Row fields to group by (e.g. ``("memory", "answer_mode", "question_kind", "step")``).

    Example:
        >>> rows = [{"kind": "probe", "memory": "m", "answer_mode": "llm", "em": 1.0, "f1": 1.0, "prompt_tokens": 90},
        ...         {"kind": "probe", "memory": "m", "answer_mode": "llm", "em": 0.0, "f1": 0.5, "prompt_tokens": 110}]
        >>> summarize_probes(rows)[0]["em"], summarize_probes(rows)[0]["f1"], summarize_probes(rows)[0]["prompt_tokens"]
        (50.0, 75.0, 100.0)
    """
    groups: dict[tuple[Any, ...], list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        if row.get("kind") == ROW_KIND:
            groups[tuple(row.get(name) for name in by)].append(row)
    return [{**dict(zip(by, key)), "n": len(items), "em": 100 * statistics.fmean(r["em"] for r in items),
             "f1": 100 * statistics.fmean(r["f1"] for r in items),
             "prompt_tokens": statistics.fmean(float(r.get("prompt_tokens") or 0) for r in items),
             "parse_failures": sum(bool(r.get("parse_failed")) for r in items),
             "trimmed": sum(bool((r.get("detail") or {}).get("context_trims")) for r in items)}
            for key, items in sorted(groups.items(), key=lambda kv: tuple(str(x) for x in kv[0]))]


def format_probe_tables(rows: Sequence[dict[str, Any]]) -> str:
    """The episodes probed (with their scores), then EM/F1 per memory x answer mode by question kind
    and by step, with prompt tokens per answer, unparsed answers and answers whose context was trimmed."""
    rows = [r for r in rows if r.get("kind") == ROW_KIND]
    episodes = {r["episode_id"]: r for r in rows}
    lines = [f"episode {r['trajectory']} ({r['env_id']}): {r['episode_steps']} steps, normalized score "
             f"{_number(r['episode_score'])}, won {r['episode_won']}" for r in episodes.values()]
    for column in ("question_kind", "step"):
        lines += ["", _table(rows, column)]
    return "\n".join(lines)


def _number(value: Any) -> str:
    return "-" if value is None else f"{float(value):.3f}"


def _table(rows: Sequence[dict[str, Any]], column: str) -> str:
    """Memory x mode rows, one EM/F1 cell per value of ``column``, then all together."""
    values = sorted({r[column] for r in rows}, key=lambda v: (isinstance(v, str), v))
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
    return "-" if summary is None else f"{summary['em']:.0f}/{summary['f1']:.0f} ({summary['n']})"


__all__ = ["ANSWER_MODES", "ROW_KIND", "ProbeConfig", "ProbeKey", "format_probe_tables", "probe_episode",
           "probe_key", "summarize_probes"]
