"""Fault tolerance: every fault kind through the real client, backoff, Retry-After, final errors."""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Callable

import pytest

from tests.llm.conftest import TEST_KEY, USER
from textmem_gym.llm import Fault, LLMClient, LLMError, LocalOpenAIServer
from textmem_gym.llm.request import normalize_chat
from textmem_gym.llm.retry import BadResponseError, RetryPolicy, classify, parse_retry_after

pytestmark = pytest.mark.llm
MakeClient = Callable[..., LLMClient]

RETRIED = {
    "rate_limit": Fault("429", retry_after=0.01),
    "server_error": Fault("500"),
    "bad_gateway": Fault("server_error", status=502),
    "malformed_json": Fault("malformed_json"),
    "disconnect": Fault("disconnect"),
    "timeout": Fault("timeout", delay_s=3.0),
}
EXPECTED_KIND = {"rate_limit": "rate_limit", "server_error": "server_error", "bad_gateway": "server_error",
                 "malformed_json": "bad_response", "disconnect": "connection", "timeout": "timeout"}


@pytest.mark.parametrize("name", sorted(RETRIED))
def test_transient_faults_are_retried_then_succeed(name: str, make_client: MakeClient) -> None:
    with LocalOpenAIServer(faults=[RETRIED[name]]) as server:
        client = make_client(server, timeout=0.4)
        result = client.chat(USER)
        assert server.calls == 2
    assert result.text == "echo: You are in a kitchen. What do you do?"
    assert result.retries == 1
    assert client.usage.failures == {EXPECTED_KIND[name]: 1}
    assert client.usage.retries == 1 and client.usage.failed_calls == 0


def test_last_retry_raises_llm_error_naming_endpoint_model_attempts_and_fault(make_client: MakeClient) -> None:
    with LocalOpenAIServer(faults=[Fault("500", times=10)]) as server:
        client = make_client(server, max_retries=2)
        with pytest.raises(LLMError) as info:
            client.chat(USER)
        assert server.calls == 3
    error = info.value
    assert (error.attempts, error.last_fault, error.status, error.model) == (3, "server_error", 500, "test-model")
    message = str(error)
    assert server.base_url in message and "'test-model'" in message and "3 attempt(s)" in message
    assert "server_error" in message and TEST_KEY not in message
    assert error.__context__ is None and error.__cause__ is None
    assert client.usage.failed_calls == 1 and client.usage.failures == {"server_error": 3}
    assert client.usage.retries == 2


def test_non_retryable_http_errors_fail_at_once(make_client: MakeClient) -> None:
    with LocalOpenAIServer(api_key="the-server-key") as server:
        client = make_client(server, max_retries=4)
        with pytest.raises(LLMError) as info:
            client.chat(USER)
        assert server.calls == 1
    assert (info.value.attempts, info.value.last_fault, info.value.status) == (1, "http_401", 401)


def test_unreachable_server_is_a_connection_fault(make_client: MakeClient) -> None:
    server = LocalOpenAIServer().start()
    base_url = server.base_url
    server.stop()
    with pytest.raises(LLMError) as info:
        make_client(server, base_url=base_url, max_retries=2).chat(USER)
    assert (info.value.attempts, info.value.last_fault) == (3, "connection")


def test_retry_after_is_honoured(make_client: MakeClient) -> None:
    with LocalOpenAIServer(faults=[Fault("429", retry_after=0.6)]) as server:
        client = make_client(server, backoff_base=0.001)
        started = time.perf_counter()
        result = client.chat(USER)
        elapsed = time.perf_counter() - started
    assert elapsed >= 0.6 and result.latency_s >= 0.6
    assert result.retries == 1


def test_backoff_grows_exponentially_between_attempts(make_client: MakeClient) -> None:
    with LocalOpenAIServer(faults=[Fault("500", times=3)]) as server:
        client = make_client(server, backoff_base=0.1, backoff_max=10.0)
        started = time.perf_counter()
        result = client.chat(USER)
        elapsed = time.perf_counter() - started
    # Waits of 0.1, 0.2 and 0.4 s, each reduced by up to half by jitter: at least 0.35 s in all.
    assert result.retries == 3
    assert 0.35 <= elapsed < 1.5


