"""The env class of the ``TextMem/AriGraph-*`` ids: one of AriGraph's published game files, found on
its own when the id is made.

``gym.make("TextMem/AriGraph-Cooking-v0")`` looks for the paper's file where
:func:`~textmem_gym.envs.textworld.published.find_published_game` looks (``TEXTMEM_ARIGRAPH_GAMES_DIR``,
the cache, then a sha256-checked download from ``TEXTMEM_ARIGRAPH_GAMES_URL`` or the repository);
offline and without a copy it raises
:class:`~textmem_gym.envs.textworld.published.PublishedGameNotFoundError`, whose one line names
the settings that would supply the file.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from textmem_gym.envs.textworld.env import TextWorldEnv
from textmem_gym.envs.textworld.published import find_published_game, paper_objective


class PublishedGameEnv(TextWorldEnv):
    """AriGraph's own compiled TextWorld game ``published_game``, with the task text the paper gave.

    Everything but where the game comes from is :class:`TextWorldEnv` (spaces, rewards,
    termination, ``info``, privileged keys).

    Arguments:
        published_game: A key of :data:`~textmem_gym.envs.textworld.published.PUBLISHED_GAMES`
            (``"hunt"``, ``"cook_hard"``...); set by each id.
        game_file: A local copy to play instead of looking for one (not checksummed: the
            caller vouches for it, as ``reproduce arigraph`` does after finding it).
        download: Whether a missing file may be downloaded (else only the setting and the cache).
        objective: Task text instead of the paper's (:func:`paper_objective`).
        privileged: Ground truth to add to ``info`` (``facts``, ``walkthrough``); off by default.
        render_mode: ``"human"`` or ``"ansi"``.

    Raises:
        ValueError: ``published_game`` is unknown (the message lists the games).
        PublishedGameNotFoundError: No copy was found and none could be downloaded.
        ChecksumError: A copy found or downloaded is not the published file.
    """

    def __init__(self, published_game: str, game_file: str | Path | None = None, *, download: bool = True,
                 objective: str | None = None, privileged: bool | str | Iterable[str] = False,
                 render_mode: str | None = None):
        task = paper_objective(published_game) if objective is None else objective
        path = find_published_game(published_game, download=download) if game_file is None else game_file
        super().__init__(path, objective=task, privileged=privileged, render_mode=render_mode)
        self.published_game = published_game


__all__ = ["PublishedGameEnv"]
