"""Structured outputs through the real client against the local server passing for each server kind."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path

import jsonschema
import pytest

from tests.llm.conftest import TEST_KEY, ask
from textmem_gym.llm import CacheMissError, LLMClient, LLMError, LocalOpenAIServer
from textmem_gym.llm.request import mode_of_body

pytestmark = pytest.mark.llm

COMMANDS = ["look", "open fridge", "go east", "take knife from table"]
DECISION = {
    "type": "object",
    "properties": {"reason": {"type": "string"}, "action": {"type": "string", "enum": COMMANDS}},
    "required": ["reason", "action"],
    "additionalProperties": False,
}
#: What a chatty model writes; the server constrains it to the schema.
PROSE = "Well, the knife matters. I think I should go east, then come back."

MakeClient = Callable[..., LLMClient]


@pytest.mark.parametrize(("profile", "mode"), [
    ("local", "json_schema"), ("openai", "json_schema"), ("vllm", "json_schema"),
    ("llama.cpp", "json_schema"), ("llama-cpp-python", "json_object_schema"),
])
def test_auto_sends_the_schema_the_way_the_server_takes_it(make_client: MakeClient, profile: str, mode: str) -> None:
    with LocalOpenAIServer(responder=lambda messages: PROSE, profile=profile) as server:
        client = make_client(server)
        result = client.chat(ask("What now?"), schema=DECISION, schema_name="decision")
        sent = server.requests
    answer = json.loads(result.text)
    jsonschema.validate(answer, DECISION)
    assert answer["action"] == "go east"
    assert (result.structured, client.structured_mode) == (mode, mode)
    assert len(sent) == 1 and mode_of_body(sent[0]) == mode
    if mode == "json_schema":
        assert sent[0]["response_format"]["json_schema"] == {"name": "decision", "schema": DECISION, "strict": True}


def test_strict_is_only_claimed_for_schemas_that_meet_it(make_client: MakeClient) -> None:
    loose = {"type": "object", "properties": {"action": {"type": "string"}}}
    with LocalOpenAIServer(responder=lambda messages: '{"action": "look"}', profile="openai") as server:
        make_client(server).chat(ask("What now?"), schema=loose)
        assert server.requests[0]["response_format"]["json_schema"]["strict"] is False


def test_forced_mode_is_sent_as_asked(make_client: MakeClient) -> None:
    with LocalOpenAIServer(responder=lambda messages: PROSE, profile="vllm") as server:
        result = make_client(server, structured_output="guided_json").chat(ask("What now?"), schema=DECISION)
        assert server.requests[0]["guided_json"] == DECISION and "response_format" not in server.requests[0]
    assert result.structured == "guided_json" and json.loads(result.text)["action"] == "go east"


def test_off_sends_no_schema(make_client: MakeClient) -> None:
    with LocalOpenAIServer(responder=lambda messages: PROSE) as server:
        client = make_client(server, structured_output="off")
        result = client.chat(ask("What now?"), schema=DECISION)
        assert mode_of_body(server.requests[0]) == "none"
    assert (result.text, result.structured, client.structured_mode) == (PROSE, "none", "none")


def test_calls_without_a_schema_stay_free_text(make_client: MakeClient) -> None:
    with LocalOpenAIServer(responder=lambda messages: PROSE, profile="openai") as server:
        result = make_client(server).chat(ask("What now?"))
        assert "response_format" not in server.requests[0]
    assert (result.text, result.structured) == (PROSE, "none")


def test_auto_drops_rejected_modes_once_and_keeps_the_decision(make_client: MakeClient) -> None:
    with LocalOpenAIServer(responder=lambda messages: PROSE, structured={"json_object_schema"}) as server:
        client = make_client(server)
        first = client.chat(ask("What now?"), schema=DECISION)
        tried = [mode_of_body(body) for body in server.requests]
        second = client.chat(ask("And now?"), schema=DECISION)
        assert len(server.requests) == len(tried) + 1
    assert tried == ["json_schema", "json_object_schema"]
    assert first.structured == second.structured == client.structured_mode == "json_object_schema"
    assert client.usage.as_dict()["failures"] == {"http_400": 1}


def test_auto_falls_back_to_free_text_on_a_server_without_constrained_output(make_client: MakeClient) -> None:
    with LocalOpenAIServer(responder=lambda messages: PROSE, profile="openai", structured=()) as server:
        client = make_client(server)
        result = client.chat(ask("What now?"), schema=DECISION)
        assert [mode_of_body(body) for body in server.requests] == ["json_schema", "none"]
    assert (result.text, result.structured, client.structured_mode) == (PROSE, "none", "none")


def test_llama_cpp_python_rejects_json_schema_with_422_and_auto_moves_on(make_client: MakeClient) -> None:
    with LocalOpenAIServer(responder=lambda messages: PROSE, profile="llama-cpp-python") as server:
        client = make_client(server, structured_output="json_schema")
        with pytest.raises(LLMError) as caught:
            client.chat(ask("What now?"), schema=DECISION)
    assert caught.value.status == 422 and client.structured_mode == "json_schema"


def test_on_does_not_fall_back(make_client: MakeClient) -> None:
    with LocalOpenAIServer(responder=lambda messages: PROSE, profile="openai", structured=()) as server:
        client = make_client(server, structured_output="on")
        with pytest.raises(LLMError) as caught:
            client.chat(ask("What now?"), schema=DECISION)
        assert len(server.requests) == 1
    assert caught.value.status == 400 and "response_format" in str(caught.value)
    assert TEST_KEY not in str(caught.value)


def test_another_400_does_not_drop_the_mode(make_client: MakeClient) -> None:
    with LocalOpenAIServer(script=[]) as server:  # an exhausted script answers 400
        client = make_client(server)
        with pytest.raises(LLMError, match="script exhausted"):
            client.chat(ask("What now?"), schema=DECISION)
        assert len(server.requests) == 1
    assert client.structured_mode == "json_schema"


def test_async_chat_sends_the_schema(make_client: MakeClient) -> None:
    async def run(client: LLMClient) -> list[str]:
        results = await asyncio.gather(*(client.achat(ask(f"room {i}"), schema=DECISION) for i in range(3)))
        await client.aclose()
        return [json.loads(r.text)["action"] + "/" + r.structured for r in results]

    with LocalOpenAIServer(responder=lambda messages: PROSE, profile="llama-cpp-python") as server:
        assert asyncio.run(run(make_client(server))) == ["go east/json_object_schema"] * 3


def test_replay_needs_no_server_and_keeps_the_recorded_mode(make_client: MakeClient, tmp_path: Path) -> None:
    cache = tmp_path / "responses.sqlite"
    with LocalOpenAIServer(responder=lambda messages: PROSE, profile="llama-cpp-python") as server:
        recorded = make_client(server, cache="record", cache_path=cache).chat(ask("What now?"), schema=DECISION)
    replay = LLMClient(model="test-model", base_url="http://127.0.0.1:9/v1", cache="replay", cache_path=cache)
    replayed = replay.chat(ask("What now?"), schema=DECISION)
    assert (replayed.text, replayed.structured, replayed.cached) == (recorded.text, "json_object_schema", True)
    off = LLMClient(model="test-model", base_url="http://127.0.0.1:9/v1", cache="replay", cache_path=cache,
                    structured_output="off")
    with pytest.raises(CacheMissError):  # a free-text run never reads a structured run's answers
        off.chat(ask("What now?"), schema=DECISION)
    replay.close()
    off.close()


def test_bad_setting_names_the_valid_ones() -> None:
    with pytest.raises(ValueError, match="auto, on, off, json_schema"):
        LLMClient(model="m", base_url="http://127.0.0.1:9/v1", structured_output="yes")
