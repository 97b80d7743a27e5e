"""Helpers of the serving tests: real MCP servers in subprocesses, real SDK clients."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp")

from mcp import Client  # noqa: E402
from mcp.client.stdio import StdioServerParameters  # noqa: E402
from mcp.client.streamable_http import streamable_http_client  # noqa: E402
from mcp.shared._httpx_utils import create_mcp_http_client  # noqa: E402

REPO = Path(__file__).resolve().parents[2]


def server_env(**extra: str) -> dict[str, str]:
    """The environment of a spawned server (ROM dir and fixed hash seed kept)."""
    env = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "TEXTMEM_ROMS_DIR", "PYTHONHASHSEED",
                                                        "XDG_CACHE_HOME", "JAVA_HOME")}
    return {**env, **extra}


def stdio_client(*args: str, **env: str) -> Client:
    """An SDK client that spawns ``textmem-gym mcp ARGS`` over stdio."""
    params = StdioServerParameters(command=sys.executable, args=["-m", "textmem_gym.cli", "mcp", *args],
                                   env=server_env(**env), cwd=str(REPO))
    return Client(params)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def http_server(*args: str, **env: str) -> Iterator[str]:
    """Runs ``textmem-gym mcp --transport http ARGS`` and yields its URL until the block ends."""
    port = free_port()
    process = subprocess.Popen([sys.executable, "-m", "textmem_gym.cli", "mcp", "--transport", "http",
                                "--port", str(port), *args], env=server_env(**env), cwd=str(REPO),
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 60
        while True:
            with socket.socket() as sock:
                if sock.connect_ex(("127.0.0.1", port)) == 0:
                    break
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"server did not start: {process.stderr.read().decode() if process.stderr else ''}")
            time.sleep(0.1)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        process.wait(timeout=30)


@asynccontextmanager
async def http_client(url: str, token: str | None = None) -> Any:
    """An SDK client over streamable HTTP (with a bearer token when given)."""
    headers = {"Authorization": f"Bearer {token}"} if token else None
    async with create_mcp_http_client(headers=headers) as http:
        async with Client(streamable_http_client(url, http_client=http)) as client:
            yield client


def text(result: Any) -> str:
    """The text of a tool result."""
    return "\n".join(block.text for block in result.content if getattr(block, "type", "") == "text")


def messages(error: BaseException) -> str:
    """Every message of ``error`` and of the exceptions grouped or chained in it."""
    found = [f"{type(error).__name__}: {error}"]
    for inner in getattr(error, "exceptions", ()):
        found.append(messages(inner))
    if error.__cause__ is not None:
        found.append(messages(error.__cause__))
    return "\n".join(found)
