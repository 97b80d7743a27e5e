"""Checked downloads into the cache: the file is kept only when its sha256 is the expected one.

Used for game files that textmem_gym may not ship (AriGraph's published TextWorld games). The
file is fetched under a lock, written to a temporary name and renamed when complete and
verified, so concurrent processes never read a partial file.

Example:
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "f.txt"
    >>> _ = path.write_text("abc")
    >>> sha256_of(path)[:12]
    'ba7816bf8f01'
"""

from __future__ import annotations

import hashlib
import os
import urllib.error
import urllib.request
from pathlib import Path

from filelock import FileLock


class DownloadError(OSError):
    """The server could not be reached or answered with an error."""


class ChecksumError(ValueError):
    """A file's content is not the expected one (its sha256 differs)."""


def sha256_of(path: str | Path) -> str:
    """The hex sha256 of a file's content."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def verify_file(path: str | Path, sha256: str, what: str) -> Path:
    """Returns ``path`` if its sha256 is ``sha256``.

    Raises:
        ChecksumError: Naming ``what`` the file should be, the expected and the actual checksum.
    """
    actual = sha256_of(path)
    if actual != sha256:
        raise ChecksumError(f"{path} is not {what}: sha256 {actual}, expected {sha256}")
    return Path(path)


def download_checked(url: str, target: Path, sha256: str, what: str, *, timeout: float = 30.0) -> Path:
    """Downloads ``url`` to ``target`` unless ``target`` already holds the expected file.

    Args:
        url: ``http(s)://`` (or ``file://``) address of the file.
        target: Where to keep it (its folder is created).
        sha256: The expected hex sha256 of the content.
        what: What the file is, for error messages (e.g. ``"AriGraph's hunt.z8"``).
        timeout: Seconds to wait for the server.

    Raises:
        DownloadError: If the server cannot be reached or answers with an error.
        ChecksumError: If the content is not the expected file (nothing is kept).
    """
    target.parent.mkdir(parents=True, exist_ok=True)
    with FileLock(str(target) + ".lock"):
        if target.is_file():
            return verify_file(target, sha256, what)
        try:
            with urllib.request.urlopen(url, timeout=timeout) as response:  # noqa: S310 (http(s) URL)
                content = response.read()
        except (urllib.error.URLError, OSError) as error:
            raise DownloadError(f"downloading {url} failed ({error})") from error
        actual = hashlib.sha256(content).hexdigest()
        if actual != sha256:
            raise ChecksumError(f"download {url} is not {what}: sha256 {actual}, expected {sha256}; "
                                "nothing was saved")
        partial = target.with_name(target.name + ".part")
        partial.write_bytes(content)
        os.replace(partial, target)
    return target
