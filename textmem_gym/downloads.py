"""Checked downloads into the cache: a file is kept only when its sha256 is the expected one.

:func:`fetch_cached` is the one download -> cache -> checksum chain of textmem_gym (Jericho ROMs,
AriGraph's published games, QA datasets): a cached copy is reused when its sha256 matches;
otherwise the URL is fetched under a lock into a temporary file, checked, and renamed into place,
so concurrent processes never read a partial file and a corrupt copy never stays.

Example:
    >>> import pathlib, tempfile
    >>> root = pathlib.Path(tempfile.mkdtemp())
    >>> source = root / "source.txt"
    >>> _ = source.write_text("abc")
    >>> sha256_of(source)[:12]
    'ba7816bf8f01'
    >>> path = fetch_cached(source.as_uri(), root / "cache" / "abc.txt", sha256_of(source), what="the abc file")
    >>> path.read_text()
    'abc'
"""

from __future__ import annotations

import hashlib
import os
import tempfile
import urllib.error
import urllib.request
from pathlib import Path

from filelock import FileLock

_CHUNK = 1 << 20


class DownloadError(OSError):
    """The server could not be reached or answered with an error."""


class ChecksumError(ValueError):
    """A file's content is not the expected one (its sha256 differs)."""


def sha256_of(path: str | Path) -> str:
    """The hex sha256 of a file's content (read in chunks)."""
    with open(path, "rb") as file:
        return hashlib.file_digest(file, "sha256").hexdigest()


def verify_file(path: str | Path, sha256: str, what: str) -> Path:
    """Returns ``path`` if its sha256 is ``sha256``.

    Raises:
        ChecksumError: Naming ``what`` the file should be, the expected and the actual checksum.
    """
    actual = sha256_of(path)
    if actual != sha256:
        raise ChecksumError(f"{path} is not {what}: sha256 {actual}, expected {sha256}")
    return Path(path)


def fetch_cached(url: str, dest: str | Path, sha256: str | None, *, what: str, instead: str = "",
                 timeout: float = 30.0) -> Path:
    """The file ``dest`` holding the content of ``url`` whose sha256 is ``sha256``.

    A file already at ``dest`` is reused when its sha256 matches; otherwise (missing or other
    content) ``url`` is downloaded into a temporary file beside ``dest``, checked, and renamed to
    ``dest``, all under a lock (``dest`` + ``.lock``). Nothing is kept from a failed download.

    Without a pinned ``sha256`` (``None``: the publisher gives none and it could not be computed when
    the address was added), the first copy kept at ``dest`` is trusted and its sha256 recorded in
    ``dest`` + ``.sha256``; from then on that record is the expected value.

    Args:
        url: ``http(s)://`` (or ``file://``) address of the file.
        dest: Where to keep it (its folder is created).
        sha256: The expected hex sha256 of the content, or ``None`` (recorded on first use, see above).
        what: What the file is, for error messages (e.g. ``"the Jericho suite's zork1.z5"``).
        instead: The setting that avoids the download, appended to error messages (e.g.
            ``"Set TEXTMEM_ROMS_DIR to a directory holding it."``).
        timeout: Seconds to wait for the server.

    Returns:
        ``dest`` as a :class:`~pathlib.Path`.

    Raises:
        DownloadError: The server cannot be reached or answers with an error (the message names
            ``what``, the URL, the reason and ``instead``).
        ChecksumError: The downloaded content is not the expected file (same message parts).
    """
    dest = Path(dest)
    dest.parent.mkdir(parents=True, exist_ok=True)
    record = dest.with_name(dest.name + ".sha256")
    with FileLock(str(dest) + ".lock"):
        expected = sha256 or (record.read_text().strip() if record.is_file() else None)
        if dest.is_file() and (expected is None or sha256_of(dest) == expected):
            return _recorded(dest, record) if expected is None else dest
        try:
            part, actual = _download_beside(dest, url, timeout)
        except (urllib.error.URLError, OSError) as error:
            raise DownloadError(f"downloading {what} from {url} failed ({error}).{_then(instead)}") from error
        if expected is not None and actual != expected:
            part.unlink()
            raise ChecksumError(f"download {url} is not {what}: sha256 {actual}, expected {expected}; "
                                f"nothing was saved.{_then(instead)}")
        os.replace(part, dest)
        if expected is None:
            record.write_text(actual + "\n")
    return dest


def _recorded(dest: Path, record: Path) -> Path:
    """Records the sha256 of a trusted first copy (no pinned value) and returns ``dest``."""
    record.write_text(sha256_of(dest) + "\n")
    return dest


def _download_beside(dest: Path, url: str, timeout: float) -> tuple[Path, str]:
    """Downloads ``url`` into a new temporary file beside ``dest`` (removed again if the download
    fails); returns its path and the hex sha256 of its content."""
    digest = hashlib.sha256()
    with tempfile.NamedTemporaryFile(dir=dest.parent, prefix=dest.name + ".", suffix=".part", delete=False) as out:
        try:
            with urllib.request.urlopen(url, timeout=timeout) as response:  # noqa: S310 (http(s) URL)
                while chunk := response.read(_CHUNK):
                    digest.update(chunk)
                    out.write(chunk)
        except BaseException:
            out.close()
            os.unlink(out.name)
            raise
    return Path(out.name), digest.hexdigest()


def _then(instead: str) -> str:
    return f" {instead}" if instead else ""
