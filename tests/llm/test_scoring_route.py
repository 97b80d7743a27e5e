"""The prompt-scoring route (``/v1/completions`` with ``echo``): the checks ``textmem-gym serve-llm``
and the local test server share, and the local test server's answers (no model needed)."""

from __future__ import annotations

import httpx
import numpy as np
import pytest

from textmem_gym.llm import LLMClient, LocalOpenAIServer
from textmem_gym.llm.scoring_server import ScoringRequestError, log_softmax, scoring_arguments


def scorer(before: str, token: str) -> float:
    """The scripted model: ``door`` is likely, the rest not."""
    return -0.5 if token.strip() == "door" else -2.0


@pytest.mark.parametrize(("body", "problem"), [
    ({"prompt": "a", "echo": True, "max_tokens": 5, "logprobs": 1}, "max_tokens must be 0 or 1"),
    ({"prompt": "a", "echo": True, "logprobs": 1}, "max_tokens must be 0 or 1, not 16"),
    ({"prompt": "a", "echo": True, "max_tokens": 0, "logprobs": 99}, "logprobs must be an integer from 0 to 20"),
    ({"prompt": "a", "echo": True, "max_tokens": 0, "logprobs": "1"}, "logprobs must be an integer"),
    ({"prompt": [], "echo": True, "max_tokens": 0}, "prompt must be a string or a non-empty list"),
    ({"prompt": [1, 2], "echo": True, "max_tokens": 0}, "prompt must be a string or a non-empty list"),
    ({"prompt": "a", "echo": True, "max_tokens": 0, "stream": True}, "stream is not supported"),
    ({"prompt": "a", "echo": True, "max_tokens": 0, "n": 2}, "n and best_of must be 1"),
])
def test_a_wrong_scoring_request_names_its_problem(body: dict[str, object], problem: str) -> None:
    with pytest.raises(ScoringRequestError, match=problem):
        scoring_arguments(body)


def test_log_softmax_rows_are_normalised_and_keep_the_order() -> None:
    rows = np.array([[1.0, 2.0, 3.0], [-50.0, 0.0, 50.0]], dtype=np.float32)
    out = log_softmax(rows)
    assert np.allclose(np.exp(out).sum(axis=1), 1.0)
    assert np.allclose(out[0], np.log(np.exp([1.0, 2.0, 3.0]) / np.exp([1.0, 2.0, 3.0]).sum()))
    assert out[1].argmax() == 2 and out[1][2] == pytest.approx(0.0, abs=1e-12)


def test_the_test_server_answers_the_scoring_route_without_generating() -> None:
    with LocalOpenAIServer(logprobs=scorer) as server:
        reply = httpx.post(server.base_url + "/completions", json={
            "model": "m", "prompt": ["You see a> open door", "You see a> look"], "echo": True, "max_tokens": 0,
            "logprobs": 1}, timeout=10.0)
    body = reply.json()
    assert reply.status_code == 200 and [c["index"] for c in body["choices"]] == [0, 1]
    first, second = (c["logprobs"] for c in body["choices"])
    assert body["choices"][0]["text"] == "You see a> open door"  # echoed, nothing generated
    assert first["tokens"] == ["You", " see", " a>", " open", " door"]
    assert first["token_logprobs"] == [None, -2.0, -2.0, -2.0, -0.5]
    assert first["text_offset"] == [0, 3, 7, 10, 15]
    assert second["token_logprobs"][-1] == -2.0 and body["usage"]["completion_tokens"] == 0


@pytest.mark.parametrize("body", [
    {"model": "m", "prompt": "look", "echo": True, "max_tokens": 7, "logprobs": 1},
    {"model": "m", "prompt": "look", "echo": True, "max_tokens": 0, "logprobs": 50},
    {"model": "m", "prompt": None, "echo": True, "max_tokens": 0},
])
def test_the_test_server_refuses_a_wrong_scoring_request_with_a_400(body: dict[str, object]) -> None:
    with LocalOpenAIServer(logprobs=scorer) as server:
        reply = httpx.post(server.base_url + "/completions", json=body, timeout=10.0)
    assert reply.status_code == 400 and reply.json()["error"]["type"] == "invalid_request_error"


def test_the_client_scores_a_continuation_through_the_route() -> None:
    with LocalOpenAIServer(logprobs=scorer) as server, LLMClient(model="m", base_url=server.base_url) as client:
        scored = client.prompt_logprobs("You see a> open door")
        sent = server.requests[-1]
    assert sent["echo"] is True and sent["logprobs"] == 1 and sent["max_tokens"] == 1
    assert scored.continuation(len("You see a>"), len("You see a> open door")) == pytest.approx(-2.5)
