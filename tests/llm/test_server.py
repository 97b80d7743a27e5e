"""LocalOpenAIServer on its own: real HTTP through the openai SDK and through http.client."""

from __future__ import annotations

import http.client
import json
import math
import threading
import time
from typing import Any

import openai
import pytest

from tests.llm.conftest import ask
from textmem_gym.llm import Fault, LocalOpenAIServer

pytestmark = pytest.mark.llm


def sdk(server: LocalOpenAIServer, key: str = "unused") -> openai.OpenAI:
    return openai.OpenAI(base_url=server.base_url, api_key=key, max_retries=0, timeout=5.0)


def post(server: LocalOpenAIServer, body: Any, path: str = "/v1/chat/completions",
         timeout: float = 5.0) -> tuple[int, dict[str, str], bytes]:
    """One raw HTTP POST; returns (status, headers, body bytes)."""
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=timeout)
    try:
        conn.request("POST", path, body=json.dumps(body), headers={"Content-Type": "application/json"})
        response = conn.getresponse()
        return response.status, dict(response.getheaders()), response.read()
    finally:
        conn.close()


CHAT = {"model": "m", "messages": ask("open the fridge now")}


def test_chat_round_trip_through_openai_sdk() -> None:
    seen: list[list[dict[str, Any]]] = []

    def responder(messages: list[dict[str, Any]]) -> str:
        seen.append(messages)
        return "take the knife"

    with LocalOpenAIServer(responder=responder) as server:
        reply = sdk(server).chat.completions.create(model="tiny", messages=ask("what next"), temperature=0.3)
        assert server.requests[0]["temperature"] == 0.3
        assert server.calls == 1
    assert seen == [ask("what next")]
    assert reply.choices[0].message.content == "take the knife"
    assert reply.choices[0].finish_reason == "stop"
    assert reply.model == "tiny"
    # Local token counts are words, plus one per message.
    assert (reply.usage.prompt_tokens, reply.usage.completion_tokens) == (3, 3)


def test_default_responder_echoes_last_user_message(server: LocalOpenAIServer) -> None:
    messages = [{"role": "system", "content": "be brief"}, *ask("first"), {"role": "assistant", "content": "x"},
                *ask("second")]
    reply = sdk(server).chat.completions.create(model="m", messages=messages)
    assert reply.choices[0].message.content == "echo: second"


def test_script_is_answered_in_order_then_reports_exhaustion() -> None:
    with LocalOpenAIServer(script=["one", "two"]) as server:
        client = sdk(server)
        texts = [client.chat.completions.create(model="m", messages=ask("q")).choices[0].message.content
                 for _ in range(2)]
        with pytest.raises(openai.BadRequestError, match="script exhausted"):
            client.chat.completions.create(model="m", messages=ask("q"))
    assert texts == ["one", "two"]


def test_faults_do_not_consume_script_answers() -> None:
    with LocalOpenAIServer(script=["one", "two"], faults=["500", None, "429"]) as server:
        status_first, _, _ = post(server, CHAT)
        _, _, second = post(server, CHAT)
        status_third, _, _ = post(server, CHAT)
        _, _, fourth = post(server, CHAT)
    assert (status_first, status_third) == (500, 429)
    assert [json.loads(b)["choices"][0]["message"]["content"] for b in (second, fourth)] == ["one", "two"]


def test_responder_can_inject_faults_by_rule() -> None:
    def responder(messages: list[dict[str, Any]]) -> str | Fault:
        return Fault("server_error", status=503) if "fail" in messages[-1]["content"] else "fine"

    with LocalOpenAIServer(responder=responder) as server:
        client = sdk(server)
        with pytest.raises(openai.InternalServerError) as info:
            client.chat.completions.create(model="m", messages=ask("please fail"))
        ok = client.chat.completions.create(model="m", messages=ask("please work"))
    assert info.value.status_code == 503
    assert ok.choices[0].message.content == "fine"


def test_fault_rule_callable_sees_request_index_and_body() -> None:
    calls: list[tuple[int, str]] = []

    def rule(index: int, body: dict[str, Any]) -> str | None:
        calls.append((index, body["model"]))
        return "500" if index % 2 == 0 else None

    with LocalOpenAIServer(faults=rule) as server:
        statuses = [post(server, CHAT)[0] for _ in range(4)]
    assert statuses == [500, 200, 500, 200]
    assert calls == [(0, "m"), (1, "m"), (2, "m"), (3, "m")]


def test_responder_errors_are_reported_as_http_400() -> None:
    def responder(messages: list[dict[str, Any]]) -> str:
        raise KeyError("no rule for this prompt")

    with LocalOpenAIServer(responder=responder) as server:
        status, _, body = post(server, CHAT)
    assert status == 400
    assert "responder raised KeyError" in json.loads(body)["error"]["message"]


def _content(body: bytes) -> dict[str, Any]:
    return json.loads(body)["choices"][0]


FAULT_CHECKS: dict[str, Any] = {
    "rate_limit": (Fault("429", retry_after=0.25),
                   lambda s, h, b: s == 429 and h["Retry-After"] == "0.25" and "Rate limit" in b.decode()),
    "server_error": (Fault("500", status=502), lambda s, h, b: s == 502 and "error" in json.loads(b)),
    "empty": (Fault("empty"), lambda s, h, b: s == 200 and _content(b)["message"]["content"] == ""),
    "truncated": (Fault("truncated"), lambda s, h, b: s == 200 and _content(b)["finish_reason"] == "length"
                  and _content(b)["message"]["content"] == "echo: open t"),
    "no_usage": (Fault("no_usage"), lambda s, h, b: s == 200 and "usage" not in json.loads(b)),
}