def test_backoff_schedule_cap_and_jitter_bounds() -> None:
    exact = RetryPolicy(backoff_base=0.5, backoff_max=3.0, jitter=0.0)
    assert [exact.delay(i, None, random.Random(0)) for i in range(5)] == [0.5, 1.0, 2.0, 3.0, 3.0]
    jittered = RetryPolicy(backoff_base=1.0, jitter=0.5)
    rng = random.Random(1)
    samples = [jittered.delay(2, None, rng) for _ in range(200)]
    assert all(2.0 <= s <= 4.0 for s in samples) and len(set(samples)) > 100
    assert jittered.delay(0, retry_after=500.0, rng=rng) == jittered.max_retry_after


@pytest.mark.parametrize(
    ("headers", "seconds"),
    [({"retry-after": "3"}, 3.0), ({"retry-after": "0.5"}, 0.5), ({"retry-after-ms": "1500"}, 1.5),
     ({"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"}, 0.0), ({}, None), ({"retry-after": "soon"}, None)],
)
def test_retry_after_header_formats(headers: dict[str, str], seconds: float | None) -> None:
    assert parse_retry_after(headers) == seconds


def test_per_call_timeout_overrides_the_client_timeout(make_client: MakeClient) -> None:
    with LocalOpenAIServer(faults=[Fault("delay", delay_s=1.5)]) as server:
        client = make_client(server, timeout=5.0, max_retries=0)
        started = time.perf_counter()
        with pytest.raises(LLMError) as info:
            client.chat(USER, timeout=0.2)
    assert info.value.last_fault == "timeout"
    assert time.perf_counter() - started < 1.2


def test_empty_content_is_returned_and_counted_by_default(make_client: MakeClient) -> None:
    with LocalOpenAIServer(faults=["empty"]) as server:
        client = make_client(server)
        result = client.chat(USER)
        assert server.calls == 1
    assert result.text == "" and result.retries == 0
    assert client.usage.failures == {"empty_content": 1}


def test_empty_content_can_be_retried(make_client: MakeClient) -> None:
    with LocalOpenAIServer(faults=["empty"]) as server:
        result = make_client(server, retry_empty=True).chat(USER)
        assert server.calls == 2
    assert result.text.startswith("echo:") and result.retries == 1


def test_truncated_output_is_flagged_not_retried(make_client: MakeClient) -> None:
    with LocalOpenAIServer(script=["0123456789"], faults=["truncated"]) as server:
        client = make_client(server)
        result = client.chat(USER)
    assert result.text == "01234" and result.truncated and result.finish_reason == "length"
    assert client.usage.failures == {"truncated": 1}


def test_async_calls_retry_too(make_client: MakeClient) -> None:
    with LocalOpenAIServer(faults=[Fault("429", retry_after=0.01), "500"]) as server:
        client = make_client(server)
        result = asyncio.run(client.achat(USER))
    assert result.retries == 2 and result.text.startswith("echo:")
    assert client.usage.failures == {"rate_limit": 1, "server_error": 1}


def test_async_final_error_is_llm_error(make_client: MakeClient) -> None:
    with LocalOpenAIServer(faults=[Fault("500", times=5)]) as server:
        with pytest.raises(LLMError) as info:
            asyncio.run(make_client(server, max_retries=1).achat(USER))
    assert info.value.attempts == 2


def test_embeddings_are_retried(make_client: MakeClient) -> None:
    with LocalOpenAIServer(faults=["500", Fault("429", retry_after=0.01)]) as server:
        client = make_client(server)
        vectors = client.embed(["a b", "c"])
        assert server.calls == 3
    assert len(vectors) == 2 and client.usage.retries == 2


def test_programming_errors_are_not_retried_or_wrapped(server: LocalOpenAIServer, make_client: MakeClient) -> None:
    with pytest.raises(TypeError):
        make_client(server).chat(USER, stop=object())  # not JSON-serialisable: a caller bug
    assert server.calls == 0


@pytest.mark.parametrize("raw", ["<html>proxy error</html>", {"object": "chat.completion"}, None])
def test_answers_that_are_not_completions_are_retryable_bad_responses(raw: object) -> None:
    body = {"model": "m", "messages": USER}
    with pytest.raises(BadResponseError) as info:
        normalize_chat(raw, body, False)
    fault = classify(info.value)
    assert fault is not None and fault.kind == "bad_response" and fault.retryable
