"""Running QA methods over questions: one results row per (question, method, configuration),
resumable, and the papers' QA protocols with their tables.

:func:`run_methods` asks every question of every method (``workers`` threads, each with its own
method objects; the driver alone writes rows). Rows are appended to a JSONL file through
:class:`~textmem_gym.results.ResultsFile` (atomic lines, a cut-off line dropped); a re-run skips the
rows the file holds (:func:`qa_key`: dataset, question id, method, configuration id), so nothing is
asked or written twice. QA rows carry ``"kind": "qa"``; :func:`summarize_qa` aggregates them per
dataset x method (EM, F1, tokens per question split into building and answering, calls, parse
failures, fallbacks, latency, cost, answer recall and supporting-paragraph recall).

**Recall with no model.** Every row of a method offering the optional part ``recall``
(:class:`~textmem_gym.qa.api.Recalls`: the paragraph methods and every ``memory:NAME``) also holds
``answer_recall`` (budget -> whether a gold answer or alias is in its context cut to that many
tokens, :func:`textmem_gym.qa.recall.answer_recalled`, at :data:`~textmem_gym.qa.recall.BUDGETS`;
``None`` for a yes/no question, whose answer is no span of a context) and ``support_recall``
(k -> the share of the question's supporting paragraphs among its first k,
:func:`~textmem_gym.qa.recall.paragraph_recall`, at :data:`~textmem_gym.qa.recall.PARAGRAPH_KS`;
``None`` when the method ranks no paragraphs: "not offered") and ``first_mention`` (budget -> whether
the first candidate answer the context cut to that many tokens names is a gold one,
:func:`~textmem_gym.qa.recall.mentioned_first`, over the candidates of :func:`qa_candidates`: the gold
answer and its aliases, against the titles of the question's paragraphs, the entities its documents
are about; ``None`` for a yes/no question and for one that names its own answer, such as a
comparison "which is older, A or B?"). Keys are strings (``"256"``, ``"2"``), as JSON keeps them.
Rows of other methods hold ``None`` for all three. With ``answer=False`` no model is asked: rows
hold only the recall (``prediction``, ``em`` and ``f1`` are ``None``) and their configuration is
marked ``"recall_only": true``, so they never stand for answered rows.

A :class:`QAProtocol` says what a paper ran (datasets, sample, methods and the paper's row for
each); :func:`run_protocol` samples each dataset as the paper did
(:func:`textmem_gym.qa.sampling.sample`), runs the methods and returns the rows;
:func:`format_protocol` prints them beside the paper's published numbers (and token use beside the
paper's cost table when it has one).

Example:
    >>> from textmem_gym.qa.data import Paragraph, QAExample
    >>> p = Paragraph("Vellmar Island", "A lighthouse stands here.", ("A lighthouse stands here.",), True)
    >>> ex = QAExample("q1", "hotpotqa", "What stands on Vellmar Island?", ("a lighthouse",), (p,),
    ...                (("Vellmar Island", 0),), 1, "bridge")
    >>> from textmem_gym.llm import LocalOpenAIServer
    >>> with LocalOpenAIServer(script=['{"chain_of_thought": "-", "direct_answer": "A lighthouse"}']) as server:
    ...     rows = run_methods([ex], [MethodSpec("gold", {"model": "m", "base_url": server.base_url})])
    >>> rows[0]["em"], rows[0]["f1"], rows[0]["method"]
    (1.0, 1.0, 'gold')
    >>> summarize_qa(rows)[0]["em"], rows[0]["answer_recall"]["256"], rows[0]["support_recall"]
    (100.0, True, {'2': 1.0, '5': 1.0})
    >>> rows[0]["first_mention"]["256"]  # the only paragraph's title is named by the question: no rival
    True
    >>> run_methods([ex], [MethodSpec("full-context")], answer=False)[0]["support_recall"] is None  # no model
    True
"""

from __future__ import annotations

import statistics
import threading
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from textmem_gym.qa.api import QAMethod, Recalls, make_method
from textmem_gym.qa.data import QAExample
from textmem_gym.qa.recall import (
    BUDGETS,
    PARAGRAPH_KS,
    answer_recalled,
    contains,
    mentioned_first,
    paragraph_recall,
    targets_of,
)
from textmem_gym.qa.scoring import normalize_answer, score
from textmem_gym.results import ResultsFile, config_id

