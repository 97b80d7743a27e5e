"""LLMClient against the local server: configuration, results, parameters, async, concurrency."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest

from tests.llm.conftest import TEST_KEY, USER, ask
from textmem_gym.llm import LLMClient, LocalOpenAIServer
from textmem_gym.llm.testing.exchange import bag_of_words_vector

pytestmark = pytest.mark.llm
MakeClient = Callable[..., LLMClient]


def test_chat_returns_text_usage_latency_and_model(server: LocalOpenAIServer, make_client: MakeClient) -> None:
    result = make_client(server).chat(USER)
    assert result.text == "echo: You are in a kitchen. What do you do?"
    # Server usage is used as is: 9 words + 1 per message, 10 words answered.
    assert (result.prompt_tokens, result.completion_tokens, result.tokens_estimated) == (10, 10, False)
    assert result.model == "test-model"
    assert result.cached is False and result.retries == 0 and result.finish_reason == "stop"
    assert 0 < result.latency_s < 2


def test_configuration_comes_from_openai_environment_variables(monkeypatch: pytest.MonkeyPatch) -> None:
    with LocalOpenAIServer(api_key=TEST_KEY) as server:
        monkeypatch.setenv("OPENAI_MODEL", "env-model")
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", TEST_KEY)
        with LLMClient() as client:
            result = client.chat(USER)
        assert server.requests[0]["model"] == "env-model"
    assert result.model == "env-model" and result.text.startswith("echo:")
    assert client.base_url == server.base_url


def test_arguments_override_environment(monkeypatch: pytest.MonkeyPatch, server: LocalOpenAIServer) -> None:
    monkeypatch.setenv("OPENAI_MODEL", "env-model")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    with LLMClient(model="arg-model", base_url=server.base_url) as client:
        assert client.chat(USER).model == "arg-model"


def test_missing_model_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="OPENAI_MODEL"):
        LLMClient()


def test_sampling_parameters_reach_the_server(server: LocalOpenAIServer, make_client: MakeClient) -> None:
    client = make_client(server, seed=7)
    client.chat(USER, temperature=0.5, max_tokens=32, top_p=0.9, stop=["\n"])
    client.chat(USER, temperature=None)
    first, second = server.requests
    assert {k: first[k] for k in ("temperature", "max_tokens", "seed", "top_p", "stop")} == {
        "temperature": 0.5, "max_tokens": 32, "seed": 7, "top_p": 0.9, "stop": ["\n"]}
    assert "temperature" not in second and "max_tokens" not in second
    assert first["messages"] == USER


def test_messages_must_be_a_list_of_mappings(server: LocalOpenAIServer, make_client: MakeClient) -> None:
    with pytest.raises(TypeError, match="messages"):
        make_client(server).chat("just a string")  # type: ignore[arg-type]
    assert server.calls == 0


def test_result_json_helper_parses_structured_answers(make_client: MakeClient) -> None:
    with LocalOpenAIServer(script=["Sure:\n```json\n{'action': 'take knife',}\n```"]) as server:
        parsed = make_client(server).chat(USER).json(required=("action",))
    assert parsed.ok and parsed.value == {"action": "take knife"} and parsed.repaired


def test_achat_matches_chat(server: LocalOpenAIServer, make_client: MakeClient) -> None:
    client = make_client(server)
    sync_result = client.chat(USER)
    async_result = asyncio.run(client.achat(USER))
    assert async_result.text == sync_result.text
    assert (async_result.prompt_tokens, async_result.completion_tokens) == (10, 10)
    assert client.usage.calls == 2


def test_async_client_works_across_event_loops(server: LocalOpenAIServer, make_client: MakeClient) -> None:
    client = make_client(server)
    texts = [asyncio.run(client.achat(ask(f"loop {i}"))).text for i in range(3)]
    assert texts == ["echo: loop 0", "echo: loop 1", "echo: loop 2"]


def test_async_concurrency_limit_is_respected(make_client: MakeClient) -> None:
    with LocalOpenAIServer(latency=0.15) as server:
        client = make_client(server, concurrency=3)

        async def run() -> list[str]:
            results = await asyncio.gather(*(client.achat(ask(f"q{i}")) for i in range(9)))
            return [r.text for r in results]

        texts = asyncio.run(run())
        assert server.max_in_flight == 3
    assert texts == [f"echo: q{i}" for i in range(9)]


def test_sync_concurrency_limit_and_order_of_chat_many(make_client: MakeClient) -> None:
    with LocalOpenAIServer(latency=0.15) as server:
        client = make_client(server, concurrency=4)
        results = client.chat_many([ask(f"q{i}") for i in range(10)])
        assert server.max_in_flight == 4
    assert [r.text for r in results] == [f"echo: q{i}" for i in range(10)]


def test_embed_returns_vectors_in_order(server: LocalOpenAIServer, make_client: MakeClient) -> None:
    client = make_client(server, embedding_model="embedder")
    texts = ["red apple", "blue door", "red apple"]
    vectors = client.embed(texts)
    assert vectors == [pytest.approx(bag_of_words_vector(t, 64)) for t in texts]
    assert asyncio.run(client.aembed(["blue door"])) == [pytest.approx(vectors[1])]
    assert server.requests[0]["model"] == "embedder" and server.requests[0]["encoding_format"] == "float"
    assert client.usage.prompt_tokens == 6 + 2 and client.usage.calls == 2


def test_embed_rejects_a_bare_string(server: LocalOpenAIServer, make_client: MakeClient) -> None:
    with pytest.raises(TypeError):
        make_client(server).embed("not a list")  # type: ignore[arg-type]


def test_repr_names_the_endpoint_but_never_the_key(server: LocalOpenAIServer, make_client: MakeClient) -> None:
    client = make_client(server)
    text = repr(client)
    assert server.base_url in text and "test-model" in text
    assert TEST_KEY not in text


def test_usage_totals_sum_over_calls(server: LocalOpenAIServer, make_client: MakeClient) -> None:
    client = make_client(server)
    results = [client.chat(ask("one two")), client.chat(ask("three"))]
    totals: dict[str, Any] = client.usage.as_dict()
    assert totals["calls"] == 2 and totals["cache_hits"] == 0
    assert totals["prompt_tokens"] == sum(r.prompt_tokens for r in results) == 3 + 2
    assert totals["completion_tokens"] == sum(r.completion_tokens for r in results) == 3 + 2
    assert totals["latency_s"] == pytest.approx(sum(r.latency_s for r in results))
    assert totals["failures"] == {} and totals["retries"] == 0


def test_server_specific_parameters_pass_through(server: LocalOpenAIServer, make_client: MakeClient) -> None:
    make_client(server).chat(USER, top_k=5, extra_body={"min_p": 0.1})
    body = server.requests[0]
    assert body["top_k"] == 5 and body["min_p"] == 0.1 and "extra_body" not in body


def test_extra_headers_reach_the_server(make_client: MakeClient) -> None:
    with LocalOpenAIServer(api_key="header-key") as server:
        client = make_client(server, api_key="wrong-key", max_retries=0)
        result = client.chat(USER, extra_headers={"Authorization": "Bearer header-key"})
    assert result.text.startswith("echo:")


def test_async_context_manager_closes_its_transport(server: LocalOpenAIServer, make_client: MakeClient) -> None:
    client = make_client(server)

    async def run() -> str:
        async with client:
            text = (await client.achat(USER)).text
            assert len(client._async_sdks) == 1
        assert len(client._async_sdks) == 0
        return text

    assert asyncio.run(run()).startswith("echo:")
