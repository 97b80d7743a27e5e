"""``textmem-gym mcp`` (the MCP server) and ``textmem-gym ui`` (the web app)."""

from __future__ import annotations

import argparse
import os

from textmem_gym.cli.arguments import check_env_kwargs, parse_pairs
from textmem_gym.cli.checks import POSITIVE, check_env_resources, port, positive_number, writable_dir


def cmd_mcp(args: argparse.Namespace) -> int:
    """Serves one game over MCP until stopped."""
    from textmem_gym.serving.games import resolve_game
    from textmem_gym.serving.server import serve

    game = args.game or os.environ.get("GAME", "")
    env_id = resolve_game(game)
    kwargs = check_env_kwargs(env_id, parse_pairs(args.env_arg))  # before serving
    check_env_resources([env_id], kwargs)
    serve(game, memory=args.memory, transport=args.transport, host=args.host, port=args.port,
          token=args.token, max_sessions=args.max_sessions, idle_timeout=args.idle_timeout, env_kwargs=kwargs)
    return 0


def cmd_ui(args: argparse.Namespace) -> int:
    """Runs the web app until stopped."""
    from textmem_gym.webapp.app import launch

    launch(host=args.host, port=args.port, token=args.token, runs_dir=args.runs_dir, memory=args.memory)
    return 0


def memory_arg(text: str) -> str:
    """A memory name of :func:`~textmem_gym.memory.registry.available_memories`, or ``module:Class``.

    Raises:
        argparse.ArgumentTypeError: unknown memory 'nope'; choose from [...]
    """
    from textmem_gym.loading import unknown_name
    from textmem_gym.memory.registry import available_memories

    if text in available_memories() or ":" in text:
        return text
    raise argparse.ArgumentTypeError(str(unknown_name("memory", text, available_memories())))


def _common(parser: argparse.ArgumentParser, default_port: int) -> None:
    parser.add_argument("--memory", default="arigraph", type=memory_arg,
                        help="a memory name of the entry-point group textmem_gym.memories (arigraph, stma, davis, "
                             "...) or module:Class")
    parser.add_argument("--host", default="127.0.0.1",
                        help="listen address (another than loopback needs --token)")
    parser.add_argument("--port", type=port, default=default_port)
    parser.add_argument("--token", default=None, help="bearer token required on every request "
                        "(default: the TEXTMEM_TOKEN environment variable)")


def add_commands(sub: argparse._SubParsersAction) -> None:
    """Adds ``mcp`` and ``ui``."""
    mcp = sub.add_parser("mcp", help="serve a game over MCP (stdio or http)")
    mcp.add_argument("game", nargs="?", default=None,
                     help="TextMem id or Jericho game such as zork1 (default: the GAME environment variable)")
    mcp.add_argument("--transport", default="stdio", choices=("stdio", "http"))
    _common(mcp, 8000)
    mcp.add_argument("--max-sessions", type=POSITIVE, default=4, help="open http sessions at most (each holds a game)")
    mcp.add_argument("--idle-timeout", type=positive_number, default=1800.0,
                     help="seconds before an idle session is released")
    mcp.add_argument("--env-arg", action="append", metavar="KEY=VALUE", help="extra gym.make argument")
    mcp.set_defaults(handler=cmd_mcp)
    ui = sub.add_parser("ui", help="web app: play as a human, step through trajectories, compare runs")
    _common(ui, 7860)
    ui.add_argument("--runs-dir", type=writable_dir, default="runs", help="where human episodes are recorded")
    ui.set_defaults(handler=cmd_ui)
