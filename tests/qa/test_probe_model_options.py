"""Memories a model builds, as the probe and memory-bench build them: the endpoint's client always reaches a memory
built with the ``llm`` extractor (its ``extractor_options`` merged with it), DAVIS's and STMA's completion limit reaches
every call it makes and is recorded, and configuration errors fail at once in one line. Against the real local
OpenAI-compatible test server."""

from __future__ import annotations

from typing import Any

import pytest

from textmem_gym.llm import LocalOpenAIServer
from textmem_gym.qa.probes.run import ProbeConfig, build_memory

pytestmark = pytest.mark.llm

KITCHEN = "-= Kitchen =-\nYou see a table. You see a knife on the table. There is an exit to the north."
SCIENCE_ROOM = "This room is called the kitchen. In it, you see:\n\tthe agent\n\ta fridge (containing milk)"


def config(server: LocalOpenAIServer, options: dict[str, dict[str, Any]]) -> ProbeConfig:
    return ProbeConfig(extractor="llm", llm={"model": "local", "base_url": server.base_url}, options=options)


def test_extractor_options_merge_with_the_endpoints_client_and_are_recorded():
    with LocalOpenAIServer(script=["knife, is on, table", "[]"]) as server:
        options = {"arigraph": {"extractor_options": {"max_tokens": 77, "replacement": "structural"}}}
        probed = build_memory("arigraph", config(server, options))
        try:
            probed.adopted.update(KITCHEN, "look", {})
            beliefs = probed.adopted.believed_triples()
        finally:
            probed.close()
        asked = [request["max_tokens"] for request in server.requests]
    assert ("knife", "is on", "table") in beliefs  # the model's triple: the client reached the extractor
    assert asked == [77]  # the option given with it; "structural": no outdated-triplet call
    assert len(probed.clients) == 1 and probed.build_tokens()["prompt_tokens"] > 0
    assert probed.config == {"extractor": "llm", "extractor_options": {"max_tokens": 77, "replacement": "structural"}}


def test_an_endpoint_in_extractor_options_overrides_the_probes_and_no_options_record_nothing_new():
    with LocalOpenAIServer(script=["knife, is on, table"]) as server, LocalOpenAIServer() as unused:
        options = {"arigraph": {"extractor_options": {"base_url": server.base_url, "model": "other",
                                                      "replacement": "structural"}}}
        probed = build_memory("arigraph", config(unused, options))
        try:
            probed.adopted.update(KITCHEN, "look", {})
        finally:
            probed.close()
        assert [request["model"] for request in server.requests] == ["other"] and unused.calls == 0
        assert probed.config == {"extractor": "llm", "extractor_options": {"model": "other", "replacement": "structural"}}
        plain = build_memory("arigraph", config(unused, {}))
        plain.close()
    assert plain.config == {"extractor": "llm"}  # as before: a default build records what it always did


def test_davis_asks_the_completion_limit_it_is_given_in_every_call_and_records_it():
    answers = ['```\n[["milk", "is in", "fridge", "object", "object"]]\n```',
               '{"types": ["location"], "entities": ["milk", "fridge"]}', "In the fridge."]
    with LocalOpenAIServer(script=answers) as server:
        probed = build_memory("davis", config(server, {"davis": {"max_tokens": 99}}))
        try:
            probed.adopted.update(SCIENCE_ROOM, "look around", {})
            answer = probed.memory.graph_qa("where is the milk?").answer  # type: ignore[attr-defined]
        finally:
            probed.close()
        asked = [request["max_tokens"] for request in server.requests]
    assert asked == [99, 99, 99] and answer == "In the fridge."  # extraction, entity choice, answer
    assert probed.config == {"extractor": "llm", "max_tokens": 99}
    with LocalOpenAIServer(script=answers) as server:
        default = build_memory("davis", config(server, {}))
        try:
            default.adopted.update(SCIENCE_ROOM, "look around", {})
        finally:
            default.close()
        assert [request["max_tokens"] for request in server.requests] == [1024]  # the port's, unchanged
    assert default.config == {"extractor": "llm"}  # and recorded as before


def test_stma_asks_the_completion_limit_it_is_given_in_every_call_and_records_it():
    with LocalOpenAIServer(script=["kitchen: knife on table", "(knife, is on, table)"]) as server:
        probed = build_memory("stma", config(server, {"stma": {"max_tokens": 55}}))
        try:
            probed.adopted.update(KITCHEN, "look", {})
        finally:
            probed.close()
        asked = [request["max_tokens"] for request in server.requests]
    assert asked and set(asked) == {55}
    assert probed.config == {"extractor": "llm", "max_tokens": 55}


@pytest.mark.parametrize(("memory", "options", "error", "message"), [
    ("arigraph", {"extractor_options": ["max_tokens", 5]}, TypeError, "extractor_options of 'arigraph' must be a dict"),
    ("davis", {"extractor_options": {"max_tokens": 5}}, ValueError, "DAVIS's 'llm' extractor takes no extractor_options"),
    ("davis", {"max_tokens": 0}, ValueError, "max_tokens must be a positive int"),
    ("stma", {"max_tokens": True}, ValueError, "max_tokens must be a positive int"),
])
def test_configuration_errors_fail_at_once_in_one_line(memory, options, error, message):
    with LocalOpenAIServer() as server:
        with pytest.raises(error) as raised:
            build_memory(memory, config(server, {memory: options}))
        assert server.calls == 0
    assert str(raised.value).startswith(message) and "\n" not in str(raised.value)


def test_without_a_model_the_llm_extractor_fails_at_once_naming_the_memory(monkeypatch):
    monkeypatch.delenv("OPENAI_MODEL", raising=False)
    options = {"arigraph": {"extractor_options": {"max_tokens": 64}}}
    with pytest.raises(ValueError, match="^memory 'arigraph' with the llm extractor: no model given") as raised:
        build_memory("arigraph", ProbeConfig(extractor="llm", options=options))
    assert "\n" not in str(raised.value)


def test_memory_bench_records_extractor_options_but_not_their_client():
    from textmem_gym.qa.bench.run import BenchConfig

    with LocalOpenAIServer() as server:
        probed = build_memory("arigraph", config(server, {}))  # a client, as a caller might hand one over
        probed.close()
    given = {"extractor_options": {"max_tokens": 77, "client": probed.clients[0]}, "depth": 2}
    recorded = BenchConfig(extractor="llm", options={"arigraph": given}).recorded("arigraph")["options"]
    assert recorded == {"depth": 2, "extractor_options": {"max_tokens": 77}}  # two limits never share a record
    only_client = BenchConfig(options={"arigraph": {"extractor_options": {"client": probed.clients[0]}}})
    assert only_client.recorded("arigraph")["options"] == {}  # as before
