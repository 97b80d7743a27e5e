"""``memory-bench``: every shipped trajectory replayed once, every memory probed, one record each, resumably.

For each shipped trajectory (:mod:`~textmem_gym.qa.bench.trajectories`),
:func:`~textmem_gym.qa.probes.run.probe_episode` replays it once and probes every memory at the
trajectory's middle and last step (questions of every kind, no model: ``recall`` and ``structural``
answers, rules extraction unless asked otherwise). The replay is checked against the recorded
observation digests as the first memory is fed (:meth:`BenchTrajectory.check`), so the game is
played once per trajectory, not once more for the check.

Each memory's ``update`` and ``context`` calls are timed one by one (:class:`CallLog`); the probe
rows give the tokens each ``context`` returned, answer recall and first-mention accuracy. When a
memory has answered a trajectory's questions, one **record** (``kind: "memory-bench"``, one per
trajectory x memory; see
:mod:`~textmem_gym.qa.bench.summary`) is appended to the results file: an interrupted run keeps
what finished, a re-run skips the records the file holds with the same trajectory (name and
content), memory and configuration, and ``overwrite`` drops them first. The summary rows (one per
memory x backend x question kind x budget) are derived from the records.

Everything is deterministic but the timings: the trajectories are fixed, the questions drawn with a
fixed seed, and no model answers.

Example:
    >>> rows = run_bench(["full-history", "bm25"], trajectories=["twx-coin-short"], per_kind=2)
    >>> sorted({r["budget"] for r in rows}), [m for m in dict.fromkeys(r["memory"] for r in rows)]
    ([256, 512, 1024, 2048], ['full-history', 'bm25'])
    >>> sorted({r["backend"] for r in rows}), rows[0]["trajectories"]
    (['all', 'twx'], ['twx-coin-short'])
"""

from __future__ import annotations

import time
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from textmem_gym.loading import check_keywords
from textmem_gym.memory.protocol import Memory
from textmem_gym.memory.registry import endpoint_options, memory_factory
from textmem_gym.qa.bench.summary import ROW_KIND, format_bench_table, is_record, summarize
from textmem_gym.qa.bench.trajectories import BenchTrajectory, check_playable, load_trajectories
from textmem_gym.qa.recall import BUDGETS
from textmem_gym.results import ResultsFile, config_id

#: The memories benchmarked by default (every built-in that needs no model or extra package).
DEFAULT_MEMORIES: tuple[str, ...] = ("arigraph", "stma", "davis", "full-history", "bm25", "dense", "hipporag")
#: Questions of one kind at one step.
PER_KIND = 5
#: Answer modes asked (no model).
ANSWERS: tuple[str, ...] = ("recall", "structural")
#: A record's identity: trajectory name and fingerprint, memory, configuration id.
RecordKey = tuple[str, str, str, "str | None"]


