"""The Cellar: a five-room text game in pure Python, as a TextMem env backend.

The whole engine is :class:`Cellar` (a few dictionaries); :class:`CellarEnv` is the backend: the
three hooks of :class:`~textmem_gym.envs.text_game.TextGameEnv` turn the engine's answers into
:class:`~textmem_gym.envs.text_game.GameState`\\ s, and the base class does the rest of the
environment contract.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import ClassVar

from textmem_gym.envs.privileged import FactTriple
from textmem_gym.envs.text_game import GameState, TextGameEnv

#: room -> {direction: the room that way}.
MAP: dict[str, dict[str, str]] = {
    "cellar": {"north": "pantry"},
    "pantry": {"south": "cellar", "east": "hall"},
    "hall": {"west": "pantry", "north": "garden"},
    "garden": {"south": "hall", "west": "shed"},
    "shed": {"east": "garden"},
}
START, CHEST_ROOM, CARRIED = "cellar", "garden", "I"
OBJECTIVE = "Find the key, open the chest in the garden and take the coin."
SHORT_DIRECTIONS = {"n": "north", "s": "south", "e": "east", "w": "west"}


@dataclass
class Cellar:
    """The game's state and rules. Items are where ``items`` says: a room, ``"I"`` (carried) or ``"chest"``.

    Example:
        >>> game = Cellar("pantry")
        >>> game.command("go north")
        'You are in the pantry. You see a key. Exits lead south and east.'
        >>> game.command("take key"), game.score
        ('You take the key.', 1)
    """

    key_room: str
    location: str = START
    chest: str = "locked"
    moves: int = 0
    items: dict[str, str] = field(default_factory=dict)
    rewarded: set[str] = field(default_factory=set)

    def __post_init__(self) -> None:
        if self.key_room not in MAP:
            raise ValueError(f"key_room must be one of {sorted(MAP)}, got {self.key_room!r}")
        self.items = self.items or {"key": self.key_room, "coin": "chest", "lamp": START}

    @property
    def score(self) -> int:
        """One point for each of: the key taken (once), the chest opened, the coin taken."""
        return len(self.rewarded)

    @property
    def won(self) -> bool:
        """The coin is carried."""
        return self.items["coin"] == CARRIED

    def here(self) -> list[str]:
        """The items lying in the current room."""
        return [item for item, place in self.items.items() if place == self.location]

    def carried(self) -> list[str]:
        """The items carried."""
        return [item for item, place in self.items.items() if place == CARRIED]

    def describe(self) -> str:
        """The current room as the player reads it."""
        text = f"You are in the {self.location}."
        things = self.here() + (["chest"] if self.location == CHEST_ROOM else [])
        if things:
            text += " You see " + " and ".join(f"a {thing}" for thing in things) + "."
        if self.location == CHEST_ROOM:
            text += " The chest is " + ("open." if self.chest == "open" else "locked.")
            if self.chest == "open" and self.items["coin"] == "chest":
                text += " In the chest is a coin."
        return text + " Exits lead " + " and ".join(MAP[self.location]) + "."

    def command(self, command: str) -> str:
        """Plays one command (already one clean line) and returns the game's answer."""
        self.moves += 1
        verb, _, rest = command.lower().strip().partition(" ")
        if not verb:
            return "I beg your pardon?"
        direction = SHORT_DIRECTIONS.get(verb, verb)
        if direction in ("north", "south", "east", "west") and not rest:
            return self.go(direction)
        handler = {"look": lambda: self.describe(), "inventory": self.inventory, "go": lambda: self.go(rest),
                   "take": lambda: self.take(rest), "drop": lambda: self.drop(rest),
                   "open": lambda: self.open(rest), "unlock": lambda: self.open(rest.split(" with ")[0])}.get(verb)
        return handler() if handler is not None else "I don't understand that."

    def go(self, direction: str) -> str:
        """Moves one room ``direction``."""
        direction = SHORT_DIRECTIONS.get(direction, direction)
        if direction not in MAP[self.location]:
            return "You can't go that way."
        self.location = MAP[self.location][direction]
        return self.describe()

    def inventory(self) -> str:
        """What the player carries."""
        carried = self.carried()
        return "You are carrying " + (" and ".join(f"a {i}" for i in carried) if carried else "nothing") + "."

    def take(self, item: str) -> str:
        """Takes ``item`` from the room (or the coin from the open chest)."""
        reachable = self.here() + (["coin"] if self.location == CHEST_ROOM and self.chest == "open"
                                   and self.items["coin"] == "chest" else [])
        if item not in reachable:
            return f"You see no {item or 'such thing'} here."
        self.items[item] = CARRIED
        self.rewarded |= {item} & {"key", "coin"}
        return "You take the coin. You have won!" if item == "coin" else f"You take the {item}."

    def drop(self, item: str) -> str:
        """Leaves a carried ``item`` in the room."""
        if item not in self.carried():
            return f"You are not carrying a {item or 'thing'}."
        self.items[item] = self.location
        return f"You drop the {item}."

    def open(self, thing: str) -> str:
        """Opens the chest with the key (unlocking it)."""
        if thing != "chest" or self.location != CHEST_ROOM:
            return f"You see no {thing or 'such thing'} to open here."
        if self.chest == "open":
            return "The chest is already open."
        if "key" not in self.carried():
            return "The chest is locked."
        self.chest = "open"
        self.rewarded.add("chest")
        return "You unlock the chest with the key and open it. In the chest is a coin."

    def admissible(self) -> list[str]:
        """The commands that do something now."""
        commands = ["look", "inventory", *(f"go {d}" for d in MAP[self.location])]
        commands += [f"take {i}" for i in self.here()] + [f"drop {i}" for i in self.carried()]
        if self.location == CHEST_ROOM and self.chest == "locked":
            commands.append("open chest")
        elif self.location == CHEST_ROOM and self.items["coin"] == "chest":
            commands.append("take coin")
        return commands

    def facts(self) -> list[FactTriple]:
        """The whole world as TextWorld-style triples (privileged)."""
        facts: list[FactTriple] = [("P", "at", self.location), ("chest", "at", CHEST_ROOM), ("chest", "is", self.chest)]
        facts += [(item, "in" if place in (CARRIED, "chest") else "at", place) for item, place in self.items.items()]
        facts += [(there, f"{d}_of", room) for room, exits in MAP.items() for d, there in exits.items()]
        return facts


