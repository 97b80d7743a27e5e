"""Fixtures for the policy tests: no OPENAI_* variables leak in, the LLM cache stays in tmp (the
games, built from code, stay in the suite's cache: see ``isolated_cache`` in ``tests/conftest.py``)."""

from __future__ import annotations

from pathlib import Path

import pytest

_OPENAI_VARS = ("OPENAI_MODEL", "OPENAI_BASE_URL", "OPENAI_API_KEY", "OPENAI_EMBEDDING_MODEL")


@pytest.fixture(autouse=True)
def isolated_env(monkeypatch: pytest.MonkeyPatch, isolated_cache: Path) -> None:
    for name in _OPENAI_VARS:
        monkeypatch.delenv(name, raising=False)
