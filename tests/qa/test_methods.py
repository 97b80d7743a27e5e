"""Every QA method end to end on shipped questions, through the real local OpenAI-compatible server
answering by rule (textmem_gym.qa.testing.ContextReader): answers scored with the official EM/F1,
tokens split into building and answering, an unparseable answer counted (never replaced), a failed
call counted, prompts fitted to a small context window."""

from __future__ import annotations

import json

import pytest

from textmem_gym.llm import LocalOpenAIServer
from textmem_gym.loading import unknown_name
from textmem_gym.qa.api import QA_METHODS, Answer, make_method
from textmem_gym.qa.data import QAExample, load_dataset, shipped_data_dir
from textmem_gym.qa.run import MethodSpec, run_methods, summarize_qa
from textmem_gym.qa.scoring import score
from textmem_gym.qa.testing import ContextReader, prompt_kind


@pytest.fixture(scope="module")
def examples() -> list[QAExample]:
    """Three bridge questions of each shipped dataset (their answers are names, not yes/no)."""
    chosen = []
    for name in ("hotpotqa", "musique"):
        chosen += [ex for ex in load_dataset(name, shipped_data_dir()) if ex.answers[0] not in ("yes", "no")][:3]
    return chosen


def ask(method_name: str, example: QAExample, server: LocalOpenAIServer, **options: object) -> Answer:
    method = make_method(method_name, model="stand-in", base_url=server.base_url, **options)
    try:
        return method.answer(example.question, example.paragraphs)
    finally:
        method.close()


@pytest.mark.parametrize("name", sorted(QA_METHODS))
def test_each_method_answers_shipped_questions_and_accounts_for_its_calls(name, examples):
    reader = ContextReader(examples)
    with LocalOpenAIServer(reader) as server:
        answers = [ask(name, ex, server) for ex in examples]
    scores = [score(a.text, ex) for a, ex in zip(answers, examples)]
    for answer in answers:
        assert answer.calls >= 1 and answer.tokens.prompt > 0 and answer.tokens.completion > 0
        assert answer.calls_by_kind.get("qa_answer") or answer.calls_by_kind.get("qa_monologue")
        assert answer.tokens.answer_prompt > 0 and answer.latency > 0
        assert not answer.parse_failed and answer.fallback is None and answer.text
    assert all(0.0 <= s["em"] <= s["f1"] <= 1.0 for s in scores)
    if name in ("gold", "full-context"):  # the answer is in what the model reads: the stand-in finds it
        assert [s["em"] for s in scores] == [1.0] * len(examples)
    assert sum(s["em"] for s in scores) >= 1  # every method answers some question right


def test_arigraph_qa_builds_one_episode_per_paragraph_and_reports_build_tokens_apart(examples):
    example = examples[-1]
    reader = ContextReader(examples)
    with LocalOpenAIServer(reader) as server:
        answer = ask("arigraph", example, server)
    extraction_prompts = reader.prompts["arigraph_triplets"]
    assert answer.calls_by_kind["arigraph_triplets"] == len(example.paragraphs) == len(extraction_prompts)
    assert all(p.text in prompt for p, prompt in zip(example.paragraphs, extraction_prompts))
    assert "arigraph_outdated" not in answer.calls_by_kind  # paragraphs outdate nothing
    assert answer.tokens.build_prompt > answer.tokens.answer_prompt > 0
    assert answer.tokens.build_prompt + answer.tokens.answer_prompt == answer.tokens.prompt
    assert answer.detail["items"] and answer.detail["facts"] and not answer.detail["key_items_fallback"]
    answer_prompt = reader.prompts["qa_answer"][-1]
    assert all(fact in answer_prompt for fact in answer.detail["facts"])  # graph facts reach the answer prompt
    assert len(answer.detail["episodes"]) <= 2


@pytest.mark.parametrize(("name", "kind", "key"), [("arigraph", "arigraph_triplets", "triplets"),
                                                   ("davis", "davis_extract", "tuples")])
def test_the_memories_extraction_calls_ask_for_their_structured_answer(examples, name, kind, key):
    """A QA method's building calls carry their answer schema (a small model cannot keep the free-text
    triplet format; constrained to JSON it gives triples the parser reads), the prompt unchanged."""
    reader = ContextReader(examples)
    with LocalOpenAIServer(reader) as server:
        answer = ask(name, examples[0], server)
        bodies = [b for b in server.requests if "messages" in b]
    built = [b for b in bodies if prompt_kind(b["messages"][-1]["content"]) == kind]
    assert len(built) == answer.calls_by_kind[kind] == len(examples[0].paragraphs)
    for body in built:
        sent = body["response_format"]["json_schema"]
        assert sent["name"] == kind and key in sent["schema"]["properties"]
    assert answer.detail["triples"] > 0  # the structured answers were read into the memory


def test_davis_qa_asks_its_world_model_in_a_monologue(examples):
    example = examples[0]
    reader = ContextReader(examples)
    with LocalOpenAIServer(reader) as server:
        answer = ask("davis", example, server)
    monologue = answer.detail["monologue"]
    assert monologue and monologue[0][0] == example.question  # the stand-in's first sub-question
    assert answer.calls_by_kind["davis_extract"] == len(example.paragraphs)
    assert answer.calls_by_kind["davis_qa_select"] == answer.calls_by_kind["davis_qa"] == len(monologue)
    assert answer.tokens.build_prompt > 0 and answer.detail["triples"] > 0
    said = " ".join(a for _, a in monologue).lower()
    assert answer.text == "Unknown" or answer.text.lower() in said  # answered from what the world model said


