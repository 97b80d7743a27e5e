"""AriGraph's published games: the checksum table, a checked download from a real local HTTP server
(serving a generated game under a matching table), the local-directory setting, offline errors,
and the paper's task text given through ``objective=``."""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import gymnasium as gym
import pytest

import textmem_gym  # noqa: F401
from tests.file_server import Served, closed_port_url, serve_directory
from textmem_gym.downloads import ChecksumError, sha256_of
from textmem_gym.envs.registration import ENV_IDS
from textmem_gym.envs.textworld import published
from textmem_gym.envs.textworld.generation import generate_game
from textmem_gym.envs.textworld.published import (
    PUBLISHED_GAMES,
    PublishedGame,
    PublishedGameNotFoundError,
    find_published_game,
    paper_objective,
)

GAME_PATH = "envs/test/game.z8"


@pytest.fixture(scope="module")
def game_file() -> Path:
    """A generated TextWorld game (CookingRL-L1's default, cached) standing in for a published one."""
    return generate_game("tw-cooking", 57137, {"recipe": 1, "take": 1, "go": 1, "cut": True})


@pytest.fixture
def table(game_file: Path) -> dict[str, PublishedGame]:
    """A table override whose one game is ``game_file`` with its real checksums."""
    sha = {GAME_PATH: sha256_of(game_file), GAME_PATH[:-3] + ".json": sha256_of(game_file.with_suffix(".json"))}
    return {"test": PublishedGame("test", GAME_PATH, sha, "Cook the meal of the cookbook.", "Eat the meal")}


