"""The MCP ``inventory`` tool (and the inventory line of ``memory``, ``room_state`` and
``graph_memory_search``) answers with the game's own inventory where the backend reads it without
spending a move (Jericho's object tree, TextWorld's interpreter state), through the real server over
stdio; elsewhere (NetHack) it answers from memory and says so."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import anyio
import pytest

from tests.serving.conftest import stdio_client, text
from textmem_gym.serving.session import FROM_MEMORY

ZORK_TO_THE_EGG = ["north", "north", "up", "take egg"]


async def _moves(client: Any, action: str) -> int:
    result = await client.call_tool("play_action", {"action": action})
    assert not result.is_error, text(result)
    return int(result.structured_content["moves"])


async def _inventory_lines(client: Any) -> dict[str, str]:
    """Every answer that carries the inventory, by tool."""
    memory = text(await client.call_tool("memory", {}))
    state = text(await client.call_tool("room_state", {}))
    return {"inventory": text(await client.call_tool("inventory", {})),
            "memory": next(line for line in memory.splitlines() if line.startswith("Inventory: ")),
            "room_state": next(line for line in state.splitlines() if line.startswith("INVENTORY: ")),
            "search": text(await client.call_tool("graph_memory_search", {"query": "inventory"}))}


def test_zork_inventory_is_the_games_own_and_costs_no_move() -> None:
    if not (Path(os.environ.get("TEXTMEM_ROMS_DIR", "/nonexistent")) / "zork1.z5").is_file():
        pytest.skip("TEXTMEM_ROMS_DIR with zork1.z5 needed")

    async def play() -> None:
        async with stdio_client("zork1") as client:
            assert text(await client.call_tool("inventory", {})) == "nothing"
            for action in ZORK_TO_THE_EGG:
                moves = await _moves(client, action)
            lines = await _inventory_lines(client)
            assert lines["inventory"] == "jewel-encrusted egg"
            assert lines["memory"] == "Inventory: jewel-encrusted egg"
            assert lines["room_state"] == "INVENTORY: jewel-encrusted egg"
            assert lines["search"] == "You carry: jewel-encrusted egg."
            assert await _moves(client, "look") == moves + 1, "asking for the inventory spent a move"

    anyio.run(play)


def test_textworld_inventory_is_the_games_own_and_costs_no_move() -> None:
    async def play() -> None:
        async with stdio_client("TextMem/CookingRL-L1-v0") as client:
            assert text(await client.call_tool("inventory", {})) == "nothing"
            moves = await _moves(client, "take knife from table")
            lines = await _inventory_lines(client)
            assert lines["inventory"] == "knife" and lines["room_state"] == "INVENTORY: knife"
            assert await _moves(client, "look") == moves + 1, "asking for the inventory spent a move"
            state = text(await client.call_tool("room_state", {}))
            assert "take knife from table | score 0 -> 0 (reward +0) | gained: knife" in state

    anyio.run(play)


def test_a_backend_without_a_free_inventory_answers_from_memory_and_says_so() -> None:
    async def play() -> None:
        async with stdio_client("TextMem/NetHack-RoomObs-v0") as client:
            answer = text(await client.call_tool("inventory", {}))
            assert answer.endswith(FROM_MEMORY), answer
            memory = text(await client.call_tool("memory", {}))
            assert FROM_MEMORY in memory

    anyio.run(play)
