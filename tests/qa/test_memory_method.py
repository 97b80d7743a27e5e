"""Any memory through the QA protocols: a memory in two methods (the classes below) as an object, as a
class and as ``memory:module:Class``, answered by the real local OpenAI-compatible server (the rule
reader of textmem_gym.qa.testing); answer recall at each budget and supporting-paragraph recall@k on a
hand-made question; the no-model mode of ``reproduce`` end to end on the shipped synthetic data."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from textmem_gym.cli import main
from textmem_gym.llm import LocalOpenAIServer
from textmem_gym.memory.budget import fit_budget
from textmem_gym.qa.api import make_method
from textmem_gym.qa.data import Paragraph, QAExample, load_dataset, shipped_data_dir
from textmem_gym.qa.methods.memory import MemoryQA
from textmem_gym.qa.run import MethodSpec, question_row, run_methods, summarize_qa
from textmem_gym.qa.scoring import normalize_answer
from textmem_gym.qa.testing import ContextReader

NOTES = f"memory:{__name__}:Notes"


def words(text: str) -> set[str]:
    return set(normalize_answer(text).split())


class Notes:
    """A memory in two methods: every update kept; the context is the updates sharing most words
    with the question, best first, within the budget."""

    def __init__(self) -> None:
        self.lines: list[str] = []

    def update(self, observation: str, action: str, info: dict) -> None:
        self.lines.append(observation)

    def ranked(self, question: str) -> list[int]:
        asked = words(question)
        return sorted(range(len(self.lines)), key=lambda i: (-len(asked & words(self.lines[i])), i))

    def context(self, question: str, budget: int) -> list[str]:
        return fit_budget([self.lines[i] for i in self.ranked(question)], budget)


class RankedNotes(Notes):
    """Notes with the optional part ``sources``: the updates it recalls, ranked."""

    def sources(self, question: str, k: int) -> list[int]:
        return self.ranked(question)[:k]


class Scripted:
    """A memory whose context and sources are given (for hand-computed recall); it records what it is fed."""

    def __init__(self, lines: list[str], sources: list[int] | None = None) -> None:
        self.lines, self.given = lines, sources
        self.fed: list[tuple[str, str, dict]] = []

    def update(self, observation: str, action: str, info: dict) -> None:
        self.fed.append((observation, action, info))

    def context(self, question: str, budget: int) -> list[str]:
        return list(self.lines)  # ignores its budget: the recall cuts it

    def sources(self, question: str, k: int) -> list[int]:
        return list(self.given or [])[:k]


def shipped() -> list[QAExample]:
    return [ex for name in ("hotpotqa", "musique") for ex in load_dataset(name, shipped_data_dir())]


def read_rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def hand_made(answers: tuple[str, ...] = ("Orsk Glassworks", "Orsk & Sons")) -> QAExample:
    paragraphs = (Paragraph("Vellmar Lighthouse", "Built by Orsk Glassworks.", (), True),
                  Paragraph("Orsk", "A town.", (), True),
                  Paragraph("Tallow Bay", "Built on calm water.", (), False),
                  Paragraph("Kestrel Hill", "A hill.", (), False))
    return QAExample("q1", "musique", "Who built Vellmar Lighthouse?", answers, paragraphs, (), 2, "2hop")


FILLER = "x" * 1200  # 300 approximate tokens: pushes what follows past a 256-token budget


@pytest.mark.parametrize(("lines", "expected"), [
    (["Vellmar Lighthouse: Built by Orsk Glassworks."], {"256": True, "512": True, "1024": True, "2048": True}),
    ([FILLER, "Orsk Glassworks"], {"256": False, "512": True, "1024": True, "2048": True}),  # cut by 256
    ([FILLER, FILLER, FILLER, "it was Orsk & Sons"], {"256": False, "512": False, "1024": True, "2048": True}),  # alias
    (["Orsk built it", "Glassworks"], {"256": False, "512": False, "1024": False, "2048": False}),  # not the answer
])
def test_answer_recall_at_each_budget_on_a_hand_made_question(lines, expected):
    method = MemoryQA(memory=Scripted(lines, [2, 0, 3]))
    row = question_row(hand_made(), method, answer=False)
    assert row["answer_recall"] == expected
    assert row["support_recall"] == {"2": 0.5, "5": 0.5}  # supporting 0 and 1; ranked 2, 0, 3
    assert row["prediction"] is None and row["em"] is None and row["config"]["recall_only"] is True


def test_support_recall_is_not_offered_without_sources_and_yes_no_has_no_answer_recall():
    row = question_row(hand_made(), MemoryQA(memory=Notes()), answer=False)
    assert row["support_recall"] is None and row["answer_recall"]["256"] is True
    assert question_row(hand_made(("yes",)), MemoryQA(memory=Notes()), answer=False)["answer_recall"] is None
    ranked = question_row(hand_made(), MemoryQA(memory=RankedNotes()), answer=False)
    assert ranked["support_recall"] == {"2": 0.5, "5": 1.0}  # lighthouse (3 words), Tallow Bay (built), then Orsk


def test_the_memory_reads_each_paragraph_once_in_file_order_and_is_not_told_the_question():
    memory = Scripted(["Orsk Glassworks"])
    method = MemoryQA(memory=memory)
    example = hand_made()
    method.recall(example.question, example.paragraphs, [256], 2)
    fed = method.memory.fed
    assert [o for o, _, _ in fed] == [f"{p.title}: {p.text}" for p in example.paragraphs]
    assert [info for _, _, info in fed] == [{"title": p.title, "index": i} for i, p in enumerate(example.paragraphs)]
    assert all(a == "" and example.question not in o for o, a, _ in fed)
    assert memory.fed == []  # the object given is copied, never changed


def test_each_question_gets_a_fresh_memory():
    method = MemoryQA(memory=Notes)  # a class: one new memory per question
    first, second = shipped()[:2]
    method.recall(first.question, first.paragraphs, [2048], 5)
    lines = method.recall(second.question, second.paragraphs, [100_000], 5).contexts[100_000]
    assert sorted(lines) == sorted(f"{p.title}: {p.text}" for p in second.paragraphs)


def test_a_two_method_memory_answers_through_the_qa_api_as_an_object_a_class_and_a_name():
    examples = [ex for ex in shipped() if ex.answers[0] not in ("yes", "no")][:3]
    with LocalOpenAIServer(ContextReader(examples)) as server:
        llm = {"model": "stand-in", "base_url": server.base_url}
        specs = [MethodSpec("memory", {"memory": RankedNotes(), **llm}), MethodSpec("memory", {"memory": Notes, **llm}),
                 MethodSpec(NOTES, llm)]
        rows = run_methods(examples, specs, workers=2)
    assert [r["method"] for r in rows] == ["memory:RankedNotes"] * 3 + ["memory:Notes"] * 3 + [NOTES] * 3
    for row in rows:
        assert row["calls"] == 1 and row["calls_by_kind"] == {"qa_answer": 1} and row["fallback"] is None
        assert row["detail"]["context_lines"] > 0 and set(row["answer_recall"]) == {"256", "512", "1024", "2048"}
        assert row["answer_recall"]["2048"] is True  # every paragraph fits 2,048 tokens: the answer is there
        assert row["em"] == 1.0  # so the rule reader found it in the context the memory gave
    assert all(r["support_recall"] is not None for r in rows[:3]) and all(r["support_recall"] is None for r in rows[3:])
    assert rows[3]["config"]["memory"] == "Notes" and rows[6]["config"]["memory"] == f"{__name__}:Notes"


def test_a_bad_memory_is_refused_in_one_line():
    with pytest.raises(TypeError, match="object is not a memory: it needs update"):
        make_method("memory", memory=object())
    with pytest.raises(ValueError, match="unknown memory 'notes'; choose from .*bm25"):
        make_method("memory:notes")
    with pytest.raises(ValueError, match="budget must be a positive int"):
        make_method(NOTES, budget=0)


def test_reproduce_recall_only_runs_with_no_model_on_the_shipped_data(tmp_path, capsys, monkeypatch):
    """``reproduce arigraph-qa --data <shipped> --recall-only``: no endpoint, no model; the recall table of
    the methods with a context, the others listed; rows resumed without duplicates."""
    for name in ("OPENAI_MODEL", "OPENAI_BASE_URL", "OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    out = tmp_path / "recall.jsonl"
    methods = [arg for m in ("bm25", "full-context", NOTES, "arigraph", "embedding") for arg in ("--method", m)]
    argv = ["reproduce", "arigraph-qa", "--data", str(shipped_data_dir()), "--recall-only", "--out", str(out), *methods]
    assert main(argv) == 0
    text = capsys.readouterr().out
    rows = read_rows(out)
    assert main(argv) == 0 and len(read_rows(out)) == len(rows)  # resumed: nothing computed or written again
    assert capsys.readouterr().out.split("results:")[0] == text.split("results:")[0]
    n = len(shipped()) // 2
    assert len(rows) == 3 * 2 * n and all(r["em"] is None and r["config"]["recall_only"] for r in rows)
    assert "| method | dataset | n | AR@256 | AR@512 | AR@1024 | AR@2048 | SR@2 | SR@5 |" in text
    assert "- arigraph: not run (needs a model" in text and "- embedding: not run (needs an endpoint" in text
    summaries = {(s["dataset"], s["method"]): s for s in summarize_qa(rows)}
    for (dataset, method), s in summaries.items():
        cells = [f"{s['answer_recall'][b]:.0f}" for b in (256, 512, 1024, 2048)]  # integer percentages
        cells += ["-", "-"] if s["support_recall"] is None else [f"{s['support_recall'][k]:.0f}" for k in (2, 5)]
        assert f"| {method} | {dataset} | {n} | {' | '.join(cells)} |" in text
    bm25 = summaries[("musique", "bm25")]
    assert bm25["answer_recall"][2048] == 100.0 and 0 < bm25["support_recall"][2] <= bm25["support_recall"][5]
    assert summaries[("hotpotqa", "full-context")]["support_recall"] is None  # file order ranks nothing
    notes = [r for r in rows if r["method"] == NOTES]
    assert all(r["support_recall"] is None and r["answer_recall"] is not None or r["answers"] == ["yes"]
               or r["answers"] == ["no"] for r in notes)


def test_reproduce_with_a_model_shows_recall_beside_em_and_f1(tmp_path, capsys):
    out, page = tmp_path / "qa.jsonl", tmp_path / "report.html"
    with LocalOpenAIServer(ContextReader(shipped())) as server:
        assert main(["reproduce", "davis-qa", "--demo", "--limit", "2", "--method", "bm25", "--method", NOTES,
                     "--method", "davis", "--model", "stand-in", "--base-url", server.base_url, "--out", str(out)]) == 0
    text = capsys.readouterr().out
    rows = read_rows(out)
    assert all(r["em"] is not None for r in rows)
    assert all((r["answer_recall"] is None) == (r["method"] == "davis") for r in rows)  # davis offers no recall
    em_table, recall_table = text.split("answer recall at a token budget")[:2]
    assert f"| ours: {NOTES} | - |" in em_table
    for s in summarize_qa(rows):
        if s["method"] != "davis":
            cells = [f"{s['answer_recall'][b]:.0f}" for b in (256, 512, 1024, 2048)]
            assert re.search(rf"\| {s['method']} \| {s['dataset']} \| 2 \| {re.escape(' | '.join(cells))} \|", recall_table)
    assert "| davis | hotpotqa | 2 | - | - | - | - | - | - |" in recall_table
    assert main(["report", str(out), "-o", str(page)]) == 0
    assert "<th>answer recall @256 tokens</th>" in page.read_text() and "<th>support recall@5</th>" in page.read_text()


def test_a_named_memory_that_takes_an_endpoint_is_built_with_the_methods_own():
    """The method's model and base URL reach a memory factory that takes them (a model that builds the
    memory), the memory's own options win, and a memory that takes none gets none."""
    from textmem_gym.qa.methods.memory import MemoryQA

    spec = "tests.qa.endpoint_memory:EndpointNotes"
    method = MemoryQA(model="m", base_url="http://127.0.0.1:9/v1", memory=spec, memory_options={"keep": 2})
    built = method._new()
    assert (built.model, built.base_url, built.keep) == ("m", "http://127.0.0.1:9/v1", 2)
    assert MemoryQA(memory=spec)._new().model is None  # no model given: no endpoint handed on
    assert type(MemoryQA(model="m", memory="full-history")._new()).__name__ == "FullHistoryMemory"
