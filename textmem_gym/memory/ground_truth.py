"""Ground truth in the memory's vocabulary, restricted to what the agent has observed.

:data:`PREDICATE_TABLE` is the one documented mapping from TextWorld predicates (as the
privileged ``info["facts"]`` triples) to memory relations and relation classes:

============================  ===========================================  ===========
TextWorld fact                memory triple                                class
============================  ===========================================  ===========
``(o, at, room)``             ``(o, "is at", room)`` (``P``, the player:    containment
                              skipped)
``(o, in, c)``                ``(o, "is in", c)``                          containment
``(o, in, I)``                ``(o, "is in", "inventory")``                containment
``(o, on, s)``                ``(o, "is on", s)``                          containment
``(a, north_of, b)`` (etc.)   ``(a, "is north of", b)`` and derived         spatial
                              ``(b, "has exit", "north")``
``(r, link, "d r2")``         ``(r, "has door to the <dir>", d)`` with     spatial
                              ``<dir>`` from ``(r2, <dir>_of, r)``
``(x, is, open|closed|locked)``  ``(x, "is", open|closed|locked)``         state
============================  ===========================================  ===========

Other predicates (``free``, cooking properties, recipe bookkeeping) are not scored.

The other backends' facts map to the same vocabulary, each through the tracker its text parser gives
(:meth:`Truth.map_facts`; :func:`map_facts` with that tracker, never guessing the format from the
facts): Jericho's object tree (``("player", "at", room)``, ``(x, "in",
parent)``: ``is at`` a room, ``is in`` anything else, ``I`` the inventory), ScienceWorld's
(``("agent", "in", room)``, ``is at``/``is in``/``inventory`` likewise, doors' states, rooms joined by
a door :data:`CONNECTED`), NetHack's (positions ``is at`` ``level N xX yY``, the hero ``is on`` its
level, carried items ``is in`` ``inventory``; the player's room is the level).

What the agent has observed (:class:`ObservedTruth`) follows what TextWorld shows: on
entering or acting in a room, the things in it, on its supporters and in its open containers
(recursively), its exits and doors; a connection between two rooms once the agent has walked
it (both directions); an inventory item when it entered the inventory or when the agent asked
for the inventory. An open/closed/locked state counts when the agent opened, closed, locked
or unlocked the thing, or when the step's text mentions the thing in a sentence that reveals a
state (the house grammars often introduce a locker as just "a mauve locker"); without the
text, every visible state counts. A triple counts once observed and for as long as it stays true.
A backend with its own facts hands its own tracker over with its text parser
(:meth:`~textmem_gym.memory.extractors.base.TextParser.observed_truth`; NetHack:
:class:`~textmem_gym.memory.extractors.nethack.NetHackObservedTruth`); every tracker is a :class:`Truth`.

Example:
    >>> facts = [("P", "at", "hall"), ("chest", "at", "hall"), ("key", "in", "chest"),
    ...          ("chest", "is", "closed"), ("kitchen", "north_of", "hall")]
    >>> sorted(ObservedTruth().step(facts, ""))
    [('chest', 'is', 'closed'), ('chest', 'is at', 'hall'), ('hall', 'has exit', 'north')]
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Protocol

from textmem_gym.envs.privileged import FactTriple
from textmem_gym.memory.semantic import (
    AT,
    DOOR_STATES,
    HAS_EXIT,
    IN,
    INVENTORY,
    IS,
    LOCATION_RELATIONS,
    ON,
    OPPOSITE,
    TripleKey,
    direction_relation,
    door_direction,
    door_relation,
    normalize,
    relation_direction,
)

#: TextWorld predicate -> (memory relation, relation class). See the module docstring.
PREDICATE_TABLE: dict[str, tuple[str, str]] = {
    "at": (AT, "containment"), "in": (IN, "containment"), "on": (ON, "containment"),
    **{f"{d}_of": (direction_relation(d), "spatial") for d in ("north", "south", "east", "west")},
    "link": ("has door to the <dir>", "spatial"),
    "open": (IS, "state"), "closed": (IS, "state"), "locked": (IS, "state"),
}
RELATION_CLASSES: tuple[str, ...] = ("spatial", "containment", "state")
PLAYER, INVENTORY_ID = "P", "I"
_INVENTORY_COMMANDS = frozenset({"inventory", "i", "inv", "check inventory"})


class Truth(Protocol):
    """Tracks the true triples the agent has observed along an episode (:class:`ObservedTruth`
    for TextWorld's predicates; a backend's own through its text parser).

    Attributes:
        seen: Every true triple observed so far.
    """

    seen: set[TripleKey]

    @property
    def room(self) -> str | None:
        """The player's room (or level) at the last step."""

    def reset(self) -> None:
        """New episode."""

    def step(self, facts: Iterable[FactTriple], action: str, observation: str | None = None) -> set[TripleKey]:
        """Feeds the facts after ``action`` and the text seen; returns the observed truth now."""

    def map_facts(self, facts: Iterable[FactTriple]) -> tuple[set[TripleKey], str | None]:
        """The backend's fact mapper: every true triple in the memory's vocabulary (observed or not)
        and the player's room."""


