"""Reading TextWorld Express's templated text: rooms, things, containers, exits, doors, inventory.

TWX describes a room in one paragraph built from fixed templates (its ``Room.getDescription``)::

    You are in the kitchen. In one part of the room you see a fridge that is closed. There is
    also a counter that has a knife, and a raw chicken wing on it. You also see an open
    cutlery drawer, that contains a fork.
    To the North you see a closed plain door. Through an open screen door, to the South you see
    the backyard. To the East you see the corridor.

:func:`read_room` turns such a paragraph into a :class:`RoomView`; :func:`read_inventory` reads
the ``inventory`` answer; :func:`read_map` reads Map Reader's map. Names are TWX's object names,
the ones its commands use: articles (``a``, ``an``, ``some``) and the food-preparation adjectives
TWX puts before a name (``raw``, ``sliced``, ``grilled``...) are dropped. The env's privileged
facts (:mod:`textmem_gym.envs.twx.facts`) and the memories' TWX parser
(:mod:`textmem_gym.memory.extractors.twx`) both read with these functions.

What the templates do not show, so no reader of them can know: what a closed container holds, which
of two things printed with one name (``a trash can`` in two rooms, two ``wood door`` s) a line means,
and a room behind a closed door until it opens.

Example:
    >>> view = read_room("You are in the kitchen. In one part of the room you see a counter that has a "
    ...                  "knife, and a raw chicken wing on it. There is also a fridge that is closed. \\n"
    ...                  "To the North you see a closed plain door. To the East you see the corridor. ")
    >>> view.room, view.things, view.states
    ('kitchen', [('counter', 'at', 'kitchen'), ('knife', 'on', 'counter'), ('chicken wing', 'on', 'counter'), \
('fridge', 'at', 'kitchen')], {'fridge': 'closed'})
    >>> view.exits, view.doors
    ({'north': None, 'east': 'corridor'}, {'north': ('plain door', 'closed')})
    >>> read_inventory("Inventory: \\n  a knife\\n  some salt\\n")
    ['knife', 'salt']
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

#: Directions of TWX's rooms, as its text writes them.
DIRECTIONS = ("north", "south", "east", "west")
#: Words TWX puts before an object's name that are not part of it.
_ARTICLES = ("a ", "an ", "some ", "the ")
_ADJECTIVES = ("raw ", "fried ", "roasted ", "grilled ", "chopped ", "sliced ", "diced ")
_ROOM = re.compile(r"You are in the (.+?)\.(?=\s|$)")
_STARTS = re.compile(r"(?:In one part of the room you see |There is also |You also see "
                     r"|In another part of the room you see )")
_DESCRIBED = re.compile(r"^(?P<open>[Aa]n open |open )?(?P<name>.+?),? that (?P<rest>is closed|is open|is empty"
                        r"|contains (?P<inside>.+)|has nothing on it|has (?P<on>.+) on it)$")
_EXIT = re.compile(r"(?:Through an open (?P<open>.+?), to|To) the (?P<dir>North|South|East|West) you see "
                   r"(?:a closed (?P<closed>.+?)|the (?P<room>.+?))\. ")
_INVENTORY = re.compile(r"^Inventory(?: \(maximum capacity is \d+ items\))?:\s*$")
_CONNECTS = re.compile(r"The (.+?) connects to the (.+?)\.$")


@dataclass
class RoomView:
    """What one room description shows.

    Attributes:
        room: The room's name.
        things: ``(thing, relation, holder)`` with relation ``at`` (lying in the room or furniture;
            holder the room), ``on`` (on a supporter) or ``in`` (in an open container).
        states: Container -> ``open`` or ``closed`` (containers that open and close; TWX writes
            ``a box, that is empty`` for a container that has no door: no state).
        exits: Direction -> the room seen there (``None`` behind a closed door).
        doors: Direction -> ``(door, "open" | "closed")``.
        supporters: Things that hold others on them (``has ... on it``), so that ``put X in Y``
            puts X on Y.
    """

    room: str
    things: list[tuple[str, str, str]] = field(default_factory=list)
    states: dict[str, str] = field(default_factory=dict)
    exits: dict[str, str | None] = field(default_factory=dict)
    doors: dict[str, tuple[str, str]] = field(default_factory=dict)
    supporters: set[str] = field(default_factory=set)


def object_name(text: str) -> str:
    """TWX's object name in a description (``"a raw chicken wing"`` -> ``"chicken wing"``)."""
    name = text.strip().rstrip(".").strip()
    for article in _ARTICLES:
        if name.lower().startswith(article):
            name = name[len(article):]
            break
    while name.startswith(_ADJECTIVES):
        name = name.split(" ", 1)[1]
    return name


def split_names(text: str) -> list[str]:
    """``"a knife, a pepper, and some salt"`` -> ``["knife", "pepper", "salt"]``."""
    parts = [part.strip() for part in text.split(", ")]
    return [object_name(part[4:] if part.startswith("and ") else part) for part in parts if part]


def _thing(description: str, room: str, view: RoomView) -> None:
    match = _DESCRIBED.match(description.strip())
    if match is None:
        view.things.append((object_name(description), "at", room))
        return
    holder = object_name(match.group("name"))
    view.things.append((holder, "at", room))
    rest = match.group("rest")
    if rest.startswith("has "):
        view.supporters.add(holder)
    if rest == "is closed":
        view.states[holder] = "closed"
    elif match.group("open") or rest == "is open":
        view.states[holder] = "open"
    if match.group("inside"):
        view.things.extend((name, "in", holder) for name in split_names(match.group("inside")))
    if match.group("on"):
        view.things.extend((name, "on", holder) for name in split_names(match.group("on")))


def read_room(text: str) -> RoomView | None:
    """The :class:`RoomView` of a TWX room description, or ``None`` when ``text`` is none."""
    match = _ROOM.search(text)
    if match is None:
        return None
    view = RoomView(match.group(1))
    body, _, directions = text[match.end():].partition("\n")
    for description in _STARTS.split(body):
        description = description.strip()
        if description.endswith("."):
            description = description[:-1]
        if description:
            _thing(description, view.room, view)
    for exit_ in _EXIT.finditer(directions + " "):
        direction = exit_.group("dir").lower()
        view.exits[direction] = exit_.group("room")
        door = exit_.group("open") or exit_.group("closed")
        if door:
            view.doors[direction] = (door, "open" if exit_.group("open") else "closed")
    return view


def read_inventory(text: str) -> list[str] | None:
    """The items of an ``inventory`` answer, or ``None`` when ``text`` is not one."""
    lines = [line.strip() for line in text.strip().splitlines()]
    if not lines or not _INVENTORY.match(lines[0]):
        return None
    return [object_name(line) for line in lines[1:] if line and line != "Your inventory is currently empty."]


def read_map(text: str) -> list[tuple[str, str]]:
    """Map Reader's map: ``(room, neighbour)`` pairs of ``The X connects to the Y and Z.`` lines."""
    pairs = []
    for line in text.splitlines():
        match = _CONNECTS.match(line.strip())
        if match:
            rooms = re.split(r", | and ", match.group(2))
            pairs += [(match.group(1), room.removeprefix("the ").strip()) for room in rooms if room.strip()]
    return pairs
