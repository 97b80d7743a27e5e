"""Helpers for the generic registry tests: ids, required arguments, traces."""

from __future__ import annotations

import importlib
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import gymnasium as gym

import textmem_gym  # noqa: F401
from textmem_gym.envs.registration import ENV_IDS

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
    """Every TextMem id in Gymnasium's registry."""
    return sorted(i for i in gym.registry if i.startswith("TextMem/"))


def required_kwargs(env_id: str) -> dict[str, Any]:
    """The arguments an id needs to be made in tests."""
    return {need: NEEDS_PROVIDERS[need]() for need in ENV_IDS[env_id].needs}


def env_class(env_id: str) -> type:
    """The class behind an id's entry point."""
    module, name = gym.spec(env_id).entry_point.split(":")
    return getattr(importlib.import_module(module), name)


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


if __name__ == "__main__":
    print(json.dumps(trace(sys.argv[1])))
