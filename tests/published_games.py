"""Stand-ins for AriGraph's published game files, served by a real local HTTP server.

The published files are not ours to ship (in the package or in the tests). A generated TextWorld
game (CookingRL-L1's default, cached) is laid out at each published path, and a games table in
``published.json``'s format records the stand-ins' sha256 with the paper's task text
(``TEXTMEM_ARIGRAPH_GAMES_TABLE``), so the ``TextMem/AriGraph-*`` ids download and check them through
the same :func:`textmem_gym.downloads.fetch_cached` path a user's first ``gym.make`` takes.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.file_server import Served, serve_directory
from textmem_gym.downloads import sha256_of
from textmem_gym.envs.textworld.generation import generate_game
from textmem_gym.envs.textworld.published import (
    GAMES_DIR_ENV,
    GAMES_TABLE_ENV,
    GAMES_URL_ENV,
    PUBLISHED_GAMES,
    SOURCE,
)


def stand_ins(directory: Path) -> Path:
    """``directory`` laid out like the repository (``envs/...``) with a stand-in at every published
    path, and ``directory/table.json`` recording their checksums; returns the table's path."""
    game = generate_game("tw-cooking", 57137, {"recipe": 1, "take": 1, "go": 1, "cut": True})
    games = {}
    for name, published in PUBLISHED_GAMES.items():
        for path, source in zip(published.files, (game, game.with_suffix(".json")), strict=True):
            (directory / path).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(source, directory / path)
        games[name] = {"path": published.path, "sha256": {p: sha256_of(directory / p) for p in published.files},
                       "objective": published.objective, "main_goal": published.main_goal,
                       "unscored": published.unscored}
    table = directory / "table.json"
    table.write_text(json.dumps({"source": SOURCE, "games": games}, indent=1), encoding="utf-8")
    return table


@contextmanager
def published_games_server(directory: Path) -> Iterator[Served]:
    """Serves the stand-ins over HTTP, pointing ``TEXTMEM_ARIGRAPH_GAMES_URL`` at them and
    ``TEXTMEM_ARIGRAPH_GAMES_TABLE`` at their table (in ``os.environ``, so spawned processes use
    them too) until the block ends; no ``TEXTMEM_ARIGRAPH_GAMES_DIR`` meanwhile, so the files come
    from the cache or the server."""
    names = (GAMES_URL_ENV, GAMES_DIR_ENV, GAMES_TABLE_ENV)
    saved = {name: os.environ.get(name) for name in names}
    table = stand_ins(directory)
    with serve_directory(directory) as served:
        os.environ[GAMES_URL_ENV] = served.url
        os.environ[GAMES_TABLE_ENV] = str(table)
        os.environ.pop(GAMES_DIR_ENV, None)
        try:
            yield served
        finally:
            for name, value in saved.items():
                if value is None:
                    os.environ.pop(name, None)
                else:
                    os.environ[name] = value
