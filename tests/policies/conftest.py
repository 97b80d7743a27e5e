"""Fixtures for the policy tests: no OPENAI_* variables leak in, the LLM cache stays in tmp
(except in modules setting ``SHARED_CACHE = True``, whose games stay in the shared cache)."""

from __future__ import annotations

import pytest

_OPENAI_VARS = ("OPENAI_MODEL", "OPENAI_BASE_URL", "OPENAI_API_KEY", "OPENAI_EMBEDDING_MODEL")


@pytest.fixture(autouse=True)
def isolated_env(monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest) -> None:
    for name in _OPENAI_VARS:
        monkeypatch.delenv(name, raising=False)
    if not getattr(request.module, "SHARED_CACHE", False):
        monkeypatch.setenv("TEXTMEM_CACHE_DIR", str(request.getfixturevalue("tmp_path") / "cache"))
