"""ROM lookup order, download from a real local HTTP server, checksum and offline errors."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.file_server import Served, closed_port_url, serve_directory
from textmem_gym.envs.jericho import roms
from textmem_gym.envs.jericho.roms import ROM_SHA256, RomChecksumError, RomNotFoundError, find_rom, sha256_of

GAME, FILE = "acorncourt", "acorncourt.z5"
SUITE = Path(os.environ.get("TEXTMEM_ROMS_DIR", "/nonexistent"))
pytestmark = pytest.mark.skipif(not (SUITE / FILE).is_file(), reason="TEXTMEM_ROMS_DIR with the Jericho suite needed")


@pytest.fixture
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty cache, no TEXTMEM_ROMS_DIR, no TEXTMEM_ROMS_URL."""
    monkeypatch.setenv("TEXTMEM_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv(roms.ROMS_DIR_ENV, raising=False)
    monkeypatch.delenv(roms.ROMS_URL_ENV, raising=False)
    return tmp_path


@pytest.fixture
def server(isolated: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Served]:
    """A real HTTP server on 127.0.0.1 serving ``www/``; TEXTMEM_ROMS_URL points at ``www/suite/``."""
    (isolated / "www" / "suite").mkdir(parents=True)
    with serve_directory(isolated / "www") as served:
        monkeypatch.setenv(roms.ROMS_URL_ENV, f"{served.url}/suite/")
        yield served


@pytest.fixture
def served(server: Served, isolated: Path) -> Path:
    """The served ``suite`` directory."""
    return isolated / "www" / "suite"


def test_checksum_table_covers_the_suite():
    suite_files = sorted(p.name for p in SUITE.iterdir() if p.suffix.startswith(".z"))
    assert sorted(ROM_SHA256) == suite_files
    assert sha256_of(SUITE / FILE) == ROM_SHA256[FILE]
    assert roms.rom_file_name("ZORK1") == "zork1.z5"


def test_download_from_local_server_is_checked_and_cached(served: Path, server: Served, isolated: Path):
    shutil.copy(SUITE / FILE, served / FILE)
    path = find_rom(GAME)
    assert path == isolated / "cache" / "roms" / FILE
    assert sha256_of(path) == ROM_SHA256[FILE]
    assert server.requests == [f"/suite/{FILE}"]
    (served / FILE).unlink()
    assert find_rom(GAME) == path  # from the cache now: no second request
    assert server.requests == [f"/suite/{FILE}"]


def test_downloaded_file_with_wrong_checksum_is_rejected_and_not_kept(served: Path, isolated: Path):
    content = bytearray((SUITE / FILE).read_bytes())
    content[100] ^= 0xFF
    (served / FILE).write_bytes(bytes(content))
    with pytest.raises(RomChecksumError, match=f"{FILE}.*sha256"):
        find_rom(GAME)
    assert not list((isolated / "cache" / "roms").glob(f"{FILE}*[!k]"))  # only the .lock may remain


def test_a_corrupt_cached_copy_is_refused_offline_and_downloaded_again_online(served: Path, server: Served,
                                                                           isolated: Path):
    cached = isolated / "cache" / "roms" / FILE
    cached.parent.mkdir(parents=True)
    cached.write_bytes(b"half a file")
    with pytest.raises(RomChecksumError, match="cache"):
        find_rom(GAME, download=False)
    shutil.copy(SUITE / FILE, served / FILE)
    assert find_rom(GAME) == cached and sha256_of(cached) == ROM_SHA256[FILE]
    assert server.requests == [f"/suite/{FILE}"]


def test_missing_file_on_server_names_the_setting(served: Path):
    with pytest.raises(RomNotFoundError, match="TEXTMEM_ROMS_DIR") as error:
        find_rom(GAME)
    assert "404" in str(error.value)


def test_offline_error_names_the_settings(isolated: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv(roms.ROMS_URL_ENV, closed_port_url())
    with pytest.raises(RomNotFoundError) as error:
        find_rom(GAME, timeout=5)
    message = str(error.value)
    assert "TEXTMEM_ROMS_DIR is not set" in message and "TEXTMEM_ROMS_URL" in message and "rom_path" in message
    with pytest.raises(RomNotFoundError, match="downloads are disabled"):
        find_rom(GAME, download=False)


def test_lookup_order_argument_then_env_dir_then_cache(isolated: Path, monkeypatch: pytest.MonkeyPatch):
    roms_dir, cache = isolated / "roms_dir", isolated / "cache" / "roms"
    roms_dir.mkdir()
    cache.mkdir(parents=True)
    shutil.copy(SUITE / FILE, cache / FILE)
    assert find_rom(GAME, download=False) == cache / FILE
    shutil.copy(SUITE / FILE, roms_dir / FILE)
    monkeypatch.setenv(roms.ROMS_DIR_ENV, str(roms_dir))
    assert find_rom(GAME, download=False) == roms_dir / FILE
    other = isolated / "any-name.bin"
    other.write_bytes(b"not checked")
    assert find_rom(GAME, rom_path=other) == other
    (roms_dir / FILE).write_bytes(b"wrong content")
    with pytest.raises(RomChecksumError, match="roms_dir"):
        find_rom(GAME, download=False)


def test_bad_arguments_are_named():
    with pytest.raises(ValueError, match="unknown Jericho game 'zorkk'.*zork1"):
        find_rom("zorkk")
    with pytest.raises(ValueError, match="rom_path '/no/such/file.z5' does not exist"):
        find_rom(rom_path="/no/such/file.z5")
    with pytest.raises(ValueError, match="game name"):
        find_rom()


def test_env_plays_a_downloaded_rom(served: Path):
    from textmem_gym.envs.jericho.env import JerichoEnv

    shutil.copy(SUITE / FILE, served / FILE)
    env = JerichoEnv(GAME)
    try:
        observation, info = env.reset()
        assert "tennis ball launching machine" in observation and info["max_score"] == 30
    finally:
        env.close()