def probe_steps(decisions: int) -> tuple[int | str, ...]:
    """The steps a trajectory is probed at: its middle and its end.

    Example:
        >>> probe_steps(320), probe_steps(1)
        ((160, 'end'), ('end',))
    """
    return (decisions // 2, "end") if decisions >= 2 else ("end",)


@dataclass(frozen=True)
class BenchConfig:
    """What a bench run asks; every record keeps it (:meth:`recorded`), so two configurations never merge.

    Attributes:
        budgets: Token budgets of answer recall.
        per_kind: Questions of one kind at one probed step.
        options: Memory name -> its constructor options.
        extractor: Extractor given to memories that take one (``rules`` or ``llm``).
        seed: Seed of the question draw.
        llm: Endpoint settings for the ``llm`` extractor and memories that take one (``model``,
            ``base_url``, ``api_key``); records keep the model only.
    """

    budgets: tuple[int, ...] = BUDGETS
    per_kind: int = PER_KIND
    options: dict[str, dict[str, Any]] = field(default_factory=dict)
    extractor: str = "rules"
    seed: int = 0
    llm: dict[str, Any] = field(default_factory=dict)

    def probe_config(self, decisions: int) -> Any:
        """The :class:`~textmem_gym.qa.probes.run.ProbeConfig` of a trajectory of ``decisions`` steps."""
        from textmem_gym.qa.probes.run import ProbeConfig

        return ProbeConfig(steps=probe_steps(decisions), per_kind=self.per_kind, seed=self.seed, answers=ANSWERS,
                           extractor=self.extractor, llm=dict(self.llm), options=dict(self.options),
                           budgets=tuple(self.budgets))

    def recorded(self, memory: str | Memory) -> dict[str, Any]:
        """What a record of ``memory`` keeps of the configuration (no client, address or key).

        A memory given as an object cannot say what it was built with: its records carry a run id,
        so they are never taken for another run's.

        Example:
            >>> config = BenchConfig(budgets=(256,), per_kind=2, options={"bm25": {"k1": 1.5, "api_key": "k"}})
            >>> config.recorded("bm25")
            {'budgets': [256], 'per_kind': 2, 'seed': 0, 'answers': ['recall', 'structural'], 'steps': 'middle,end', \
'extractor': 'rules', 'options': {'k1': 1.5}}
        """
        kept = {"budgets": list(self.budgets), "per_kind": self.per_kind, "seed": self.seed, "answers": list(ANSWERS),
                "steps": "middle,end", "extractor": self.extractor}
        if self.llm.get("model"):
            kept["model"] = self.llm["model"]
        if isinstance(memory, str):
            from textmem_gym.qa.probes.run import recorded_options

            kept["options"] = recorded_options(self.options.get(memory, {}))
        else:
            kept["object"] = f"{type(memory).__module__}:{type(memory).__qualname__}"
            kept["run"] = _RUN_ID
        return kept


#: Identity of this process's runs (records of memory objects carry it).
_RUN_ID = f"{time.time_ns():x}"


def record_key(row: dict[str, Any]) -> RecordKey | None:
    """The identity of a memory-bench record (``None`` for any other row).

    Example:
        >>> record_key({"kind": "memory-bench", "trajectory": "t", "trajectory_fingerprint": "f", "memory": "m",
        ...             "config": {}})
        ('t', 'f', 'm', None)
        >>> record_key({"kind": "probe"}) is None
        True
    """
    if not is_record(row):
        return None
    return (row["trajectory"], str(row.get("trajectory_fingerprint")), row["memory"], config_id(row.get("config")))


class BenchInterrupted(KeyboardInterrupt):
    """Ctrl-C during a bench: its message (the line the command prints) says what was kept.

    Args:
        recorded: Trajectory x memory records of the plan that are recorded (earlier runs included).
        planned: Records planned.
        out: The results file, or ``None`` when nothing is kept.
    """

    def __init__(self, recorded: int, planned: int, out: object | None) -> None:
        self.recorded, self.planned, self.out = recorded, planned, out
        where = (f"recorded in {out}; run the same command to resume" if out is not None
                 else "finished; none was kept (give --out to keep them)")
        super().__init__(f"interrupted: {recorded} of {planned} trajectory x memory runs {where}")


class CallLog:
    """Times every ``update`` and ``context`` call of one memory object.

    The object's two methods are replaced on the instance while it is benchmarked (:meth:`restore`
    puts them back), so it stays itself: every optional part it offers is still seen.

    Args:
        memory: The memory.
        before_update: Called with each observation before the timed ``update``.

    Example:
        >>> from textmem_gym.memory.registry import make_memory
        >>> memory = make_memory("full-history")
        >>> log = CallLog(memory)
        >>> memory.update("You see a lamp.", "", {})
        >>> memory.context("where is the lamp?", 64)
        ['step 0: You see a lamp.']
        >>> len(log.update_ms), [budget for budget, _ in log.take_contexts()]
        (1, [64])
        >>> log.restore()
    """

    def __init__(self, memory: Memory, before_update: Callable[[str], None] | None = None) -> None:
        self.memory = memory
        self.update_ms: list[float] = []
        self.contexts: list[tuple[int, float]] = []
        self._own = {name: vars(memory)[name] for name in ("update", "context") if name in vars(memory)}
        update, context = memory.update, memory.context

        def timed_update(observation: str, action: str, info: dict[str, Any]) -> None:
            if before_update is not None:
                before_update(observation)
            started = time.perf_counter()
            update(observation, action, info)
            self.update_ms.append(round(1000 * (time.perf_counter() - started), 4))

        def timed_context(question: str, budget: int) -> list[str]:
            started = time.perf_counter()
            lines = context(question, budget)
            self.contexts.append((int(budget), round(1000 * (time.perf_counter() - started), 4)))
            return lines

        memory.update = timed_update  # type: ignore[method-assign]
        memory.context = timed_context  # type: ignore[method-assign]

    def take_contexts(self) -> list[tuple[int, float]]:
        """The ``(budget, milliseconds)`` of the ``context`` calls since the last take."""
        taken, self.contexts = self.contexts, []
        return taken

    def restore(self) -> None:
        """Puts the memory's own methods back."""
        for name in ("update", "context"):
            if name in self._own:
                setattr(self.memory, name, self._own[name])
            else:
                vars(self.memory).pop(name, None)


class _TrajectoryRun:
    """One trajectory probed for some memories: their records, made as each memory finishes."""

    def __init__(self, trajectory: BenchTrajectory, specs: Sequence[str | Memory], config: BenchConfig,
                 finished: Callable[[dict[str, Any]], None]) -> None:
        from textmem_gym.qa.probes.run import build_memory

        self.trajectory, self.specs, self.config, self.finished = trajectory, list(specs), config, finished
        self.probe_config = config.probe_config(len(trajectory.commands))
        self.probed = []
        self.logs: list[CallLog] = []
        try:
            for index, spec in enumerate(self.specs):
                self.probed.append(build_memory(spec, self.probe_config, env_id=trajectory.env_id))
                self.logs.append(CallLog(self.probed[-1].memory, self._before_update(index)))
        except BaseException:
            self.close()
            raise
        self.current: int | None = None
        self.fed, self.started, self.done = 0, 0.0, set[int]()
        self.questions: dict[tuple[int, str], dict[str, Any]] = {}

    def _before_update(self, index: int) -> Callable[[str], None]:
        def before(observation: str) -> None:
            if index != self.current:
                if self.current is not None:
                    self._finish(self.current)
                self.current, self.fed, self.started = index, 0, time.perf_counter()
            if index == 0:  # the first memory fed checks the replay against the recording
                self.trajectory.check(self.fed, observation)
            self.fed += 1
        return before

    def row(self, probe_row: dict[str, Any]) -> None:
        """One probe row of the memory being fed (``probe_episode``'s progress)."""
        assert self.current is not None, "probe rows come while a memory is fed"
        entry = self.questions.setdefault((int(probe_row["step"]), probe_row["question_id"]), {
            "step": probe_row["step"], "question_id": probe_row["question_id"],
            "question_kind": probe_row["question_kind"], "question": probe_row["question"],
            "answers": probe_row["answers"], "structural_em": None, "offered": False})
        for budget, spent in self.logs[self.current].take_contexts():
            entry.setdefault("context_ms", {})[str(budget)] = spent
        entry["answer_recall"] = probe_row.get("answer_recall") or {}
        for name in ("first_mention", "context_tokens"):  # what the probe rows carry
            if probe_row.get(name) is not None:
                entry[name] = probe_row[name]
        if probe_row["answer_mode"] == "structural":
            entry["offered"] = bool(probe_row.get("offered"))
            entry["structural_em"] = probe_row.get("em") if entry["offered"] else None

    def run(self) -> None:
        """Probes every memory (records are handed to ``finished`` as each memory is done)."""
        from textmem_gym.qa.probes.run import probe_episode

        try:
            probe_episode(self.trajectory.episode(), [p.memory for p in self.probed], self.probe_config, check=False,
                          progress=self.row)
            for index in range(len(self.specs)):  # the last one fed, and any no question was asked of
                if index not in self.done:
                    self._finish(index)
        finally:
            self.close()

    def _finish(self, index: int) -> None:
        probed, log, trajectory = self.probed[index], self.logs[index], self.trajectory
        used = probed.build_tokens()
        record = {"kind": ROW_KIND, "trajectory": trajectory.name, "trajectory_fingerprint": trajectory.fingerprint,
                  "backend": trajectory.backend, "env_id": trajectory.env_id, "steps": len(trajectory.commands),
                  "memory": probed.label, "config": self.config.recorded(self.specs[index]),
                  "questions": list(self.questions.values()) if index == self.current else [],
                  "updates": len(log.update_ms), "update_ms": log.update_ms,
                  "failed_updates": probed.adopted.failed_updates(),
                  "build_tokens": used["prompt_tokens"] + used["completion_tokens"],
                  "seconds": round(time.perf_counter() - self.started, 3) if index == self.current else 0.0}
        self.done.add(index)
        self.questions = {}
        self.finished(record)

    def close(self) -> None:
        for log in self.logs:
            log.restore()
        for probed in self.probed:  # probe_episode closes the memories; the clients built here are ours
            for client in probed.clients:
                client.close()


def check_memories(memories: Sequence[str | Memory], options: dict[str, dict[str, Any]]) -> list[str]:
    """The memories' names in the rows; unknown names, repeated names and options a memory does not take
    fail here, before any replay (one line naming the bad value and the valid ones).

    Example:
        >>> check_memories(["bm25"], {"bm25": {"kk": 1}})
        Traceback (most recent call last):
        ...
        ValueError: memory 'bm25' does not accept 'kk'; it accepts: ['k1', 'b']
    """
    from textmem_gym.qa.probes.run import memory_label

    labels = []
    for spec in memories:
        if isinstance(spec, str):
            memory_factory(spec)  # an unknown name fails here (listing the known ones)
        label = memory_label(spec)
        if label in labels:
            raise ValueError(f"memory {label!r} is given twice")
        labels.append(label)
    for name, given in options.items():
        if name not in labels or not isinstance(given, dict):
            raise ValueError(f"--memory-options names {name!r}, which is not among the memories {labels} "
                             "(or its options are not a JSON object)")
        check_keywords("memory", name, memory_factory(name), given)
    return labels



def run_bench(memories: Sequence[str | Memory] = DEFAULT_MEMORIES, *, trajectories: Sequence[str] | None = None,
              budgets: Sequence[int] = BUDGETS, per_kind: int = PER_KIND,
              options: dict[str, dict[str, Any]] | None = None, extractor: str = "rules",
              llm: dict[str, Any] | None = None, out: str | Path | None = None, overwrite: bool = False,
              progress: Callable[[str], None] | None = None, max_steps: int | None = None) -> list[dict[str, Any]]:
    """Probes ``memories`` over the shipped trajectories (all, or those named); the summary rows of this plan.

    Args:
        memories: Names (``textmem_gym.memories`` entry points), ``"module:Class"`` or memory objects.
        trajectories: Names of shipped trajectories (default: all).
        budgets: Token budgets of answer recall.
        per_kind: Questions of one kind at one probed step.
        options: Options per memory name (``{"bm25": {"k1": 1.5}}``).
        extractor: Extractor of the memories that take one (``rules``; ``llm`` needs ``llm["model"]``).
        llm: Endpoint settings (``model``, ``base_url``, ``api_key``).
        out: JSONL results file: one record per trajectory x memory appended as it finishes; records it
            holds with the same trajectory, memory and configuration are not run again.
        overwrite: Drop this plan's records from ``out`` first and run them again (other rows stay).
        progress: Called with one line at the start, per skipped or finished trajectory x memory.
        max_steps: Commands replayed of each trajectory (default: all). A cut replay is another trajectory
            to resume (its fingerprint differs); records keep its ``steps``.

    Returns:
        The summary rows (:func:`~textmem_gym.qa.bench.summary.summarize`) of the plan's records, earlier
        runs' included.

    Raises:
        ValueError: An unknown memory, option or trajectory (listing the valid ones).
        TrajectoryUnavailable: A trajectory's env cannot be made here (a missing ROM, Java or NLE): before any work.
        EndpointUnavailable: The endpoint a memory is built through does not answer, refuses the key or does
            not serve the model: before any work, one line.
        ReplayMismatch: A trajectory replays differently from its recording.
        BenchInterrupted: Ctrl-C (finished records stay in ``out``).
    """
    say = progress or (lambda line: None)
    config = BenchConfig(tuple(int(b) for b in budgets), per_kind, dict(options or {}), extractor, llm=dict(llm or {}))
    config.probe_config(2)  # bad budgets, per_kind or extractor fail here
    labels = check_memories(memories, config.options)
    chosen = load_trajectories(trajectories)
    if max_steps is not None:
        if max_steps < 1:
            raise ValueError(f"max_steps must be positive, got {max_steps}")
        chosen = [replace(t, commands=t.commands[:max_steps], digests=t.digests[:max_steps + 1]) for t in chosen]
    if overwrite and out is None:
        raise ValueError("overwrite needs out (the results file whose records of this run are made again)")
    plan = {(t.name, t.fingerprint, label, config_id(config.recorded(spec))): (t, spec)
            for t in chosen for spec, label in zip(memories, labels)}
    say(f"memory-bench: {_count(len(chosen), 'trajectory', 'trajectories')} x "
        f"{_count(len(labels), 'memory', 'memories')} = {_count(len(plan), 'run', 'runs')}")
    store = ResultsFile(out) if out is not None else None
    records = {} if overwrite else _recorded(store, list(plan), say)
    unfinished = [t for t in chosen if any(key not in records for key, (p, _) in plan.items() if p is t)]
    if unfinished:
        say(f"checking that {_count(len(unfinished), 'trajectory', 'trajectories')} can be played here")
        check_playable(unfinished)  # before any work, and before overwrite drops anything
        if _uses_endpoint(memories, config):  # a dead or wrong endpoint fails here, in one line
            from textmem_gym.llm.client import preflight

            preflight(config.llm.get("model"), config.llm.get("base_url"), config.llm.get("api_key"))
    if overwrite and store is not None:
        dropped = store.drop(set(plan), key=record_key)
        say(f"overwrite: dropped {dropped} records of this run from {store.path}; running them again")
    started = time.perf_counter()

    def finished(record: dict[str, Any]) -> None:
        key = record_key(record)
        assert key is not None
        if store is not None:
            store.append(record)
        records[key] = record
        done = sum(1 for k in plan if k in records)
        top = max(config.budgets)
        say(f"[{done}/{len(plan)}] {record['trajectory']} x {record['memory']}: {len(record['questions'])} questions, "
            f"R@{top} {_recall(record, top)}, {record['seconds']:.1f} s ({time.perf_counter() - started:.0f} s in all)")

    try:
        for trajectory in chosen:
            pending = [spec for key, (t, spec) in plan.items() if t is trajectory and key not in records]
            if pending:
                say(f"{trajectory.name}: {trajectory.describe()}; replaying for "
                    f"{_count(len(pending), 'memory', 'memories')}")
                _TrajectoryRun(trajectory, pending, config, finished).run()
    except KeyboardInterrupt:
        raise BenchInterrupted(sum(1 for k in plan if k in records), len(plan), out) from None
    return summarize([records[key] for key in plan if key in records], labels)


def _uses_endpoint(memories: Sequence[str | Memory], config: BenchConfig) -> bool:
    """Whether a memory is built through the endpoint: the ``llm`` extractor, or a factory taking its settings."""
    if not config.llm.get("model"):
        return False
    return config.extractor == "llm" or any(
        isinstance(spec, str) and endpoint_options(memory_factory(spec), config.llm) for spec in memories)


def _count(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def _recall(record: dict[str, Any], budget: int) -> str:
    asked = [bool((q.get("answer_recall") or {}).get(str(budget))) for q in record["questions"]]
    return f"{100 * sum(asked) / len(asked):.0f}%" if asked else "-"


def _recorded(store: ResultsFile | None, planned: Sequence[RecordKey],
              say: Callable[[str], None]) -> dict[Hashable, dict[str, Any]]:
    """The records of ``store`` by key; a line says how many of the plan are skipped."""
    if store is None:
        return {}
    records: dict[Hashable, dict[str, Any]] = {}
    for row in store.read():
        key = record_key(row)
        if key is not None:
            records.setdefault(key, row)
    skipped = sum(1 for key in planned if key in records)
    if skipped:
        say(f"skipped {skipped} of {len(planned)} trajectory x memory runs already recorded in {store.path} with the "
            "same trajectory, memory and configuration; --overwrite runs them again")
    return records


__all__ = ["ANSWERS", "DEFAULT_MEMORIES", "PER_KIND", "ROW_KIND", "BenchConfig", "BenchInterrupted", "CallLog",
           "check_memories", "format_bench_table", "probe_steps", "record_key", "run_bench", "summarize"]