@pytest.fixture
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty cache, no games directory, no download URL."""
    monkeypatch.setenv("TEXTMEM_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv(published.GAMES_DIR_ENV, raising=False)
    monkeypatch.delenv(published.GAMES_URL_ENV, raising=False)
    return tmp_path


@pytest.fixture
def server(isolated: Path, game_file: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Served]:
    """A real HTTP server on 127.0.0.1 serving a repository-like tree (``www/repo``) holding ``game_file``."""
    root = isolated / "www"
    (root / "repo" / "envs" / "test").mkdir(parents=True)
    for suffix in (".z8", ".json"):
        shutil.copy(game_file.with_suffix(suffix), root / "repo" / "envs" / "test" / f"game{suffix}")
    with serve_directory(root) as served:
        monkeypatch.setenv(published.GAMES_URL_ENV, f"{served.url}/repo/")
        yield served


@pytest.fixture
def served(server: Served, isolated: Path) -> Path:
    """The served repository root."""
    return isolated / "www" / "repo"


def test_table_records_both_files_of_every_game_and_the_ids_use_the_papers_text():
    for name, game in PUBLISHED_GAMES.items():
        assert set(game.sha256) == set(game.files) and game.files[0].startswith("envs/")
        assert all(re.fullmatch(r"[0-9a-f]{64}", digest) for digest in game.sha256.values()), name
        assert game.main_goal and game.objective
    arigraph_ids = {i: e for i, e in ENV_IDS.items() if i.startswith("TextMem/AriGraph-")}
    assert len(arigraph_ids) == 5
    for entry in arigraph_ids.values():
        assert entry.needs == () and entry.kwargs["published_game"] in PUBLISHED_GAMES
    assert published.SOURCE["commit"] in published.DEFAULT_GAMES_URL


def test_download_from_local_server_is_checked_and_cached(served: Path, server: Served, isolated: Path, table):
    path = find_published_game("test", games=table)
    assert path == isolated / "cache" / "arigraph-games" / GAME_PATH
    assert sha256_of(path) == table["test"].sha256[GAME_PATH]
    assert path.with_suffix(".json").is_file()
    assert server.requests == ["/repo/envs/test/game.z8", "/repo/envs/test/game.json"]
    shutil.rmtree(served / "envs")
    assert find_published_game("test", games=table) == path  # from the cache: no new request
    assert len(server.requests) == 2


def test_downloaded_file_with_another_checksum_is_rejected_and_not_kept(served: Path, isolated: Path, table):
    wrong = {"test": PublishedGame("test", GAME_PATH, {**table["test"].sha256, GAME_PATH: "0" * 64}, "o", "g")}
    with pytest.raises(ChecksumError, match="sha256"):
        find_published_game("test", games=wrong)
    assert not (isolated / "cache" / "arigraph-games" / GAME_PATH).exists()


def test_local_directory_comes_first_and_is_checked(isolated: Path, game_file: Path, table, monkeypatch):
    local = isolated / "clone"
    (local / "envs" / "test").mkdir(parents=True)
    for suffix in (".z8", ".json"):
        shutil.copy(game_file.with_suffix(suffix), local / "envs" / "test" / f"game{suffix}")
    monkeypatch.setenv(published.GAMES_DIR_ENV, str(local))
    assert find_published_game("test", games=table, download=False) == local / GAME_PATH
    (local / GAME_PATH).write_bytes(b"not the game")
    with pytest.raises(ChecksumError, match="not AriGraph's published"):
        find_published_game("test", games=table, download=False)


def test_offline_and_disabled_downloads_say_what_to_set(isolated: Path, table, monkeypatch):
    monkeypatch.setenv(published.GAMES_URL_ENV, closed_port_url())
    with pytest.raises(PublishedGameNotFoundError, match=published.GAMES_DIR_ENV) as error:
        find_published_game("test", games=table, timeout=5)
    assert "failed" in str(error.value) and published.GAMES_URL_ENV in str(error.value)
    with pytest.raises(PublishedGameNotFoundError, match="downloads are disabled"):
        find_published_game("hunt", download=False)
    with pytest.raises(ValueError, match=r"unknown published AriGraph game 'nope'; choose from \['clean', 'cook'"):
        find_published_game("nope")


def test_objective_is_the_task_text_and_follows_the_first_observation(served: Path, table):
    path = find_published_game("test", games=table)
    plain = gym.make("TextMem/TextWorld-v0", game_file=str(path))
    observation, info = plain.reset(seed=0)
    plain.close()
    assert info["objective"] and info["objective"] != paper_objective("hunt")  # the game's own objective
    env = gym.make("TextMem/AriGraph-TreasureHunt-v0", game_file=str(path))
    with_goal, info = env.reset(seed=0)
    env.close()
    assert info["objective"] == paper_objective("hunt")
    assert with_goal == f"{observation}\n\n{paper_objective('hunt')}"
    with pytest.raises(ValueError, match="objective"):
        gym.make("TextMem/TextWorld-v0", game_file=str(path), objective=3)


def test_an_id_made_offline_without_a_copy_says_in_one_line_how_to_get_the_file(isolated: Path, monkeypatch):
    monkeypatch.setenv(published.GAMES_URL_ENV, closed_port_url())
    with pytest.raises(PublishedGameNotFoundError) as error:
        gym.make("TextMem/AriGraph-Cooking-v0")
    message = str(error.value)
    assert "\n" not in message and "'cook'" in message
    assert published.GAMES_DIR_ENV in message and published.GAMES_URL_ENV in message
    with pytest.raises(PublishedGameNotFoundError, match="downloads are disabled"):
        gym.make("TextMem/AriGraph-Cooking-v0", download=False)


def test_an_id_made_as_typed_downloads_its_own_file_and_plays_the_papers_task(isolated: Path, tmp_path: Path):
    from tests.published_games import published_games_server

    with published_games_server(tmp_path / "www") as served:
        env = gym.make("TextMem/AriGraph-TreasureHunt-v0")
    try:
        observation, info = env.reset(seed=0)
        assert observation.endswith(paper_objective("hunt")) and info["objective"] == paper_objective("hunt")
        assert env.spec.max_episode_steps == 150
    finally:
        env.close()
    assert served.requests == ["/envs/hunt/hunt.z8", "/envs/hunt/hunt.json"]
    assert (isolated / "cache" / "arigraph-games" / "envs" / "hunt" / "hunt.z8").is_file()
