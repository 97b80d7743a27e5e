"""Errors the core raises or lets through: a policy that is not ready, a run that must stop.

Both carry one line for the user: the command line prints it and exits 2, Python callers get the
exception before any episode is played (:class:`PolicyNotReady`) or with every finished row kept
(:class:`RunAborted`).

Example:
    >>> str(PolicyNotReady("no LLM server answers at http://127.0.0.1:9/v1"))
    'no LLM server answers at http://127.0.0.1:9/v1'
    >>> issubclass(RunAborted, RuntimeError)
    True
"""

from __future__ import annotations


class PolicyNotReady(RuntimeError):
    """Raised by a policy's ``preflight()`` when what it needs is not there (an LLM endpoint that is
    unreachable, refuses the key, or does not know the model); raised before any episode is played."""


class RunAborted(RuntimeError):
    """Raised while playing when going on would only record failures (an LLM endpoint that died midway:
    several consecutive transport failures). The episode being played is not recorded; finished rows
    stay and a re-run resumes."""