def test_an_unparseable_answer_is_counted_never_replaced(examples):
    reader = ContextReader(examples, garble=("qa_answer",))
    with LocalOpenAIServer(reader, structured=()) as server:  # a server without constrained output
        rows = run_methods(examples, [MethodSpec("bm25", {"model": "stand-in", "base_url": server.base_url})])
    assert [r["prediction"] for r in rows] == [""] * len(examples)
    assert all(r["parse_failed"] and r["fallback"] == "unparseable" for r in rows)
    assert [r["em"] for r in rows] == [0.0] * len(examples)
    summaries = summarize_qa(rows)
    assert sum(s["parse_failures"] for s in summaries) == len(examples)
    assert all(s["fallbacks"] == {"unparseable": s["n"]} for s in summaries)


def test_a_failed_call_is_a_counted_fallback(examples):
    with LocalOpenAIServer(ContextReader(examples), faults=lambda index, body: "500") as server:
        answer = ask("gold", examples[0], server, client_options={"max_retries": 0})
    assert answer.text == "" and answer.fallback == "llm_error" and not answer.parse_failed


def test_full_context_is_fitted_to_a_small_context_window_and_the_trims_counted(examples):
    example = next(ex for ex in examples if ex.dataset == "musique")
    reader = ContextReader(examples)
    with LocalOpenAIServer(reader, context_window=400) as server:
        answer = ask("full-context", example, server, client_options={"context_window": 400}, max_tokens=64)
    assert answer.fallback is None and answer.detail["context_trims"]["texts"] > 0
    assert answer.tokens.prompt <= 400 - 64
    assert example.question in reader.prompts["qa_answer"][0]  # the instructions and question are never trimmed


def test_methods_are_found_by_name_and_a_bad_name_lists_the_known_ones():
    with pytest.raises(ValueError, match="unknown QA method 'grep'.*bm25.*gold") as error:
        make_method("grep")
    assert str(error.value) == str(unknown_name("QA method", "grep", sorted(QA_METHODS)))  # the project's one lookup
    method = make_method("textmem_gym.qa.methods.context:BM25Method", model="m", base_url="http://127.0.0.1:9/v1",
                         top_k=2)
    assert (method.name, method.config["top_k"], method.config["model"]) == ("bm25", 2, "m")
    with pytest.raises(ValueError, match="top_k must be a positive int"):
        make_method("bm25", model="m", top_k=0)


def test_summary_qa_reads_each_paragraph_once_and_answers_from_the_summary_alone(examples):
    example = next(ex for ex in examples if ex.dataset == "musique")
    reader = ContextReader(examples)
    with LocalOpenAIServer(reader) as server:
        answer = ask("summary", example, server, words=60)
    updates = reader.prompts["qa_summary"]
    assert answer.calls_by_kind == {"qa_summary": len(example.paragraphs), "qa_answer": 1}
    assert all(p.text in prompt for p, prompt in zip(example.paragraphs, updates))  # one paragraph per update, in order
    assert 0 < answer.detail["summary_words"] <= 60 and answer.detail["summary_failures"] == 0
    answer_prompt = reader.prompts["qa_answer"][-1]
    assert answer.detail["summary"] in answer_prompt
    assert not any(p.text in answer_prompt for p in example.paragraphs)  # the paragraphs are not shown again
    assert answer.tokens.build_prompt == answer.tokens.prompt - answer.tokens.answer_prompt > answer.tokens.answer_prompt


def test_a_failed_summary_update_keeps_the_previous_summary_and_is_counted(examples):
    example = examples[0]
    failing = {"count": 0}

    def faults(index, body):
        if "keep a running summary" in json.dumps(body) and failing["count"] < 2:
            failing["count"] += 1
            return "500"
        return None

    with LocalOpenAIServer(ContextReader(examples), faults=faults) as server:
        answer = ask("summary", example, server, client_options={"max_retries": 0})
    assert answer.detail["summary_failures"] == 2 and answer.detail["summary"]
    assert answer.fallback is None  # the answer itself is still the model's


def test_stma_qa_feeds_every_paragraph_to_the_games_stma_memory(examples):
    example = next(ex for ex in examples if ex.dataset == "hotpotqa")
    reader = ContextReader(examples)
    with LocalOpenAIServer(reader) as server:
        answer = ask("stma", example, server)
    n = len(example.paragraphs)
    assert answer.calls_by_kind["stma_summary"] == answer.calls_by_kind["stma_relations"] == n
    assert answer.detail["triples"] > 0 and answer.detail["memory_llm_failures"] == 0
    build = reader.prompts["stma_summary"]
    assert example.paragraphs[-1].text in build[-1] and example.question in build[-1]  # the question is its goal
    answer_prompt = reader.prompts["qa_answer"][-1]
    assert "Temporal belief:" in answer_prompt and "Spatial belief:" in answer_prompt
    assert answer.tokens.build_prompt > answer.tokens.answer_prompt > 0


def test_every_method_asks_the_same_answer_prompt_schema_and_budget(examples):
    """Like for like: the final answer request of each method has the same instructions, schema and max_tokens."""
    example = examples[0]
    with LocalOpenAIServer(ContextReader(examples)) as server:
        for name in sorted(QA_METHODS):
            ask(name, example, server)
        finals = [b for b in server.requests if "messages" in b and "then a direct answer" in b["messages"][-1]["content"]]
    assert len(finals) >= len(QA_METHODS) - 1  # davis may answer within its monologue
    assert {b["max_tokens"] for b in finals} == {512}
    assert len({json.dumps(b.get("response_format"), sort_keys=True) for b in finals}) == 1
    assert all(b["messages"][-1]["content"].startswith(f'Your task is to answer the following question: "{example.question}"')
               for b in finals)