def relation_class(triple: TripleKey) -> str | None:
    """``spatial``, ``containment`` or ``state`` for scored triples, else ``None``."""
    _, relation, obj = triple
    if relation_direction(relation) or relation in (HAS_EXIT, CONNECTED) or door_direction(relation):
        return "spatial"
    if relation in LOCATION_RELATIONS:
        return "containment"
    if relation == IS and obj in DOOR_STATES:
        return "state"
    return None


def map_facts(facts: Iterable[FactTriple], truth: Truth | None = None) -> tuple[set[TripleKey], str | None]:
    """Maps privileged facts to the memory's vocabulary as the backend reads them: ``truth`` is the
    tracker its text parser gives (:meth:`~textmem_gym.memory.extractors.base.TextParser.observed_truth`);
    ``None``: TextWorld's predicates (:data:`PREDICATE_TABLE`; TWX uses them too). No format is guessed.

    Returns:
        ``(triples, player_room)``.

    Example:
        >>> triples, room = map_facts([("P", "at", "kitchen"), ("knife", "on", "table"), ("apple", "in", "I")])
        >>> sorted(triples), room
        ([('apple', 'is in', 'inventory'), ('knife', 'is on', 'table')], 'kitchen')
    """
    return (ObservedTruth() if truth is None else truth).map_facts(facts)


def _normalized(mapped: tuple[set[TripleKey], str | None]) -> tuple[set[TripleKey], str | None]:
    triples, room = mapped
    return {(normalize(s), normalize(r), normalize(o)) for s, r, o in triples}, room


def map_textworld_facts(facts: list[FactTriple]) -> tuple[set[TripleKey], str | None]:
    """TextWorld's (and TWX's) predicates through :data:`PREDICATE_TABLE`."""
    directions = {(s, r[:-3], o) for s, r, o in facts if r.endswith("_of") and r[:-3] in OPPOSITE}
    rooms = {x for s, _, o in directions for x in (s, o)}
    triples: set[TripleKey] = set()
    player_room = None
    for s, r, o in facts:
        if s == PLAYER and r == "at":
            player_room = normalize(o)
        elif r in ("at", "in", "on") and s != PLAYER:
            triples.add((s, PREDICATE_TABLE[r][0], INVENTORY if o == INVENTORY_ID else o))
        elif r == "is" and o in DOOR_STATES:
            triples.add((s, IS, o))
        elif r == "link":
            triples.update(_door_triple(s, o, rooms, directions))
    for a, d, b in directions:
        triples.add((a, direction_relation(d), b))
        triples.add((b, HAS_EXIT, d))
    return triples, player_room


def _top_level(facts: list[FactTriple], relation: str = "in") -> set[str]:
    """The parents that are no one's child (a tree's rooms)."""
    children = {s for s, r, _ in facts if r == relation}
    return {o for _, r, o in facts if r == relation} - children


