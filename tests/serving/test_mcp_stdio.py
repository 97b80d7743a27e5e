"""The MCP server over stdio with the SDK's real client."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import anyio
import gymnasium as gym
import pytest

import textmem_gym  # noqa: F401
from tests.serving.conftest import REPO, server_env, stdio_client, text

TOOLS = {"play_action", "room_state", "graph_memory_context", "graph_memory_search", "reset", "list_games",
         "memory", "get_map", "inventory", "valid_actions"}


def cooking_walkthrough() -> list[str]:
    """The privileged walkthrough (read by the test only, never served)."""
    env = gym.make("TextMem/Cooking-v0", privileged=True)
    try:
        return list(env.reset(seed=0)[1]["walkthrough"])
    finally:
        env.close()


def test_walkthrough_through_play_action_wins_and_memory_answers() -> None:
    walkthrough = cooking_walkthrough()

    async def play() -> None:
        async with stdio_client("TextMem/Cooking-v0") as client:
            assert TOOLS <= {tool.name for tool in (await client.list_tools()).tools}
            first = await client.call_tool("play_action", {"action": walkthrough[0]})
            assert not first.is_error and first.structured_content["steps"] == 1
            await client.call_tool("play_action", {"action": walkthrough[1]})  # into the kitchen
            where = text(await client.call_tool("graph_memory_search", {"query": "where is the knife"}))
            assert "table" in where and "kitchen" in where, where
            exits = text(await client.call_tool("graph_memory_search", {"query": "exits from kitchen"}))
            assert "north -> livingroom" in exits, exits
            state = text(await client.call_tool("room_state", {}))
            for label in ("ROOM: kitchen", "ALL_TRIED_IN_THIS_ROOM", "VALID_ACTIONS", "OBJECTS_SEEN",
                          "EXPLORED_MAP", "INVENTORY", "ARIGRAPH_BELIEF_STATE", "STATE_REVISIT_COUNT"):
                assert label in state
            for action in walkthrough[2:]:
                result = await client.call_tool("play_action", {"action": action})
                assert not result.is_error, text(result)
                if result.structured_content["done"]:
                    break
            status = result.structured_content
            assert status["won"] and status["score"] == status["max_score"] > 0
            assert "GAME OVER: you won" in text(result)
            after = await client.call_tool("play_action", {"action": "look"})
            assert after.is_error and "reset" in text(after)
            again = await client.call_tool("reset", {"seed": 0})
            assert not again.is_error and "Score: 0/" in text(again)

    anyio.run(play)


def test_bad_arguments_are_tool_errors_and_the_server_keeps_serving() -> None:
    async def play() -> None:
        async with stdio_client("Cooking-v0") as client:
            bad = [("play_action", {}), ("play_action", {"action": ""}), ("play_action", {"action": 3}),
                   ("play_action", {"action": "x" * 5000}), ("graph_memory_search", {"query": "  "}),
                   ("reset", {"seed": -1}), ("reset", {"seed": "soon"}), ("reset", {"game": "no-such-game"}),
                   ("no_such_tool", {})]
            for name, arguments in bad:
                result = await client.call_tool(name, arguments)
                assert result.is_error, (name, arguments, text(result))
                assert text(result).strip()
            assert "must be a non-empty command" in text(await client.call_tool("play_action", {"action": ""}))
            result = await client.call_tool("play_action", {"action": "go south"})
            assert not result.is_error and result.structured_content["location"] == "kitchen"
            games = text(await client.call_tool("list_games", {"contains": "zork1"}))
            assert "TextMem/Jericho-Zork1-v0" in games

    anyio.run(play)


HARNESS_SERVER = "from textmem_gym.serving.server import serve\nserve()\n"


def test_course_harness_tool_names_play_a_jericho_game(tmp_path) -> None:
    """Like the course harness: spawn a two-line mcp_server.py with GAME set, then use only
    play_action, memory, get_map, inventory and valid_actions."""
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    if not (Path(os.environ.get("TEXTMEM_ROMS_DIR", "/nonexistent")) / "zork1.z5").is_file():
        pytest.skip("TEXTMEM_ROMS_DIR with zork1.z5 needed")
    server_file = tmp_path / "mcp_server.py"
    server_file.write_text(HARNESS_SERVER)
    params = StdioServerParameters(command=sys.executable, args=[str(server_file)], cwd=str(REPO),
                                   env=server_env(GAME="zork1"))

    async def play() -> list[str]:
        outputs = []
        async with Client(params) as client:
            for step in range(20):
                actions = text(await client.call_tool("valid_actions", {})).splitlines()
                primitive = [a for a in actions if not a.startswith("go to ")]
                assert primitive, "no valid actions"
                action = ("open mailbox", "take leaflet")[step] if step < 2 else primitive[step % len(primitive)]
                result = await client.call_tool("play_action", {"action": action})
                assert not result.is_error, text(result)
                outputs.append(text(result))
                if step == 1:  # the game's own inventory (later random actions may drop the leaflet)
                    inventory = text(await client.call_tool("inventory", {}))
            memory = text(await client.call_tool("memory", {}))
            game_map = text(await client.call_tool("get_map", {}))
        assert "Location:" in memory and "Recent actions" in memory
        assert "west of house" in game_map
        assert inventory == "leaflet"
        return outputs

    outputs = anyio.run(play)
    assert len(outputs) == 20 and all("[Score:" in o for o in outputs)
