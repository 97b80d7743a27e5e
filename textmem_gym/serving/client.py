"""Playing a served game from synchronous code: a blocking MCP client over stdio, and a
Gymnasium env whose every move is a tool call (what ``reflact`` uses with ``transport=mcp``).

Example:
    >>> import gymnasium as gym, textmem_gym
    >>> env = MCPGameEnv.serving(gym.make("TextMem/Cooking-v0"))  # spawns `textmem-gym mcp` over stdio
    >>> obs, info = env.reset(seed=0)
    >>> obs, reward, terminated, truncated, info = env.step("go south")
    >>> info["location"], "Location: kitchen" in obs["belief"]
    ('kitchen', True)
    >>> env.close()
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import sys
import threading
from typing import Any

import gymnasium as gym
from gymnasium import spaces

from textmem_gym.envs.text_game import text_space
from textmem_gym.serving.games import GameError

#: Seconds a tool call may take before the client gives up.
CALL_TIMEOUT = 600.0


class MCPToolClient:
    """A blocking MCP client: the SDK's ``Client`` runs in its own thread and event loop.

    Args:
        command: Server command line (spawned, spoken to over stdio).
        env: Extra environment variables of the server process.
    """

    def __init__(self, command: list[str], env: dict[str, str] | None = None) -> None:
        from mcp.client.stdio import StdioServerParameters

        self.params = StdioServerParameters(command=command[0], args=command[1:], env=env)
        self._ready = threading.Event()
        self._error: BaseException | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._queue: asyncio.Queue[tuple[str, dict[str, Any], concurrent.futures.Future[Any]] | None] | None = None
        self._thread = threading.Thread(target=lambda: asyncio.run(self._serve()), daemon=True, name="mcp-client")
        self._thread.start()
        self._ready.wait()
        if self._error is not None:
            raise RuntimeError(f"could not start the MCP server {command}: {self._error}") from self._error

    async def _serve(self) -> None:
        from mcp import Client

        self._loop, self._queue = asyncio.get_running_loop(), asyncio.Queue()
        try:
            async with Client(self.params) as client:
                self._ready.set()
                while (item := await self._queue.get()) is not None:
                    name, arguments, future = item
                    try:
                        future.set_result(await client.call_tool(name, arguments))
                    except Exception as error:  # handed to the calling thread, which re-raises it
                        future.set_exception(error)
        except Exception as error:
            self._error = error
        finally:
            self._ready.set()

    def call(self, name: str, **arguments: Any) -> Any:
        """Calls tool ``name``; returns its ``CallToolResult``."""
        if self._loop is None or self._queue is None or not self._thread.is_alive():
            raise RuntimeError(f"the MCP client is closed{f': {self._error}' if self._error else ''}")
        future: concurrent.futures.Future[Any] = concurrent.futures.Future()
        self._loop.call_soon_threadsafe(self._queue.put_nowait, (name, arguments, future))
        return future.result(timeout=CALL_TIMEOUT)

    def text(self, name: str, **arguments: Any) -> str:
        """The text of tool ``name``'s answer; a tool error raises :class:`GameError`."""
        result = self.call(name, **arguments)
        text = "\n".join(block.text for block in result.content if getattr(block, "type", "") == "text")
        if result.is_error:
            raise GameError(text)
        return text

    def close(self) -> None:
        """Ends the session and the server process."""
        if self._loop is not None and self._queue is not None and self._thread.is_alive():
            self._loop.call_soon_threadsafe(self._queue.put_nowait, None)
        self._thread.join(timeout=60)


class MCPGameEnv(gym.Env):
    """A TextMem env played only through a served game's MCP tools.

    ``reset`` calls ``reset``, ``step`` calls ``play_action``; the observation is
    ``{"observation", "belief"}`` with the belief from ``graph_memory_context``; ``info`` has the
    TextMem keys from ``play_action``'s structured content, ``location`` and the
    ``admissible_commands`` of ``valid_actions``.

    Args:
        client: A connected :class:`MCPToolClient`.
    """

    metadata = {"render_modes": []}

    def __init__(self, client: MCPToolClient) -> None:
        self.client = client
        self.observation_space = spaces.Dict({"observation": text_space(), "belief": text_space()})
        self.action_space = text_space()

    @classmethod
    def serving(cls, env: gym.Env, *, memory: str = "arigraph") -> MCPGameEnv:
        """Spawns ``textmem-gym mcp`` for the id and ``gym.make`` arguments of ``env`` (then
        closed: only the served copy is played)."""
        spec = env.spec
        if spec is None:
            raise ValueError("the env has no spec (make it with gym.make) to serve it")
        kwargs = {k: v for k, v in (spec.kwargs or {}).items() if k not in ("privileged", "render_mode")}
        if spec.max_episode_steps is not None:
            kwargs["max_episode_steps"] = spec.max_episode_steps
        command = [sys.executable, "-m", "textmem_gym.cli", "mcp", spec.id, "--memory", memory]
        command += [arg for k, v in kwargs.items() for arg in ("--env-arg", f"{k}={json.dumps(v)}")]
        env.close()
        served = cls(MCPToolClient(command))
        served.spec = spec
        return served

    def _result(self, result: Any) -> tuple[dict[str, str], dict[str, Any], dict[str, Any]]:
        text = "\n".join(block.text for block in result.content if getattr(block, "type", "") == "text")
        if result.is_error or not result.structured_content:
            raise GameError(text)
        status = dict(result.structured_content)
        info = {key: status[key] for key in ("score", "max_score", "normalized_score", "won", "lost", "moves",
                                             "location", "objective")}
        info["admissible_commands"] = self.client.text("valid_actions").splitlines()
        belief = self.client.text("graph_memory_context")
        return {"observation": status["observation"], "belief": belief}, info, status

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Any, dict[str, Any]]:
        super().reset(seed=seed)
        observation, info, _ = self._result(self.client.call("reset", seed=0 if seed is None else seed))
        return observation, info

    def step(self, action: str) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        result = self.client.call("play_action", action=action)
        if result.is_error:  # a command the server refused (empty, too long): the game did not move
            text = "\n".join(block.text for block in result.content if getattr(block, "type", "") == "text")
            return {"observation": text, "belief": ""}, 0.0, False, False, {"refused": text}
        observation, info, status = self._result(result)
        truncated = bool(status["truncated"])
        return observation, float(status["reward"]), bool(status["done"]) and not truncated, truncated, info

    def close(self) -> None:
        self.client.close()
        super().close()