#: The ``kind`` of a QA results row.
ROW_KIND = "qa"
#: A QA row's identity: dataset, question id, method, configuration id.
QAKey = tuple[str, str, str, "str | None"]
#: Per-question means of :func:`summarize_qa` (row field -> summary field).
MEAN_FIELDS = {"prompt_tokens": "prompt_tokens", "completion_tokens": "completion_tokens",
               "build_prompt_tokens": "build_prompt_tokens", "answer_prompt_tokens": "answer_prompt_tokens",
               "calls": "calls", "latency_s": "latency_s"}
#: Answers that are no span of a context: a question answered only by them has no answer recall.
YES_NO = frozenset({"yes", "no"})


@dataclass(frozen=True)
class MethodSpec:
    """A method to run: its registry name and constructor options (model, endpoint, top-k...).

    Example:
        >>> MethodSpec("bm25", {"top_k": 3}).name
        'bm25'
    """

    name: str
    options: dict[str, Any] = field(default_factory=dict)

    def build(self) -> QAMethod:
        """A new method object."""
        return make_method(self.name, **self.options)


def qa_key(row: dict[str, Any]) -> QAKey:
    """The identity of a QA row (configuration by :func:`~textmem_gym.results.config_id`).

    Example:
        >>> qa_key({"dataset": "musique", "question_id": "2hop_1", "method": "bm25", "config": {"top_k": 3}})[:3]
        ('musique', '2hop_1', 'bm25')
    """
    return (row["dataset"], row["question_id"], row["method"], config_id(row.get("config")))


def row_config(method: QAMethod, answer: bool = True) -> dict[str, Any]:
    """The configuration a row of ``method`` records (marked ``recall_only`` when no model answers)."""
    return dict(method.config) if answer else {**method.config, "recall_only": True}


def question_row(example: QAExample, method: QAMethod, protocol: str | None = None, *,
                 answer: bool = True) -> dict[str, Any]:
    """One question's results row: ``method``'s answer, EM/F1 and what it cost (unless ``answer``
    is false: no model is asked), and its recall (see the module docstring)."""
    row: dict[str, Any] = {
        "kind": ROW_KIND, "protocol": protocol, "dataset": example.dataset, "question_id": example.id,
        "question": example.question, "answers": list(example.answers), "hops": example.hops,
        "question_type": example.kind, "paragraphs": len(example.paragraphs), "method": method.name,
        "config": row_config(method, answer)}
    if answer:
        given = method.answer(example.question, example.paragraphs)
        row.update(given.as_row())
        row.update(score(given.text, example))
    else:
        row.update(prediction=None, em=None, f1=None)
    return {**row, **recall_fields(example, method)}


def qa_candidates(example: QAExample) -> tuple[list[str], list[str], list[str]] | None:
    """The gold names, rivals and neutral names first-mention accuracy reads for a QA question.

    Gold: the answer and its aliases. Rivals: the titles of the question's paragraphs (supporting
    and distractors: the entities its documents are about, the answers a reader could take
    instead, such as a bridge entity or a distractor of the same kind). Neutral: the titles the
    question itself names (read and skipped: they are its subject, not an answer). ``None`` (not
    measured) for a yes/no question and for one whose text names a gold answer (a comparison).

    Example:
        >>> from textmem_gym.qa.data import Paragraph
        >>> paragraphs = tuple(Paragraph(t, "...", ("...",), True) for t in ("Ann Lee", "Firm 3", "Bell 3"))
        >>> qa_candidates(QAExample("q", "musique", "Who founded the maker of Bell 3?", ("Ann Lee", "Ann B. Lee"),
        ...                         paragraphs, (), 2, "2hop"))
        (['Ann Lee', 'Ann B. Lee'], ['Firm 3'], ['Bell 3'])
        >>> qa_candidates(QAExample("q", "hotpotqa", "Which is older, Firm 3 or Bell 3?", ("Bell 3",), paragraphs,
        ...                         (), 2, "comparison")) is None
        True
    """
    gold = [a for a in example.answers if normalize_answer(a) and normalize_answer(a) not in YES_NO]
    if not gold or any(contains(example.question, a) for a in gold):
        return None
    titles = list(dict.fromkeys(p.title for p in example.paragraphs if normalize_answer(p.title)))
    neutral = [t for t in titles if contains(example.question, t)]
    golds = {normalize_answer(a) for a in gold}
    rivals = [t for t in titles if t not in neutral and normalize_answer(t) not in golds]
    return gold, rivals, neutral