@pytest.mark.parametrize("kind", sorted(FAULT_CHECKS))
def test_http_level_shape_of_each_answer_fault(kind: str) -> None:
    fault, check = FAULT_CHECKS[kind]
    with LocalOpenAIServer(faults=[fault]) as server:
        status, headers, body = post(server, CHAT)
        normal_status, _, normal = post(server, CHAT)
    assert check(status, headers, body), (status, headers, body)
    assert normal_status == 200 and _content(normal)["message"]["content"] == "echo: open the fridge now"


def test_malformed_json_fault_sends_an_unparseable_body() -> None:
    with LocalOpenAIServer(faults=["malformed_json"]) as server:
        status, headers, body = post(server, CHAT)
    assert status == 200 and headers["Content-Type"] == "application/json"
    with pytest.raises(json.JSONDecodeError):
        json.loads(body)


def test_disconnect_fault_cuts_the_body_short() -> None:
    with LocalOpenAIServer(faults=["disconnect"]) as server, pytest.raises(http.client.IncompleteRead):
        post(server, CHAT)


def test_delay_and_timeout_faults_hold_the_answer() -> None:
    with LocalOpenAIServer(faults=[Fault("delay", delay_s=0.3), Fault("timeout", delay_s=5.0)]) as server:
        started = time.perf_counter()
        status, _, _ = post(server, CHAT)
        delayed = time.perf_counter() - started
        with pytest.raises(TimeoutError):
            post(server, CHAT, timeout=0.3)
        stop_started = time.perf_counter()
    assert status == 200 and delayed >= 0.3
    assert time.perf_counter() - stop_started < 2.0, "stop() must wake handlers stuck in a timeout fault"


def test_fault_times_and_add_faults_extend_the_schedule(server: LocalOpenAIServer) -> None:
    server.add_faults([Fault("500", times=2), None, "429"])
    statuses = [post(server, CHAT)[0] for _ in range(5)]
    assert statuses == [500, 500, 200, 429, 200]


def test_unknown_fault_kind_is_rejected() -> None:
    with pytest.raises(ValueError, match="unknown fault kind"):
        Fault("gremlins")


def test_embeddings_float_and_base64_agree_and_reflect_word_overlap(server: LocalOpenAIServer) -> None:
    client = sdk(server)
    texts = ["the red apple", "a red apple", "open the door"]
    as_base64 = client.embeddings.create(model="e", input=texts).data  # the SDK's default format
    as_float = client.embeddings.create(model="e", input=texts, encoding_format="float").data
    vectors = [item.embedding for item in as_float]
    assert [pytest.approx(item.embedding, abs=1e-6) for item in as_base64] == vectors
    assert all(len(v) == 64 and math.isclose(sum(x * x for x in v), 1.0, rel_tol=1e-6) for v in vectors)

    def cosine(a: list[float], b: list[float]) -> float:
        return sum(x * y for x, y in zip(a, b))

    assert cosine(vectors[0], vectors[1]) > cosine(vectors[0], vectors[2])


def test_custom_embedder_and_models_listing() -> None:
    with LocalOpenAIServer(embedder=lambda text: [float(len(text)), 1.0]) as server:
        client = sdk(server)
        vector = client.embeddings.create(model="e", input="abc", encoding_format="float").data[0].embedding
        models = [model.id for model in client.models.list().data]
    assert vector == [3.0, 1.0]
    assert models == ["local-model"]


def test_api_key_is_enforced_when_configured() -> None:
    with LocalOpenAIServer(api_key="right-key") as server:
        with pytest.raises(openai.AuthenticationError):
            sdk(server, key="wrong-key").chat.completions.create(model="m", messages=ask("hi"))
        reply = sdk(server, key="right-key").chat.completions.create(model="m", messages=ask("hi"))
    assert reply.choices[0].message.content == "echo: hi"


@pytest.mark.parametrize(
    ("body", "path", "status"),
    [({"messages": []}, "/v1/chat/completions", 400),          # no model
     ({"model": "m", "messages": "hi"}, "/v1/chat/completions", 400),
     ({"model": "m", "input": 3}, "/v1/embeddings", 400),
     ({**CHAT, "stream": True}, "/v1/chat/completions", 400),
     (CHAT, "/v1/nope", 404)],
)
def test_bad_requests_get_clear_http_errors(server: LocalOpenAIServer, body: Any, path: str, status: int) -> None:
    got, _, raw = post(server, body, path=path)
    assert got == status
    assert json.loads(raw)["error"]["message"]


def test_stop_closes_kept_alive_connections_and_frees_nothing_else() -> None:
    server = LocalOpenAIServer().start()
    client = sdk(server)
    assert client.chat.completions.create(model="m", messages=ask("a")).choices[0].message.content == "echo: a"
    server.stop()
    with pytest.raises(openai.APIConnectionError):
        client.chat.completions.create(model="m", messages=ask("b"))
    assert server.calls == 1
    assert not [t for t in threading.enumerate() if t.name == "LocalOpenAIServer"]
