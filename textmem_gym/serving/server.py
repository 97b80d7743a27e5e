"""The MCP server: any TextMem id (with a memory) as the Text Adventure Agent's tools.

Tools: ``play_action``, ``room_state``, ``graph_memory_context``, ``graph_memory_search``,
``reset``, ``list_games``, and the course harness's ``memory``, ``get_map``, ``inventory``,
``valid_actions``. Built with the official ``mcp`` SDK (``MCPServer``, FastMCP's 2.x name).

Transports: ``stdio`` (one client, one game: what an MCP host or the course harness spawns)
and ``http`` (streamable HTTP; one game per MCP session, a cap on open sessions, closed or idle
sessions release their env; loopback unless a bearer token protects it, see
:mod:`textmem_gym.serving.auth`). Each HTTP session is stateful, so the server speaks the
handshake protocol era; a 2026-era (sessionless) request is answered with the versions it
serves, and SDK clients in ``auto`` mode fall back to the handshake.

A course submission's ``mcp_server.py``::

    from textmem_gym.serving.server import serve
    serve()  # the game comes from GAME (e.g. zork1)
"""

from __future__ import annotations

import json
import os
from typing import Any

import anyio
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import UNSUPPORTED_PROTOCOL_VERSION, CallToolResult, TextContent
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSIONS

from textmem_gym.serving.auth import TOKEN_ENV, ASGIApp, BearerGuard, Scope, check_exposure
from textmem_gym.serving.games import GameError, list_games, resolve_game
from textmem_gym.serving.pool import IDLE_TIMEOUT, MAX_SESSIONS, SessionPool
from textmem_gym.serving.session import GameSession

INSTRUCTIONS = """A text adventure. Call play_action with a game command ('look', 'go north', 'take lamp',
'go to kitchen' to walk to a known room). room_state gives the full state block (room history, valid
actions, map, inventory, belief); graph_memory_search answers 'where is X', 'exits from Y',
'unexplored exits' and free questions from the memory graph."""
#: Route of the MCP endpoint on the HTTP transport.
HTTP_PATH = "/mcp"
_SESSION_HEADER = "mcp-session-id"


def session_key(ctx: Context) -> str:
    """The pool key of the calling client: its MCP session id over HTTP, ``stdio`` otherwise."""
    headers = ctx.headers
    if headers is None:
        return "stdio"
    key = headers.get(_SESSION_HEADER)
    if not key:
        raise GameError("this server keeps one game per MCP session; connect with a session (handshake protocol)")
    return key


def build_server(game: str, *, memory: str = "arigraph", env_kwargs: dict[str, Any] | None = None,
                 max_sessions: int = MAX_SESSIONS, idle_timeout: float = IDLE_TIMEOUT) -> tuple[MCPServer, SessionPool]:
    """The MCP server of ``game`` and the pool holding its clients' sessions."""
    env_id = resolve_game(game)
    pool = SessionPool(lambda: GameSession(env_id, memory=memory, env_kwargs=env_kwargs),
                       max_sessions=max_sessions, idle_timeout=idle_timeout)
    server = MCPServer("textmem-gym", instructions=INSTRUCTIONS, log_level="WARNING")

    def call(ctx: Context, method: str, *args: Any) -> Any:
        try:
            session = pool.get(session_key(ctx))
            with session.lock:
                return getattr(session, method)(*args)
        except GameError as error:
            raise ToolError(str(error)) from error

    @server.tool()
    def play_action(action: str, ctx: Context) -> CallToolResult:
        """Plays one game command ('look', 'go north', 'take lamp', 'go to <known room>').

        Returns the game's answer with score, reward, moves and whether the game is over
        (structured content: observation, reward, score, max_score, done, won, lost, moves, steps)."""
        status = call(ctx, "play", action)
        text = call(ctx, "status_text")
        return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=status)

    @server.tool()
    def room_state(ctx: Context) -> str:
        """The state block: room, the last 40 actions here with their consequences, ALL_TRIED line,
        valid actions, objects seen, explored map, inventory, memory belief, world-state revisit count."""
        return call(ctx, "room_state")

    @server.tool()
    def graph_memory_context(ctx: Context) -> str:
        """Short memory summary: location, score, inventory and the memory's belief."""
        return call(ctx, "context")

    @server.tool()
    def graph_memory_search(query: str, ctx: Context) -> str:
        """Asks the memory graph: 'where is X', 'exits from Y', 'unexplored exits', 'where am I',
        'inventory', or any free text (answered by the memory's retrieval)."""
        return call(ctx, "search", query)

    @server.tool()
    def reset(ctx: Context, seed: int = 0, game: str | None = None) -> CallToolResult:
        """Starts a new episode with reset seed ``seed`` (of another ``game`` when given); returns
        the first observation (structured content as ``play_action``'s)."""
        status = call(ctx, "reset", seed, game)
        return CallToolResult(content=[TextContent(type="text", text=call(ctx, "status_text"))],
                              structured_content=status)

    @server.tool(name="list_games")
    def list_games_tool(contains: str = "") -> str:
        """Ids this server can play (``reset(game=...)``), filtered by ``contains``."""
        return "\n".join(list_games(contains)) or f"no id contains {contains!r}"

    @server.tool(name="memory")
    def memory_tool(ctx: Context) -> str:
        """Current state summary: location, score, inventory, recent actions and the belief."""
        return call(ctx, "context", 10)

    @server.tool()
    def get_map(ctx: Context) -> str:
        """Explored rooms with their known exits and unexplored directions."""
        return "\n".join(call(ctx, "map_lines")) or "nothing explored yet"

    @server.tool()
    def inventory(ctx: Context) -> str:
        """What the player carries, as the game itself says (no move is spent); where the game cannot
        tell without a move, what the memory believes, marked as such."""
        return str(call(ctx, "inventory_text"))

    @server.tool()
    def valid_actions(ctx: Context) -> str:
        """Commands the game accepts now, with 'go to <room>' macros."""
        return "\n".join(call(ctx, "valid_actions")) or "unknown"

    return server, pool