def path(start: str, goal: str) -> list[str]:
    """The ``go`` commands of a shortest walk from ``start`` to ``goal``.

    Example:
        >>> path("cellar", "hall")
        ['go north', 'go east']
    """
    came: dict[str, tuple[str, str] | None] = {start: None}
    frontier = deque([start])
    while frontier:
        room = frontier.popleft()
        for direction, there in MAP[room].items():
            if there not in came:
                came[there] = (room, direction)
                frontier.append(there)
    steps: list[str] = []
    while (link := came[goal]) is not None:
        goal, direction = link
        steps.insert(0, f"go {direction}")
    return steps


class CellarEnv(TextGameEnv):
    """The Cellar as a Gymnasium env meeting the TextMem contract.

    Description:
        Five rooms (cellar, pantry, hall, garden, shed) joined by compass exits. A key lies in
        ``key_room``; the chest in the garden is locked and holds a coin. ``reset`` starts the
        same game whatever its seed.

    Mission Space:
        ``"Find the key, open the chest in the garden and take the coin."`` (``info["objective"]``).

    Action Space:
        ``look``, ``inventory``, ``go <direction>`` (or ``north``, ``n``...), ``take <item>``,
        ``drop <item>``, ``open chest`` / ``unlock chest with key``; anything else gets
        ``I don't understand that.``

    Rewards:
        1 for taking the key the first time, 1 for opening the chest, 1 for the coin (``max_score`` 3).

    Termination:
        ``terminated`` when the coin is taken (won); the game cannot be lost.

    Info:
        The contract keys; ``admissible_commands`` lists the commands that do something.
        Privileged: ``facts`` (TextWorld's predicates) and ``walkthrough``.

    Arguments:
        key_room: The room the key lies in (default ``"pantry"``).
        privileged: ``facts`` and/or ``walkthrough``; off by default.
        render_mode: ``"human"`` or ``"ansi"``.

    Registered Configurations:
        ``Cellar/Cellar-v0`` (key in the pantry) and ``Cellar/Cellar-Shed-v0`` (key in the shed).

    Example:
        >>> env = CellarEnv(privileged=True)
        >>> observation, info = env.reset(seed=0)
        >>> info["walkthrough"]
        ['go north', 'take key', 'go east', 'go north', 'open chest', 'take coin']
        >>> for command in info["walkthrough"]:
        ...     observation, reward, terminated, truncated, info = env.step(command)
        >>> observation, info["won"], info["score"]
        ('You take the coin. You have won!', True, 3.0)
    """

    #: Memories read the Cellar's text with this parser, named by ``"module:Class"`` (no entry point needed).
    text_parser: ClassVar[str | None] = "tests.envs.example_backend.parser:CellarRules"

    def __init__(self, key_room: str = "pantry", *, privileged: bool | str | Iterable[str] = False,
                 render_mode: str | None = None):
        super().__init__(privileged=privileged, render_mode=render_mode)
        self.key_room = key_room
        self.game = Cellar(key_room)

    def _game_reset(self) -> GameState:
        self.game = Cellar(self.key_room)
        self.objective = OBJECTIVE
        return self._state_after(f"{OBJECTIVE}\n\n{self.game.describe()}")

    def _game_step(self, command: str) -> GameState:
        return self._state_after(self.game.command(command))

    def _game_close(self) -> None:
        """Nothing to release: the engine is this process's dictionaries."""

    def _walkthrough(self) -> list[str]:
        return [*path(START, self.key_room), "take key", *path(self.key_room, CHEST_ROOM), "open chest", "take coin"]

    def carried(self) -> list[str] | None:
        """What the player carries (read from the engine, no move spent)."""
        self._check_open()
        return self.game.carried()

    def _state_after(self, feedback: str) -> GameState:
        game = self.game
        return GameState(feedback, score=game.score, max_score=3, won=game.won, moves=game.moves,
                         admissible_commands=game.admissible(), facts=game.facts)