def map_jericho_facts(facts: list[FactTriple]) -> tuple[set[TripleKey], str | None]:
    """Jericho's object tree (:mod:`~textmem_gym.envs.jericho.world`): a child of a room (a
    parent with no parent, the player's, or a child of the object holding the rooms: :func:`_rooms_holder`)
    ``is at`` it, of anything else ``is in`` it (the Z-machine does not tell supporters from containers);
    ``I`` is the inventory.

    Example:
        >>> triples, room = map_jericho_facts([("player", "at", "Kitchen"), ("kitchen table", "in", "Kitchen"),
        ...                                    ("brown sack", "in", "kitchen table"), ("lamp", "in", "I")])
        >>> sorted(triples), room  # doctest: +NORMALIZE_WHITESPACE
        ([('brown sack', 'is in', 'kitchen table'), ('kitchen table', 'is at', 'Kitchen'),
          ('lamp', 'is in', 'inventory')], 'kitchen')
    """
    player_room = next((o for s, r, o in facts if s == JERICHO_PLAYER and r == "at"), None)
    holder = _rooms_holder(facts, player_room)
    rooms = _top_level(facts) | ({player_room} if player_room else set()) | \
        {s for s, r, o in facts if r == "in" and o == holder}
    triples: set[TripleKey] = set()
    for s, r, o in facts:
        # no thing holds one of its own name (Trinity's Round Pond room and its pond, Lost Pig's hole and Hole)
        if r == "in" and s != JERICHO_PLAYER and normalize(s) != normalize(o) and o != holder:
            triples.add((s, IN, INVENTORY) if o == INVENTORY_ID else (s, AT if o in rooms else IN, o))
    return triples, normalize(player_room) if player_room else None


#: Children an object holding every room has at least (Trinity's: 134; a room holds a handful of things).
ROOMS_HOLDER_CHILDREN = 20


def _rooms_holder(facts: list[FactTriple], player_room: str | None) -> str | None:
    """The object whose children are the game's rooms, when the tree names it (Trinity's ``that``,
    Sherlock's ``rooms``; Zork's is nameless, so its rooms are the tree's top): the parent of the player's
    room with at least :data:`ROOMS_HOLDER_CHILDREN` children (a room holding the player's vehicle has few).
    Whether it has a parent cannot be told: names are not unique (Trinity has three objects named ``that``).

    Example:
        >>> rooms = [(f"room {i}", "in", "that") for i in range(25)]
        >>> _rooms_holder([("player", "at", "room 0"), *rooms], "room 0")
        'that'
        >>> _rooms_holder([("player", "at", "boat"), ("boat", "in", "beach")], "boat") is None
        True
    """
    parent = next((o for s, r, o in facts if s == player_room and r == "in"), None)
    if parent is None or parent == INVENTORY_ID:
        return None
    return parent if sum(1 for _, r, o in facts if r == "in" and o == parent) >= ROOMS_HOLDER_CHILDREN else None


def map_scienceworld_facts(facts: list[FactTriple]) -> tuple[set[TripleKey], str | None]:
    """ScienceWorld's facts (:mod:`~textmem_gym.envs.scienceworld.facts`): a child of a room ``is
    at`` it, of another thing ``is in`` it, of ``inventory`` is carried; rooms joined by a door
    are :data:`CONNECTED` both ways (ScienceWorld has no compass); open/closed/locked states."""
    player_room = next((o for s, r, o in facts if s == SCIENCEWORLD_AGENT and r == "in"), None)
    rooms = (_top_level(facts) - {INVENTORY}) | ({player_room} if player_room else set())
    triples: set[TripleKey] = set()
    for s, r, o in facts:
        if r == "in" and s != SCIENCEWORLD_AGENT:
            triples.add((s, IN, INVENTORY) if o == INVENTORY else (s, AT if o in rooms else IN, o))
        elif r == "is" and o in DOOR_STATES:
            triples.add((s, IS, o))
        elif r == "connected_to" and s in rooms and o in rooms:
            triples.update({(s, CONNECTED, o), (o, CONNECTED, s)})
    return triples, normalize(player_room) if player_room else None


#: The players' names in each backend's facts.
JERICHO_PLAYER, SCIENCEWORLD_AGENT = "player", "agent"
#: ScienceWorld's rooms joined by a door: ``("hallway", "is connected to", "kitchen")``.
CONNECTED = "is connected to"


def _door_triple(room: str, rest: str, rooms: set[str], directions: set[tuple[str, str, str]]) -> list[TripleKey]:
    for other in rooms:
        if rest.endswith(" " + other):
            door = rest[: -len(other) - 1]
            return [(room, door_relation(d), door) for a, d, b in directions if a == other and b == room]
    return []


