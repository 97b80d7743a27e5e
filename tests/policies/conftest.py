"""Fixtures for the policy tests: no OPENAI_* variables leak in, the LLM cache stays in tmp."""

from __future__ import annotations

import pytest

_OPENAI_VARS = ("OPENAI_MODEL", "OPENAI_BASE_URL", "OPENAI_API_KEY", "OPENAI_EMBEDDING_MODEL")


@pytest.fixture(autouse=True)
def isolated_env(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    for name in _OPENAI_VARS:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("TEXTMEM_CACHE_DIR", str(tmp_path / "cache"))
