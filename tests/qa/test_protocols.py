"""The multi-hop QA protocols end to end: ``textmem-gym reproduce arigraph-qa|davis-qa --demo --limit 3``
against the real local OpenAI-compatible server answering by rule, the table beside the papers'
published numbers, one row per (question, method, configuration), resumed without duplicates; the
papers' samples; the published numbers as data. ``real_llm`` runs use SmolLM2 on llama.cpp's server."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from textmem_gym.cli import main
from textmem_gym.llm import LocalOpenAIServer
from textmem_gym.protocols import QA_PROTOCOLS, get_qa_protocol, published
from textmem_gym.qa.api import QA_METHODS
from textmem_gym.qa.data import load_dataset, shipped_data_dir
from textmem_gym.qa.run import qa_key, summarize_qa
from textmem_gym.qa.sampling import sample
from textmem_gym.qa.testing import ContextReader


def shipped_examples() -> list:
    return [ex for name in ("hotpotqa", "musique") for ex in load_dataset(name, shipped_data_dir())]


def chat_requests(server: LocalOpenAIServer) -> int:
    return sum("messages" in body for body in server.requests)


def read_rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


@pytest.mark.parametrize("name", sorted(QA_PROTOCOLS))
def test_protocol_names_real_methods_and_published_rows(name):
    protocol, data = get_qa_protocol(name), published(name)
    assert protocol.name == name and set(protocol.methods) <= set(QA_METHODS)
    assert list(protocol.datasets) == data["columns"] and data["source"] and data["paper"]
    rows = {row for rows in protocol.method_rows.values() for row in rows} | set(protocol.shown_rows)
    assert rows <= set(data["rows"])
    for values in data["rows"].values():
        assert set(values) == set(protocol.datasets)
        assert all(0 < v["em"] <= v["f1"] < 100 or v["em"] < 100 for v in values.values())


def test_published_numbers_are_the_papers():
    arigraph, davis = published("arigraph-qa"), published("davis-qa")
    assert arigraph["rows"]["AriGraph(GPT-4)"]["hotpotqa"] == {"em": 68.0, "f1": 74.7}
    assert arigraph["rows"]["BM25(top-3)"]["musique"] == {"em": 25.0, "f1": 31.1}
    assert arigraph["costs"]["rows"]["AriGraph"] == {"prompt_tokens": 11000, "completion_tokens": 2500}
    assert davis["rows"]["DAVIS (GPT-4o)"]["hotpotqa"] == {"em": 56.25, "f1": 73.8}
    assert davis["rows"]["DAVIS (GPT-4o)"]["musique"] == {"em": 33.8, "f1": 48.5}


@pytest.mark.parametrize(("name", "methods"), [("arigraph-qa", 5), ("davis-qa", 3)])
def test_reproduce_demo_limit_3_prints_the_table_and_resumes_without_duplicates(name, methods, tmp_path, capsys):
    out = tmp_path / "qa.jsonl"
    with LocalOpenAIServer(ContextReader(shipped_examples())) as server:
        argv = ["reproduce", name, "--demo", "--limit", "3", "--model", "stand-in", "--base-url", server.base_url,
                "--out", str(out), "--workers", "2"]
        assert main(argv) == 0
        first = capsys.readouterr().out
        asked = chat_requests(server)
        rows = read_rows(out)
        assert main(argv) == 0  # resumed: nothing asked or written again
        again = capsys.readouterr().out
        assert chat_requests(server) == asked
    assert len(rows) == 3 * 2 * methods == len(read_rows(out))
    assert len({qa_key(r) for r in rows}) == len(rows)
    protocol = get_qa_protocol(name)
    for dataset in protocol.datasets:  # the paper's sample (rows are written as they finish: 2 workers)
        wanted = {ex.id for ex in sample(load_dataset(dataset, shipped_data_dir()), protocol.sampling, limit=3)}
        for method in Counter(r["method"] for r in rows):
            assert {r["question_id"] for r in rows if r["dataset"] == dataset and r["method"] == method} == wanted
    paper_row = next(iter(protocol.method_rows.values()))[0]
    assert paper_row in first and protocol.title in first and "tokens per question" in first
    assert first.split("results:")[0] == again.split("results:")[0]  # the same table from the file
    for summary in summarize_qa(rows):
        assert summary["n"] == 3 and summary["prompt_tokens"] > 0


def test_report_and_summary_show_a_qa_table_per_dataset_and_method(tmp_path, capsys):
    out, page = tmp_path / "qa.jsonl", tmp_path / "report.html"
    with LocalOpenAIServer(ContextReader(shipped_examples())) as server:
        assert main(["reproduce", "arigraph-qa", "--demo", "--limit", "2", "--method", "bm25", "--method", "gold",
                     "--model", "stand-in", "--base-url", server.base_url, "--out", str(out)]) == 0
    assert main(["report", str(out), "-o", str(page)]) == 0
    text = page.read_text()
    assert '<section id="qa">' in text and "<th>prompt tokens/question</th>" in text
    for summary in summarize_qa(read_rows(out)):  # one table row per dataset x method, EM as summarized
        assert f"<td>{summary['dataset']}</td><td>{summary['method']}</td><td>2</td><td>{summary['em']:.1f}</td>" in text
    capsys.readouterr()
    assert main(["summary", str(out)]) == 0  # the QA table, not the game table (QA rows have no env_id)
    table = capsys.readouterr().out
    assert table.startswith("| dataset | method | n | EM | F1 | prompt tok/q |") and "env_id" not in table
    for summary in summarize_qa(read_rows(out)):
        assert f"| {summary['dataset']} | {summary['method']} | 2 | {summary['em']:.1f} | {summary['f1']:.1f} |" in table


def test_arigraph_qa_table_shows_tokens_beside_the_papers_cost_table(tmp_path, capsys):
    with LocalOpenAIServer(ContextReader(shipped_examples())) as server:
        assert main(["reproduce", "arigraph-qa", "--demo", "--limit", "1", "--method", "arigraph", "--method",
                     "full-context", "--model", "stand-in", "--base-url", server.base_url]) == 0
    text = capsys.readouterr().out
    assert "paper: AriGraph | 11,000" in text and "paper: GraphRAG | 115,000" in text
    assert "| ours: arigraph |" in text and "| ours: full-context |" in text
    assert "AriGraph(GPT-4) | 45.0 | 57.0 | 68.0 | 74.7" in text


def test_reproduce_qa_needs_data_or_demo_and_names_a_missing_file(tmp_path, capsys):
    assert main(["reproduce", "arigraph-qa", "--model", "m"]) == 2
    assert "--data DIR" in capsys.readouterr().err
    assert main(["reproduce", "davis-qa", "--data", str(tmp_path), "--model", "m"]) == 2
    error = capsys.readouterr().err
    assert "hotpot_dev_distractor_v1.json not found" in error and str(tmp_path) in error
    assert main(["reproduce", "arigraph"]) == 2  # a game protocol still needs a policy
    assert "--policy is required" in capsys.readouterr().err


def small_copy(folder: Path) -> Path:
    """The shipped files cut to what a 135M model on a shared CPU answers in minutes: the first question
    of each paper's sample with its supporting paragraphs and one distractor, in the official formats."""
    shipped = shipped_data_dir()
    folder.mkdir(parents=True, exist_ok=True)
    hotpot = json.loads((shipped / "hotpot_dev_distractor_v1.json").read_text(encoding="utf-8"))
    record = hotpot[int(sample_ids(len(hotpot))[0])]
    gold = {title for title, _ in record["supporting_facts"]}
    distractor = next(title for title, _ in record["context"] if title not in gold)
    record["context"] = [c for c in record["context"] if c[0] in gold | {distractor}]
    (folder / "hotpot_dev_distractor_v1.json").write_text(json.dumps([record]), encoding="utf-8")
    lines = (shipped / "musique_ans_v1.0_dev.jsonl").read_text(encoding="utf-8").splitlines()
    record = json.loads(lines[int(sample_ids(len(lines))[0])])
    kept = [p for p in record["paragraphs"] if p["is_supporting"]]
    kept.append(next(p for p in record["paragraphs"] if not p["is_supporting"]))
    new_idx = {p["idx"]: i for i, p in enumerate(kept)}
    record["paragraphs"] = [{**p, "idx": new_idx[p["idx"]]} for p in kept]
    for hop in record["question_decomposition"]:
        hop["paragraph_support_idx"] = new_idx[hop["paragraph_support_idx"]]
    (folder / "musique_ans_v1.0_dev.jsonl").write_text(json.dumps(record) + "\n", encoding="utf-8")
    return folder


