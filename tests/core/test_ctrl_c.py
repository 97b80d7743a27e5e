"""A Ctrl-C that lands in a destructor is not lost (textmem_gym.core.errors.CtrlC)."""

from __future__ import annotations

import os
import signal
import threading

import pytest

from textmem_gym.core.errors import CtrlC


class _FreedOnDelete:
    """Sends SIGINT to this process from its ``__del__``, as a Ctrl-C landing while Jericho unloads a game."""

    def __del__(self) -> None:
        os.kill(os.getpid(), signal.SIGINT)
        for _ in range(10_000):  # the handler runs between these bytecodes, inside __del__
            pass


@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")  # the swallowed raise, expected
@pytest.mark.skipif(threading.current_thread() is not threading.main_thread()
                    or signal.getsignal(signal.SIGINT) is signal.SIG_IGN, reason="SIGINT is not this thread's")
def test_a_ctrl_c_a_destructor_swallowed_is_raised_at_the_next_check():
    before = signal.getsignal(signal.SIGINT)
    with CtrlC() as ctrl_c:
        _FreedOnDelete()  # deleted at once: its KeyboardInterrupt is raised in __del__ and ignored by Python
        assert ctrl_c.pressed
        with pytest.raises(KeyboardInterrupt):
            ctrl_c.check()
    assert signal.getsignal(signal.SIGINT) is before


def test_where_sigint_is_ignored_it_stays_ignored():
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        with CtrlC() as ctrl_c:
            assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
            ctrl_c.check()
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN and not ctrl_c.pressed
    finally:
        signal.signal(signal.SIGINT, previous)
