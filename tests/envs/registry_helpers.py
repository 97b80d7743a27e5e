"""Helpers for the generic registry tests: ids, required arguments, traces, and the example backend
(:mod:`tests.envs.example_backend`) installed through its entry points."""

from __future__ import annotations

import json
import os
import sys
import traceback
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TextIO

import gymnasium as gym

import textmem_gym  # noqa: F401
from tests.entry_points import installed_entry_points
from tests.envs.example_backend import DISTRIBUTION, ENTRY_POINTS
from tests.envs.example_backend.ids import ENV_TABLE as EXAMPLE_TABLE
from textmem_gym.envs.entry import EnvEntry
from textmem_gym.envs.registration import ENV_IDS, register_all
from textmem_gym.loading import load_object

#: Commands every trace sends (valid or not: the game's feedback is what is compared).
TRACE_COMMANDS = ["look", "inventory", "go north", "east", "take all", "open door", "examine it"]


def _game_file() -> str:
    from textmem_gym.envs.textworld.generation import generate_game

    return str(generate_game("tw-cooking", 57137, {"recipe": 1, "take": 1, "go": 1, "cut": True}))


def _rom_path() -> str:
    return str(Path(os.environ["TEXTMEM_ROMS_DIR"]) / "zork1.z5")


#: How to supply an id's required constructor argument (EnvEntry.needs) in tests.
NEEDS_PROVIDERS: dict[str, Callable[[], Any]] = {"game_file": _game_file, "rom_path": _rom_path}


def registered_ids() -> list[str]:
    """Every id of every installed env backend (:data:`ENV_IDS`) and every TextMem id in Gymnasium's registry."""
    return sorted(set(ENV_IDS) | {i for i in gym.registry if i.startswith("TextMem/")})


#: The ids of the example backend (installed only inside :func:`example_backend_installed`).
EXAMPLE_IDS = sorted(EXAMPLE_TABLE)


def entry(env_id: str) -> EnvEntry:
    """The registration entry of an id of :data:`ENV_IDS` or of the example backend (even while not installed)."""
    return ENV_IDS[env_id] if env_id in ENV_IDS else EXAMPLE_TABLE[env_id]


@contextmanager
def example_backend_installed() -> Iterator[list[str]]:
    """The example backend's package installed (its entry points: env backend, memory) and its
    ids registered, for the block and the processes it starts; unregistered afterwards.

    Yields:
        The ids its entry point registered.
    """
    with installed_entry_points(DISTRIBUTION, ENTRY_POINTS):
        added = register_all()
        try:
            yield added
        finally:
            for env_id in added:
                del ENV_IDS[env_id], gym.registry[env_id]


def required_kwargs(env_id: str) -> dict[str, Any]:
    """The arguments an id needs to be made in tests."""
    return {need: NEEDS_PROVIDERS[need]() for need in entry(env_id).needs}


def env_class(env_id: str) -> type:
    """The class behind an id's entry point."""
    return load_object(entry(env_id).entry_point)


def trace_env(env: gym.Env, seed: int = 7) -> list[Any]:
    """Observations, rewards and flags of :data:`TRACE_COMMANDS` after ``env.reset(seed)``."""
    observation, info = env.reset(seed=seed)
    out: list[Any] = [observation, info["score"]]
    for command in TRACE_COMMANDS:
        observation, reward, terminated, truncated, info = env.step(command)
        out.append([observation, reward, terminated, truncated, info["score"]])
        if terminated or truncated:
            break
    return json.loads(json.dumps(out))


def trace(env_id: str, seed: int = 7) -> list[Any]:
    """:func:`trace_env` on a freshly made env of ``env_id``."""
    env = gym.make(env_id, **required_kwargs(env_id))
    try:
        return trace_env(env, seed)
    finally:
        env.close()


def serve_traces(requests: Iterable[str], out: TextIO) -> None:
    """Answers each env id of ``requests`` (one a line) with one JSON line: ``{"env_id": ..., "trace": ...}``
    (its :func:`trace`) or ``{"env_id": ..., "error": ...}``, so that one process traces the ids of a
    whole test module."""
    for line in requests:
        env_id = line.strip()
        try:
            answer: dict[str, Any] = {"env_id": env_id, "trace": trace(env_id)}
        except Exception:  # the test that asked reports it; the next ids still get their traces
            answer = {"env_id": env_id, "error": traceback.format_exc()[-3000:]}
        print(json.dumps(answer), file=out, flush=True)


if __name__ == "__main__":
    serve_traces(sys.stdin, sys.stdout)