_SENTENCES = re.compile(r"(?<=[.!?])\s+|\n+")
_REVEALS = re.compile(r"\b(?:open|opened|closed|locked|unlocked|empty|contains|revealing|reveals|holds|has|"
                      r"is filled with|shelters|offers|inside|in it)\b", re.I)


_STATE_VERBS = frozenset({"open", "close", "shut", "lock", "unlock"})


def state_revealed(thing: str, observation: str, action: str) -> bool:
    """Whether ``observation``/``action`` tell the open/closed/locked state of ``thing``."""
    name = re.compile(rf"\b{re.escape(thing)}\b", re.I)
    if action.strip().lower().split(" ", 1)[0] in _STATE_VERBS and name.search(action):
        return True
    return any(name.search(s) and _REVEALS.search(s) for s in _SENTENCES.split(observation))


#: A backend's fact mapper: privileged facts -> (true triples in the memory's vocabulary, player's room).
FactMapper = Callable[[Iterable[FactTriple]], tuple[set[TripleKey], str | None]]


class ObservedTruth:
    """Tracks, along an episode, the true triples the agent has observed (see module doc).

    Args:
        mapper: The facts' mapper (another backend's :meth:`Truth.map_facts`, to see its facts the
            way TextWorld shows a room); ``None``: TextWorld's predicates.
    """

    def __init__(self, mapper: FactMapper | None = None) -> None:
        self._mapper = mapper
        self.reset()

    def reset(self) -> None:
        """New episode."""
        self.seen: set[TripleKey] = set()
        self._room: str | None = None
        self._inventory: set[str] = set()
        self._started = False

    def step(self, facts: Iterable[FactTriple], action: str,
             observation: str | None = None) -> set[TripleKey]:
        """Feeds the facts after ``action`` (``""`` at reset) and, when given, the text the
        agent saw; returns the observed truth now."""
        truth, room = self.map_facts(facts)
        visible = self._visible(truth, room)
        if observation is not None:
            visible = {t for t in visible if t[1] != IS or state_revealed(t[0], observation, action)}
        if self._room and room and room != self._room:
            visible |= {t for t in truth if relation_direction(t[1]) and {t[0], t[2]} == {room, self._room}}
        inventory = {s for s, r, o in truth if r == IN and o == INVENTORY}
        if action.strip().lower() in _INVENTORY_COMMANDS:
            shown = inventory
        else:  # what entered the inventory this step (the starting inventory is not shown)
            shown = inventory - self._inventory if self._started else set()
        self._started = True
        visible |= {(s, IN, INVENTORY) for s in shown}
        self.seen |= visible
        self._room, self._inventory = room, inventory
        return truth & self.seen

    @property
    def room(self) -> str | None:
        """The player's room at the last step."""
        return self._room

    def map_facts(self, facts: Iterable[FactTriple]) -> tuple[set[TripleKey], str | None]:
        """TextWorld's predicates (and TWX's) in the memory's vocabulary (:data:`PREDICATE_TABLE`), or
        the mapper given."""
        if self._mapper is not None:
            return self._mapper(facts)
        return _normalized(map_textworld_facts([(str(s), str(r), str(o)) for s, r, o in facts]))

    @staticmethod
    def _visible(truth: set[TripleKey], room: str | None) -> set[TripleKey]:
        if room is None:
            return set()
        things = {s for s, r, o in truth if r == AT and o == room}
        open_things = {s for s, r, o in truth if r == IS and o == "open"}
        frontier = set(things)
        while frontier:
            holders = frontier
            frontier = {s for s, r, o in truth if o in holders and (r == ON or (r == IN and o in open_things))} - things
            things |= frontier
        doors = {o for s, r, o in truth if s == room and door_direction(r)}
        visible = {t for t in truth if t[1] in LOCATION_RELATIONS and t[0] in things and t[2] != INVENTORY}
        visible |= {t for t in truth if t[1] == IS and t[0] in things | doors}
        visible |= {t for t in truth if t[0] == room and (t[1] == HAS_EXIT or door_direction(t[1]))}
        return visible
