"""Fixtures for the LLM tests: an isolated environment and a client factory with fast backoff."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from textmem_gym.llm import LLMClient, LocalOpenAIServer

TEST_KEY = "sk-test-9f8e7d6c5b4a3210fedcba"
USER: list[dict[str, str]] = [{"role": "user", "content": "You are in a kitchen. What do you do?"}]
_OPENAI_VARS = ("OPENAI_MODEL", "OPENAI_BASE_URL", "OPENAI_API_KEY", "OPENAI_EMBEDDING_MODEL",
                "OPENAI_ORG_ID", "OPENAI_PROJECT_ID", "OPENAI_LOG")


def ask(text: str) -> list[dict[str, str]]:
    """A one-message conversation."""
    return [{"role": "user", "content": text}]


@pytest.fixture(autouse=True)
def isolated_env(monkeypatch: pytest.MonkeyPatch, isolated_cache: Path) -> None:
    """No OPENAI_* variable leaks in from the machine; the cache lives in tmp_path (games aside: see
    ``isolated_cache`` in ``tests/conftest.py``)."""
    for name in _OPENAI_VARS:
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def server() -> Iterator[LocalOpenAIServer]:
    """A running echo server."""
    with LocalOpenAIServer() as srv:
        yield srv


@pytest.fixture
def make_client() -> Iterator[Callable[..., LLMClient]]:
    """Builds clients for a server with short timeouts and millisecond backoff; closes them after."""
    clients: list[LLMClient] = []

    def make(srv: LocalOpenAIServer, **kwargs: Any) -> LLMClient:
        options: dict[str, Any] = {"model": "test-model", "base_url": srv.base_url, "api_key": TEST_KEY,
                                   "timeout": 2.0, "backoff_base": 0.01, "backoff_max": 0.05}
        options.update(kwargs)
        client = LLMClient(**options)
        clients.append(client)
        return client

    yield make
    for client in clients:
        client.close()
