"""Ground-truth triples of a TWX game (privileged ``facts``), in TextWorld's predicate form.

TWX 1.1.0 exports an object tree for CookingWorld only, and none of them holds the map. Yet
nothing in a TWX world changes unless the agent acts on it in the room it is in (no other actor,
no timer), and every step's answer carries the current room's full description (``look``) and the
inventory, which the env keeps out of the policy's sight. So the facts are built by
:class:`WorldModel`:

1. at reset, :func:`crawl` walks a copy of the game (the same seed, regenerated afterwards)
   through every reachable room, opening doors on the way, and keeps each room's description in
   its initial state and the map (which room lies in which direction, behind which door);
2. after each step, the current room's description, the doors seen from it (a door's state is
   shared by its two rooms) and the inventory replace what was known of them.

Triples (TextWorld's names, so that :mod:`textmem_gym.memory.ground_truth` scores them):
``("P", "at", room)``; ``(thing, "at", room)`` for furniture and things lying in a room;
``(thing, "on", supporter)``; ``(thing, "in", container)`` for open containers' contents;
``(thing, "in", "I")`` for the inventory; ``(container, "is", "open" | "closed")``;
``(room2, "north_of", room1)`` when ``room2`` lies north of ``room1``; ``(room, "link", "<door>
<room2>")`` and ``(door, "is", "open" | "closed")`` for doors. What lies in a closed container is
not known until it is opened (TWX's text does not show it and no tree holds it); once seen, it stays
known when the container is closed again.

Example:
    >>> world = WorldModel()
    >>> world.observe("You are in the hall. You also see a chest that is closed. \\n"
    ...               "To the North you see the kitchen. ", "Inventory: \\n  a key\\n")
    >>> world.connect("hall", "north", "kitchen")
    >>> sorted(world.facts())  # doctest: +NORMALIZE_WHITESPACE
    [('P', 'at', 'hall'), ('chest', 'at', 'hall'), ('chest', 'is', 'closed'), ('hall', 'south_of', 'kitchen'),
     ('key', 'in', 'I'), ('kitchen', 'north_of', 'hall')]
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from textmem_gym.envs.privileged import FactTriple
from textmem_gym.envs.twx.text import RoomView, read_inventory, read_room

OPPOSITE = {"north": "south", "south": "north", "east": "west", "west": "east"}
#: How many moves a crawl may take at most (a safety net: TWX maps have at most 50 rooms).
CRAWL_LIMIT = 2000


@dataclass
class WorldModel:
    """The TWX world's state as far as the env's own text shows it (see the module docstring).

    Attributes:
        rooms: Room -> its latest full description.
        links: ``(room, direction)`` -> the room there.
        doors: ``(room, direction)`` -> ``(door, state)``.
        inventory: What the agent carries.
        here: The agent's room.
    """

    rooms: dict[str, RoomView] = field(default_factory=dict)
    links: dict[tuple[str, str], str] = field(default_factory=dict)
    doors: dict[tuple[str, str], tuple[str, str]] = field(default_factory=dict)
    inventory: list[str] = field(default_factory=list)
    here: str | None = None

    def observe(self, look: str, inventory: str, keep_first: bool = False) -> None:
        """Takes the current room's description and the inventory text of one step.

        Args:
            look: The current room's description.
            inventory: The inventory text.
            keep_first: Keep what was known of rooms and doors (a crawl records initial states).
        """
        view = read_room(look)
        if view is not None:
            self.here = view.room
            if not keep_first or view.room not in self.rooms:
                self._keep_closed_contents(view)
                self.rooms[view.room] = view
            for direction, (door, state) in view.doors.items():
                self._set_door(view.room, direction, (door, state), keep_first)
            for direction, room in view.exits.items():
                if room is not None:
                    self.connect(view.room, direction, room)
        items = read_inventory(inventory)
        if items is not None:
            self.inventory = items

    def _keep_closed_contents(self, view: RoomView) -> None:
        """A container closed since the room's last view still holds what it held (TWX no longer shows it)."""
        old = self.rooms.get(view.room)
        if old is None:
            return
        closed = {thing for thing, state in view.states.items() if state == "closed"}
        view.things += [t for t in old.things if t[1] == "in" and t[2] in closed and t not in view.things]

    def connect(self, room: str, direction: str, other: str) -> None:
        """Records that ``other`` lies ``direction`` of ``room`` (and the way back)."""
        back = (other, OPPOSITE[direction])
        self.links[(room, direction)] = other
        self.links[back] = room
        if (room, direction) in self.doors and back not in self.doors:
            self.doors[back] = self.doors[(room, direction)]

    def _set_door(self, room: str, direction: str, door: tuple[str, str], keep_first: bool) -> None:
        sides = [(room, direction)]
        other = self.links.get((room, direction))
        if other is not None:
            sides.append((other, OPPOSITE[direction]))
        for side in sides:
            if not keep_first or side not in self.doors:
                self.doors[side] = door

    def facts(self) -> list[FactTriple]:
        """The world's triples now (see the module docstring)."""
        return sorted(set(self._facts()))

    def _facts(self) -> Iterator[FactTriple]:
        if self.here is not None:
            yield ("P", "at", self.here)
        carried = set(self.inventory)
        for view in self.rooms.values():
            yield from ((t, r, h) for t, r, h in view.things if t not in carried)
            yield from ((thing, "is", state) for thing, state in view.states.items())
        for (room, direction), other in self.links.items():
            yield (other, f"{direction}_of", room)
        for (room, direction), (door, state) in self.doors.items():
            beyond = self.links.get((room, direction))
            if beyond is not None:
                yield (room, "link", f"{door} {beyond}")
            yield (door, "is", state)
        yield from ((item, "in", "I") for item in self.inventory)


def crawl(step: Callable[[str], dict], first: dict) -> WorldModel:
    """Walks a game from its first step through every reachable room (depth first), opening
    closed doors, and returns what it saw. The caller regenerates the game afterwards.

    Args:
        step: Sends one command and returns TWX's step JSON (``look``, ``inventory``...).
        first: The game's first step JSON.
    Returns:
        The initial world: each room and door as first seen, the agent in its first room.
    """
    world = WorldModel()
    world.observe(first.get("look", ""), first.get("inventory", ""))
    start = world.here
    if start is not None:
        _visit(step, world, start, set(), [0])
    world.here = start
    return world


def _visit(step: Callable[[str], dict], world: WorldModel, room: str, seen: set[str], moves: list[int]) -> None:
    seen.add(room)
    for direction in list(world.rooms[room].exits):
        if moves[0] > CRAWL_LIMIT:
            return
        if direction in world.rooms[room].doors and world.rooms[room].doors[direction][1] == "closed":
            data = step(f"open door to {direction}")
            world.observe(data.get("look", ""), "", keep_first=True)
        target = world.links.get((room, direction))
        if target in seen:
            continue
        data = step(f"move {direction}")
        moves[0] += 1
        view = read_room(data.get("look", ""))
        if view is None or view.room == room:  # the move failed
            continue
        arrived = view.room
        world.connect(room, direction, arrived)
        world.observe(data.get("look", ""), "", keep_first=True)
        if arrived not in seen:
            _visit(step, world, arrived, seen, moves)
        world.observe(step(f"move {OPPOSITE[direction]}").get("look", ""), "", keep_first=True)
        moves[0] += 1
