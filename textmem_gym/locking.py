"""A lock between processes beside a file that leaves nothing behind: ``r.jsonl`` gets no ``r.jsonl.lock``.

:class:`TidyLock` takes ``fcntl.flock`` on ``<file>.lock`` and removes that file before it lets go. A
lock file removed while other processes wait on it is safe only if each checks, once it holds the
lock, that the file it locked is still the one at that path (else it locked a removed file and tries
again): :class:`TidyLock` does, so writers never hold the lock at once and no lock file outlives its
last writer. Where ``fcntl`` is missing (Windows) it is ``filelock.FileLock``, which removes its file
there too.

Example:
    >>> import pathlib, tempfile
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> with TidyLock(folder / "r.jsonl"):
    ...     sorted(p.name for p in folder.iterdir())
    ['r.jsonl.lock']
    >>> sorted(p.name for p in folder.iterdir())
    []
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from types import TracebackType

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]


class TidyLock:
    """An exclusive lock on ``<path>.lock`` between processes (and threads), removed on release.

    Not re-entrant: one ``with`` at a time per object (a second thread waits).

    Args:
        path: The file the lock guards (the lock file is ``<path>.lock``, beside it, only while held).
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(str(path) + ".lock")
        self._threads = threading.Lock()
        self._fd: int | None = None
        self._fallback = None
        if fcntl is None:  # pragma: no cover - Windows: filelock's lock removes its file on release there
            from filelock import FileLock

            self._fallback = FileLock(str(self.path))

    def __enter__(self) -> TidyLock:
        self._threads.acquire()
        try:
            if self._fallback is not None:  # pragma: no cover - Windows
                self._fallback.acquire()
            else:
                self._fd = self._lock()
        except BaseException:
            self._threads.release()
            raise
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        try:
            if self._fallback is not None:  # pragma: no cover - Windows
                self._fallback.release()
            elif self._fd is not None:
                try:
                    self.path.unlink()  # while held: a waiter then finds its file gone and tries again
                except FileNotFoundError:
                    pass
                finally:
                    os.close(self._fd)  # closing lets the lock go
                    self._fd = None
        finally:
            self._threads.release()

    def _lock(self) -> int:
        """A descriptor of the file at ``self.path``, locked, that is still the file at that path."""
        assert fcntl is not None
        while True:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX)
                held, current = os.fstat(fd), os.stat(self.path)
                if (held.st_dev, held.st_ino) == (current.st_dev, current.st_ino):
                    return fd
            except FileNotFoundError:  # removed by the writer before us: lock the next one
                pass
            except BaseException:
                os.close(fd)
                raise
            os.close(fd)


__all__ = ["TidyLock"]
