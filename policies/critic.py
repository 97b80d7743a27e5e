"""The Text Adventure Agent's heuristic critic and loop guards (no LLM calls).

:class:`HeuristicCritic` scores a proposed command in [-1, 1] from what was tried where:
blocked direction here -1, tried twice or more here without reward -1, earned reward before
+0.5, tried once here without reward -0.5, valid (admissible) and untried +1, else 0. A command
scored -1 is *rejected*: :meth:`HeuristicCritic.rejected` lists the rejected admissible commands
(a policy can keep them from the model's choice), :meth:`HeuristicCritic.why` says why one is
rejected (feedback for the model), and :meth:`HeuristicCritic.review` substitutes the best
untried valid command for a rejected one.
:class:`LoopGuard` acts on loops: it forbids a command that would be the third identical one in
a row, the fifth of the last 10 decisions, or one already played from the very same game state
(the env's world-state hash where it gives one: Jericho), and plays the first alternative that
does not loop instead (``look`` when none); it warns when a command fills 4 of the last 10
decisions and when a game state is revisited. :func:`place_of` keys locations by the game's
stable id (Jericho's Z-machine object) rather than the printed room name.

Example:
    >>> critic = HeuristicCritic()
    >>> critic.record("go north", "hall", "hall", 0.0)
    >>> critic.score("go north", "hall", ["go north", "go east"])
    -1.0
    >>> critic.rejected("hall", ["go north", "go east"]), critic.why("go north", "hall")
    (['go north'], 'going north was blocked here before')
    >>> critic.review("go north", "hall", ["go north", "go east"])
    ('go east', -1.0, True)
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter, defaultdict, deque
from collections.abc import Sequence
from typing import Protocol

from textmem_gym.core.info import observation_text
from textmem_gym.core.policy import Info
from textmem_gym.memory.semantic import SHORT_DIRECTIONS

_HEX = re.compile(r"[0-9a-f]{32}")
#: The directions a blocked-move check and the fallback know (the first four are tried as fallbacks).
DIRECTIONS = ("north", "south", "east", "west", "northeast", "northwest", "southeast", "southwest", "up", "down")
_HEADER = re.compile(r"-=\s*(.+?)\s*=-")
#: Never substituted blindly: these can end or spoil a game (eating an ingredient, a wrong cooking step).
DESTRUCTIVE_VERBS = frozenset({"eat", "drink", "cook", "slice", "dice", "chop", "prepare", "kill", "attack", "burn",
                               "break", "quit", "restart"})
#: Scores of the critic, by rule.
VALID_UNTRIED, REWARDED_BEFORE, TRIED_ONCE, TRIED_TWICE, BLOCKED = 1.0, 0.5, -0.5, -1.0, -1.0


def direction_of(command: str) -> str | None:
    """The compass direction of a movement command (``go north``, ``north``, ``n``), else ``None``."""
    words = command.lower().strip().split()
    if words[:1] == ["go"] and len(words) == 2:
        words = words[1:]
    if len(words) != 1:
        return None
    word = SHORT_DIRECTIONS.get(words[0], words[0])
    return word if word in DIRECTIONS else None


def place_of(observation: str, info: Info, previous: str | None = None) -> str | None:
    """A stable key of the current location: the game's own location id (Jericho's Z-machine
    object, ``info["location_id"]``) when it gives one, else the room (:func:`room_from`), so a room
    that prints another name (Lost Pig) keeps its tried actions.

    Example:
        >>> place_of("Hole\\nYou are in a hole.", {"location_id": "z52"}), place_of("-= Hall =-", {})
        ('z52', 'hall')
    """
    if info.get("location_id"):
        return str(info["location_id"])
    return room_from(observation, info, previous)


def room_from(observation: str, info: Info, previous: str | None = None) -> str | None:
    """The current room: the memory wrapper's ``location``, else a ``-= Room =-`` header, else ``previous``."""
    return room_at(observation, info.get("location"), previous)


