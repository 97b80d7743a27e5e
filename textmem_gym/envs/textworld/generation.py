"""Deterministic, cached generation of compiled TextWorld games.

Games are built from code by a *generator*, a :class:`GameGenerator` naming a function
``build(output, seed, split, **options)`` that writes ``output`` (``.z8``) and TextWorld's ``.json``
beside it. Generators are found by name through the entry-point group ``textmem_gym.game_generators``
(``name = "module:attr"`` of a :class:`GameGenerator`; :data:`GENERATORS` reads it): the library
declares its own (``tw-cooking``, ``treasure-hunt``, ``cleaning``) in its ``setup.cfg`` exactly as
another package declares its own, so a package adds a generator with one entry point, and
``gym.make("TextMem/TextWorld-v0", generator=NAME)`` plays its games (a ``"module:attr"`` works
without a declaration).

Generation runs in a child process whose ``PYTHONHASHSEED`` is fixed, because TextWorld's generators
iterate over sets: with a fixed hash seed the same settings give byte-identical games in every
process. The child imports ``build`` with the caller's ``sys.path``, so a generator found by the
caller (installed, or a module of the current directory) is found there too. Results are cached under
``cache_dir("games")``; concurrent makers of the same game are serialized by a file lock and the files
appear by atomic rename. Generating a game takes seconds, so it says so in one line on stderr (a
cached game is used silently).

Example:
    >>> from textmem_gym.envs.textworld.generation import GENERATORS  # read from the entry points
    >>> GENERATORS["tw-cooking"]
    'textmem_gym.envs.textworld.cooking:COOKING'
    >>> get_generator("tw-cooking").splits
    ('train', 'valid', 'test')
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from filelock import FileLock

from textmem_gym.loading import declared_targets, load_declared, load_object
from textmem_gym.paths import cache_dir

#: The hash seed of every generating process (the papers' games were made with it).
GENERATION_HASHSEED = "0"


#: The entry-point group of the game generators: name -> ``"module:attr"`` of its :class:`GameGenerator`.
ENTRY_POINT_GROUP = "textmem_gym.game_generators"


@dataclass(frozen=True)
class GameGenerator:
    """A way to build TextWorld games from code, found by the name its package declares (entry-point
    group ``textmem_gym.game_generators``); that name is part of its games' cache keys.

    Attributes:
        build: ``"module:function"`` run in the child process.
        splits: Values ``split`` may take (empty: the generator has no splits).
        version: Bump to invalidate cached games after changing the generator.
        notes: Text appended to the first observation and to the objective (task rules).
    """

    build: str
    splits: tuple[str, ...] = ()
    version: str = "1"
    notes: str = ""


def __getattr__(name: str) -> Any:
    """``GENERATORS``: every declared generator name -> ``"module:attr"``, read from the installed packages'
    metadata when asked for (a package installed since is seen; nothing is imported)."""
    if name == "GENERATORS":
        return declared_targets("game generator", ENTRY_POINT_GROUP)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def get_generator(name: str) -> GameGenerator:
    """The generator declared as ``name`` (or named ``"module:attr"``).

    Raises:
        ValueError: ``name`` is unknown (the message lists the declared generators).
        TypeError: It names something that is not a :class:`GameGenerator`.
    """
    generator = load_declared("game generator", name, ENTRY_POINT_GROUP)
    if not isinstance(generator, GameGenerator):
        raise TypeError(f"game generator {name!r} is a {type(generator).__name__}, not a GameGenerator")
    return generator


def game_key(generator: str, seed: int, options: Mapping[str, Any], split: str | None = None) -> str:
    """A readable, unique file stem for one game: generator, options, seed, split, versions."""
    import textworld

    spec = get_generator(generator)
    parts = [generator]
    for name, value in sorted(options.items()):
        if value is True:
            parts.append(name)
        elif value not in (False, None):
            parts.append(f"{name}{value}")
    parts += [f"s{seed}"] + ([split] if split else [])
    stem = "-".join(str(p) for p in parts).replace("/", "_")
    digest = hashlib.sha1(f"{stem}|{spec.version}|{textworld.__version__}".encode()).hexdigest()[:8]
    return f"{stem[:120]}-{digest}"


def generate_game(generator: str, seed: int, options: Mapping[str, Any] | None = None,
                  split: str | None = None) -> Path:
    """Returns the path of the compiled game, generating it on first use.

    Args:
        generator: A name in :data:`GENERATORS` (or ``"module:attr"`` of a :class:`GameGenerator`).
        seed: The game seed.
        options: Generator settings (JSON-serializable).
        split: ``train``/``valid``/``test`` for generators that support it.

    Returns:
        Path of the ``.z8`` file (TextWorld's ``.json`` lies beside it).

    Raises:
        ValueError: Unknown generator or unsupported split.
        RuntimeError: The generating process failed (its output is in the message).
    """
    options = dict(options or {})
    spec = get_generator(generator)
    if split is not None and split not in spec.splits:
        raise ValueError(f"generator {generator!r} supports splits {list(spec.splits)}, got {split!r}")
    folder = cache_dir("games")
    target = folder / f"{game_key(generator, seed, options, split)}.z8"
    if target.exists():
        return target
    with FileLock(str(target) + ".lock"):
        if not target.exists():
            print(f"generating game {generator} seed {seed}{f' ({split} split)' if split else ''} ... "
                  f"(first use, cached afterwards in {folder})", file=sys.stderr, flush=True)
            _build_atomically(spec, seed, options, split, target)
    return target


def _build_atomically(spec: GameGenerator, seed: int, options: dict[str, Any], split: str | None,
                      target: Path) -> None:
    tmp = Path(tempfile.mkdtemp(prefix=".build-", dir=target.parent))
    try:
        out = tmp / "game.z8"
        payload = json.dumps({"build": spec.build, "output": str(out), "seed": seed, "split": split,
                              "options": options, "path": [os.path.abspath(entry) for entry in sys.path]})
        env = {**os.environ, "PYTHONHASHSEED": GENERATION_HASHSEED}
        proc = subprocess.run([sys.executable, "-m", __name__, payload], env=env, cwd=tmp,
                              capture_output=True, text=True, timeout=600)
        if proc.returncode != 0 or not out.exists():
            raise RuntimeError(f"generating {target.name} failed:\n{proc.stdout[-2000:]}\n{proc.stderr[-4000:]}")
        os.replace(out.with_suffix(".json"), target.with_suffix(".json"))
        os.replace(out, target)  # the .z8 appears last: its presence means the game is complete
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _child_main(payload: str) -> None:
    """Entry of the generating process: resolves ``build`` (with the caller's ``sys.path``) and runs it."""
    request = json.loads(payload)
    sys.path[:] = request["path"]
    build = load_object(request["build"])
    build(Path(request["output"]), request["seed"], request["split"], **request["options"])


if __name__ == "__main__":
    _child_main(sys.argv[1])
