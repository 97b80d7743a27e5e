"""NetHack text for memory: the NetHack envs' text parser and the matching ground truth.

The NetHack env hands this parser over (:attr:`~textmem_gym.envs.nethack.env.NetHackEnv.text_parser`
names :class:`NetHackRules`; :class:`~textmem_gym.wrappers.MemoryGraphWrapper` passes it to the
memory's extractor), so no memory guesses from the text that it is playing NetHack; nothing in the
memories imports this module.

The NetHack envs' text (:mod:`textmem_gym.envs.nethack.text`) names every notable cell with its map
position and the hero's position and level, so triples are deterministic:

==========================================  ==============================================================
text                                        triple
==========================================  ==============================================================
``Dungeon level 2, turn 80. ...``           ``("you", "is on", "dungeon level 2")``
``You are in a room ..., at x44 y8.``       ``("you", "is at", "level 2 x44 y8")``
``- staircase down: 4 steps east (x48 y8)``  ``("staircase down", "is at", "level 2 x48 y8")`` (doors,
                                            features, items and monsters alike)
``Inventory:`` / ``f: 3 food rations``      ``("3 food rations", "is in", "inventory")``
==========================================  ==============================================================

A skill's report names the features it found on the way (``Found: fountain (x24 y7).``): read
like the listed things.

Facts are invalidated when they change: the hero's position and level are single-valued; what
the text shows is a snapshot of its scope (the whole level with *Level obs*; with *Room obs* the
room's extent, ``spanning x40-52 y3-9``, and the cells around the hero), so a believed thing
there that is no longer listed (an item picked up, a monster killed or gone) is invalidated; the
inventory list replaces the believed inventory. Things of a level left stay believed (NetHack
remembers a level's map too), except creatures (the text marks them ``, monster`` or ``, pet``):
a creature is believed only where the latest text shows it (NetHack does not display a monster out
of sight, and it moves every turn). The hero's own cell is never part of the snapshot: the map shows
the hero there, not the staircase or door it stands on.

What it cannot see (the text does not tell it):

- a change off the text's scope: a door a skill kicked open on its way (``WHAMM!! ... it crashes
  open``: the message names no position), an item a monster picked up in another room;
- what lies under the hero, beyond what was seen there before it stepped on;
- what an item is beyond its printed name (unidentified potions keep their appearance, ``a
  purple-red potion``), what a container holds, a level's unexplored part;
- which of several things of one name at one position is meant (they share the cell's vertex).

The ground truth (:class:`NetHackObservedTruth`) maps the env's privileged facts
(``("staircase down", "at", "level 2 x48 y8")``, ``("you", "carry", item)``, ...) to the same
triples and counts a fact once the text has shown its position (or, for the inventory, its
item), for as long as it stays true; the facts come from the map's glyphs, so what the hero stands on
is carried over from the last step it was seen (creatures excepted) until the hero steps off. The
parser hands it over with itself (:meth:`NetHackRules.observed_truth`, the backend's fact mapper:
:meth:`NetHackObservedTruth.map_facts`).

Example:
    >>> text = ("Dungeon level 1, turn 3. HP 14/14.\\n\\nYou are in a room spanning x1-9 y1-5, at x3 y2. "
    ...         "In this room you see:\\n- doorway: 6 steps east (x9 y2)\\n\\nInventory:\\na: a robe")
    >>> sorted(read_nethack(text).triples)  # doctest: +NORMALIZE_WHITESPACE
    [('a robe', 'is in', 'inventory'), ('doorway', 'is at', 'level 1 x9 y2'),
     ('you', 'is at', 'level 1 x3 y2'), ('you', 'is on', 'dungeon level 1')]
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from textmem_gym.envs.privileged import FactTriple
from textmem_gym.memory.extractors.base import Extraction
from textmem_gym.memory.semantic import (
    AT,
    IN,
    INVENTORY,
    ON,
    Triple,
    TripleKey,
    TripleStore,
    exclusive_conflicts,
    normalize,
)

HERO = "you"
_STATUS = re.compile(r"^Dungeon level (\d+), turn \d+\.", re.M)
_PLACE = re.compile(r"You are in a (room|corridor)(?: spanning x(\d+)-(\d+) y(\d+)-(\d+))?, at x(\d+) y(\d+)\.")
_THING = re.compile(r"^- (.+?): .*\(x(\d+) y(\d+)\)(, (?:monster|pet))?\s*$", re.M)
_ITEM = re.compile(r"^[a-zA-Z$]: (.+)$", re.M)
_POSITION = re.compile(r"^level (\d+) x(\d+) y(\d+)$")
_MENTIONED = re.compile(r"\(x(\d+) y(\d+)\)")
_FOUND = re.compile(r"^Found: (.+)\.$", re.M)
_FOUND_ONE = re.compile(r"(.+?) \(x(\d+) y(\d+)\)(?:, |$)")
_LEVEL = re.compile(r"^dungeon level \d+$")


def place(level: int, x: int, y: int) -> str:
    """The position vertex of a map cell: ``"level 2 x48 y8"``."""
    return f"level {level} x{x} y{y}"


def parse_place(name: str) -> tuple[int, int, int] | None:
    """``(level, x, y)`` of a position vertex, else ``None``."""
    match = _POSITION.match(name)
    return (int(match.group(1)), int(match.group(2)), int(match.group(3))) if match else None


@dataclass
class NetHackView:
    """What one observation shows: level, hero position, scope box, things, inventory."""

    level: int
    hero: tuple[int, int] | None = None
    box: tuple[int, int, int, int] | None = None  # x0, x1, y0, y1 of the room shown
    whole_level: bool = False
    things: list[tuple[str, int, int]] = field(default_factory=list)
    inventory: list[str] | None = None
    triples: list[TripleKey] = field(default_factory=list)
    creatures: set[str] = field(default_factory=set)

    def shows(self, x: int, y: int) -> bool:
        """Whether the text's snapshot covers cell ``(x, y)`` (never the hero's own: the map shows the
        hero there, not what it stands on)."""
        if self.hero is not None and (x, y) == self.hero:
            return False
        if self.whole_level:
            return True
        if self.hero is not None and max(abs(x - self.hero[0]), abs(y - self.hero[1])) <= 1:
            return True
        return self.box is not None and self.box[0] <= x <= self.box[1] and self.box[2] <= y <= self.box[3]


def read_nethack(observation: str) -> NetHackView:
    """The triples of one NetHack observation (see the module docstring)."""
    status = _STATUS.search(observation)
    level = int(status.group(1)) if status else 0
    view = NetHackView(level)
    add = view.triples.append
    if status:
        add((HERO, ON, f"dungeon level {level}"))
    where = _PLACE.search(observation)
    if where:
        view.hero = (int(where.group(6)), int(where.group(7)))
        add((HERO, AT, place(level, *view.hero)))
        if where.group(2):
            view.box = (int(where.group(2)), int(where.group(3)), int(where.group(4)), int(where.group(5)))
        view.whole_level = "On this level you see" in observation[where.end():where.end() + 40]
    for match in _THING.finditer(observation):
        x, y = int(match.group(2)), int(match.group(3))
        view.things.append((match.group(1), x, y))
        add((match.group(1), AT, place(level, x, y)))
        if match.group(4):
            view.creatures.add(match.group(1))
    for found in _FOUND.finditer(observation):  # a skill's report: features first seen on the way
        for match in _FOUND_ONE.finditer(found.group(1)):
            x, y = int(match.group(2)), int(match.group(3))
            if (match.group(1), x, y) not in view.things:
                view.things.append((match.group(1), x, y))
                add((match.group(1), AT, place(level, x, y)))
    if "\nInventory:" in observation:
        block = observation.split("\nInventory:", 1)[1]
        view.inventory = _ITEM.findall(block.split("\n\n", 1)[0])
        view.triples += [(item, IN, INVENTORY) for item in view.inventory]
    return view


class NetHackRules:
    """The NetHack envs' :class:`~textmem_gym.memory.extractors.base.TextParser`: the ``rules``
    extractor hands their text to it once the env has handed it over.

    Example:
        >>> rules = NetHackRules()
        >>> rules.extract("Dungeon level 1, turn 3. HP 14/14.", "", {}, TripleStore()).location
        'dungeon level 1'
        >>> type(rules.observed_truth()).__name__
        'NetHackObservedTruth'
    """

    def __init__(self) -> None:
        self.creatures: set[str] = set()

    def extract(self, observation: str, action: str, info: dict[str, Any], store: TripleStore) -> Extraction:
        """Triples of one step and the believed ones its snapshot shows to be gone (a creature is
        believed only where the latest text shows it: NetHack does not display a monster out of
        sight, and it will have moved by the time the hero looks again)."""
        view = read_nethack(observation)
        out = Extraction(list(view.triples), location=f"dungeon level {view.level}" if view.level else None)
        self.creatures |= {normalize(c) for c in view.creatures}
        listed = {normalize(t) for t in view.triples}
        for triple in store.active():
            key = triple.as_tuple()
            if key in listed:
                continue
            spot = parse_place(triple.object) if triple.relation == AT else None
            if spot is not None and triple.subject != HERO and spot[0] == view.level and view.shows(spot[1], spot[2]):
                out.outdated.append(key)
            elif spot is not None and triple.subject in self.creatures and (view.hero is not None or (
                    view.level and spot[0] != view.level)):
                out.outdated.append(key)  # a creature the text no longer shows has moved on
            elif triple.relation == IN and triple.object == INVENTORY and view.inventory is not None:
                out.outdated.append(key)
        return out

    @staticmethod
    def outdated(existing: Sequence[Triple], new: Sequence[TripleKey]) -> list[Triple]:
        """Only the hero's position and level are single-valued (many doors share a name)."""
        return exclusive_conflicts([t for t in existing if t.subject == HERO], [t for t in new if t[0] == HERO])

    @staticmethod
    def observed_truth() -> NetHackObservedTruth:
        """The ground truth of the NetHack envs' facts in this parser's vocabulary."""
        return NetHackObservedTruth()

    @staticmethod
    def builds(name: str) -> bool:
        """Positions (``level 2 x48 y8``) and levels (``dungeon level 2``) are built from the text.

        Example:
            >>> NetHackRules.builds("level 2 x48 y8"), NetHackRules.builds("dragon")
            (True, False)
        """
        return parse_place(name) is not None or _LEVEL.match(name) is not None


