"""Checks of the command line's inputs, run before a command does any work.

Every bad input ends a command with one line naming the bad value and what would be right, and
exit status 2 (see :func:`textmem_gym.cli.main`); nothing is played and no row is written.

- :class:`Parser`: the argument parser of every command; its mistakes (an unknown choice, a missing
  argument, a value its ``type=`` rejects) raise :class:`CommandLineError` instead of printing the
  usage.
- ``type=`` functions: :func:`count` (whole numbers from a minimum: ``--episodes``,
  ``--max-steps``, ``--workers``, ``--limit``...), :func:`positive_number` (seconds, CPUs),
  :func:`port`, :func:`existing_file`, :func:`existing_dir`, and for outputs :func:`writable_file`,
  :func:`writable_dir` (checked by writing there, so an unwritable ``--out`` ends the command before
  the first episode, not after it).
- :func:`check_env_ids`: ids that are registered; :func:`check_env_resources`: what each needs to
  be made (a Jericho ROM, AriGraph's published file, Java for ScienceWorld) found before the first
  episode, through the :data:`RESOURCE_CHECKS` registry keyed by the id's entry point.

Example:
    >>> count(1)("3"), positive_number("0.5"), port("0")
    (3, 0.5, 0)
    >>> count(1)("-1")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: expected a whole number of 1 or more, got '-1'
    >>> check_env_ids(["TextMem/Cookin-v0"])
    Traceback (most recent call last):
    ...
    ValueError: unknown env id 'TextMem/Cookin-v0'; choose from ['TextMem/Cooking-v0', ...
"""

from __future__ import annotations

import argparse
import difflib
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any, NoReturn

from textmem_gym.envs.jericho.ids import JERICHO_ENTRY
from textmem_gym.envs.scienceworld.ids import SCIENCEWORLD_ENTRY
from textmem_gym.envs.textworld.ids import PUBLISHED_ENTRY
from textmem_gym.envs.twx.ids import TWX_ENTRY
from textmem_gym.loading import unknown_name


class CommandLineError(ValueError):
    """An argument the parser rejected (its message names the argument and the bad value)."""


class Parser(argparse.ArgumentParser):
    """``argparse.ArgumentParser`` whose errors are one :class:`CommandLineError` (sub-commands'
    parsers are of this class too) instead of the usage text and ``SystemExit``."""

    def error(self, message: str) -> NoReturn:
        """Raises :class:`CommandLineError` naming the command, the mistake and where help is."""
        command = self.prog.partition(" ")[2]
        where = f"{command}: " if command else ""
        raise CommandLineError(f"{where}{message} (see `{self.prog} --help`)")


