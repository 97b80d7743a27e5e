"""Errors the core raises or lets through: a policy that is not ready, a run that must stop, a run
stopped with Ctrl-C (and :class:`CtrlC`, which keeps a Ctrl-C from being lost).

Both carry one line for the user: the command line prints it and exits 2, Python callers get the
exception before any episode is played (:class:`PolicyNotReady`) or with every finished row kept
(:class:`RunAborted`).

Example:
    >>> str(PolicyNotReady("no LLM server answers at http://127.0.0.1:9/v1"))
    'no LLM server answers at http://127.0.0.1:9/v1'
    >>> issubclass(RunAborted, RuntimeError)
    True
    >>> str(Interrupted(3, 10, "runs/r.jsonl"))
    'interrupted: 3 of 10 episodes recorded in runs/r.jsonl; run the same command to resume'
"""

from __future__ import annotations

import signal
import threading
from types import FrameType
from typing import Any


class PolicyNotReady(RuntimeError):
    """Raised by a policy's ``preflight()`` when what it needs is not there (an LLM endpoint that is
    unreachable, refuses the key, or does not know the model); raised before any episode is played."""


class RunAborted(RuntimeError):
    """Raised while playing when going on would only record failures (an LLM endpoint that died midway:
    several consecutive transport failures). The episode being played is not recorded; finished rows
    stay and a re-run resumes."""


class Interrupted(KeyboardInterrupt):
    """Ctrl-C during an evaluation, with what was kept: its message is the one line the command prints.

    A ``KeyboardInterrupt``, so code that stops on Ctrl-C still does.

    Args:
        recorded: Episodes of the evaluation's plan that are recorded (earlier runs included).
        planned: Episodes planned.
        out: The results file, or ``None`` when nothing is kept.
    """

    def __init__(self, recorded: int, planned: int, out: object | None) -> None:
        self.recorded, self.planned, self.out = recorded, planned, out
        where = (f"recorded in {out}; run the same command to resume" if out is not None
                 else "played; none was kept (no results file: give --out to keep them)")
        super().__init__(f"interrupted: {recorded} of {planned} episodes {where}")


class CtrlC:
    """Ctrl-C that a destructor cannot swallow, for a loop that plays episodes.

    Python raises ``KeyboardInterrupt`` in whatever code runs when SIGINT arrives; when that is a
    ``__del__`` (Jericho's ``FrotzEnv`` unloads its library there, TextWorld's games run on it), Python
    prints "Exception ignored" and the run goes on as if the key had not been pressed. Inside
    ``with CtrlC() as ctrl_c:`` the signal also sets :attr:`pressed`, and :meth:`check` raises
    ``KeyboardInterrupt`` again at the loop's next safe point (after an episode is recorded). Installed only
    in the main thread and where SIGINT is not ignored (worker processes ignore it); the previous handler
    is restored on exit.

    Example:
        >>> with CtrlC() as ctrl_c:
        ...     ctrl_c.check()  # nothing pressed: nothing raised
        >>> ctrl_c.pressed
        False
    """

    def __init__(self) -> None:
        self.pressed = False
        self._previous: Any = None

    def __enter__(self) -> CtrlC:
        main = threading.current_thread() is threading.main_thread()
        if main and signal.getsignal(signal.SIGINT) is not signal.SIG_IGN:
            self._previous = signal.signal(signal.SIGINT, self._handle)
        return self

    def __exit__(self, *exc: object) -> None:
        if self._previous is not None:
            signal.signal(signal.SIGINT, self._previous)
            self._previous = None

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        self.pressed = True
        raise KeyboardInterrupt

    def check(self) -> None:
        """Raises ``KeyboardInterrupt`` when Ctrl-C was pressed (its first raise may have been swallowed)."""
        if self.pressed:
            raise KeyboardInterrupt

