"""Deterministic, cached generation of compiled TextWorld games.

Games are built from code by a registered *generator* (a function ``build(output, seed, split,
**options)`` that writes ``output`` (``.z8``) and TextWorld's ``.json`` beside it). Generation
runs in a child process whose ``PYTHONHASHSEED`` is fixed, because TextWorld's generators
iterate over sets: with a fixed hash seed the same settings give byte-identical games in every
process. Results are cached under ``cache_dir("games")``; concurrent makers of the same game
are serialized by a file lock and the files appear by atomic rename. Generating a game takes
seconds, so it says so in one line on stderr (a cached game is used silently).

Example:
    >>> from textmem_gym.envs.textworld.generation import GENERATORS
    >>> "tw-cooking" in GENERATORS
    True
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

from textmem_gym.loading import load_object, lookup
from textmem_gym.paths import cache_dir

#: The hash seed of every generating process (the papers' games were made with it).
GENERATION_HASHSEED = "0"


@dataclass(frozen=True)
class GameGenerator:
    """A registered way to build TextWorld games from code.

    Attributes:
        name: Registry name (used in cache keys).
        build: ``"module:function"`` run in the child process.
        splits: Values ``split`` may take (empty: the generator has no splits).
        version: Bump to invalidate cached games after changing the generator.
        notes: Text appended to the first observation and to the objective (task rules).
    """

    name: str
    build: str
    splits: tuple[str, ...] = ()
    version: str = "1"
    notes: str = ""


#: Generator name -> its :class:`GameGenerator`, or ``"module:attr"`` naming one (loaded on first use).
GENERATORS: dict[str, str | GameGenerator] = {
    "tw-cooking": "textmem_gym.envs.textworld.cooking:COOKING",
    "treasure-hunt": "textmem_gym.envs.textworld.treasure_hunt:TREASURE_HUNT",
    "cleaning": "textmem_gym.envs.textworld.cleaning:CLEANING",
}


def register_generator(generator: GameGenerator) -> GameGenerator:
    """Adds a generator to :data:`GENERATORS` (names must be unique)."""
    known = GENERATORS.get(generator.name)
    if known is not None and get_generator(generator.name) != generator:
        raise ValueError(f"a different generator is already registered as {generator.name!r}")
    GENERATORS[generator.name] = generator
    return generator


def get_generator(name: str) -> GameGenerator:
    """The generator registered as ``name`` (``ValueError`` lists the known ones)."""
    entry = lookup("game generator", name, GENERATORS)
    if isinstance(entry, str):
        entry = GENERATORS[name] = load_object(entry)
    return entry


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
        generator: A name in :data:`GENERATORS`.
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
        payload = json.dumps({"build": spec.build, "output": str(out), "seed": seed,
                              "split": split, "options": options})
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
    """Entry of the generating process: resolves ``build`` and runs it."""
    request = json.loads(payload)
    build = load_object(request["build"])
    build(Path(request["output"]), request["seed"], request["split"], **request["options"])


if __name__ == "__main__":
    _child_main(sys.argv[1])
