"""One client's game: a TextMem env inside :class:`MemoryGraphWrapper`, the Text Adventure
Agent's room history, and the answers of the served tools.

Everything here is plain Python (no MCP): the MCP server and the web app call it.

Example:
    >>> import textmem_gym
    >>> game = GameSession("Cooking-v0")
    >>> result = game.play("go south")
    >>> result["location"], result["done"]
    ('kitchen', False)
    >>> "table" in game.search("where is the knife")
    True
    >>> game.close()

Any memory serves (:mod:`textmem_gym.memory.protocol`); a view that needs an optional part the
memory does not offer says so instead of failing: without ``map`` the room is ``unknown`` and
the map answers :data:`NO_MAP`; without ``beliefs`` nothing is believed carried or placed;
without ``history`` nothing was seen earlier; without ``render`` a free question gets the
memory's ``context`` (:data:`~textmem_gym.wrappers.memory_graph.DEFAULT_BELIEF_BUDGET` tokens).
"""

from __future__ import annotations

import re
import threading
import time
from collections import defaultdict, deque
from dataclasses import dataclass
from typing import Any

import gymnasium as gym

from textmem_gym.envs.text_game import TextGameEnv
from textmem_gym.memory.adoption import Adopted
from textmem_gym.memory.protocol import HasMap, Memory
from textmem_gym.memory.semantic import (
    IN,
    INVENTORY,
    LOCATION_RELATIONS,
    Triple,
    TripleKey,
    normalize,
    relation_direction,
)
from textmem_gym.serving.games import GameError, resolve_game
from textmem_gym.wrappers.memory_graph import DEFAULT_BELIEF_BUDGET, MemoryGraphWrapper

#: Actions remembered per room (the seed agent keeps 40).
ROOM_HISTORY = 40
#: Longest command accepted by ``play``.
MAX_ACTION_CHARS = 500
#: Appended to an inventory answer that comes from the memory (the backend cannot tell without a move).
FROM_MEMORY = "(from memory: this game cannot report its inventory without spending a move)"
#: What the map views answer for a memory that offers no ``map`` part (``{}``: the memory's name).
NO_MAP = "this memory offers no map ({})"
_ARTICLES = re.compile(r"^(?:the|a|an|some)\s+")
_WHERE = re.compile(r"^\s*where(?:'s| is| are| was| were)\s+(.+?)\??\s*$", re.I)
_EXITS = re.compile(r"^\s*(?:exits?|ways?)\s+(?:from|of|out of|in)\s*(.*?)\??\s*$", re.I)
_UNEXPLORED = re.compile(r"^\s*unexplored(?:\s+exits?)?(?:\s+(?:from|of|in)\s+(.*?))?\??\s*$", re.I)
_WHERE_AM_I = re.compile(r"^\s*where am i\??\s*$", re.I)
_CARRYING = re.compile(r"^\s*(?:inventory|what do i (?:have|carry)|what am i carrying)\??\s*$", re.I)


@dataclass
class RoomAction:
    """One action taken in a room and what it did."""

    action: str
    score_before: float
    score_after: float
    reward: float
    gained: list[str]
    lost: list[str]
    result: str

    def line(self) -> str:
        """One line of the ``room_state`` history."""
        return (f"{self.action} | score {self.score_before:g} -> {self.score_after:g} (reward {self.reward:+g}) | "
                f"gained: {', '.join(self.gained) or '-'} | lost: {', '.join(self.lost) or '-'} | "
                f"result: {_short(self.result, 200)}")


def _short(text: str, limit: int = 300) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _entity(text: str) -> str:
    return _ARTICLES.sub("", normalize(text).strip(" ?.!"))


