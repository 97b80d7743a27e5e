"""Finding Jericho game files (ROMs): argument, ``TEXTMEM_ROMS_DIR``, cache, then a checked download.

No ROM ships with textmem_gym. :func:`find_rom` looks, in order, at

1. the ``rom_path`` argument,
2. the directory named by ``TEXTMEM_ROMS_DIR``,
3. the cache directory (``textmem_gym.paths.cache_dir("roms")``),
4. a download from ``TEXTMEM_ROMS_URL`` (default: the public Jericho game suite,
   :data:`DEFAULT_ROMS_URL`) into the cache, accepted only if its sha256 matches
   :data:`ROM_SHA256` (``roms.json``, computed from the suite's files).

Steps 3-4 are :func:`textmem_gym.downloads.fetch_cached` (a cached copy with other content is
downloaded again). Files found by name (steps 2-4) must match their checksum: Jericho recognizes
a game (its walkthrough, action templates, score) only by the exact file.

Example:
    >>> rom_file_name("zork1")
    'zork1.z5'
    >>> sorted(ROM_SHA256)[:2]
    ['905.z5', 'acorncourt.z5']
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from textmem_gym.downloads import ChecksumError, DownloadError, fetch_cached, sha256_of, verify_file
from textmem_gym.loading import unknown_name
from textmem_gym.paths import cache_dir

ROMS_DIR_ENV = "TEXTMEM_ROMS_DIR"
ROMS_URL_ENV = "TEXTMEM_ROMS_URL"
#: The public home of the Jericho game suite (GitHub repository BYU-PCCL/z-machine-games).
DEFAULT_ROMS_URL = "https://raw.githubusercontent.com/BYU-PCCL/z-machine-games/master/jericho-game-suite"
#: What to set instead of downloading (the end of every "not found" message).
INSTEAD = (f"Set {ROMS_DIR_ENV} to a directory holding the Jericho game suite (or pass rom_path=PATH), "
           f"or {ROMS_URL_ENV} to a reachable mirror.")

#: sha256 of every ROM of the Jericho game suite, by file name.
ROM_SHA256: dict[str, str] = json.loads((Path(__file__).with_name("roms.json")).read_text())

_STEMS: dict[str, str] = {Path(name).stem: name for name in ROM_SHA256}


class RomNotFoundError(FileNotFoundError):
    """No copy of a ROM was found and none could be downloaded."""


class RomChecksumError(ChecksumError):
    """A ROM file's content is not the Jericho game suite's file of that name."""


def game_names() -> list[str]:
    """The games of the Jericho suite (file stems, e.g. ``"zork1"``), sorted."""
    return sorted(_STEMS)


def rom_file_name(game: str) -> str:
    """The suite's file name of ``game`` (``"zork1"`` -> ``"zork1.z5"``).

    Raises:
        ValueError: If ``game`` is not in the Jericho game suite (the message lists them).
    """
    if not isinstance(game, str) or game.lower() not in _STEMS:
        raise unknown_name("Jericho game", game, game_names())
    return _STEMS[game.lower()]


def verify_rom(path: Path, file_name: str) -> Path:
    """Returns ``path`` if its sha256 is the one recorded for ``file_name``.

    Raises:
        RomChecksumError: Naming the file, the expected and the actual checksum.
    """
    try:
        return verify_file(path, ROM_SHA256[file_name], f"the Jericho suite's {file_name}")
    except ChecksumError as error:
        raise RomChecksumError(str(error)) from None


def find_rom(game: str | None = None, rom_path: str | Path | None = None, *,
             download: bool = True, timeout: float = 30.0) -> Path:
    """Finds (or downloads) a ROM; see the module docstring for the lookup order.

    Args:
        game: Name in the Jericho suite (``"zork1"``); optional when ``rom_path`` is given.
        rom_path: A ROM file to use as is (any Z-machine game; not checksummed).
        download: Whether step 4 (download) may run.
        timeout: Seconds to wait for the download server.

    Returns:
        The path of a readable ROM file.

    Raises:
        ValueError: If ``rom_path`` does not exist or ``game`` is unknown.
        RomChecksumError: If a file found by name has other content than the suite's file.
        RomNotFoundError: If every step failed; the message names ``TEXTMEM_ROMS_DIR``.
    """
    if rom_path is not None:
        path = Path(rom_path).expanduser()
        if not path.is_file():
            raise ValueError(f"rom_path {str(path)!r} does not exist")
        return path
    if game is None:
        raise ValueError("give a Jericho game name (e.g. 'zork1') or rom_path=PATH")
    file_name = rom_file_name(game)
    roms_dir = os.environ.get(ROMS_DIR_ENV)
    if roms_dir and (Path(roms_dir).expanduser() / file_name).is_file():
        return verify_rom(Path(roms_dir).expanduser() / file_name, file_name)
    if download:
        return download_rom(file_name, timeout=timeout)
    if (cache_dir("roms") / file_name).is_file():
        return verify_rom(cache_dir("roms") / file_name, file_name)
    raise RomNotFoundError(f"{_not_found(file_name)} and downloads are disabled. {INSTEAD}")


def roms_url() -> str:
    """The download base URL: ``TEXTMEM_ROMS_URL`` or :data:`DEFAULT_ROMS_URL`."""
    return (os.environ.get(ROMS_URL_ENV) or DEFAULT_ROMS_URL).rstrip("/")


def download_rom(file_name: str, *, timeout: float = 30.0) -> Path:
    """The cached copy of ``file_name``, downloaded from :func:`roms_url` unless the cache holds
    the suite's file (:func:`textmem_gym.downloads.fetch_cached`: locked, written whole, renamed
    when verified).

    Raises:
        RomNotFoundError: If the server cannot be reached or answers with an error.
        RomChecksumError: If the downloaded content is not the suite's file (nothing is kept).
    """
    try:
        return fetch_cached(f"{roms_url()}/{file_name}", cache_dir("roms") / file_name, ROM_SHA256[file_name],
                            what=f"the Jericho suite's {file_name}", instead=INSTEAD, timeout=timeout)
    except DownloadError as error:
        raise RomNotFoundError(f"{_not_found(file_name)}: {error}") from error
    except ChecksumError as error:
        raise RomChecksumError(str(error)) from error


def _not_found(file_name: str) -> str:
    roms_dir = os.environ.get(ROMS_DIR_ENV)
    where = f"{ROMS_DIR_ENV}={roms_dir} does not hold it" if roms_dir else f"{ROMS_DIR_ENV} is not set"
    return f"Jericho ROM {file_name} not found ({where}, not in the cache {cache_dir('roms')})"


__all__ = ["DEFAULT_ROMS_URL", "INSTEAD", "ROMS_DIR_ENV", "ROMS_URL_ENV", "ROM_SHA256", "RomChecksumError",
           "RomNotFoundError", "download_rom", "find_rom", "game_names", "rom_file_name", "roms_url", "sha256_of",
           "verify_rom"]
