"""AriGraph's own published game files: where to find them and the task text the paper gave its agents.

AriGraph (Anokhin et al., 2024) published the compiled TextWorld games of its Figure 3 / Table 4
in the repository AIRI-Institute/AriGraph (``envs/``). textmem_gym ships none of them: it records
their paths and sha256 (``published.json``, at a fixed commit) and :func:`find_published_game`
looks, in order, at

1. the directory named by ``TEXTMEM_ARIGRAPH_GAMES_DIR``, laid out like the repository
   (``envs/hunt/hunt.z8`` beside ``envs/hunt/hunt.json``; a clone of the repository will do),
2. the cache directory (``textmem_gym.paths.cache_dir("arigraph-games")``),
3. a download from ``TEXTMEM_ARIGRAPH_GAMES_URL`` (default :data:`DEFAULT_GAMES_URL`, the
   repository's raw files at that commit) into the cache, accepted only if every file's sha256
   matches.

Steps 2-3 are :func:`textmem_gym.downloads.fetch_cached` (a cached copy with other content is
downloaded again).

The games' files state no goal (Treasure Hunt, Cleaning) or only TextWorld's generic one
(Cooking); the paper's pipeline gave the agent a main goal in every prompt and appended the task
rules to its first observation. :func:`paper_objective` is that text. The ``TextMem/AriGraph-*``
ids play these files through :class:`~textmem_gym.envs.textworld.published_env.PublishedGameEnv`,
which calls :func:`find_published_game` when the id is made and gives the paper's text as the objective.

Example:
    >>> sorted(PUBLISHED_GAMES)
    ['clean', 'cook', 'cook_hard', 'cook_hardest', 'hunt', 'hunt_hard']
    >>> PUBLISHED_GAMES["hunt"].files
    ('envs/hunt/hunt.z8', 'envs/hunt/hunt.json')
    >>> paper_objective("hunt")[:46]
    'Find the treasure. Your task is to get a treas'
"""

from __future__ import annotations

import functools
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from textmem_gym.downloads import ChecksumError, DownloadError, fetch_cached, verify_file
from textmem_gym.loading import lookup
from textmem_gym.paths import cache_dir

GAMES_DIR_ENV = "TEXTMEM_ARIGRAPH_GAMES_DIR"
GAMES_URL_ENV = "TEXTMEM_ARIGRAPH_GAMES_URL"
#: A games table of your own (``published.json``'s format: paths, sha256, task text) used instead of
#: the shipped one, e.g. for a mirror of another commit of the repository.
GAMES_TABLE_ENV = "TEXTMEM_ARIGRAPH_GAMES_TABLE"

_DATA: dict[str, Any] = json.loads(Path(__file__).with_name("published.json").read_text(encoding="utf-8"))
#: Where the files and the task text come from (repository, commit, files).
SOURCE: dict[str, str] = _DATA["source"]
#: The repository's raw files at the recorded commit.
DEFAULT_GAMES_URL = f"https://raw.githubusercontent.com/{SOURCE['repository']}/{SOURCE['commit']}"


class PublishedGameNotFoundError(FileNotFoundError):
    """No copy of a published game was found and none could be downloaded."""


@dataclass(frozen=True)
class PublishedGame:
    """One published game.

    Attributes:
        name: The paper pipeline's name (``"hunt"``, ``"cook_hard"``...).
        path: Path of the ``.z8`` in the repository (its ``.json`` lies beside it).
        sha256: Repository path -> sha256 of the ``.z8`` and the ``.json``.
        objective: The task rules the pipeline appended to the first observation.
        main_goal: The main goal the pipeline put in every prompt.
        unscored: Why the game's own score cannot stand for the paper's, or ``None``.
    """

    name: str
    path: str
    sha256: Mapping[str, str]
    objective: str
    main_goal: str
    unscored: str | None = None

    @property
    def files(self) -> tuple[str, str]:
        """The ``.z8`` and ``.json`` repository paths."""
        return self.path, str(Path(self.path).with_suffix(".json"))


def _games_of(data: Mapping[str, Any]) -> dict[str, PublishedGame]:
    return {name: PublishedGame(name=name, **entry) for name, entry in data["games"].items()}


#: Name -> the published game (from ``published.json``).
PUBLISHED_GAMES: dict[str, PublishedGame] = _games_of(_DATA)