class GameSession:
    """A game served to one client.

    Args:
        game: A TextMem id, an id without ``TextMem/`` or a Jericho game name (``zork1``).
        memory: Memory of the wrapper: a name of the group ``textmem_gym.memories`` (``arigraph``,
            ``stma``, ``davis``, ...) or ``module:Class``.
        env_kwargs: Extra ``gym.make`` arguments.
        seed: Reset seed of the first episode.

    Attributes:
        lock: Held by servers around each call (one env is not thread-safe).
        last_used: ``time.monotonic()`` of the last call (idle sessions are released).
    """

    def __init__(self, game: str, *, memory: str = "arigraph", env_kwargs: dict[str, Any] | None = None,
                 seed: int = 0) -> None:
        self.env_id = resolve_game(game)
        self.memory_name, self.env_kwargs = memory, dict(env_kwargs or {})
        self.lock = threading.Lock()
        self.last_used = time.monotonic()
        self.env: MemoryGraphWrapper | None = None
        self.reset(seed)

    # -- lifecycle -----------------------------------------------------------------------
    def reset(self, seed: int | None = 0, game: str | None = None) -> dict[str, Any]:
        """Starts a new episode (of ``game`` when given, else the same game); returns its status."""
        if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool) or seed < 0):
            raise GameError(f"seed must be a non-negative integer, got {seed!r}")
        if game is not None and resolve_game(game) != self.env_id:
            self.close()
            self.env_id = resolve_game(game)
        if self.env is None:
            self.env = MemoryGraphWrapper(gym.make(self.env_id, **self.env_kwargs), memory=self.memory_name)
        observation, self.info = self.env.reset(seed=seed)
        self.seed, self.observation, self.reward = seed, observation["observation"], 0.0
        self.done, self.truncated, self.steps = False, False, 0
        self.room_log: dict[str, deque[RoomAction]] = defaultdict(lambda: deque(maxlen=ROOM_HISTORY))
        self.tried: dict[str, list[str]] = defaultdict(list)
        self.recent: deque[RoomAction] = deque(maxlen=ROOM_HISTORY)
        return self.status()

    def close(self) -> None:
        """Closes the env (its interpreter or JVM); idempotent."""
        if self.env is not None:
            self.env.close()
            self.env = None

    # -- playing -------------------------------------------------------------------------
    @property
    def adopted(self) -> Adopted:
        """The wrapper's memory as the wrapper adopted it (its parts, detected once)."""
        if self.env is None:
            raise GameError("this game session is closed")
        return self.env.adopted

    @property
    def memory(self) -> Memory:
        """The wrapper's memory."""
        return self.adopted.memory

    @property
    def map(self) -> HasMap | None:
        """The memory where it offers the ``map`` part, else ``None``."""
        return self.adopted.map

    @property
    def room(self) -> str:
        """The believed current room (``unknown`` also for a memory without a map)."""
        return self._location() or "unknown"

    def _location(self) -> str | None:
        return self.map.location if self.map is not None else None

    def _known_locations(self) -> list[str]:
        return self.map.known_locations() if self.map is not None else []

    def _beliefs(self) -> list[TripleKey]:
        """The believed triples (``[]`` for a memory without the ``beliefs`` part)."""
        return self.adopted.believed_triples()

    def _history(self) -> list[Triple]:
        """Every triple ever believed (``[]`` for a memory without the ``history`` part)."""
        history = self.adopted.history
        return history.triple_history() if history is not None else []

    def _no_map(self) -> str:
        return NO_MAP.format(self.adopted.name)

    def _recall(self, query: str) -> str:
        """The memory's text for ``query``: its ``render``, else its context lines."""
        renders = self.adopted.renders
        if renders is not None:
            return renders.render(query)
        return "\n".join(self.adopted.context(query, DEFAULT_BELIEF_BUDGET))

    def play(self, action: str) -> dict[str, Any]:
        """Sends ``action`` (a command, or ``go to X``); returns the step's status."""
        if not isinstance(action, str) or not action.strip():
            raise GameError("action must be a non-empty command, e.g. 'look' or 'go north'")
        if len(action) > MAX_ACTION_CHARS:
            raise GameError(f"action is {len(action)} characters long; the limit is {MAX_ACTION_CHARS}")
        if self.done or self.truncated:
            raise GameError("the episode is over; call reset to play again")
        assert self.env is not None
        room, score, carried = self.room, float(self.info["score"]), set(self.carried()[0])
        observation, reward, self.done, self.truncated, self.info = self.env.step(action.strip())
        self.observation, self.reward, self.steps = observation["observation"], float(reward), self.steps + 1
        now = set(self.carried()[0])
        entry = RoomAction(action.strip(), score, float(self.info["score"]), self.reward, sorted(now - carried),
                           sorted(carried - now), self.observation)
        self.room_log[room].append(entry)
        self.recent.append(entry)
        if action.strip() not in self.tried[room]:
            self.tried[room].append(action.strip())
        return self.status()

    def status(self) -> dict[str, Any]:
        """The last observation with reward, score, done flags and counters."""
        info = self.info
        return {"observation": self.observation, "reward": self.reward, "score": info["score"],
                "max_score": info["max_score"], "normalized_score": info["normalized_score"],
                "done": bool(self.done or self.truncated), "won": bool(info["won"]), "lost": bool(info["lost"]),
                "truncated": bool(self.truncated), "moves": info["moves"], "steps": self.steps,
                "location": self._location(), "objective": info.get("objective", ""), "game": self.env_id,
                "seed": self.seed}

    def status_text(self) -> str:
        """``status()`` as the text ``play_action`` returns: observation, then one status line."""
        s = self.status()
        line = (f"[Score: {s['score']:g}/{s['max_score']:g} | Reward: {s['reward']:+g} | Moves: {s['moves']} | "
                f"Location: {s['location'] or 'unknown'}]")
        if s["done"]:
            line += "\nGAME OVER: " + ("you won." if s["won"] else "you lost." if s["lost"] else "step limit reached.")
        return f"{self.observation}\n\n{line}"

    # -- views ---------------------------------------------------------------------------
    def inventory(self) -> list[str]:
        """What the memory believes the player carries."""
        return sorted(s for s, r, o in self._beliefs() if r == IN and o == INVENTORY)

    def carried(self) -> tuple[list[str], bool]:
        """What the player carries and whether the game said so: the game's own inventory where the
        backend reads it without spending a move (Jericho, TextWorld), else the memory's belief."""
        assert self.env is not None
        game = self.env.unwrapped
        items = game.carried() if isinstance(game, TextGameEnv) else None
        return (items, True) if items is not None else (self.inventory(), False)

    def inventory_text(self) -> str:
        """The ``inventory`` answer: the game's items, or the memory's with :data:`FROM_MEMORY`."""
        items, from_game = self.carried()
        if from_game:
            return ", ".join(items) or "nothing"
        return f"{', '.join(items) or 'nothing known'} {FROM_MEMORY}"

    def valid_actions(self) -> list[str]:
        """The game's admissible commands now (with ``go to X`` macros)."""
        return list(self.info.get("admissible_commands", []))

    def objects(self) -> list[str]:
        """``thing (relation place)`` for every believed placed object that is not a room."""
        rooms = set(self._known_locations())
        return [f"{s} ({r} {o})" for s, r, o in self._beliefs()
                if r in LOCATION_RELATIONS and s not in rooms and o != INVENTORY]

    def exits(self, room: str) -> dict[str, str]:
        """Believed exits of ``room``: direction -> neighbouring room."""
        return {relation_direction(r) or r: a for a, r, b in self._beliefs()
                if b == room and relation_direction(r)}

    def map_lines(self) -> list[str]:
        """One line per known room: its exits and unexplored directions (:data:`NO_MAP` without a map)."""
        if self.map is None:
            return [self._no_map()]
        unexplored = self.map.unexplored_exits()
        lines = []
        for room in self.map.known_locations():
            known = ", ".join(f"{d} -> {r}" for d, r in sorted(self.exits(room).items())) or "none known"
            todo = f"; unexplored: {', '.join(unexplored[room])}" if unexplored.get(room) else ""
            lines.append(f"{room}: {known}{todo}")
        return lines

    def belief(self) -> str:
        """The memory's belief for the last observation (what an agent's prompt gets)."""
        assert self.env is not None
        return self.env.render_belief(self.observation)

    def room_state(self) -> str:
        """The Text Adventure Agent's state block for the current room."""
        room, s = self.room, self.status()
        history = [f"  {i}. {entry.line()}" for i, entry in enumerate(self.room_log[room], 1)]
        visits = self.info.get("state_visits")
        blocks = [
            f"GAME: {self.env_id} (seed {self.seed}) | SCORE: {s['score']:g}/{s['max_score']:g} | "
            f"MOVES: {s['moves']} | STEPS: {self.steps} | DONE: {'yes' if s['done'] else 'no'}",
            f"ROOM: {room}",
            f"ALL_TRIED_IN_THIS_ROOM: {', '.join(self.tried[room]) or 'nothing yet'}",
            f"ROOM_HISTORY (last {ROOM_HISTORY} actions here):\n" + ("\n".join(history) or "  none"),
            f"VALID_ACTIONS: {', '.join(self.valid_actions()) or 'unknown'}",
            f"OBJECTS_SEEN: {'; '.join(self.objects()) or 'none'}",
            "EXPLORED_MAP:\n" + ("\n".join(f"  {line}" for line in self.map_lines()) or "  nothing yet"),
            f"INVENTORY: {self.inventory_text()}",
            f"{self.memory_name.upper()}_BELIEF_STATE:\n{self.belief()}",
            "STATE_REVISIT_COUNT: " + (str(visits) if visits is not None else
                                       "n/a (this backend reports no world-state hash)"),
            f"LAST_OBSERVATION: {_short(self.observation, 600)}",
        ]
        return "\n".join(blocks)

    # -- memory search -------------------------------------------------------------------
    def search(self, query: str) -> str:
        """Answers "where is X", "exits from Y", "unexplored exits", "where am I", "inventory";
        anything else goes to the memory's retrieval."""
        if not isinstance(query, str) or not query.strip():
            raise GameError("query must be a non-empty question, e.g. 'where is the lamp' or 'exits from kitchen'")
        if _WHERE_AM_I.match(query):
            return f"You are in {self.room}."
        if _CARRYING.match(query):
            return f"You carry: {self.inventory_text()}."
        if match := _UNEXPLORED.match(query):
            return self._unexplored(_entity(match.group(1) or ""))
        if match := _EXITS.match(query):
            return self._exits(_entity(match.group(1)))
        if match := _WHERE.match(query):
            return self._where(_entity(match.group(1)))
        return self._recall(query.strip())

    def _where(self, thing: str) -> str:
        names = self._matching(thing)
        if not names:
            return f"'{thing}' has not been seen.\n" + self._recall(thing)
        return "\n".join(self._whereabouts(name) for name in names)

    def _matching(self, thing: str) -> list[str]:
        entities = {e for s, _, o, *_ in self._all_triples() for e in (s, o)} - {INVENTORY}
        if thing in entities:
            return [thing]
        words = set(thing.split())
        return sorted(e for e in entities if words and words <= set(e.split()))[:5]

    def _all_triples(self) -> list[tuple[str, str, str, int | None, int | None]]:
        """Believed and no longer believed location triples with their validity steps."""
        return [(t.subject, t.relation, t.object, t.start, t.end) for t in self._history()
                if t.relation in LOCATION_RELATIONS]

    def _whereabouts(self, name: str) -> str:
        placed = [(r, o, start, end) for s, r, o, start, end in self._all_triples() if s == name]
        now = [f"{r} {o}{self._room_of(o)}" for r, o, _, end in placed if end is None]
        before = [f"{r} {o}{self._room_of(o)} (steps {start}-{end})" for r, o, start, end in placed if end is not None]
        if name in self._known_locations():
            return f"{name} is a room; route from {self.room}: {self._route(name)}"
        text = f"{name}: " + ("; ".join(now) if now else "location unknown now")
        return text + (f". Seen earlier: {'; '.join(before[-3:])}" if before else "")

    def _room_of(self, place: str, depth: int = 0) -> str:
        rooms = set(self._known_locations())
        if place in rooms or place == INVENTORY or depth > 3:
            return ""
        for s, r, o in self._beliefs():
            if s == place and r in LOCATION_RELATIONS:
                return f" ({place} {r} {o})" if o in rooms else self._room_of(o, depth + 1)
        return ""

    def _route(self, room: str) -> str:
        path = self.map.route(self.room, room) if self.map is not None and self.map.location else None
        return " -> ".join(f"{d} to {r}" for d, r in path) if path else "unknown"

    def _exits(self, room: str) -> str:
        if self.map is None:
            return self._no_map()
        room = room if room and room not in ("here", "this room") else self.room
        if room not in self.map.known_locations():
            return f"'{room}' is not a known room; known rooms: {', '.join(self.map.known_locations())}"
        known = ", ".join(f"{d} -> {r}" for d, r in sorted(self.exits(room).items())) or "none known"
        unexplored = self.map.unexplored_exits().get(room, [])
        return f"Exits from {room}: {known}. Unexplored: {', '.join(unexplored) or 'none'}."

    def _unexplored(self, room: str) -> str:
        if self.map is None:
            return self._no_map()
        exits = self.map.unexplored_exits()
        if room and room not in ("here", "this room"):
            exits = {room: exits.get(room, [])}
        return "\n".join(f"{r}: {', '.join(d) or 'none'}" for r, d in exits.items()) or "No unexplored exits known."

    def context(self, recent: int = 0) -> str:
        """Short summary: where, score, what is carried, the last ``recent`` actions, then the belief."""
        s = self.status()
        lines = [f"Location: {self.room} | Score: {s['score']:g}/{s['max_score']:g} | Steps: {self.steps}",
                 f"Inventory: {self.inventory_text()}"]
        if recent:
            actions = list(self.recent)[-recent:]
            lines.append("Recent actions:\n" + ("\n".join(f"  > {a.action} -> {_short(a.result, 150)}"
                                                          for a in actions) or "  none"))
        return "\n".join(lines + [self.belief()])
