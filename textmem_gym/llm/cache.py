"""SQLite response cache: record a run, replay it exactly and for free.

Entries are keyed by a SHA-256 of the canonical JSON of (kind, model, messages or inputs,
sampling parameters); the endpoint and the API key are not part of the key and are never
stored. The database uses WAL journaling and a busy timeout, so several processes can read
and write one cache file at the same time.

Modes (see :data:`CACHE_MODES`):

* ``off``: no cache.
* ``record``: always call the server and store (overwrite) the answer.
* ``readwrite``: answer from the cache when possible, otherwise call and store.
* ``replay``: answer only from the cache; a miss raises :class:`CacheMissError`.

Example:
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "c.sqlite"
    >>> cache = ResponseCache(path)
    >>> key = request_key({"kind": "chat", "model": "m", "messages": []})
    >>> cache.put(key, kind="chat", model="m", request={}, response={"text": "hi"})
    >>> cache.get(key)
    {'text': 'hi'}
    >>> cache.close()
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from filelock import FileLock

from textmem_gym.loading import lookup
from textmem_gym.paths import cache_dir

CACHE_FILENAME = "responses.sqlite"
SCHEMA_VERSION = 1

_SCHEMA = """
CREATE TABLE IF NOT EXISTS responses (
    key TEXT PRIMARY KEY,
    kind TEXT NOT NULL,
    model TEXT NOT NULL,
    request TEXT NOT NULL,
    response TEXT NOT NULL,
    created REAL NOT NULL
)
"""


@dataclass(frozen=True)
class CacheMode:
    """What a cache mode does.

    Attributes:
        read: Answers come from the cache when present.
        write: Answers from the server are stored.
        replay_only: A miss is an error (no server call).
        overwrite: A stored answer replaces an existing one.

    Example:
        >>> CACHE_MODES["replay"].replay_only, CACHE_MODES["record"].read
        (True, False)
    """

    read: bool
    write: bool
    replay_only: bool = False
    overwrite: bool = False


CACHE_MODES: dict[str, CacheMode] = {
    "off": CacheMode(read=False, write=False),
    "record": CacheMode(read=False, write=True, overwrite=True),
    "replay": CacheMode(read=True, write=False, replay_only=True),
    "readwrite": CacheMode(read=True, write=True),
}


def cache_mode(name: str) -> CacheMode:
    """Returns the :class:`CacheMode` called ``name``; raises ``ValueError`` for unknown names."""
    return lookup("cache mode", name, CACHE_MODES)


def cache_file(cache_path: str | Path | None = None) -> Path:
    """The SQLite file of a response cache: ``cache_path``, or :data:`CACHE_FILENAME` inside it when it is a
    directory; by default in ``textmem_gym.paths.cache_dir("llm")``.

    Example:
        >>> import tempfile
        >>> folder = tempfile.mkdtemp()
        >>> cache_file(folder).name, cache_file(f"{folder}/run.sqlite").name
        ('responses.sqlite', 'run.sqlite')
    """
    if cache_path is None:
        return cache_dir("llm") / CACHE_FILENAME
    path = Path(cache_path).expanduser()
    return path / CACHE_FILENAME if path.is_dir() else path


def canonical_json(value: Any) -> str:
    """Serialises ``value`` deterministically (sorted keys, no spaces); ``TypeError`` if impossible."""
    try:
        return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"request is not JSON-serialisable, so it cannot be cached: {exc}") from None


def request_key(request: Mapping[str, Any]) -> str:
    """Returns the cache key (SHA-256 hex) of a request description."""
    return hashlib.sha256(canonical_json({"v": SCHEMA_VERSION, **request}).encode("utf-8")).hexdigest()


class ResponseCache:
    """A process- and thread-safe SQLite store of responses.

    Args:
        path: The database file; its directory is created if needed.

    Example:
        >>> import tempfile, pathlib
        >>> cache = ResponseCache(pathlib.Path(tempfile.mkdtemp()) / "x.sqlite")
        >>> len(cache), cache.get("nope")
        (0, None)
    """

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        with FileLock(str(self.path) + ".lock", timeout=60):
            self._conn = sqlite3.connect(self.path, timeout=60.0, isolation_level=None, check_same_thread=False)
            self._conn.execute("PRAGMA busy_timeout = 60000")
            self._conn.execute("PRAGMA journal_mode = WAL")
            self._conn.execute("PRAGMA synchronous = NORMAL")
            self._conn.execute(_SCHEMA)

    def get(self, key: str) -> dict[str, Any] | None:
        """Returns the stored response for ``key``, or ``None``."""
        with self._lock:
            row = self._conn.execute("SELECT response FROM responses WHERE key = ?", (key,)).fetchone()
        return None if row is None else json.loads(row[0])

    def put(
        self,
        key: str,
        *,
        kind: str,
        model: str,
        request: Mapping[str, Any],
        response: Mapping[str, Any],
        overwrite: bool = True,
    ) -> None:
        """Stores ``response`` under ``key`` (keeping an existing entry unless ``overwrite``)."""
        verb = "INSERT OR REPLACE" if overwrite else "INSERT OR IGNORE"
        row = (key, kind, model, canonical_json(request), canonical_json(response), time.time())
        with self._lock:
            self._conn.execute(f"{verb} INTO responses VALUES (?, ?, ?, ?, ?, ?)", row)

    def __len__(self) -> int:
        with self._lock:
            return int(self._conn.execute("SELECT COUNT(*) FROM responses").fetchone()[0])

    def close(self) -> None:
        """Closes the database connection."""
        with self._lock:
            self._conn.close()
