"""The MCP server over streamable HTTP: separate sessions, the session cap, release of closed and
idle sessions, and the bearer token."""

from __future__ import annotations

import subprocess
import sys
import time

import anyio
import pytest

from tests.serving.conftest import REPO, http_client, http_server, messages, server_env, text

TOKEN = "s3cret-token"


def test_two_concurrent_sessions_have_separate_games_and_the_cap_is_clear() -> None:
    async def play(url: str) -> None:
        async with http_client(url, TOKEN) as a, http_client(url, TOKEN) as b:
            moved = await a.call_tool("play_action", {"action": "go south"})
            stayed = await b.call_tool("play_action", {"action": "look"})
            assert moved.structured_content["location"] == "kitchen"
            assert stayed.structured_content["location"] == "livingroom"
            assert moved.structured_content["steps"] == stayed.structured_content["steps"] == 1
            assert "ROOM: kitchen" in text(await a.call_tool("room_state", {}))
            assert "ROOM: livingroom" in text(await b.call_tool("room_state", {}))
            with pytest.raises(Exception) as refused:  # noqa: B017  (the SDK wraps it in groups)
                async with http_client(url, TOKEN) as third:
                    await third.call_tool("play_action", {"action": "look"})
            assert "the server is full: 2 game sessions are open and the cap is 2" in messages(refused.value)
        # both closed (DELETE): their games were released, so new sessions fit again
        async with http_client(url, TOKEN) as c, http_client(url, TOKEN) as d:
            for client in (c, d):
                result = await client.call_tool("play_action", {"action": "look"})
                assert result.structured_content["steps"] == 1

    with http_server("TextMem/Cooking-v0", "--max-sessions", "2", "--token", TOKEN) as url:
        anyio.run(play, url)


def test_abandoned_sessions_are_released_after_the_idle_timeout() -> None:
    async def abandon(url: str) -> None:
        async with http_client(url) as a:
            await a.call_tool("play_action", {"action": "go south"})
            await anyio.sleep(2.5)  # a sits idle past --idle-timeout
            async with http_client(url) as b:
                result = await b.call_tool("play_action", {"action": "look"})
                assert result.structured_content["location"] == "livingroom"

    with http_server("TextMem/Cooking-v0", "--max-sessions", "1", "--idle-timeout", "1.5") as url:
        anyio.run(abandon, url)


def test_token_is_required_on_every_request() -> None:
    async def refused(url: str, token: str | None) -> None:
        with pytest.raises(Exception):  # noqa: B017  (the SDK reports a 401 as a transport error)
            async with http_client(url, token) as client:
                await client.call_tool("play_action", {"action": "look"})

    async def allowed(url: str) -> None:
        async with http_client(url, TOKEN) as client:
            assert "Score:" in text(await client.call_tool("play_action", {"action": "look"}))

    with http_server("TextMem/Cooking-v0", "--host", "0.0.0.0", TEXTMEM_TOKEN=TOKEN) as url:
        anyio.run(refused, url, None)
        anyio.run(refused, url, "wrong-token")
        anyio.run(allowed, url)
        import httpx

        for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": f"Basic {TOKEN}"}):
            response = httpx.post(url, headers=headers, json={})
            assert response.status_code == 401


def test_a_non_loopback_address_without_token_is_refused() -> None:
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "textmem_gym.cli", "mcp", "Cooking-v0", "--transport", "http",
                           "--host", "0.0.0.0"], env=server_env(), cwd=str(REPO), capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 2 and "needs a bearer token" in done.stderr
    assert time.monotonic() - started < 60