def recall_fields(example: QAExample, method: QAMethod) -> dict[str, Any]:
    """``answer_recall``, ``first_mention``, ``support_recall`` and ``recall_latency_s`` of one question
    (all ``None`` when ``method`` offers no ``recall``)."""
    if not isinstance(method, Recalls):
        return {"answer_recall": None, "first_mention": None, "support_recall": None, "recall_latency_s": None}
    started = time.perf_counter()
    recalled = method.recall(example.question, example.paragraphs, BUDGETS, max(PARAGRAPH_KS))
    latency = time.perf_counter() - started
    answers = [a for a in example.answers if normalize_answer(a) not in YES_NO]
    targets = targets_of(answers)
    found = {str(b): answer_recalled(recalled.contexts[b], targets, b) for b in BUDGETS} if answers else None
    candidates = qa_candidates(example)
    first = None if candidates is None else \
        {str(b): mentioned_first(recalled.contexts[b], candidates[0], candidates[1], b, neutral=candidates[2])
         for b in BUDGETS}
    supporting = {i for i, p in enumerate(example.paragraphs) if p.is_supporting}
    support = None if recalled.sources is None else \
        {str(k): paragraph_recall(recalled.sources, supporting, k) for k in PARAGRAPH_KS}
    return {"answer_recall": found, "first_mention": first, "support_recall": support,
            "recall_latency_s": round(latency, 4)}


class _Workers:
    """One set of method objects per worker thread (a method holds per-question state)."""

    def __init__(self) -> None:
        self._local = threading.local()
        self._built: list[QAMethod] = []
        self._lock = threading.Lock()

    def method(self, spec: MethodSpec) -> QAMethod:
        methods: dict[int, QAMethod] | None = getattr(self._local, "methods", None)
        if methods is None:
            methods = self._local.methods = {}
        if id(spec) not in methods:
            built = methods[id(spec)] = spec.build()
            with self._lock:
                self._built.append(built)
        return methods[id(spec)]

    def close(self) -> None:
        for method in self._built:
            method.close()


def run_methods(examples: Sequence[QAExample], methods: Sequence[MethodSpec], *, out: str | Path | None = None,
                workers: int = 1, protocol: str | None = None,
                progress: Callable[[dict[str, Any]], None] | None = None,
                answer: bool = True) -> list[dict[str, Any]]:
    """Asks every question of ``examples`` of every method; one row per (question, method, configuration).

    Args:
        examples: The questions.
        methods: The methods, by :class:`MethodSpec`.
        out: JSONL results file: rows are appended as they finish; rows it already holds are
            returned as they are and not asked again.
        workers: Questions asked at once (threads; each keeps its own method objects).
        protocol: The protocol name recorded in each row.
        progress: Called with each new row.
        answer: Ask the model (else only the recall of the methods offering it: no model asked).

    Returns:
        The rows, ``methods`` order then ``examples`` order.
    """
    if workers < 1:
        raise ValueError(f"workers must be >= 1, got {workers}")
    store = ResultsFile(out) if out is not None else None
    done = {qa_key(r): r for r in (store.read() if store else []) if r.get("kind") == ROW_KIND}
    names = {id(spec): _identity(spec, answer) for spec in methods}
    jobs = [(spec, ex) for spec in methods for ex in examples
            if (ex.dataset, ex.id, *names[id(spec)]) not in done]
    pool = _Workers()
    new: dict[QAKey, dict[str, Any]] = {}
    try:
        with ThreadPoolExecutor(max_workers=workers) as executor:
            futures = [executor.submit(_ask, pool, spec, ex, protocol, answer) for spec, ex in jobs]
            for future in as_completed(futures):
                row = future.result()
                if store is not None:
                    store.append(row)
                new[qa_key(row)] = row
                if progress is not None:
                    progress(row)
    finally:
        pool.close()
    found = {**done, **new}
    return [found[key] for spec in methods for ex in examples
            if (key := (ex.dataset, ex.id, *names[id(spec)])) in found]


def _ask(pool: _Workers, spec: MethodSpec, example: QAExample, protocol: str | None,
         answer: bool) -> dict[str, Any]:
    """One question's row, asked of the calling worker's method object."""
    return question_row(example, pool.method(spec), protocol, answer=answer)


