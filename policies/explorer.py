"""A non-LLM explorer on top of MemoryGraphWrapper: the default agent of ``make run``.

Each step it takes the first rule that yields a command (see :data:`RULES`): read notes,
recipes and cookbooks; take items (until taking is penalized, then only items named in what it
read or in the goal); unlock and open containers and doors; put a rewarded item on furniture not
tried yet; try other untried harmless commands; walk through unexplored exits (with memory, ``go
to`` the nearest room that has some); finally anything untried. The heuristic critic
(:mod:`policies.critic`) vetoes repeats and blocked directions, the loop guard breaks loops.
With ``memory=False`` the same agent runs without map and ``go to`` (the ablation).

Example:
    >>> import textmem_gym
    >>> from textmem_gym.runner import evaluate
    >>> result = evaluate("TextMem/CookingRL-L1-v0", ExplorerPolicy(), max_steps=10)[0]
    >>> result["score"] > 0
    True
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from typing import Any, ClassVar

import gymnasium as gym

from policies.base import BasePolicy, Info
from policies.critic import HeuristicCritic, LoopGuard, direction_of, room_from
from policies.memory_env import admissible, ensure_memory_wrapper, observation_text

READABLE = ("note", "recipe", "cookbook", "book", "letter", "scroll", "paper", "sign", "manual", "diary",
            "journal", "map", "leaflet", "message", "card")
#: Verbs never tried blindly: they can lose a game (cooking), undo progress or waste steps.
RISKY_VERBS = ("eat", "drink", "cook", "slice", "dice", "chop", "drop", "close", "lock", "examine", "look",
               "inventory", "put", "insert", "go", "kill", "attack", "burn", "break", "quit", "restart")
_WORD = re.compile(r"[a-z]+")


def verb(command: str) -> str:
    """The first word of a command."""
    words = command.split()
    return words[0].lower() if words else ""


def take_object(command: str) -> str | None:
    """The object of ``take X [from Y]``, else ``None``."""
    match = re.match(r"^(?:take|get|pick up)\s+(.+?)(?:\s+from\s+.+)?$", command.strip().lower())
    return match.group(1) if match else None


class ExplorerPolicy(BasePolicy):
    """Memory-driven exploration without an LLM.

    Args:
        memory: Use MemoryGraphWrapper (map, unexplored exits, ``go to``); ``False`` is the ablation.
        seed: Seed of the tie-breaking randomness.
        memory_options: Arguments of the MemoryGraphWrapper it adds (``memory``, ``extractor``...).

    Example:
        >>> ExplorerPolicy(memory=False).name
        'explorer'
    """

    name: ClassVar[str] = "explorer"

    def __init__(self, memory: bool = True, seed: int | None = 0, memory_options: dict[str, Any] | None = None):
        self.memory, self.memory_options = bool(memory), dict(memory_options or {})
        self._rng = random.Random(seed)
        self.critic, self.guard = HeuristicCritic(), LoopGuard()
        self.reset("", {})

    def wrap_env(self, env: gym.Env) -> gym.Env:
        """Adds the MemoryGraphWrapper (only when ``memory`` is on)."""
        return ensure_memory_wrapper(env, **self.memory_options) if self.memory else env

    def seed(self, seed: int | None) -> None:
        self._rng = random.Random(seed)

    def reset(self, observation: Any, info: Info) -> None:
        self.critic.reset()
        self.guard.reset()
        self.room: str | None = None
        self.done: set[str] = set()
        self.read_words: set[str] = set(_WORD.findall(str(info.get("objective", "")).lower()))
        self.taking_penalized = False
        self.rewarded_items: set[str] = set()
        self.placing_goal = bool(set(_WORD.findall(str(info.get("objective", "")).lower())) & {"put", "place"})
        self.mentioned: list[str] = []
        self.rule_counts: dict[str, int] = {}
        self._observe_room(observation, info)

    def _observe_room(self, observation: Any, info: Info) -> None:
        view = info if self.memory else {}
        self.room = room_from(observation_text(observation), view, self.room)

    # -- rules ---------------------------------------------------------------------------
    def _fresh(self, commands: list[str]) -> list[str]:
        return [c for c in commands if c.lower() not in self.done and self.critic.score(c, self.room, commands) > 0]

    def _read(self, commands: list[str], info: Info) -> str | None:
        fresh = self._fresh(commands)
        return next((c for c in fresh if verb(c) in ("read", "examine") and
                     any(word in c.lower().split() for word in READABLE)), None)

    def _take(self, commands: list[str], info: Info) -> str | None:
        takes = [c for c in self._fresh(commands) if take_object(c) is not None]
        named = [c for c in takes if set(_WORD.findall(take_object(c) or "")) & self.read_words]
        if self.taking_penalized:
            return named[0] if named else None
        return (named or takes or [None])[0]

    def _open(self, commands: list[str], info: Info) -> str | None:
        fresh = self._fresh(commands)
        return next((c for c in fresh if verb(c) == "unlock"), None) or \
            next((c for c in fresh if verb(c) == "open"), None)

    def _put_rewarded(self, commands: list[str], info: Info) -> str | None:
        if not self.placing_goal:
            return None
        for command in self._fresh(commands):
            if verb(command) in ("put", "insert") and any(item in command.lower() for item in self.rewarded_items):
                return command
        return None

    def _go_mentioned(self, commands: list[str], info: Info) -> str | None:
        """With memory: ``go to`` the known place named most recently in something read."""
        for place in reversed(self.mentioned):
            if f"go to {place}" in commands:
                return f"go to {place}"
        return None

    def _untried(self, commands: list[str], info: Info) -> str | None:
        safe = [c for c in self._fresh(commands) if verb(c) not in RISKY_VERBS and take_object(c) is None]
        return safe[0] if safe else None

    def _explore(self, commands: list[str], info: Info) -> str | None:
        moves = [c for c in commands if direction_of(c) is not None]
        if self.memory:
            here = set((info.get("unexplored_exits") or {}).get(self.room or "", []))
            local = [c for c in moves if direction_of(c) in here and self.critic.score(c, self.room, commands) > -1]
            if local:
                return local[0]
            targets = [r for r in (info.get("unexplored_exits") or {}) if r != self.room]
            gotos = [f"go to {r}" for r in targets if f"go to {r}" in commands]
            if gotos:
                return self._rng.choice(gotos)
        untried = [c for c in moves if self.critic.score(c, self.room, commands) > 0]
        return self._rng.choice(untried) if untried else None

    def _wander(self, commands: list[str], info: Info) -> str | None:
        moves = [c for c in commands if direction_of(c) is not None or (self.memory and c.startswith("go to "))]
        open_moves = [c for c in moves if direction_of(c) not in self.critic.blocked[self.room]]
        return self._rng.choice(open_moves) if open_moves else None

    RULES: ClassVar[tuple[str, ...]] = ("read", "take", "open", "put_rewarded", "go_mentioned", "untried",
                                         "explore", "wander")

    def _rule(self, name: str) -> Callable[[list[str], Info], str | None]:
        return getattr(self, "_" + name)

    # -- Policy API ----------------------------------------------------------------------
    def act(self, observation: Any, info: Info) -> str:
        commands = admissible(info)
        if not self.memory:
            commands = [c for c in commands if not c.startswith("go to ")]
        action, rule = "look", "fallback"
        for name in self.RULES:
            proposal = self._rule(name)(commands, info)
            if proposal is not None:
                action, rule = proposal, name
                break
        safe = [c for c in commands if verb(c) not in RISKY_VERBS or c == action or direction_of(c)]
        action, _, substituted = self.critic.review(action, self.room, safe)
        action, forced = self.guard.check(action)
        rule = "guard" if forced else "critic" if substituted else rule
        self.rule_counts[rule] = self.rule_counts.get(rule, 0) + 1
        return action

    def observe(self, action: str, observation: Any, reward: float, terminated: bool, truncated: bool,
                info: Info) -> None:
        before = self.room
        self._observe_room(observation, info)
        if self.room in self.mentioned:
            self.mentioned.remove(self.room)
        self.critic.record(action, before, self.room, reward)
        self.guard.record(action, f"{self.room}|{observation_text(observation)}|{info.get('score')}")
        self.done.add(action.lower())
        text = observation_text(observation).lower()
        if verb(action) in ("read", "examine") and any(w in action.lower() for w in READABLE):
            self.read_words |= {w for w in _WORD.findall(text) if len(w) > 2}
            places = [p for p in info.get("known_locations") or [] if p in text and p != self.room]
            self.mentioned = [p for p in self.mentioned if p not in places] + places
        item = take_object(action)
        if item is not None and reward < 0:
            self.taking_penalized = True
        elif item is not None and reward > 0:
            self.rewarded_items.add(item)

    def episode_stats(self) -> dict[str, Any]:
        return {"rules": dict(self.rule_counts), "critic_substitutions": self.critic.substitutions,
                "loop_guard_forced": self.guard.forced, "memory": self.memory}
