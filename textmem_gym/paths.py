"""Where textmem_gym keeps files it makes (the user cache directory), and the check of output paths.

The cache holds generated games, downloaded ROMs and LLM response caches. It defaults to the
platform's user cache directory (``~/.cache/textmem_gym`` on Linux) and is overridden by the
``TEXTMEM_CACHE_DIR`` environment variable.

Example:
    >>> from textmem_gym.paths import cache_dir
    >>> cache_dir().name != ""
    True
"""

from __future__ import annotations

import functools
import os
import tempfile
from pathlib import Path

import platformdirs

CACHE_ENV = "TEXTMEM_CACHE_DIR"


def cache_dir(*parts: str) -> Path:
    """Returns (and creates) a directory inside the textmem_gym cache.

    Args:
        *parts: Sub-directory names below the cache root (e.g. ``"games"``).

    Returns:
        The directory path; it exists, and files can be written into it, when this function returns.

    Raises:
        CacheNotWritable: It cannot be made or written (one line naming it, why, and the variable
            that moves the cache).
    """
    configured = os.environ.get(CACHE_ENV)
    root = configured or platformdirs.user_cache_dir("textmem_gym")
    path = Path(root).expanduser().joinpath(*parts)
    try:
        path.mkdir(parents=True, exist_ok=True)
        _check_cache(str(path))
    except (OSError, OutputNotWritable) as error:
        why = error.strerror if isinstance(error, OSError) and error.strerror else str(error).rpartition(": ")[2]
        source = f"{CACHE_ENV}={configured}" if configured else f"the user cache directory; set {CACHE_ENV} to move it"
        raise CacheNotWritable(f"cannot use the cache folder {path}: {why} ({source}; it must be a folder "
                               "textmem_gym can write)") from None
    return path


class OutputNotWritable(ValueError):
    """An output path that cannot be written; the message names it and why (one line)."""


class CacheNotWritable(OutputNotWritable):
    """The cache folder (:func:`cache_dir`) cannot be made or written; the message names it, why, and
    :data:`CACHE_ENV` (one line)."""


@functools.lru_cache(maxsize=64)
def _check_cache(path: str) -> None:
    """:func:`check_writable` of a cache folder, once per folder and process."""
    check_writable(path, folder=True)


def check_writable(path: str | os.PathLike[str], *, folder: bool = False) -> Path:
    """Checks that a file (or folder) can be written at ``path``, before any work is done for it.

    An existing file is opened for appending (it is not changed); otherwise a scratch file is
    made and removed in the folder itself or, when that does not exist yet, in its nearest
    existing parent (where it would be created). Nothing is left behind. Unlike
    ``os.access``, this also holds for root and for read-only file systems.

    Args:
        path: The output file (or folder, with ``folder=True``).
        folder: ``path`` is a folder that files are written into.

    Returns:
        ``path`` as a :class:`~pathlib.Path` (``~`` expanded).

    Raises:
        OutputNotWritable: It cannot be written (the message names the path and the reason).

    Example:
        >>> import tempfile
        >>> check_writable(Path(tempfile.mkdtemp()) / "new" / "r.jsonl").name
        'r.jsonl'
        >>> check_writable(tempfile.mkdtemp(), folder=False)
        Traceback (most recent call last):
        ...
        textmem_gym.paths.OutputNotWritable: cannot write file /...: it is a folder
    """
    target = Path(path).expanduser()
    kind = "folder" if folder else "file"
    if target.exists() and target.is_dir() != folder:
        raise OutputNotWritable(f"cannot write {kind} {path}: it is a {'folder' if target.is_dir() else 'file'}")
    try:
        if target.is_file():
            with target.open("a", encoding="utf-8"):
                return target
        place = target if target.is_dir() else next(p for p in target.absolute().parents if p.exists())
        if not place.is_dir():
            raise OutputNotWritable(f"cannot write {kind} {path}: {place} is a file")
        handle, scratch = tempfile.mkstemp(prefix=".textmem-write-check-", dir=place)
        os.close(handle)
        os.unlink(scratch)
    except OSError as error:
        raise OutputNotWritable(f"cannot write {kind} {path}: {error.strerror or error}") from None
    return target
