"""Game sessions of many clients: one :class:`GameSession` per client key, a cap on open
sessions, and release of closed or abandoned (idle) ones.

Example:
    >>> import textmem_gym
    >>> pool = SessionPool(lambda: GameSession("Cooking-v0"), max_sessions=1)
    >>> pool.get("a").play("look")["done"]
    False
    >>> pool.get("b")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    textmem_gym.serving.games.GameError: the server is full: 1 game session is open and the cap is 1 ...
    >>> pool.release("a"); len(pool)
    0
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from textmem_gym.serving.games import GameError
from textmem_gym.serving.session import GameSession

#: Default cap on open sessions (each may hold an interpreter or a JVM).
MAX_SESSIONS = 4
#: Default seconds without a call after which a session counts as abandoned.
IDLE_TIMEOUT = 1800.0


class SessionPool:
    """Per-client game sessions, created on first use.

    Args:
        factory: Builds a fresh session (called outside any client's lock).
        max_sessions: Most sessions open at once; one more gets a :class:`GameError`.
        idle_timeout: Seconds without a call after which a session is released.

    Keys are admitted first (:meth:`admit`, e.g. when an HTTP client opens an MCP session) or
    on first :meth:`get`; a session's env is built on its first :meth:`get`.
    """

    def __init__(self, factory: Callable[[], GameSession], *, max_sessions: int = MAX_SESSIONS,
                 idle_timeout: float = IDLE_TIMEOUT) -> None:
        if max_sessions < 1 or idle_timeout <= 0:
            raise ValueError(f"max_sessions must be >= 1 and idle_timeout > 0, got {max_sessions}, {idle_timeout}")
        self.factory, self.max_sessions, self.idle_timeout = factory, max_sessions, float(idle_timeout)
        self._slots: dict[str, GameSession | None] = {}
        self._seen: dict[str, float] = {}
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._slots)

    def _full_error(self) -> GameError:
        n = len(self._slots)
        return GameError(f"the server is full: {n} game session{'s are' if n != 1 else ' is'} open and the cap is "
                         f"{self.max_sessions} (--max-sessions); close a session or retry after an idle one is "
                         f"released (idle timeout {self.idle_timeout:g}s)")

    def admit(self, key: str) -> None:
        """Reserves a slot for ``key`` (no env yet); raises :class:`GameError` when full."""
        self.reap()
        with self._lock:
            if key not in self._slots:
                if len(self._slots) >= self.max_sessions:
                    raise self._full_error()
                self._slots[key] = None
            self._seen[key] = time.monotonic()

    def get(self, key: str) -> GameSession:
        """The session of ``key``, admitted and built on first use."""
        self.admit(key)
        with self._lock:
            session = self._slots.get(key)
        if session is None:
            session = self.factory()
            with self._lock:
                if key in self._slots and self._slots[key] is None:
                    self._slots[key] = session
                else:  # released (or built by a concurrent call) meanwhile
                    session.close()
                    session = self._slots.get(key) or self.get(key)
        session.last_used = self._seen[key] = time.monotonic()
        return session

    def rename(self, old: str, new: str) -> None:
        """Moves the slot of ``old`` to ``new`` (a reservation becoming a known session)."""
        with self._lock:
            if old in self._slots:
                self._slots[new] = self._slots.pop(old)
                self._seen[new] = self._seen.pop(old)

    def release(self, key: str) -> None:
        """Closes and forgets the session of ``key`` (no-op for an unknown key)."""
        with self._lock:
            session = self._slots.pop(key, None)
            self._seen.pop(key, None)
        if session is not None:
            with session.lock:
                session.close()

    def reap(self, now: float | None = None) -> list[str]:
        """Releases the sessions idle for longer than ``idle_timeout``; returns their keys."""
        now = time.monotonic() if now is None else now
        with self._lock:
            idle = [k for k, seen in self._seen.items() if now - seen > self.idle_timeout]
        for key in idle:
            self.release(key)
        return idle

    def close_all(self) -> None:
        """Releases every session (server shutdown)."""
        for key in list(self._slots):
            self.release(key)
