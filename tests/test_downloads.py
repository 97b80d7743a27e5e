"""fetch_cached against a real local HTTP server: download, reuse, repair, checksum and offline errors."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.file_server import Served, closed_port_url, serve_directory
from textmem_gym.downloads import ChecksumError, DownloadError, fetch_cached, sha256_of, verify_file

CONTENT = b"the published game file\n" * 1000
SHA = hashlib.sha256(CONTENT).hexdigest()
INSTEAD = "Set SOME_DIR to a copy."


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Served]:
    (tmp_path / "www").mkdir()
    (tmp_path / "www" / "game.z8").write_bytes(CONTENT)
    with serve_directory(tmp_path / "www") as served:
        yield served


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if not p.name.endswith(".lock"))


def test_downloads_once_then_reuses_the_cached_copy(server: Served, tmp_path: Path):
    dest = tmp_path / "cache" / "sub" / "game.z8"
    assert fetch_cached(f"{server.url}/game.z8", dest, SHA, what="the game") == dest
    assert dest.read_bytes() == CONTENT and server.requests == ["/game.z8"]
    assert fetch_cached(f"{server.url}/game.z8", str(dest), SHA, what="the game") == dest
    assert server.requests == ["/game.z8"]  # no second request
    assert _leftovers(dest.parent) == ["game.z8"]


def test_a_cached_copy_with_other_content_is_downloaded_again(server: Served, tmp_path: Path):
    dest = tmp_path / "game.z8"
    dest.write_bytes(b"truncated")
    fetch_cached(f"{server.url}/game.z8", dest, SHA, what="the game")
    assert sha256_of(dest) == SHA and server.requests == ["/game.z8"]


def test_wrong_content_is_rejected_and_nothing_is_kept(server: Served, tmp_path: Path):
    dest = tmp_path / "cache" / "game.z8"
    with pytest.raises(ChecksumError) as error:
        fetch_cached(f"{server.url}/game.z8", dest, "0" * 64, what="the game", instead=INSTEAD)
    message = str(error.value)
    assert f"{server.url}/game.z8 is not the game: sha256 {SHA}" in message
    assert "nothing was saved" in message and message.endswith(INSTEAD)
    assert _leftovers(dest.parent) == []


def test_http_error_names_what_the_url_the_status_and_the_setting(server: Served, tmp_path: Path):
    dest = tmp_path / "cache" / "missing.z8"
    with pytest.raises(DownloadError) as error:
        fetch_cached(f"{server.url}/missing.z8", dest, SHA, what="the missing game", instead=INSTEAD)
    assert str(error.value) == (f"downloading the missing game from {server.url}/missing.z8 failed "
                                f"(HTTP Error 404: File not found). {INSTEAD}")
    assert _leftovers(dest.parent) == []


def test_offline_error_names_the_url(tmp_path: Path):
    url = closed_port_url()
    with pytest.raises(DownloadError, match=f"downloading the game from {url}/game.z8 failed .*refused"):
        fetch_cached(f"{url}/game.z8", tmp_path / "game.z8", SHA, what="the game", timeout=5)
    assert _leftovers(tmp_path) == []


def test_verify_file_names_both_checksums(tmp_path: Path):
    path = tmp_path / "f"
    path.write_bytes(CONTENT)
    assert verify_file(path, SHA, "the game") == path
    with pytest.raises(ChecksumError, match=f"is not the game: sha256 {SHA}, expected 0+$"):
        verify_file(path, "0" * 64, "the game")
