"""Fail fast on a dead endpoint: the preflight check answers in seconds with one line, and calls
that fail in a row on transport faults stop the run (EndpointDown, a RunAborted) instead of being
counted as one more fallback; no asker swallows it."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from pathlib import Path

import gymnasium as gym
import pytest

import textmem_gym  # noqa: F401  (registers the ids)
from policies import make_policy
from tests.policies.answerer import WalkthroughAnswerer
from textmem_gym.core.errors import PolicyNotReady, RunAborted
from textmem_gym.llm import (
    ClientAsk,
    EndpointDown,
    EndpointUnavailable,
    EndpointWarning,
    LLMCalls,
    LLMClient,
    LLMError,
    LocalOpenAIServer,
    preflight,
)
from textmem_gym.llm.client import DOWN_AFTER
from textmem_gym.results import ResultsFile

ROOT = Path(__file__).resolve().parents[2]

CLOSED = "http://127.0.0.1:9/v1"  # the discard port: nothing listens there
FAST = {"timeout": 0.5, "max_retries": 1, "backoff_base": 0.001, "backoff_max": 0.01}
USER = [{"role": "user", "content": "hi"}]


def test_preflight_on_a_closed_port_fails_in_seconds_with_one_line():
    started = time.perf_counter()
    with pytest.raises(EndpointUnavailable) as caught:
        preflight("m", CLOSED)
    assert time.perf_counter() - started < 10
    message = str(caught.value)
    assert isinstance(caught.value, PolicyNotReady) and "\n" not in message
    assert message.startswith(f"LLM endpoint {CLOSED}: nothing answers")


def test_preflight_names_a_refused_key_and_a_missing_key():
    with LocalOpenAIServer(api_key="right-key-123456") as server:
        with pytest.raises(EndpointUnavailable, match=r"the API key is refused \(HTTP 401\)$") as wrong:
            preflight("m", server.base_url, "wrong-key-123456")
        with pytest.raises(EndpointUnavailable, match=r"no API key is set"):
            preflight("m", server.base_url)
        preflight("m", server.base_url, "right-key-123456")
    assert "wrong-key" not in str(wrong.value)


def test_preflight_checks_the_model_where_the_server_lists_every_model_it_serves():
    with LocalOpenAIServer(profile="vllm") as server:
        with pytest.raises(EndpointUnavailable, match=r"model 'gpt-nope' is not served here \(it lists: local-model\)"):
            preflight("gpt-nope", server.base_url)
        preflight("local-model", server.base_url)
    with LocalOpenAIServer(profile="llama-cpp-python") as server:  # one model, answering to any name
        preflight("any-name", server.base_url)


def test_preflight_names_a_base_url_without_the_api_path():
    with LocalOpenAIServer() as server:
        root = server.base_url.removesuffix("/v1")
        with pytest.raises(EndpointUnavailable, match=r"no GET /models route \(HTTP 404\)"):
            preflight("m", root)


def test_preflight_asks_nothing_in_replay_mode(tmp_path):
    LLMClient(model="m", base_url=CLOSED, cache="replay", cache_path=tmp_path).preflight()


def test_a_server_that_dies_midway_stops_the_calls_after_a_few_transport_failures():
    server = LocalOpenAIServer(script=["a", "b"]).start()
    client = LLMClient(model="m", base_url=server.base_url, **FAST)
    assert client.chat(USER).text == "a"
    server.stop()
    for _ in range(DOWN_AFTER - 1):
        with pytest.raises(LLMError) as failed:
            client.chat(USER)
        assert failed.value.last_fault == "connection"
    with pytest.raises(EndpointDown) as down:
        client.chat(USER)
    assert isinstance(down.value, RunAborted) and not isinstance(down.value, LLMError)
    assert str(down.value) == (f"LLM endpoint {server.base_url} is down: {DOWN_AFTER} calls in a row failed "
                               "(connection) after their retries")


def test_a_call_that_succeeds_or_fails_otherwise_breaks_the_series():
    with LocalOpenAIServer(script=["ok"] * 3, faults=["500", "500", None, "500", "500", None]) as server:
        client = LLMClient(model="m", base_url=server.base_url, **FAST)
        with pytest.raises(LLMError):
            client.chat(USER)  # two 500s: a server error, not a dead server
        assert client.chat(USER).text == "ok"
    for _ in range(DOWN_AFTER - 1):
        with pytest.raises(LLMError):
            client.chat(USER)
    with pytest.raises(EndpointDown):
        client.chat(USER)


def test_async_calls_stop_the_same_way():
    server = LocalOpenAIServer().start()
    url = server.base_url
    server.stop()

    async def calls() -> list[str]:
        client = LLMClient(model="m", base_url=url, **FAST)
        outcomes = []
        for _ in range(DOWN_AFTER):
            try:
                await client.achat(USER)
            except (LLMError, EndpointDown) as error:
                outcomes.append(type(error).__name__)
        await client.aclose()
        return outcomes

    assert asyncio.run(calls()) == ["LLMError"] * (DOWN_AFTER - 1) + ["EndpointDown"]


def test_no_asker_swallows_a_dead_endpoint():
    server = LocalOpenAIServer().start()
    url = server.base_url
    server.stop()
    calls = LLMCalls(model="m", base_url=url, client_options=FAST)
    answers = [calls.ask("check", "Is it?") for _ in range(DOWN_AFTER - 1)]
    assert answers == [None] * (DOWN_AFTER - 1) and calls.failure_cause() == "llm_error"
    with pytest.raises(EndpointDown):
        calls.ask("check", "Is it?")
    ask = ClientAsk(LLMClient(model="m", base_url=url, **FAST))
    assert [ask("triplets", "text") for _ in range(DOWN_AFTER - 1)] == [None] * (DOWN_AFTER - 1)
    with pytest.raises(EndpointDown):
        ask("triplets", "text")


@pytest.mark.parametrize("name", ["ariadne", "react", "reflact", "stma", "davis", "netplay"])
def test_every_llm_policy_preflights_its_endpoint(name):
    policy = make_policy(name, model="m", base_url=CLOSED)
    started = time.perf_counter()
    with pytest.raises(PolicyNotReady, match=r"^LLM endpoint http://127\.0\.0\.1:9/v1: nothing answers"):
        policy.preflight()
    assert time.perf_counter() - started < 10
    policy.close()


def test_a_policy_without_a_model_is_not_ready(monkeypatch):
    monkeypatch.delenv("OPENAI_MODEL", raising=False)
    with pytest.raises(PolicyNotReady, match=r"no model given"):
        make_policy("react", base_url=CLOSED).preflight()


def test_ariadne_stops_when_its_server_dies_midway_and_says_where_each_action_came_from():
    game = "TextMem/Cooking-v0"
    with LocalOpenAIServer(responder=WalkthroughAnswerer(game)) as server:
        policy = make_policy("ariadne", model="local-test", base_url=server.base_url, extractor="rules",
                             similarity="bm25", structured_output="off", **FAST)
        policy.preflight()
        env = policy.wrap_env(gym.make(game))
        observation, info = env.reset(seed=0)
        policy.reset(observation, info)
        sources = []
        for _ in range(2):
            action = policy.act(observation, info)
            sources.append(policy.action_source())
            observation, reward, terminated, truncated, info = env.step(action)
            policy.observe(action, observation, float(reward), terminated, truncated, info)
        assert len(policy.take_llm_calls()) >= 2
    assert sources == ["model", "model"] and policy.action_source() is None
    with pytest.raises(RunAborted, match=r"is down: 3 calls in a row failed"):
        policy.act(observation, info)  # planner, exploration check, decision: the third call stops it
    assert policy.episode_stats()["fallbacks"] == {}
    env.close()
    policy.close()


def test_an_endpoint_without_a_model_list_is_used_with_one_warning():
    """GET /models -> 501 (serving the list is not part of every OpenAI-compatible server): the chat
    route is there, so the check warns once and goes on; the model cannot be checked."""
    with LocalOpenAIServer(profile="vllm", models_status=501, script=["look"]) as server:
        with pytest.warns(EndpointWarning) as warned:
            preflight("any-model", server.base_url)
        client = LLMClient(model="any-model", base_url=server.base_url, **FAST)
        assert client.chat(USER).text == "look"
    assert [str(w.message) for w in warned] == [
        f"LLM endpoint {server.base_url}: GET /models answered HTTP 501 (no model list), so model 'any-model' is "
        "not checked; going on"]


def test_without_a_model_list_nor_a_chat_route_the_endpoint_is_refused():
    with LocalOpenAIServer(models_status=501) as server:
        root = server.base_url.removesuffix("/v1")  # neither /models nor /chat/completions: cannot work
        with pytest.raises(EndpointUnavailable, match=r"GET /models failed \(HTTP 404\)|no GET /models route"):
            preflight("m", root)
        with pytest.raises(EndpointUnavailable, match=r"the API key is refused \(HTTP 401\)"):
            with LocalOpenAIServer(models_status=501, api_key="right-key-123456") as keyed:
                preflight("m", keyed.base_url, "wrong-key-123456")


@pytest.mark.llm
def test_eval_on_an_endpoint_without_a_model_list_prints_one_warning_line_and_plays(tmp_path):
    out = tmp_path / "r.jsonl"
    with LocalOpenAIServer(models_status=501) as server:
        proc = subprocess.run(
            [sys.executable, "-m", "textmem_gym.cli", "eval", "TextMem/CookingRL-L1-v0", "--policy", "ariadne",
             "--model", "m", "--base-url", server.base_url, "--max-steps", "1", "--out", str(out), "--quiet"],
            cwd=ROOT, capture_output=True, text=True, timeout=600, env={**os.environ, "OPENAI_API_KEY": "k"})
    assert proc.returncode == 0, proc.stderr
    lines = [line for line in proc.stderr.splitlines() if not line.startswith("generating game ")]  # cache per test
    assert lines == [
        f"textmem-gym: warning: LLM endpoint {server.base_url}: GET /models answered HTTP 501 (no model list), so "
        "model 'm' is not checked; going on"]
    assert len(ResultsFile(out).read()) == 1
