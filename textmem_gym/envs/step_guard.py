"""A watchdog that stops an interpreter call running longer than a time limit.

In-process interpreters (Frotz through ctypes) cannot be interrupted by Python signals while
they run C code. They can, however, poll a flag: :class:`StepWatchdog` calls a ``halt``
function from a background thread when a watched call exceeds ``timeout`` seconds, and the
interpreter's own loop then returns. Arming and disarming cost two attribute writes, so the
watchdog adds almost nothing to a fast step.

Example:
    >>> import time
    >>> halted = []
    >>> watchdog = StepWatchdog(lambda: halted.append(True), timeout=0.05, poll=0.01)
    >>> with watchdog.watch() as watch:
    ...     time.sleep(0.2)
    >>> watch.fired, halted
    (True, [True])
    >>> watchdog.close()
"""

from __future__ import annotations

import threading
import time
import weakref
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass


@dataclass
class Watch:
    """One watched call; ``fired`` tells whether the watchdog halted it."""

    fired: bool = False


class StepWatchdog:
    """Calls ``halt()`` when a call inside :meth:`watch` runs longer than ``timeout`` seconds.

    Args:
        halt: Makes the running call return (e.g. sets the interpreter's halt flag). It is
            called from the watchdog thread, at most once per watched call.
        timeout: Seconds a watched call may run.
        poll: How often the watchdog thread checks (defaults to a tenth of ``timeout``).
    """

    def __init__(self, halt: Callable[[], None], timeout: float, poll: float | None = None):
        if not isinstance(timeout, (int, float)) or isinstance(timeout, bool) or not timeout > 0:
            raise ValueError(f"timeout must be a positive number of seconds, got {timeout!r}")
        self.timeout = float(timeout)
        self._halt = halt
        self._lock = threading.Lock()
        self._current: tuple[Watch, float] | None = None  # (watch, deadline)
        self._closed = False
        poll = min(max(self.timeout / 10, 0.001), 1.0) if poll is None else poll
        # The thread holds only a weak reference, and nothing here uses a lock shared with a
        # finalizer: at interpreter exit, Python stops daemon threads wherever they stand.
        thread = threading.Thread(target=_run, args=(weakref.ref(self), poll),
                                  name="textmem-step-watchdog", daemon=True)
        thread.start()

    @contextmanager
    def watch(self, timeout: float | None = None) -> Iterator[Watch]:
        """Watches the calls made inside the ``with`` block (for ``timeout`` s, default: all)."""
        watch = Watch()
        self._current = (watch, time.monotonic() + (self.timeout if timeout is None else timeout))
        try:
            yield watch
        finally:
            with self._lock:
                self._current = None

    def check(self) -> None:
        """Halts the watched call if it is overdue (the watchdog thread calls this)."""
        with self._lock:
            current = self._current
            if current is None or current[0].fired or time.monotonic() < current[1]:
                return
            current[0].fired = True
            self._halt()

    def close(self) -> None:
        """Stops the watchdog thread (within one poll interval)."""
        self._closed = True

    @property
    def closed(self) -> bool:
        """True once :meth:`close` was called (the watchdog thread then ends)."""
        return self._closed


def _run(ref: weakref.ref[StepWatchdog], poll: float) -> None:
    while True:
        time.sleep(poll)
        watchdog = ref()
        if watchdog is None or watchdog.closed:
            return
        watchdog.check()
        del watchdog