def sample_ids(n: int) -> list[int]:
    """The papers' permutation of ``n`` records (its first is the first question asked)."""
    import numpy

    return [int(i) for i in numpy.random.RandomState(42).permutation(n)]


#: Methods of the real-model runs: each protocol's graph memory and a paragraph baseline (every method
#: runs end to end with the stand-in above; a 135M model on a shared CPU needs minutes per call).
REAL_METHODS = {"arigraph-qa": ["gold", "arigraph"], "davis-qa": ["davis"]}


@pytest.mark.real_llm
@pytest.mark.timeout(5400)
@pytest.mark.parametrize("name", sorted(QA_PROTOCOLS))
def test_reproduce_with_smollm2(name, tmp_path, capsys):
    """The protocol's graph memory (and a baseline) through SmolLM2-135M on llama.cpp's server, from the
    CLI: a row per dataset and method, every answer the model's or a counted fallback, building tokens
    apart, the table beside the paper's."""
    from tests.real_model import smollm2_server

    out, data = tmp_path / "qa.jsonl", small_copy(tmp_path / "data")
    with smollm2_server() as server:
        methods = [arg for m in REAL_METHODS[name] for arg in ("--method", m)]
        assert main(["reproduce", name, "--data", str(data), "--limit", "1", "--model", server.model_alias,
                     "--base-url", server.base_url, "--out", str(out), "--llm-arg", "timeout=1800", *methods]) == 0
    rows, text = read_rows(out), capsys.readouterr().out
    assert "paper:" in text and "tokens per question" in text
    protocol = get_qa_protocol(name)
    assert {(r["dataset"], r["method"]) for r in rows} == {(d, m) for d in protocol.datasets for m in REAL_METHODS[name]}
    assert all(r["calls"] > 0 and r["prompt_tokens"] > 0 and r["completion_tokens"] > 0 for r in rows)
    assert all((r["fallback"] is None) == bool(r["prediction"]) for r in rows)  # an empty answer is a counted fallback
    assert all(r["fallback"] in (None, "unparseable", "llm_error", "context_overflow") for r in rows)
    graph = [r for r in rows if r["method"] in ("arigraph", "davis")]
    assert graph and all(r["build_prompt_tokens"] > 0 for r in graph)