class SessionGate:
    """ASGI middleware in front of the streamable-HTTP app: serves the handshake era only,
    admits new MCP sessions into the pool (refusing them with a clear error when full) and
    releases a session's game when the client deletes the session."""

    def __init__(self, app: ASGIApp, pool: SessionPool) -> None:
        self.app, self.pool = app, pool

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        version, key = headers.get("mcp-protocol-version"), headers.get(_SESSION_HEADER)
        if version in MODERN_PROTOCOL_VERSIONS:
            await _json_error(send, 400, UNSUPPORTED_PROTOCOL_VERSION,
                              "this server keeps a game per session: use the handshake protocol",
                              {"supported": list(HANDSHAKE_PROTOCOL_VERSIONS), "requested": version})
            return
        if key is None and scope["method"] == "POST":
            await self._open(scope, receive, send)
            return
        await self.app(scope, receive, send)
        if scope["method"] == "DELETE" and key:
            await anyio.to_thread.run_sync(self.pool.release, key)

    async def _open(self, scope: Scope, receive: Any, send: Any) -> None:
        pending = f"pending-{id(scope)}"
        try:
            await anyio.to_thread.run_sync(self.pool.admit, pending)
        except GameError as error:
            await _json_error(send, 503, -32000, str(error))
            return
        opened: list[str] = []

        async def watch(message: Any) -> None:
            if message["type"] == "http.response.start" and message["status"] < 400:
                header = _SESSION_HEADER.encode()
                opened.extend(v.decode() for k, v in message.get("headers", []) if k.lower() == header)
            await send(message)

        try:
            await self.app(scope, receive, watch)
        finally:
            if opened:
                self.pool.rename(pending, opened[0])
            else:
                self.pool.release(pending)


async def _json_error(send: Any, status: int, code: int, message: str, data: Any = None) -> None:
    error: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        error["data"] = data
    body = json.dumps({"jsonrpc": "2.0", "id": None, "error": error}).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})


def http_app(server: MCPServer, pool: SessionPool, *, host: str = "127.0.0.1", token: str | None = None) -> ASGIApp:
    """The streamable-HTTP ASGI app at :data:`HTTP_PATH`, behind the session gate and the token check."""
    app = server.streamable_http_app(streamable_http_path=HTTP_PATH, host=host,
                                     session_idle_timeout=pool.idle_timeout, max_sessions=None)
    return BearerGuard(SessionGate(app, pool), token)


def serve(game: str | None = None, *, memory: str = "arigraph", transport: str = "stdio", host: str = "127.0.0.1",
          port: int = 8000, token: str | None = None, max_sessions: int = MAX_SESSIONS,
          idle_timeout: float = IDLE_TIMEOUT, env_kwargs: dict[str, Any] | None = None) -> None:
    """Serves ``game`` (default: the ``GAME`` environment variable) until stopped.

    Args:
        game: A TextMem id or a Jericho game name.
        memory: Memory of each session's wrapper.
        transport: ``"stdio"`` or ``"http"``.
        host, port: HTTP address (loopback unless a token is set).
        token: Bearer token required on every HTTP request (default: ``TEXTMEM_TOKEN``).
        max_sessions, idle_timeout: Session cap and idle release (HTTP).
        env_kwargs: Extra ``gym.make`` arguments.
    """
    game = game or os.environ.get("GAME", "")
    if transport not in ("stdio", "http"):
        raise ValueError(f"transport must be 'stdio' or 'http', got {transport!r}")
    token = token or os.environ.get(TOKEN_ENV) or None
    if transport == "http":
        check_exposure(host, token)
    server, pool = build_server(game, memory=memory, env_kwargs=env_kwargs, max_sessions=max_sessions,
                                idle_timeout=idle_timeout)
    try:
        if transport == "stdio":
            server.run("stdio")
        else:
            import uvicorn

            uvicorn.run(http_app(server, pool, host=host, token=token), host=host, port=port, log_level="warning")
    finally:
        pool.close_all()