def room_at(observation: str, location: object, previous: str | None = None) -> str | None:
    """The current room: ``location`` (the memory wrapper's, ``info["location"]``) when it names one, else a
    ``-= Room =-`` header of ``observation``, else ``previous``.

    Example:
        >>> room_at("-= Hall =-", None), room_at("-= Hall =-", "kitchen"), room_at("Nothing.", None, "hall")
        ('hall', 'kitchen', 'hall')
    """
    if location:
        return str(location)
    match = _HEADER.search(observation or "")
    return match.group(1).strip().lower() if match else previous


class HeuristicCritic:
    """Scores commands from the outcome of earlier tries (room-local), and substitutes bad ones.

    Example:
        >>> critic = HeuristicCritic()
        >>> critic.record("open fridge", "kitchen", "kitchen", 1.0)
        >>> critic.score("open fridge", "kitchen", ["open fridge"])
        0.5
    """

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        """Forgets everything (new episode)."""
        self.tried: dict[str | None, Counter[str]] = defaultdict(Counter)
        self.blocked: dict[str | None, set[str]] = defaultdict(set)
        self.rewarded: set[str] = set()
        self.substitutions = 0

    def record(self, action: str, room_before: str | None, room_after: str | None, reward: float) -> None:
        """Learns from one executed command."""
        action = action.strip().lower()
        if reward > 0:
            self.rewarded.add(action)
        else:
            self.tried[room_before][action] += 1
        direction = direction_of(action)
        if direction is not None and room_after == room_before and room_before is not None:
            self.blocked[room_before].add(direction)

    def score(self, action: str, room: str | None, valid: list[str]) -> float:
        """The critic's score of ``action`` in ``room`` given the valid commands."""
        action = action.strip().lower()
        direction = direction_of(action)
        count = self.tried[room][action]
        if direction is not None and direction in self.blocked[room]:
            return BLOCKED
        if count >= 2:
            return TRIED_TWICE
        if action in self.rewarded:
            return REWARDED_BEFORE
        if count == 1:
            return TRIED_ONCE
        return VALID_UNTRIED if action in {v.lower() for v in valid} else 0.0

    def untried(self, room: str | None, valid: list[str]) -> list[str]:
        """Valid commands never tried in ``room`` (order kept)."""
        return [v for v in valid if self.tried[room][v.lower()] == 0 and v.lower() not in self.rewarded]

    def best_untried(self, room: str | None, valid: list[str]) -> str | None:
        """The best-scored untried valid command (never a destructive one), else an untried unblocked
        direction, else ``None``."""
        candidates = [v for v in self.untried(room, valid) if v.lower() not in ("look", "inventory")
                      and v.split()[0].lower() not in DESTRUCTIVE_VERBS]
        if candidates:
            return max(candidates, key=lambda v: self.score(v, room, valid))
        for direction in DIRECTIONS[:4]:
            if direction not in self.blocked[room] and self.tried[room][f"go {direction}"] == 0:
                return f"go {direction}"
        return None

    def rejected(self, room: str | None, valid: list[str]) -> list[str]:
        """The commands of ``valid`` the critic scores -1 in ``room`` (order kept).

        Example:
            >>> critic = HeuristicCritic()
            >>> for _ in range(2):
            ...     critic.record("open chest", "hall", "hall", 0.0)
            >>> critic.rejected("hall", ["open chest", "take key"]), critic.rejected("cellar", ["open chest"])
            (['open chest'], [])
        """
        return [v for v in valid if self.score(v, room, valid) <= TRIED_TWICE]

    def why(self, action: str, room: str | None) -> str:
        """Why ``action`` is rejected in ``room`` (blocked direction, or how often it was tried
        without reward); ``""`` when it is not."""
        action = action.strip().lower()
        direction = direction_of(action)
        if direction is not None and direction in self.blocked[room]:
            return f"going {direction} was blocked here before"
        count = self.tried[room][action]
        return f"it was tried {count} times here without reward" if count >= 2 else ""

    def replacement(self, action: str, room: str | None, valid: list[str]) -> str | None:
        """The command :meth:`review` would send instead of ``action``: the best untried valid
        command when ``action`` scores -1 (and such a different command exists), else ``None``.
        Counts nothing."""
        if self.score(action, room, valid) > TRIED_TWICE:
            return None
        better = self.best_untried(room, valid)
        return better if better is not None and better.lower() != action.strip().lower() else None

    def review(self, action: str, room: str | None, valid: list[str]) -> tuple[str, float, bool]:
        """``(command to send, score, substituted)``: at -1 the best untried valid command replaces it."""
        score = self.score(action, room, valid)
        better = self.replacement(action, room, valid)
        if better is not None:
            self.substitutions += 1
            return better, score, True
        return action, score, False


