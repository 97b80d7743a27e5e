"""The ``textmem-gym`` command: list ids, play in the terminal, evaluate policies, summarize.

Each command family lives in its own module with an ``add_commands(subparsers)`` function that
adds its sub-commands (each sets ``handler``), declared in the entry-point group ``textmem_gym.commands``
(:data:`ENTRY_POINT_GROUP`; the library's own in its ``setup.cfg``): another installed package adds
its commands with one entry point, ``name = "package.module:add_commands"``. The group is read when
the parser is built, from package metadata only.

Example:
    $ textmem-gym list
    $ textmem-gym play TextMem/Cooking-v0
    $ textmem-gym eval TextMem/Cooking-Hard-v0 --policy random --episodes 3 --out runs/r.jsonl
    $ textmem-gym summary runs/r.jsonl
"""

from __future__ import annotations

import argparse
import os
import sys
import warnings
from collections.abc import Sequence

import gymnasium as gym

from textmem_gym.cli.checks import Parser, not_found_errors
from textmem_gym.cli.play import play
from textmem_gym.core.errors import PolicyNotReady, RunAborted
from textmem_gym.core.policy import NotAPolicy
from textmem_gym.loading import declared_names, load_object

#: The entry-point group of the command families: name -> ``"module:add_commands"``, a function adding
#: sub-commands to the ``subparsers`` it is given; called in the order of the names (the library's first).
ENTRY_POINT_GROUP = "textmem_gym.commands"


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``textmem-gym``."""
    from textmem_gym import __version__

    parser = Parser(prog="textmem-gym", description=__doc__.splitlines()[0])
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    for entry in declared_names("command family", ENTRY_POINT_GROUP).values():
        load_object(entry.target)(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``textmem-gym`` console script.

    Bad input (a ``ValueError`` or a Gymnasium error: a bad argument, unknown id, policy, memory,
    protocol or cell, a count below its minimum, a missing file, ROM or Java; an object that is
    not a policy; see :mod:`textmem_gym.cli.checks`), a policy that is not ready (a dead LLM
    endpoint, found before any episode) and a run aborted midway (finished rows stay) print a
    one-line error and return 2; any other exception is a bug and shows its traceback.

    Ctrl-C prints one line (an evaluation's says how many episodes are recorded, and where) and
    returns 130. A closed standard output (``textmem-gym list | head``) ends the command quietly
    with 141, as a command killed by ``SIGPIPE``. Warnings are printed as one line each.
    """
    import textmem_gym  # noqa: F401  (registers ids)

    user_errors: tuple[type[BaseException], ...] = (ValueError, NotAPolicy, PolicyNotReady, RunAborted,
                                                    gym.error.Error, *not_found_errors())
    shown, warnings.formatwarning = warnings.formatwarning, _one_line_warning
    try:
        args = build_parser().parse_args(argv)
        status = int(args.handler(args))
        sys.stdout.flush()  # a closed pipe shows here, not at exit
        return status
    except user_errors as error:
        print(f"textmem-gym: error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as interrupt:  # an evaluation's Interrupted names what was kept
        print(str(interrupt) or "interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        _silence_stdout()
        return 141
    finally:
        warnings.formatwarning = shown


def _one_line_warning(message: Warning | str, category: type[Warning], filename: str, lineno: int,
                      line: str | None = None) -> str:
    """``warnings.formatwarning`` of the command line: ``textmem-gym: warning: MESSAGE``."""
    return f"textmem-gym: warning: {' '.join(str(message).split())}\n"


def _silence_stdout() -> None:
    """Points standard output at ``os.devnull``, so that the interpreter's last flush at exit does not
    report the closed pipe again."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)


__all__ = ["ENTRY_POINT_GROUP", "build_parser", "main", "play"]