def _identity(spec: MethodSpec, answer: bool) -> tuple[str, str | None]:
    """The method name and configuration id of the rows ``spec`` writes (a method object is built to
    read them: ``"memory"`` with a memory writes ``"memory:NAME"``)."""
    method = spec.build()
    try:
        return method.name, config_id(row_config(method, answer))
    finally:
        method.close()


def summarize_qa(rows: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """One summary per (dataset, method, configuration): ``n``, ``em`` and ``f1`` in percent
    (``None`` when no model answered), the per-question means of :data:`MEAN_FIELDS`,
    ``parse_failures`` (count and ``parse_failure_rate``), ``fallbacks`` by cause, ``cost_usd``
    (total, ``None`` when no row was priced), ``answer_recall`` (budget -> percent of the questions
    with answer recall), ``first_mention`` (budget -> percent of the questions measured whose first
    candidate named is gold) and ``support_recall`` (k -> mean recall@k in percent), each ``None`` where
    not offered, and ``recall_only``."""
    groups: dict[tuple[str, str, str | None], list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        if row.get("kind") == ROW_KIND:
            groups[(row["dataset"], row["method"], config_id(row.get("config")))].append(row)
    return [_summary(items) for _, items in sorted(groups.items(), key=lambda kv: (kv[0][0], kv[0][1], kv[0][2] or ""))]


def _summary(items: list[dict[str, Any]]) -> dict[str, Any]:
    first = items[0]
    costs = [r["cost_usd"] for r in items if r.get("cost_usd") is not None]
    failures = sum(bool(r.get("parse_failed")) for r in items)
    summary: dict[str, Any] = {"dataset": first["dataset"], "method": first["method"], "config": first.get("config"),
                               "n": len(items), "em": _percent(r.get("em") for r in items),
                               "f1": _percent(r.get("f1") for r in items),
                               "recall_only": bool((first.get("config") or {}).get("recall_only")),
                               "answer_recall": _recall(items, "answer_recall", BUDGETS),
                               "first_mention": _recall(items, "first_mention", BUDGETS),
                               "support_recall": _recall(items, "support_recall", PARAGRAPH_KS)}
    summary.update({name: statistics.fmean(float(r.get(field_) or 0) for r in items)
                    for field_, name in MEAN_FIELDS.items()})
    summary.update(parse_failures=failures, parse_failure_rate=failures / len(items),
                   fallbacks=dict(Counter(r["fallback"] for r in items if r.get("fallback"))),
                   cost_usd=sum(costs) if costs else None)
    return summary


def _percent(values: Iterable[float | None]) -> float | None:
    """The mean of the values given, in percent (``None`` when there is none)."""
    given = [float(v) for v in values if v is not None]
    return 100 * statistics.fmean(given) if given else None


def _recall(items: list[dict[str, Any]], field_: str, keys: Sequence[int]) -> dict[int, float | None] | None:
    """Key -> mean of ``row[field_][key]`` in percent over the rows holding one (``None``: offered by no row)."""
    offered = [r[field_] for r in items if r.get(field_) is not None]
    return {k: _percent(r.get(str(k)) for r in offered) for k in keys} if offered else None


#: The fields of :func:`recall_cells`, in order, with their keys.
_RECALL_FIELDS = (("answer_recall", BUDGETS), ("support_recall", PARAGRAPH_KS), ("first_mention", BUDGETS))


def recall_cells(summary: dict[str, Any]) -> list[str]:
    """A summary's answer recall at each budget, support recall at each k, then first-mention accuracy
    at each budget, as table cells: integer percentages (``-``: not offered).

    Example:
        >>> recall_cells({"answer_recall": {256: 50.0, 512: 75.0, 1024: 100.0, 2048: 100.0}, "support_recall": None,
        ...               "first_mention": {256: 25.0, 512: 50.0, 1024: 50.0, 2048: 62.5}})
        ['50', '75', '100', '100', '-', '-', '25', '50', '50', '62']
    """
    cells = []
    for field_, keys in _RECALL_FIELDS:
        values = summary.get(field_) or {}
        cells += [f"{values[k]:.0f}" if values.get(k) is not None else "-" for k in keys]
    return cells


#: Headings of :func:`recall_cells` (``AR@B``: answer recall at B tokens; ``SR@k``: supporting-paragraph
#: recall@k; ``FM@B``: first-mention accuracy at B tokens).
RECALL_HEADINGS = [f"AR@{b}" for b in BUDGETS] + [f"SR@{k}" for k in PARAGRAPH_KS] + [f"FM@{b}" for b in BUDGETS]
#: The line explaining :data:`RECALL_HEADINGS` under a table.
RECALL_LEGEND = ("percent (0-100). AR@B: questions whose gold answer or an alias is in the method's context cut to "
                 "B tokens (yes/no questions left out); SR@k: mean share of supporting paragraphs among the k it "
                 "ranks first; FM@B: questions whose first candidate answer (the gold answer, its aliases and the "
                 "titles of the question's paragraphs) named in that context is the gold one (yes/no and comparison "
                 "questions left out); -: not offered")


def _number(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}"


def format_summary(summaries: Sequence[dict[str, Any]]) -> str:
    """A markdown table of :func:`summarize_qa` (EM/F1, tokens per question, answer and support recall
    per dataset x method; ``-``: no model answered, or recall not offered).

    Example:
        >>> lines = format_summary([{"dataset": "musique", "method": "bm25", "n": 2, "em": 50.0, "f1": 62.5,
        ...     "prompt_tokens": 400.0, "build_prompt_tokens": 0.0, "answer_prompt_tokens": 400.0,
        ...     "completion_tokens": 20.0, "calls": 1.0, "parse_failures": 0, "fallbacks": {},
        ...     "answer_recall": {256: 50.0, 512: 100.0, 1024: 100.0, 2048: 100.0},
        ...     "support_recall": {2: 75.0, 5: 100.0}}]).splitlines()
        >>> print(lines[0][:109])
        | dataset | method | n | EM | F1 | prompt tok/q | build | answer | completion/q | calls | unparsed | fallback
        >>> print(lines[2][:55])
        | musique | bm25 | 2 | 50.0 | 62.5 | 400 | 0 | 400 | 20
        >>> lines[0].split(" | ")[-10:-4]
        ['AR@256', 'AR@512', 'AR@1024', 'AR@2048', 'SR@2', 'SR@5']
        >>> lines[2].split(" | ")[-10:]
        ['50', '100', '100', '100', '75', '100', '-', '-', '-', '- |']
    """
    header = ["dataset", "method", "n", "EM", "F1", "prompt tok/q", "build", "answer", "completion/q", "calls",
              "unparsed", "fallback", *RECALL_HEADINGS]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for s in summaries:
        fallbacks = ", ".join(f"{k}: {v}" for k, v in sorted(s["fallbacks"].items())) or "-"
        cells = [s["dataset"], s["method"], str(s["n"]), _number(s["em"]), _number(s["f1"]),
                 f"{s['prompt_tokens']:.0f}", f"{s['build_prompt_tokens']:.0f}", f"{s['answer_prompt_tokens']:.0f}",
                 f"{s['completion_tokens']:.0f}", f"{s['calls']:.1f}", str(s["parse_failures"]), fallbacks,
                 *recall_cells(s)]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


# -- the papers' protocols --------------------------------------------------------------------------


@dataclass(frozen=True)
class QAProtocol:
    """A paper's multi-hop QA protocol.

    Attributes:
        name: Registry name (``textmem-gym reproduce NAME``) and data file stem.
        title: One line naming the paper and its table.
        sampling: The sample of each dataset (a key of :data:`textmem_gym.qa.sampling.PROTOCOLS`).
        datasets: The datasets, in the paper's column order.
        methods: Our methods run by default, in order.
        method_rows: Our method -> the paper's row(s) for the same method.
        shown_rows: More published rows always shown (the paper's own method and baselines).
        method_options: Our method -> options the protocol sets (top-k, episodes...).
    """

    name: str
    title: str
    sampling: str
    datasets: tuple[str, ...]
    methods: tuple[str, ...]
    method_rows: dict[str, tuple[str, ...]] = field(default_factory=dict)
    shown_rows: tuple[str, ...] = ()
    method_options: dict[str, dict[str, Any]] = field(default_factory=dict)


@dataclass
class ProtocolRun:
    """What :func:`run_protocol` ran: the rows, the methods left out with the reason, and whether a
    model answered (else the rows hold only recall)."""

    rows: list[dict[str, Any]]
    skipped: dict[str, str] = field(default_factory=dict)
    answered: bool = True


def run_protocol(protocol: QAProtocol, data: Mapping[str, Sequence[QAExample]], *, methods: Sequence[str] | None = None,
                 llm_options: dict[str, Any] | None = None, limit: int | None = None, out: str | Path | None = None,
                 workers: int = 1, progress: Callable[[dict[str, Any]], None] | None = None,
                 answer: bool = True) -> ProtocolRun:
    """Samples each dataset of ``data`` as the paper did and runs the methods over the sample.

    A method that cannot run on the endpoint (``unavailable()`` gives a reason: embeddings on a
    server serving none) is left out and listed in :attr:`ProtocolRun.skipped`; with ``answer``
    false (no model), so is a method offering no ``recall`` (it has no context without a model).

    Args:
        protocol: The protocol.
        data: Dataset name -> its examples in file order (as :func:`textmem_gym.qa.data.load_dataset` reads them).
        methods: Our methods to run (default: the protocol's).
        llm_options: Endpoint options of every method (``model``, ``base_url``, ``api_key``, ``client_options``).
        limit: Ask only the first ``limit`` questions of each sample.
        out, workers, progress, answer: As for :func:`run_methods`.

    Raises:
        ValueError: If ``data`` lacks one of the protocol's datasets.
    """
    from textmem_gym.qa.sampling import sample

    missing = [d for d in protocol.datasets if d not in data]
    if missing:
        raise ValueError(f"{protocol.name} needs the datasets {', '.join(protocol.datasets)}; missing: {missing}")
    specs = [MethodSpec(m, {**protocol.method_options.get(m, {}), **(llm_options or {})})
             for m in (methods or protocol.methods)]
    skipped = {spec.name: reason for spec in specs if (reason := _unavailable(spec, answer))}
    examples = [ex for d in protocol.datasets for ex in sample(list(data[d]), protocol.sampling, limit=limit)]
    rows = run_methods(examples, [s for s in specs if s.name not in skipped], out=out, workers=workers,
                       protocol=protocol.name, progress=progress, answer=answer)
    return ProtocolRun(rows, skipped, answered=answer)


def _unavailable(spec: MethodSpec, answer: bool = True) -> str | None:
    """Why the method cannot run (no context without a model; its optional ``unavailable()``), else ``None``."""
    method = spec.build()
    try:
        if not answer and not isinstance(method, Recalls):
            return "needs a model: it has no context without one"
        check = getattr(method, "unavailable", None)
        return check() if check is not None else None
    finally:
        method.close()


def reproduce(protocol: QAProtocol, published: dict[str, Any], *, data_dir: str | Path | None,
              download: bool = False, **options: Any) -> str:
    """Reads the protocol's datasets from ``data_dir``, runs it (``options`` of :func:`run_protocol`)
    and returns its table beside ``published`` (the paper's numbers)."""
    from textmem_gym.qa.data import load_dataset

    data = {name: load_dataset(name, data_dir, download=download) for name in protocol.datasets}
    return format_protocol(protocol, run_protocol(protocol, data, **options), published)


def format_protocol(protocol: QAProtocol, run: ProtocolRun, published: dict[str, Any]) -> str:
    """Our EM/F1 per dataset and method beside the paper's rows, answer and supporting-paragraph
    recall per method and dataset, then tokens per question (beside the paper's cost table when
    ``published`` has ``costs``), parse failures and fallbacks. When no model answered
    (``run.answered`` false): the recall table alone."""
    summaries = summarize_qa(run.rows)
    lines = [protocol.title, f"paper: {published.get('paper', '')}; numbers from {published.get('source', '')}",
             f"metric: {published.get('metric', '')}; our sample: {protocol.sampling} "
             f"({', '.join(sorted({str(s['n']) for s in summaries}) or '0')} questions per dataset)", ""]
    if not run.answered:
        lines += ["no model asked: answer recall and supporting-paragraph recall only", "",
                  *recall_table(protocol, summaries, run.rows)]
        return "\n".join(lines + [f"- {name}: not run ({reason})" for name, reason in run.skipped.items()])
    lines += _score_table(protocol, summaries, published)
    lines += [f"- {name}: not run ({reason})" for name, reason in run.skipped.items()]
    lines += ["", *recall_table(protocol, summaries, run.rows)]
    lines += ["", "tokens per question, parse failures, fallbacks:", "", format_summary(summaries)]
    return "\n".join(lines + _costs(summaries, published))


def recall_table(protocol: QAProtocol, summaries: Sequence[dict[str, Any]],
                 rows: Sequence[dict[str, Any]] = ()) -> list[str]:
    """Lines of a markdown table: answer recall at each budget and support recall@k per method (in
    the order of ``rows``, else by name) x dataset (the protocol's order), with its legend."""
    header = ["method", "dataset", "n", *RECALL_HEADINGS]
    lines = ["answer recall at a token budget, supporting-paragraph recall@k (no model needed):", "",
             "| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    ours = {(s["dataset"], s["method"]): s for s in summaries}
    for method in dict.fromkeys([*(r["method"] for r in rows), *(s["method"] for s in summaries)]):
        for dataset in protocol.datasets:
            if (summary := ours.get((dataset, method))) is not None:
                cells = [method, dataset, str(summary["n"]), *recall_cells(summary)]
                lines.append("| " + " | ".join(cells) + " |")
    return lines + ["", RECALL_LEGEND]


def _score_table(protocol: QAProtocol, summaries: Sequence[dict[str, Any]], published: dict[str, Any]) -> list[str]:
    """Lines of the EM/F1 table: our methods, then the paper's rows."""
    labels = published.get("column_labels", {})
    lines: list[str] = []
    header = ["method", "paper row"] + [f"{labels.get(d, d)} {m}" for d in protocol.datasets for m in ("EM", "F1")]
    lines += ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    ours = {(s["dataset"], s["method"]): s for s in summaries}
    for method in dict.fromkeys(s["method"] for s in summaries):
        cells = [f"ours: {method}", ", ".join(protocol.method_rows.get(method, ())) or "-"]
        cells += [_ours(ours.get((d, method)), m) for d in protocol.datasets for m in ("em", "f1")]
        lines.append("| " + " | ".join(cells) + " |")
    shown = [r for m in dict.fromkeys(s["method"] for s in summaries) for r in protocol.method_rows.get(m, ())]
    for row in dict.fromkeys([*shown, *protocol.shown_rows]):
        values = published.get("rows", {}).get(row, {})
        cells = [f"paper: {row}", row] + [_published(values.get(d), m) for d in protocol.datasets for m in ("em", "f1")]
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def _ours(summary: dict[str, Any] | None, metric: str) -> str:
    return "-" if summary is None or summary[metric] is None else f"{summary[metric]:.1f} (n={summary['n']})"


def _published(values: dict[str, float] | None, metric: str) -> str:
    return f"{values[metric]:.1f}" if values and metric in values else "-"


def _costs(summaries: Sequence[dict[str, Any]], published: dict[str, Any]) -> list[str]:
    """Tokens per question of each method beside the paper's cost table (when it has one)."""
    costs = published.get("costs")
    if not costs:
        return []
    lines = ["", f"token use per question beside the paper's {costs['source']}:", "",
             "| who | prompt tokens/q | of which building | completion tokens/q |", "|---|---|---|---|"]
    by_method: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for s in summaries:
        by_method[s["method"]].append(s)
    for method, items in by_method.items():
        weights = [s["n"] for s in items]
        mean = {k: sum(s[k] * w for s, w in zip(items, weights)) / sum(weights)
                for k in ("prompt_tokens", "build_prompt_tokens", "completion_tokens")}
        lines.append(f"| ours: {method} | {mean['prompt_tokens']:.0f} | {mean['build_prompt_tokens']:.0f} | "
                     f"{mean['completion_tokens']:.0f} |")
    for row, values in costs["rows"].items():
        lines.append(f"| paper: {row} | {values['prompt_tokens']:,} | - | {values['completion_tokens']:,} |")
    return lines


__all__ = ["MEAN_FIELDS", "RECALL_HEADINGS", "RECALL_LEGEND", "ROW_KIND", "YES_NO", "MethodSpec", "ProtocolRun",
           "QAKey", "QAProtocol", "format_protocol", "format_summary", "qa_candidates", "qa_key", "question_row",
           "recall_cells",
           "recall_fields", "recall_table", "reproduce", "row_config", "run_methods", "run_protocol", "summarize_qa"]