def count(minimum: int) -> Callable[[str], int]:
    """An argparse ``type=``: a whole number of at least ``minimum``."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = minimum - 1
        if value < minimum:
            raise argparse.ArgumentTypeError(f"expected a whole number of {minimum} or more, got {text!r}")
        return value

    parse.__name__ = f"count>={minimum}"
    return parse


def positive_number(text: str) -> float:
    """An argparse ``type=``: a number above 0 (seconds, CPUs)."""
    try:
        value = float(text)
    except ValueError:
        value = 0.0
    if not value > 0:
        raise argparse.ArgumentTypeError(f"expected a number above 0, got {text!r}")
    return value


def port(text: str) -> int:
    """An argparse ``type=``: a TCP port, 0 to 65535 (0: any free port)."""
    try:
        value = int(text)
    except ValueError:
        value = -1
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"expected a port from 0 to 65535, got {text!r}")
    return value


def existing_file(text: str) -> str:
    """An argparse ``type=``: the path of an existing file."""
    path = Path(text).expanduser()
    if not path.is_file():
        raise argparse.ArgumentTypeError(f"no such file {text!r}" + (" (it is a folder)" if path.is_dir() else ""))
    return text


def existing_dir(text: str) -> str:
    """An argparse ``type=``: the path of an existing folder."""
    if not Path(text).expanduser().is_dir():
        raise argparse.ArgumentTypeError(f"no such folder {text!r}")
    return text


def writable_file(text: str) -> str:
    """An argparse ``type=``: a file that can be written (its folder is created when needed)."""
    return _writable(text, folder=False)


def writable_dir(text: str) -> str:
    """An argparse ``type=``: a folder that files can be written into (created when needed)."""
    return _writable(text, folder=True)


def _writable(text: str, *, folder: bool) -> str:
    """``text`` if :func:`textmem_gym.paths.check_writable` passes, else ArgumentTypeError with its line."""
    from textmem_gym.paths import OutputNotWritable, check_writable

    try:
        check_writable(text, folder=folder)
    except OutputNotWritable as error:
        raise argparse.ArgumentTypeError(str(error)) from None
    return text


POSITIVE = count(1)
NON_NEGATIVE = count(0)


def check_env_ids(env_ids: Iterable[str]) -> None:
    """Checks that each id is registered.

    Raises:
        ValueError: An unknown id (the message lists the closest registered ones).
    """
    import gymnasium as gym

    for env_id in env_ids:
        if env_id not in gym.registry:
            ids = sorted(i for i in gym.registry if i.startswith("TextMem/"))
            close = difflib.get_close_matches(env_id, ids, n=5, cutoff=0.6)
            raise unknown_name("env id", env_id, close or ids,
                               detail="" if close else "`textmem-gym list` describes them")


def check_env_resources(env_ids: Iterable[str], env_kwargs: Mapping[str, Any] | None = None) -> None:
    """Checks that what each (registered) id needs to be made is there: its :data:`RESOURCE_CHECKS` entry
    finds (or downloads) the file it plays, or the program it runs on.

    Raises:
        ValueError: A ``rom_path`` that does not exist, an unknown game.
        RomNotFoundError, PublishedGameNotFoundError: A file the id plays is missing and cannot be
            downloaded (the message names the setting that would supply it).
        gymnasium.error.DependencyNotInstalled: No Java for a ScienceWorld id.
    """
    import gymnasium as gym

    for env_id in env_ids:
        spec = gym.spec(env_id)
        check = RESOURCE_CHECKS.get(str(spec.entry_point))
        if check is not None:
            check({**spec.kwargs, **(env_kwargs or {})})


def _rom(kwargs: Mapping[str, Any]) -> None:
    from textmem_gym.envs.jericho.roms import find_rom

    find_rom(kwargs.get("game"), kwargs.get("rom_path"), download=bool(kwargs.get("download", True)))


def _published_game(kwargs: Mapping[str, Any]) -> None:
    from textmem_gym.envs.textworld.published import find_published_game

    if kwargs.get("game_file") is None:
        find_published_game(kwargs["published_game"], download=bool(kwargs.get("download", True)))


def _java(kwargs: Mapping[str, Any]) -> None:
    from textmem_gym.envs.jvm import find_java

    find_java()


#: Entry point of an id -> the check that what it needs is there (it finds, or downloads, the file).
RESOURCE_CHECKS: dict[str, Callable[[Mapping[str, Any]], None]] = {
    JERICHO_ENTRY: _rom,
    PUBLISHED_ENTRY: _published_game,
    SCIENCEWORLD_ENTRY: _java,
    TWX_ENTRY: _java,
}


def not_found_errors() -> tuple[type[Exception], ...]:
    """The errors of a missing input file that a command reports in one line (a ROM, a published game)."""
    from textmem_gym.envs.jericho.roms import RomNotFoundError
    from textmem_gym.envs.textworld.published import PublishedGameNotFoundError

    return RomNotFoundError, PublishedGameNotFoundError


__all__ = ["NON_NEGATIVE", "POSITIVE", "RESOURCE_CHECKS", "CommandLineError", "Parser", "check_env_ids",
           "check_env_resources", "count",
           "existing_dir", "existing_file", "not_found_errors", "port", "positive_number", "writable_dir",
           "writable_file"]
