"""The relation vocabulary shared by the extractors, the memories and the belief metric.

Relations are short phrases an LLM reads naturally (``("knife", "is on", "table")``). The
spatial ones carry directions so that routes and unexplored exits can be computed.

Example:
    >>> direction_relation("north")
    'is north of'
    >>> relation_direction("is north of"), opposite("north")
    ('north', 'south')
"""

from __future__ import annotations

from textmem_gym.memory.triples import TripleKey

#: Compass directions of text games and their opposites.
OPPOSITE: dict[str, str] = {
    "north": "south", "south": "north", "east": "west", "west": "east",
    "northeast": "southwest", "southwest": "northeast", "northwest": "southeast",
    "southeast": "northwest", "up": "down", "down": "up",
}
DIRECTIONS: tuple[str, ...] = tuple(OPPOSITE)
#: Abbreviated direction commands (``n``, ``sw``, ``u``...) -> directions.
SHORT_DIRECTIONS: dict[str, str] = {"n": "north", "s": "south", "e": "east", "w": "west", "ne": "northeast",
                                    "nw": "northwest", "se": "southeast", "sw": "southwest", "u": "up", "d": "down"}

#: Location of a thing: in a room, in a container (or ``inventory``), on a supporter.
AT, IN, ON = "is at", "is in", "is on"
LOCATION_RELATIONS: frozenset[str] = frozenset({AT, IN, ON})
#: A room's exit in a direction: ``("kitchen", "has exit", "south")``.
HAS_EXIT = "has exit"
#: Unary states: ``("fridge", "is", "open")``.
IS = "is"
INVENTORY = "inventory"
#: Mutually exclusive values of the ``is`` relation (a new one replaces an old one).
STATE_GROUPS: tuple[frozenset[str], ...] = (
    frozenset({"open", "closed", "locked"}),
)
#: Door states the belief metric scores.
DOOR_STATES: frozenset[str] = STATE_GROUPS[0]


def opposite(direction: str) -> str:
    """The opposite compass direction (``north`` -> ``south``)."""
    return OPPOSITE[direction]


def direction_relation(direction: str) -> str:
    """``north`` -> ``is north of``: ``(A, "is north of", B)`` means A lies north of B."""
    if direction in ("up", "down"):
        return "is above" if direction == "up" else "is below"
    return f"is {direction} of"


def door_relation(direction: str) -> str:
    """``south`` -> ``has door to the south``: ``(room, "has door to the south", door)``."""
    return f"has door to the {direction}"


_DIRECTION_OF = {direction_relation(d): d for d in DIRECTIONS}
_DOOR_OF = {door_relation(d): d for d in DIRECTIONS}


def relation_direction(relation: str) -> str | None:
    """The direction of a spatial relation (``is north of`` -> ``north``), else ``None``."""
    return _DIRECTION_OF.get(relation)


def door_direction(relation: str) -> str | None:
    """The direction of a door relation (``has door to the south`` -> ``south``), else ``None``."""
    return _DOOR_OF.get(relation)


def state_group(value: str) -> frozenset[str] | None:
    """The exclusive group a state value belongs to, if any."""
    for group in STATE_GROUPS:
        if value in group:
            return group
    return None


#: Relation phrasings LLMs use -> the memory's relation (spatial and location ones matter for
#: routes, unexplored exits and the belief metric).
RELATION_ALIASES: dict[str, str] = {
    **{f"{d} of": direction_relation(d) for d in DIRECTIONS},
    **{f"is {d} of": direction_relation(d) for d in DIRECTIONS},
    **{f"located {d} of": direction_relation(d) for d in DIRECTIONS},
    "in": IN, "inside": IN, "is inside": IN, "located in": IN, "is located in": IN,
    "on": ON, "is on top of": ON, "located on": ON, "is located on": ON,
    "at": AT, "is located at": AT, "located at": AT,
    "state": "is", "has state": "is", "is currently": "is",
    "has exit to": "has exit", "has an exit": "has exit", "exit": "has exit", "has exits": "has exit",
}


def canonical(triple: TripleKey, rooms: frozenset[str] | set[str] = frozenset()) -> TripleKey:
    """Maps relation phrasings to the memory's vocabulary; ``contains`` is turned around:
    ``(room, contains, x)`` -> ``(x, is at, room)`` for a known room, else ``(x, is in, holder)``."""
    subject, relation, obj = triple
    if relation in ("contains", "has", "has item"):
        return (obj, AT if subject in rooms or not rooms else IN, subject)
    return (subject, RELATION_ALIASES.get(relation, relation), obj)