def active_games() -> Mapping[str, PublishedGame]:
    """The games table in use: the JSON file ``TEXTMEM_ARIGRAPH_GAMES_TABLE`` names, else :data:`PUBLISHED_GAMES`.

    Raises:
        ValueError: The file named cannot be read as a games table (one line naming it).
    """
    path = os.environ.get(GAMES_TABLE_ENV)
    return _table_file(path) if path else PUBLISHED_GAMES


@functools.lru_cache(maxsize=4)
def _table_file(path: str) -> dict[str, PublishedGame]:
    try:
        return _games_of(json.loads(Path(path).read_text(encoding="utf-8")))
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise ValueError(f"{GAMES_TABLE_ENV}={path} is not a games table like published.json: {error}") from None


def paper_objective(name: str, games: Mapping[str, PublishedGame] | None = None) -> str:
    """The task text of a published game: the paper's main goal, then its rules."""
    game = _game(name, games)
    return f"{game.main_goal}. {game.objective}"


def games_url() -> str:
    """The download base URL: ``TEXTMEM_ARIGRAPH_GAMES_URL`` or :data:`DEFAULT_GAMES_URL`."""
    return (os.environ.get(GAMES_URL_ENV) or DEFAULT_GAMES_URL).rstrip("/")


def find_published_game(name: str, *, games: Mapping[str, PublishedGame] | None = None, download: bool = True,
                        timeout: float = 30.0) -> Path:
    """The local ``.z8`` of a published game (its ``.json`` beside it); see the module doc for the order.

    Args:
        name: A key of :data:`PUBLISHED_GAMES`.
        games: The table to use instead of :func:`active_games` (paths and checksums).
        download: Whether step 3 (download) may run.
        timeout: Seconds to wait for the server.

    Raises:
        ValueError: If ``name`` is unknown (the message lists the known games).
        ChecksumError: If a file found or downloaded has other content than the published one.
        PublishedGameNotFoundError: If every step failed; the message names the settings.
    """
    game = _game(name, games)
    directory = os.environ.get(GAMES_DIR_ENV)
    if directory and (found := _checked_copy(Path(directory).expanduser(), game)):
        return found
    root = cache_dir("arigraph-games")
    if not download:
        if found := _checked_copy(root, game):
            return found
        raise PublishedGameNotFoundError(f"{_not_found(game)} and downloads are disabled. {_instead()}")
    for path in game.files:
        try:
            fetch_cached(f"{games_url()}/{path}", root / path, game.sha256[path], what=f"AriGraph's published {path}",
                         instead=_instead(), timeout=timeout)
        except DownloadError as error:
            raise PublishedGameNotFoundError(f"{_not_found(game)}: {error}") from error
    return root / game.path


def _checked_copy(root: Path, game: PublishedGame) -> Path | None:
    """The game's ``.z8`` under ``root`` if both its files are there (``ChecksumError`` if either
    has other content), else ``None``."""
    if not all((root / path).is_file() for path in game.files):
        return None
    for path in game.files:
        verify_file(root / path, game.sha256[path], f"AriGraph's published {path}")
    return root / game.path


def _game(name: str, games: Mapping[str, PublishedGame] | None) -> PublishedGame:
    return lookup("published AriGraph game", name, active_games() if games is None else games)


def _not_found(game: PublishedGame) -> str:
    directory = os.environ.get(GAMES_DIR_ENV)
    where = f"{GAMES_DIR_ENV}={directory} does not hold it" if directory else f"{GAMES_DIR_ENV} is not set"
    return (f"AriGraph's published game {game.name!r} ({game.path}) not found ({where}, not in the cache "
            f"{cache_dir('arigraph-games')})")


def _instead() -> str:
    """What to set instead of downloading."""
    return (f"Set {GAMES_DIR_ENV} to a clone of {SOURCE['repository']} (commit {SOURCE['commit'][:7]}), "
            f"or {GAMES_URL_ENV} to a reachable mirror.")


__all__ = ["DEFAULT_GAMES_URL", "GAMES_DIR_ENV", "GAMES_TABLE_ENV", "GAMES_URL_ENV", "PUBLISHED_GAMES", "SOURCE",
           "ChecksumError", "PublishedGame", "PublishedGameNotFoundError", "find_published_game", "games_url",
           "paper_objective"]