class Move(Protocol):
    """One executed step as a policy keeps it in its turns (what :class:`TurnsCritic` learns from).

    Attributes:
        action: The command sent.
        observation: The game's text after it.
        reward: The reward it earned.
        location: The room the memory wrapper believed after it (``info["location"]``; ``None``: none).
    """

    action: str
    observation: str
    reward: float
    location: str | None


class TurnsCritic:
    """A :class:`HeuristicCritic` that learns from the turns its policy keeps anyway, when it is asked
    (for a fallback command), not at every step: the turns not yet read are replayed then, room by room,
    exactly as recording each at its step would have (the same rooms, tries and rewards).

    Args:
        room: The room the episode starts in (:func:`room_from` of the first observation).
        turns: The policy's turns of the episode (read, never changed; the policy appends to it).

    Example:
        >>> from types import SimpleNamespace as Turn
        >>> turns = []
        >>> critic = TurnsCritic("hall", turns)
        >>> turns.append(Turn(action="go north", observation="You can't go that way.", reward=0.0, location=None))
        >>> critic.best_untried(["go north", "go east"]), critic.room
        ('go east', 'hall')
    """

    def __init__(self, room: str | None, turns: Sequence[Move]) -> None:
        self.critic = HeuristicCritic()
        self.room = room
        self.turns = turns
        self._read = 0

    def best_untried(self, valid: list[str]) -> str | None:
        """:meth:`HeuristicCritic.best_untried` in the current room, once the turns since the last call are read."""
        self._catch_up()
        return self.critic.best_untried(self.room, valid)

    def _catch_up(self) -> None:
        for turn in self.turns[self._read:]:
            before, self.room = self.room, room_at(turn.observation, turn.location, self.room)
            self.critic.record(turn.action, before, self.room, turn.reward)
        self._read = len(self.turns)


