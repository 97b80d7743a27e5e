"""Serving TextMem envs to other programs: the MCP server (:mod:`textmem_gym.serving.server`),
the per-client game sessions behind it and the web app (:mod:`textmem_gym.serving.session`,
:mod:`textmem_gym.serving.pool`), and access control (:mod:`textmem_gym.serving.auth`).

The MCP parts need the ``mcp`` extra (``pip install textmem-gym[mcp]``); this package imports
none of them until used.
"""

from __future__ import annotations

from textmem_gym.serving.games import GameError, list_games, resolve_game

__all__ = ["GameError", "list_games", "resolve_game"]
