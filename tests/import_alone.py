"""Imports each named module alone, in a process of its own, and prints those that fail (one line each).

Usage:
    python tests/import_alone.py --preload torch,gymnasium,... MODULE...

A fresh interpreter per module would pay the third-party import costs (torch, gymnasium,
textworld...) once per module. This script pays them once: it imports the ``--preload`` packages,
checks that none of them brought in a module of ours, then forks one child per MODULE, which
imports that module and nothing else of ours. So a module that only imports after another of ours
(an import cycle hidden by import order) still fails here, as it would alone.

Exit status 0 when every module imports alone, 1 when some do not (standard output lists them; the
children's own output is discarded), 2 when the preload imported a module of ours, which would hide
what the check is for.
"""

from __future__ import annotations

import argparse
import importlib
import multiprocessing
import os
import sys
from multiprocessing.connection import Connection
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FIRST_PARTY = ("textmem_gym", "policies", "baselines_rl")
#: Seconds one module may take to import before it is reported as hanging.
TIMEOUT = 300


def ours_loaded() -> list[str]:
    """Modules of ours already in ``sys.modules``."""
    return sorted(name for name in sys.modules if name.split(".")[0] in FIRST_PARTY)


def preload(packages: list[str]) -> None:
    """Imports third-party ``packages`` (those not installed are left out: an optional extra)."""
    for package in packages:
        try:
            importlib.import_module(package)
        except ImportError:
            continue


def _import(name: str, connection: Connection) -> None:
    """The child: imports ``name``, sends "" or the error's last line."""
    os.dup2(os.open(os.devnull, os.O_WRONLY), 1)  # what the module prints is not a failure line
    try:
        importlib.import_module(name)
    except BaseException as error:  # noqa: B036 - any failure (SystemExit included) is the answer
        connection.send(f"{type(error).__name__}: {error}".strip().splitlines()[0])
    else:
        connection.send("")


def import_alone(name: str) -> str:
    """Why module ``name`` does not import in a forked child of this process ("" when it does)."""
    context = multiprocessing.get_context("fork")
    receiver, sender = context.Pipe(duplex=False)
    child = context.Process(target=_import, args=(name, sender))
    child.start()
    sender.close()
    if not receiver.poll(TIMEOUT):
        child.kill()
        child.join()
        return f"no answer in {TIMEOUT} s (exit code {child.exitcode})"
    try:
        answer: str = receiver.recv()
    except EOFError:  # the child died without a word (a crash in native code)
        answer = "the child died"
    child.join()
    return answer or ("" if child.exitcode == 0 else f"the child exited with code {child.exitcode}")


def main(argv: list[str] | None = None) -> int:
    """Prints ``MODULE: error`` for each module that does not import alone."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--preload", default="", help="comma-separated third-party packages to import first")
    parser.add_argument("modules", nargs="+")
    args = parser.parse_args(argv)
    sys.path[0] = str(ROOT)  # the checkout, not this script's folder (tests/policies/ is not policies)
    preload([name for name in args.preload.split(",") if name])
    if ours_loaded():
        print(f"the preload imported modules of ours: {ours_loaded()[:5]}", file=sys.stderr)
        return 2
    failed = [f"{name}: {error}" for name in args.modules if (error := import_alone(name))]
    print("\n".join(failed), end="\n" if failed else "")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
