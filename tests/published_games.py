"""AriGraph's published game files served by a real local HTTP server, standing in for the download.

``tests/data/arigraph-published-games.tar.xz`` holds the five files the ``TextMem/AriGraph-*`` ids
play, byte for byte as published in AIRI-Institute/AriGraph at the commit ``published.json`` records
(MIT licence, its text in the archive), so the ids' sha256 checks pass on them. The library ships none
of them; these tests download them from 127.0.0.1 through the same
:func:`textmem_gym.downloads.fetch_cached` path a user's first ``gym.make`` takes.
"""

from __future__ import annotations

import os
import tarfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.file_server import Served, serve_directory
from textmem_gym.envs.textworld.published import GAMES_DIR_ENV, GAMES_URL_ENV

ARCHIVE = Path(__file__).with_name("data") / "arigraph-published-games.tar.xz"


def unpack(directory: Path) -> Path:
    """The archive unpacked into ``directory`` (laid out like the repository: ``envs/...``)."""
    with tarfile.open(ARCHIVE) as archive:
        archive.extractall(directory, filter="data")
    return directory


@contextmanager
def published_games_server(directory: Path) -> Iterator[Served]:
    """Serves the unpacked files over HTTP and points ``TEXTMEM_ARIGRAPH_GAMES_URL`` at them (in
    ``os.environ``, so spawned processes download from it too) until the block ends; no
    ``TEXTMEM_ARIGRAPH_GAMES_DIR`` meanwhile, so the files come from the cache or the server."""
    saved = {name: os.environ.get(name) for name in (GAMES_URL_ENV, GAMES_DIR_ENV)}
    with serve_directory(unpack(directory)) as served:
        os.environ[GAMES_URL_ENV] = served.url
        os.environ.pop(GAMES_DIR_ENV, None)
        try:
            yield served
        finally:
            for name, value in saved.items():
                if value is None:
                    os.environ.pop(name, None)
                else:
                    os.environ[name] = value