def remembered_places(triples: Iterable[TripleKey], location: str | None) -> list[str]:
    """``go to <thing> x<X> y<Y>`` for each believed thing on the level ``location``
    (``"dungeon level 2"``) names: the memory's own map, for agents on *Room obs*."""
    level = location.rsplit(" ", 1)[-1] if location else None
    commands = []
    for subject, relation, obj in triples:
        spot = parse_place(obj) if relation == AT and subject != HERO else None
        if spot is not None and str(spot[0]) == level:
            commands.append(f"go to {subject} x{spot[1]} y{spot[2]}")
    return sorted(dict.fromkeys(commands))


# -- ground truth ---------------------------------------------------------------------------------
def map_nethack_facts(facts: Iterable[FactTriple]) -> set[TripleKey]:
    """The env's facts in the memory's vocabulary (see the module docstring)."""
    relations = {"at": AT, "on": ON}
    triples: set[TripleKey] = set()
    for s, r, o in facts:
        if r == "carry":
            triples.add((normalize(o), IN, INVENTORY))
        elif r in relations:
            triples.add((normalize(s), relations[r], normalize(o)))
    return triples


class NetHackObservedTruth:
    """The true triples the agent has been shown (a position once the text named it; the hero
    always; inventory items once listed).

    NetHack's map shows the hero, not what it stands on, so the facts lose a staircase or a door
    while the hero stands there; what was last true there stays true until the hero steps off
    (creatures excepted: they are where the map shows them).
    """

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        """New episode."""
        self.seen: set[TripleKey] = set()
        self.room: str | None = None
        self._last: set[TripleKey] = set()
        self._creatures: set[str] = set()

    @staticmethod
    def map_facts(facts: Iterable[FactTriple]) -> tuple[set[TripleKey], str | None]:
        """The env's facts in the memory's vocabulary and the hero's dungeon level (its "room")."""
        truth = map_nethack_facts(facts)
        return truth, next((o for s, r, o in truth if s == HERO and r == ON), None)

    def step(self, facts: Iterable[FactTriple], action: str,
             observation: str | None = None) -> set[TripleKey]:
        """Feeds the facts after ``action`` and the text seen; returns the observed truth now."""
        truth, self.room = self.map_facts(facts)
        hero = next((o for s, r, o in truth if s == HERO and r == AT), None)
        truth |= {t for t in self._last if t[2] == hero and t[0] != HERO and t[0] not in self._creatures}
        self._last = truth
        if observation is None:
            self.seen |= truth
            return truth
        view = read_nethack(observation)
        self._creatures |= {normalize(c) for c in view.creatures}
        shown = {place(view.level, int(x), int(y)) for x, y in _MENTIONED.findall(observation)}
        items = {normalize(i) for i in view.inventory or ()}
        self.seen |= {t for t in truth if t[0] == HERO or t[2] in shown or (t[1] == IN and t[0] in items)}
        return truth & self.seen
