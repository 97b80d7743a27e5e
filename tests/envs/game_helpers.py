"""Helpers for the tests of the hand-designed TextWorld games (Treasure Hunt, Cleaning)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import gymnasium as gym

import textmem_gym  # noqa: F401  (registers the ids)

Triple = tuple[str, str, str]
#: TextWorld's direction predicates: (a, "north_of", b) means going north from b leads to a.
DIRECTION_PREDICATES = {"north_of": "north", "south_of": "south", "east_of": "east", "west_of": "west"}
ROOT = Path(__file__).resolve().parents[2]


@dataclass
class Playthrough:
    """A privileged walkthrough played to its end, with everything seen on the way."""

    first_observation: str
    first_info: dict[str, Any]
    facts: list[Triple]
    steps: list[tuple[str, str, float, bool]] = field(default_factory=list)  # command, obs, reward, done
    final_info: dict[str, Any] = field(default_factory=dict)


def play_walkthrough(env_id: str, game_seed: int | None = None) -> Playthrough:
    """Makes ``env_id`` (privileged), resets it and plays its walkthrough."""
    kwargs = {} if game_seed is None else {"game_seed": game_seed}
    env = gym.make(env_id, privileged=True, **kwargs)
    try:
        observation, info = env.reset(seed=0)
        play = Playthrough(observation, dict(info), list(info["facts"]))
        for command in info["walkthrough"]:
            observation, reward, terminated, truncated, info = env.step(command)
            play.steps.append((command, observation, reward, terminated or truncated))
        play.final_info = dict(info)
        return play
    finally:
        env.close()


def exits(facts: list[Triple]) -> dict[str, dict[str, str]]:
    """Room -> {direction: neighbouring room}, read from the direction facts."""
    graph: dict[str, dict[str, str]] = {}
    for a, relation, b in facts:
        if relation in DIRECTION_PREDICATES:
            graph.setdefault(b, {})[DIRECTION_PREDICATES[relation]] = a
            graph.setdefault(a, {})
    return graph


def distances(facts: list[Triple], start: str) -> dict[str, int]:
    """Moves from ``start`` to every room."""
    graph, dist, queue = exits(facts), {start: 0}, deque([start])
    while queue:
        room = queue.popleft()
        for nxt in graph[room].values():
            if nxt not in dist:
                dist[nxt] = dist[room] + 1
                queue.append(nxt)
    return dist


def path(facts: list[Triple], start: str, goal: str) -> list[str]:
    """Shortest ``go <direction>`` commands from ``start`` to ``goal``."""
    graph, previous, queue = exits(facts), {start: None}, deque([start])
    while queue:
        room = queue.popleft()
        for direction, nxt in sorted(graph[room].items()):
            if nxt not in previous:
                previous[nxt] = (room, direction)
                queue.append(nxt)
    commands, room = [], goal
    while previous[room] is not None:
        room, direction = previous[room]
        commands.append(f"go {direction}")
    return commands[::-1]


def player_room(facts: list[Triple]) -> str:
    """The room the player is in."""
    return next(o for s, r, o in facts if s == "P" and r == "at")


def holder(facts: list[Triple], entity: str) -> tuple[str, str]:
    """``(relation, place)`` of an entity: ``("at", room)``, ``("in", locker)``, ``("on", table)``."""
    return next((r, o) for s, r, o in facts if s == entity and r in ("at", "in", "on"))


def generate_in_fresh_caches(tmp_path: Path, generator: str, seed: int, options: dict[str, Any]) -> list[bytes]:
    """Generates one game in two new processes with two empty caches; returns the files' bytes."""
    code = ("import sys, json; from textmem_gym.envs.textworld.generation import generate_game; "
            "p = generate_game(sys.argv[1], int(sys.argv[2]), json.loads(sys.argv[3])); "
            "sys.stdout.write(str(p))")
    import json

    procs = []
    for index, hash_seed in enumerate(("1", "2")):
        env = {**os.environ, "TEXTMEM_CACHE_DIR": str(tmp_path / f"cache{index}"),
               "PYTHONHASHSEED": hash_seed, "PYTHONPATH": str(ROOT)}
        procs.append(subprocess.Popen([sys.executable, "-c", code, generator, str(seed), json.dumps(options)],
                                      env=env, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
    contents = []
    for proc in procs:
        out, err = proc.communicate(timeout=600)
        assert proc.returncode == 0, err[-3000:]
        game = Path(out.strip())
        contents += [game.read_bytes(), game.with_suffix(".json").read_bytes()]
    return contents


def run_in_generation_process(code: str) -> str:
    """Runs Python ``code`` in a fresh process set up like a generating one; returns its stdout."""
    from textmem_gym.envs.textworld.generation import GENERATION_HASHSEED

    env = {**os.environ, "PYTHONHASHSEED": GENERATION_HASHSEED, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run([sys.executable, "-c", code], env=env, cwd=ROOT, capture_output=True, text=True,
                          timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout.strip()