class LoopGuard:
    """Hard-loop, frequency-loop and state-revisit detection.

    Args:
        repeat: Identical consecutive commands that force ``look``.
        window: Recent decisions looked at by the frequency check.
        frequent: Occurrences in ``window`` that trigger a warning.

    Example:
        >>> guard = LoopGuard()
        >>> for _ in range(2):
        ...     guard.record("take lamp", "state-a")
        >>> guard.check("take lamp")
        ('look', True)
    """

    def __init__(self, repeat: int = 3, window: int = 10, frequent: int = 4) -> None:
        self.repeat, self.window, self.frequent = repeat, window, frequent
        self.reset()

    def reset(self) -> None:
        """Forgets the episode."""
        self.actions: deque[str] = deque(maxlen=self.window)
        self.states: Counter[str] = Counter()
        self.played: dict[str, Counter[str]] = defaultdict(Counter)
        self.current_state = ""
        self.forced = 0

    def looping(self, action: str) -> bool:
        """Whether ``action`` repeats a loop: the ``repeat``-th identical command in a row, its
        ``frequent``-th time in the last ``window`` decisions, or a command already played from
        this very game state (a deterministic game would answer the same)."""
        command = action.strip().lower()
        hard = self.repeating(command)
        frequent = list(self.actions).count(command) + 1 > self.frequent
        replayed = command in self.played.get(self.current_state, ())
        return command != "look" and (hard or frequent or replayed)

    def repeating(self, action: str) -> bool:
        """Whether ``action`` would be the ``repeat``-th identical command in a row (a hard loop)."""
        command = action.strip().lower()
        recent = list(self.actions)[-(self.repeat - 1):]
        return len(recent) == self.repeat - 1 and all(a == command for a in recent)

    def check(self, action: str, alternatives: Sequence[str] = ()) -> tuple[str, bool]:
        """``(action, False)``, or, when ``action`` repeats a loop (:meth:`looping`), the loop guard
        forbids it: ``(the first alternative that does not loop, True)``; when every alternative
        loops, ``look`` the first time in this state, and after that (``look`` changes nothing, so
        forcing it again would freeze the agent in a loop of its own) the command played least
        often from this state that is not a hard loop, the proposed one on a tie (forced when it
        is not ``action``; ``look`` when all are hard loops).

        Example:
            >>> guard = LoopGuard()
            >>> for command, state in [("look", "start"), ("go east", "hall"), ("go west", "start")]:
            ...     guard.record(command, state)
            >>> guard.check("go east")
            ('look', True)
            >>> guard.record("look", "start")
            >>> guard.check("go east")  # everything was tried here: the least played goes through
            ('go east', False)
        """
        if not self.looping(action):
            return action, False
        command = action.strip().lower()
        better = next((a for a in alternatives if a.strip().lower() != command and not self.looping(a)), None)
        if better is None:
            played = self.played[self.current_state]
            candidates = [a for a in (action, *alternatives) if not self.repeating(a)]
            better = "look" if "look" not in played or not candidates else \
                min(candidates, key=lambda a: played[a.strip().lower()])
        forced = better.strip().lower() != command
        self.forced += forced
        return better, forced

    def record(self, action: str, state: str) -> None:
        """Remembers an executed command and the game state it led to (the env's world-state hash,
        or any text identifying the state)."""
        command = action.strip().lower()
        self.played[self.current_state][command] += 1
        self.actions.append(command)
        self.current_state = state if _HEX.fullmatch(state) else hashlib.md5(state.encode("utf-8")).hexdigest()
        self.states[self.current_state] += 1

    @property
    def revisits(self) -> int:
        """How many times the current game state was reached (1: the first time)."""
        return self.states.get(self.current_state, 0)

    def warnings(self) -> list[str]:
        """Warnings for the prompt (frequency loop, revisited state)."""
        out = [f"WARNING: you chose '{a}' {n} times in the last {len(self.actions)} steps; try something else."
               for a, n in Counter(self.actions).items() if n >= self.frequent]
        visits = self.states.get(self.current_state, 0)
        if visits >= 2:
            out.append(f"[LOOP DETECTED] this exact game state was seen {visits} times; try something genuinely new.")
        return out


class CriticTurns:
    """The ``observe`` hook of a policy that keeps a :class:`HeuristicCritic` (``critic``), the room it
    believes it is in (``room``) and the ``(command, observation)`` turns of the episode (``turns``).

    Example:
        >>> class Walker(CriticTurns):
        ...     def __init__(self):
        ...         self.critic, self.room, self.turns = HeuristicCritic(), None, []
        >>> walker = Walker()
        >>> walker.observe("go east", "-= Garden =-\\nA rose bush.", 0.0, False, False, {})
        >>> walker.room, walker.turns[0][0]
        ('garden', 'go east')
    """

    critic: HeuristicCritic
    room: str | None
    turns: list[tuple[str, str]]

    def observe(self, action: str, observation: object, reward: float, terminated: bool, truncated: bool,
                info: Info) -> None:
        """Moves the believed room, tells the critic what the action did and keeps the turn."""
        text = observation_text(observation)
        before, self.room = self.room, room_from(text, info, self.room)
        self.critic.record(action, before, self.room, reward)
        self.turns.append((action, text))
