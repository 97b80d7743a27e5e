"""``go to <known location>`` macro actions over a memory's believed map.

:func:`plan_route` turns the memory's shortest known path into primitive commands (opening
doors believed closed on the way); :func:`run_goto` executes them one by one through a
``step`` callable, re-checking the believed location after every move.

Example:
    >>> parse_goto("Go to the Kitchen"), parse_goto("go north")
    ('kitchen', None)
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from textmem_gym.memory.base import Memory
from textmem_gym.memory.semantic import direction_relation, normalize

_GOTO = re.compile(r"^\s*go\s+to\s+(?:the\s+)?(.+?)\s*[.!]?\s*$", re.I)
StepResult = tuple[str, float, bool, bool, dict[str, Any]]


def parse_goto(action: str) -> str | None:
    """The target of a ``go to X`` command (normalized), else ``None``."""
    match = _GOTO.match(action) if isinstance(action, str) else None
    return normalize(match.group(1)) if match else None


def goto_commands(memory: Memory) -> list[str]:
    """One ``go to X`` per known location other than the current one."""
    return [f"go to {room}" for room in memory.known_locations() if room != memory.location]


@dataclass
class MacroResult:
    """Outcome of one ``go to``.

    Attributes:
        target: The requested location.
        actions: Primitive commands sent to the env.
        completed: The agent believes it reached the target.
        reason: Why it stopped early (empty when completed).
        observation, reward, terminated, truncated, info: The summed reward and the last
            step's other outputs (``None`` info when no primitive step was taken).
    """

    target: str
    actions: list[str] = field(default_factory=list)
    completed: bool = False
    reason: str = ""
    observation: str = ""
    reward: float = 0.0
    terminated: bool = False
    truncated: bool = False
    info: dict[str, Any] | None = None

    def summary(self) -> dict[str, Any]:
        """What goes into ``info["macro"]``."""
        return {"target": self.target, "actions": list(self.actions), "primitive_steps": len(self.actions),
                "completed": self.completed, "reason": self.reason}


def plan_route(memory: Memory, target: str) -> tuple[list[tuple[str, str, str | None]], str]:
    """Plans the hops to ``target``.

    Returns:
        ``(hops, problem)``: hops are ``(direction, room reached, door to open or None)``;
        ``problem`` is a sentence for the agent when there is no usable route.
    """
    known = memory.known_locations()
    if target not in known:
        listed = ", ".join(known) if known else "none yet"
        return [], f"You don't know a place called '{target}'. Known locations: {listed}."
    if memory.location is None:
        return [], "You don't know where you are, so no route can be planned."
    if target == memory.location:
        return [], f"You are already in the {target}."
    route = memory.route(memory.location, target)
    if route is None:
        return [], f"You know of the {target} but no known path leads there from the {memory.location}."
    hops: list[tuple[str, str, str | None]] = []
    room = memory.location
    for direction, nxt in route:
        door = memory.door(room, direction)
        if door is not None and door[1] == "locked":
            return [], f"The way to the {target} goes through the {door[0]}, which is locked."
        hops.append((direction, nxt, door[0] if door is not None and door[1] == "closed" else None))
        room = nxt
    return hops, ""


def hop_commands(direction: str, door: str | None) -> list[str]:
    """The primitive commands of one hop of a route: open its door if any, then go."""
    return ([f"open {door}"] if door else []) + [f"go {direction}"]


def run_goto(memory: Memory, target: str, step: Callable[[str], StepResult], budget: int | None) -> MacroResult:
    """Walks to ``target`` with primitive commands sent through ``step`` (which also updates
    the memory); stops on termination, truncation, an exhausted ``budget`` of primitive steps,
    or when the believed location is not the expected one. A move that left the agent where
    it was (maps of interactive fiction are not always symmetric, so an inferred inverse exit
    can be wrong) is forgotten, so the next plan avoids it."""
    result = MacroResult(target)
    hops, problem = plan_route(memory, target)
    if problem:
        result.reason, result.observation = problem, problem
        result.completed = problem.startswith("You are already")
        return result
    room = memory.location or ""  # known: a route was planned from it
    for direction, expected, door in hops:
        for command in hop_commands(direction, door):
            if budget is not None and len(result.actions) >= budget:
                result.reason = "step budget exhausted"
                return result
            observation, reward, terminated, truncated, info = step(command)
            result.actions.append(command)
            result.observation, result.info = observation, info
            result.reward += reward
            result.terminated, result.truncated = terminated, truncated
            if terminated or truncated:
                result.reason = "episode ended"
                return result
        if memory.location != expected:
            result.reason = f"expected to reach the {expected} but the game says otherwise"
            if memory.location == room:  # the way is not there
                memory.invalidate(expected, direction_relation(direction), room)
            return result
        room = expected
    result.completed = True
    return result
