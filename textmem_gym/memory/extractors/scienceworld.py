"""ScienceWorld text for memory: the ScienceWorld envs' text parser and the matching ground truth.

The ScienceWorld env hands this parser over
(:attr:`~textmem_gym.envs.scienceworld.env.ScienceWorldEnv.text_parser` names
:class:`ScienceWorldRules`; :class:`~textmem_gym.wrappers.MemoryGraphWrapper` passes it to the
memory's extractor); nothing in the memories imports this module. The reading of ScienceWorld's
templates is the backend's own (:mod:`textmem_gym.envs.scienceworld.text`), shared with the
ground truth below.

===========================================================  ===================================================
ScienceWorld text                                            triples
===========================================================  ===================================================
``This room is called the kitchen. In it, you see:`` +       ``("counter", "is at", "kitchen")``
``a counter. On the counter is: a bowl (containing ...)``    ``("bowl", "is on", "counter")``, ``(x, "is in", "bowl")``
``a fridge. The fridge door is closed.``                     ``("fridge", "is", "closed")``
``a sink, which is turned off``                              ``("sink", "is", "deactivated")`` (not scored)
``A door to the hallway (that is open)``                     ``("kitchen", "is connected to", "hallway")`` and back,
                                                             ``("door to hallway", "is", "open")``
``You move to the hallway.`` / ``You teleport to ...``       the location (no triple)
``In your inventory, you see:`` + lines                      ``(x, "is in", "inventory")``
``You move the apple to the inventory.``                     ``("red apple", "is in", "inventory")`` (the name a
                                                             description printed, when one was)
``The fridge is now open.`` / ``The door is now open.``      ``("fridge", "is", "open")`` / ``("door to X", ...)`` (the
                                                             door the command named, else the room's only door)
``a toilet. In the toilet is: A drain, which is open, ...``  ``("toilet", "has a drain that is", "open")`` (a drain
                                                             is a portal, not a thing; not scored)
``look at X`` / ``look in X`` answers                        X's contents and states
``You focus on the lead.``                                   ``("agent", "is focused on", "lead")`` (not scored)
``the thermometer measures a temperature of 83 degrees ...``  ``("lead", "has temperature", "83 degrees celsius")``
===========================================================  ===================================================

Names are the printed ones (``red apple``, ``white pillow``, ``adult bee``); feedback names a thing
by its short name (``apple``), resolved to a believed printed name
(:func:`~textmem_gym.envs.scienceworld.text.same_thing`). ScienceWorld has no compass: rooms are
joined by doors (:data:`~textmem_gym.memory.ground_truth.CONNECTED`).

**A description is a snapshot.** A room's description invalidates the believed things of that room
no longer listed, and the believed contents of the holders it lists (supporters, open containers)
that are gone; an ``inventory`` answer replaces the believed inventory; a ``look at``/``look in``
answer replaces the believed contents of the thing looked at.

**Names are not unique in ScienceWorld** (a table in five rooms, three wood cups in the art
studio, air everywhere), so a thing's location is not exclusive: ``("table", "is at", "kitchen")``
and ``("table", "is at", "bedroom")`` are both believed. What a holder holds is invalidated by a
snapshot only when every believed place of that holder is the room described (the kitchen's
table listing nothing does not empty the art studio's), and never of what was put in (or last seen
in) a holder of that name in another room (the shovel moved to the sink while in the foundry stays
when the bathroom's sink is described empty). A thing moved by the agent (``You move the X to the
Y``, eaten, poured) loses its believed places in the current room and the inventory (a place in a
holder counts as the room it was put in there). Feedback's short name is resolved to a believed
thing at hand (here, carried, or held where no room is believed), never to one believed in another
room: ScienceWorld acts on things at hand only, so ``You move the cupboard to the outside`` with a
``large cupboard`` believed in the workshop is another thing, the ``cupboard``.

**Things present everywhere** (ScienceWorld prints ``a substance called air`` in every room) are
believed per room like any other thing: ``("air", "is at", "kitchen")`` is what the text says and
is true; it is never moved from room to room. The agent (``the agent`` in every room's list) is
not a thing of memory.

**What the parser cannot see**: what is inside a closed container (``The fridge door is
closed.``), the rooms behind a door until described, where the contents of a poured container went
(``You pour the contents of the cup into the sink.`` names no substance: the contents are only
invalidated where they were), the changes of a substance the agent did not look at again (water
boiling into steam, a seed grown into a seedling), which of two things with one name an action
moved or a door state changed (``door to kitchen`` is a door of the bathroom, of the hallway and of
the outside), and a move ScienceWorld reports but does not make (``You move the fountain to the
ground.``). A description of another room (``look at hallway``) gives its things, not its doors:
the facts hold the current room's doors only, so they could not be checked.

The ground truth (:class:`ScienceWorldObservedTruth`) maps the env's privileged facts
(:func:`~textmem_gym.memory.ground_truth.map_scienceworld_facts`) and counts a fact once the text
showed it: a thing's place when a description listed the thing (in a room description, the
inventory, a ``look at``/``look in`` answer) with its contents shown, or a feedback sentence moved
it there; a state when a description printed it or the agent opened/closed it; a room's doors and
connections when its description listed them. Fact names become the printed names the text used
(``apple`` -> ``red apple``), and ``in`` becomes ``on`` for the holders the text lists ``On the X
is:``.

Example:
    >>> rules = ScienceWorldRules()
    >>> out = rules.extract("This room is called the hallway. In it, you see: \\n\\tthe agent\\n"
    ...                     "\\ta substance called air\\n\\ta glass jar (containing a substance called salt)\\n"
    ...                     "You also see:\\n\\tA door to the kitchen (that is open)", "look around", {}, TripleStore())
    >>> out.location, sorted(out.triples)  # doctest: +NORMALIZE_WHITESPACE
    ('hallway', [('air', 'is at', 'hallway'), ('door to kitchen', 'is', 'open'), ('glass jar', 'is at', 'hallway'),
     ('hallway', 'is connected to', 'kitchen'), ('kitchen', 'is connected to', 'hallway'),
     ('salt', 'is in', 'glass jar')])
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

from textmem_gym.envs.privileged import FactTriple
from textmem_gym.envs.scienceworld.text import (
    DEVICE_STATES,
    PORTALS,
    ROOMS,
    Thing,
    View,
    name_of,
    read_description,
    read_doors,
    read_inside,
    read_inventory,
    read_room,
    same_thing,
)
from textmem_gym.memory.extractors.base import Extraction
from textmem_gym.memory.ground_truth import CONNECTED, map_scienceworld_facts
from textmem_gym.memory.semantic import (
    AT,
    IN,
    INVENTORY,
    IS,
    LOCATION_RELATIONS,
    ON,
    Triple,
    TripleKey,
    TripleStore,
    normalize,
    state_group,
)

#: ``("agent", FOCUS, thing)``: the thing the agent focused on (ScienceWorld's ``focus on``).
FOCUS = "is focused on"
#: ``(thing, TEMPERATURE, "83 degrees celsius")``: a thermometer's reading.
TEMPERATURE = "has temperature"
#: ``("toilet", DRAIN, "open")``: the state of a holder's drain (a portal, not a thing).
DRAIN = "has a drain that is"
#: Mutually exclusive device states (the open/closed/locked group is the memory's own).
DEVICE_GROUP = frozenset({"activated", "deactivated"})

_MOVE_TO_ROOM = re.compile(r"You (?:move|teleport) to the (.+?)\.|You move through the door to the (.+?)\.")
_MOVED = re.compile(r"You move the (.+?) to the (.+?)\.")
_POURED = re.compile(r"You pour the contents of the (.+?) into the (.+?)\.")
_POURED_THING = re.compile(r"You pour the (?!contents of )(.+?) into the (.+?)\.")
_DRAIN_ACTION = re.compile(r"^(?:open|close)\s+(.+?)\s+drain\s*$", re.I)
_STATE_NOW = re.compile(r"The (.+?) is (?:now|already) (open|closed|activated|deactivated)\.")
_FOCUS = re.compile(r"You focus on the (.+?)\.")
_RESET_FOCUS = "You reset the goal progress and focus."
_EATEN = re.compile(r"The (.+?) was delicious\.")
_MEASURED = re.compile(r"the thermometer measures a temperature of (.+? degrees celsius)")
_DOOR_ACTION = re.compile(r"^(?:open|close|look at)\s+(door to .+?)\s*$", re.I)
_LOOK_AT = re.compile(r"^(?:look at|look in|examine)\s+(.+?)\s*$", re.I)
_USE_ON = re.compile(r"\bon\s+(.+?)\s*$", re.I)
_HOLDER_WORDS = re.compile(r"\s+in\s+.*$")


def _state(value: str) -> str:
    """A printed state as the facts name it (``off`` -> ``deactivated``)."""
    return DEVICE_STATES.get(value, value)


def _slot(key: TripleKey) -> tuple[str, ...] | None:
    """The single-valued slot of a triple: a state group, the focus, a temperature."""
    subject, relation, obj = key
    if relation == IS:
        group = state_group(obj) or (DEVICE_GROUP if obj in DEVICE_GROUP else None)
        return ("state", subject, min(group)) if group else None
    if relation in (FOCUS, TEMPERATURE, DRAIN):
        return (relation, subject)
    return None


class ScienceWorldRules:
    """The ScienceWorld envs' :class:`~textmem_gym.memory.extractors.base.TextParser` (see the module docstring).

    Attributes:
        location: The room the agent is in, as the text last showed it.
    """

    def __init__(self) -> None:
        self.location: str | None = None
        self._supporters: set[str] = set()
        self._copies: dict[TripleKey, int] = {}  # identical things a holder was last shown with
        self._printed: set[str] = set()  # names descriptions printed
        self._placed: dict[TripleKey, str] = {}  # (thing, in/on, holder) -> the room it was put or seen there in

    def extract(self, observation: str, action: str, info: dict[str, Any], store: TripleStore) -> Extraction:
        """Triples of one step and the believed ones it shows to be gone."""
        out = Extraction()
        view = read_room(observation)
        if view is not None:
            self._room(out, view, action, store)
        else:
            self._feedback(out, observation, action, store)
        out.location = self.location
        return out

    def outdated(self, existing: Sequence[Triple], new: Sequence[TripleKey]) -> list[Triple]:
        """Single-valued slots only (states, the focus, a temperature): a thing's place is not
        exclusive, since many things share a name (see the module docstring)."""
        slots: dict[tuple[str, ...], set[TripleKey]] = {}
        for triple in new:
            key = (normalize(triple[0]), normalize(triple[1]), normalize(triple[2]))
            if (slot := _slot(key)) is not None:
                slots.setdefault(slot, set()).add(key)
        return [t for t in existing if (slot := _slot(t.as_tuple())) in slots and t.as_tuple() not in slots[slot]]

    @staticmethod
    def observed_truth() -> ScienceWorldObservedTruth:
        """The ground truth of the ScienceWorld envs' facts in this parser's vocabulary."""
        return ScienceWorldObservedTruth()

    @staticmethod
    def builds(name: str) -> bool:
        """Every name comes from ScienceWorld's text as printed (none is built)."""
        return False

    # -- descriptions --------------------------------------------------------------------
    def _things(self, out: Extraction, things: Iterable[Thing], holder: str, relation: str) -> None:
        """Triples of ``things`` held by ``holder`` and of all they hold."""
        for thing in things:
            if normalize(thing.name) in PORTALS:
                out.triples += [(holder, DRAIN, _state(s)) for s in thing.states]
                continue
            out.triples.append((thing.name, relation, holder))
            self._printed.add(normalize(thing.name))
            key = (normalize(thing.name), relation, normalize(holder))
            self._copies[key] = sum(normalize(t.name) == key[0] for t in things)
            out.triples += [(thing.name, IS, _state(s)) for s in thing.states]
            if thing.contents is not None:
                if thing.relation == "on":
                    self._supporters.add(normalize(thing.name))
                self._things(out, thing.contents, thing.name, ON if thing.relation == "on" else IN)

    def _listed(self, things: Iterable[Thing]) -> set[str]:
        """Holders whose contents ``things`` show (at any depth)."""
        shown = set()
        for top in things:
            for thing in (top, *(c for c, _ in top.walk())):
                if thing.contents is not None:
                    shown.add(normalize(thing.name))
        return shown

    def _room(self, out: Extraction, view: View, action: str, store: TripleStore) -> None:
        room = view.room or ""
        remote = _LOOK_AT.match(action.strip()) is not None and self.location is not None \
            and normalize(room) != normalize(self.location)
        if not remote:
            self.location = room
        self._things(out, view.things, room, AT)
        for other, state in () if remote else view.doors.items():
            out.triples += [(room, CONNECTED, other), (other, CONNECTED, room), (f"door to {other}", IS, state)]
        shown = {(normalize(s), normalize(r), normalize(o)) for s, r, o in out.triples}
        here = normalize(room)
        self._placed.update({key: here for key in shown if key[1] in (IN, ON)})
        holders = {h for h in self._listed(view.things) if _rooms_of(store, h) <= {here}}
        for triple in store.incident(here):
            key = triple.as_tuple()
            if key not in shown and ((triple.relation == AT and triple.object == here)
                                     or (triple.relation == CONNECTED and triple.subject == here and not remote)):
                out.outdated.append(key)
        out.outdated += self._contents_gone(store, holders, shown, {here})

    # -- feedback ------------------------------------------------------------------------
    def _feedback(self, out: Extraction, observation: str, action: str, store: TripleStore) -> None:
        text = observation.strip()
        if (items := read_inventory(text)) is not None:
            self._holder_snapshot(out, INVENTORY, items, IN, store)
        elif (inside := read_inside(text)) is not None:
            self._holder_snapshot(out, inside[0], inside[1], IN, store)
        if (match := _MOVE_TO_ROOM.search(text)) is not None:
            self.location = match.group(1) or match.group(2)
        for match in (*_MOVED.finditer(text), *_POURED_THING.finditer(text)):
            self._moved(out, match.group(1), match.group(2), store)
        for match in _POURED.finditer(text):  # the contents left it (the text does not name them)
            holder = normalize(self._resolve(store, match.group(1)))
            out.outdated += [t.as_tuple() for t in store.incident(holder)
                             if t.relation in (IN, ON) and t.object == holder]
        for match in _STATE_NOW.finditer(text):
            self._state_now(out, match.group(1), match.group(2), action, store)
        for match in _EATEN.finditer(text):
            out.outdated += self._places_here(store, self._resolve(store, match.group(1)))
        if (match := _FOCUS.search(text)) is not None:
            out.triples.append(("agent", FOCUS, self._resolve(store, match.group(1))))
        if _RESET_FOCUS in text:
            out.outdated += [t.as_tuple() for t in store.with_relation(FOCUS)]
        if (match := _MEASURED.search(text)) is not None and (target := _USE_ON.search(action)) is not None:
            thing = self._resolve(store, _HOLDER_WORDS.sub("", target.group(1)))
            out.triples.append((thing, TEMPERATURE, match.group(1)))
        self._looked(out, text, action, store)

    def _looked(self, out: Extraction, text: str, action: str, store: TripleStore) -> None:
        """A ``look at`` answer: the thing's contents and states (a door: its state and rooms)."""
        doors = read_doors(text)
        if doors and _LOOK_AT.match(action.strip()) is not None and len(doors) == 1:
            other, state = next(iter(doors.items()))
            out.triples.append((f"door to {other}", IS, state))
            if self.location:
                out.triples += [(self.location, CONNECTED, other), (other, CONNECTED, self.location)]
            return
        thing = looked_at(text, action)
        if thing is None:
            return
        out.triples += [(thing.name, IS, _state(s)) for s in thing.states]
        if thing.contents is not None:
            relation = ON if thing.relation == "on" else IN
            if relation == ON:
                self._supporters.add(normalize(thing.name))
            where = re.search(r"\sin\s+(?:the\s+)?(.+?)\s*$", action.strip())
            self._holder_snapshot(out, thing.name, thing.contents, relation, store, where.group(1) if where else None)

    def _holder_snapshot(self, out: Extraction, holder: str, things: list[Thing], relation: str,
                         store: TripleStore, where: str | None = None) -> None:
        """What ``holder`` holds, replacing its believed contents where it is not ambiguous
        (``where``: the place the command named, ``look at table in inventory``)."""
        before = len(out.triples)
        self._things(out, things, holder, relation)
        shown = {(normalize(s), normalize(r), normalize(o)) for s, r, o in out.triples[before:]}
        holders = self._listed(things) | {normalize(holder)}
        local = {normalize(where)} if where else {INVENTORY, normalize(self.location or "")}
        out.outdated += self._contents_gone(store, {h for h in holders if _rooms_of(store, h) <= local}, shown, local)

    def _contents_gone(self, store: TripleStore, holders: set[str], shown: set[TripleKey],
                       local: set[str]) -> list[TripleKey]:
        """Believed contents of ``holders`` a snapshot of ``local`` no longer shows, but those put (or last
        seen) in a holder of that name in another room: ScienceWorld names many holders alike (a sink in
        four rooms), and the text showed only this room's."""
        return [key for key in _contents_gone(store, holders, shown) if not self._placed_elsewhere(store, key, local)]

    def _placed_elsewhere(self, store: TripleStore, key: TripleKey, local: set[str]) -> bool:
        """``key`` (``thing in/on holder``) was put or seen in a room outside ``local`` (the holder not carried)."""
        placed = self._placed.get(key)
        return placed is not None and placed not in local and INVENTORY not in _rooms_of(store, key[2])

    def _moved(self, out: Extraction, thing: str, target: str, store: TripleStore) -> None:
        name = self._resolve(store, thing)
        target = normalize(target)
        if target == INVENTORY:
            triple = (name, IN, INVENTORY)
        elif target == normalize(self.location or "") or target in ROOMS or _is_room(store, target):
            triple = (name, AT, target)
        else:
            holder = self._resolve(store, target)
            triple = (name, ON if normalize(holder) in self._supporters else IN, holder)
        out.triples.append(triple)
        key = (normalize(triple[0]), triple[1], normalize(triple[2]))
        self._placed = {k: room for k, room in self._placed.items() if k[2] != key[0]}  # its contents go with it
        if triple[1] != AT and target != INVENTORY and self.location:
            self._placed[key] = normalize(self.location)
        for place in self._places_here(store, name):
            if place != key and self._copies.get(place, 1) > 1:  # one of several alike left: the others stay
                self._copies[place] -= 1
            elif place != key:
                out.outdated.append(place)

    def _state_now(self, out: Extraction, thing: str, state: str, action: str, store: TripleStore) -> None:
        door = _DOOR_ACTION.match(action.strip())
        drain = _DRAIN_ACTION.match(action.strip())
        if thing == "door":  # the door the command named, else the room's only door
            here = normalize(self.location or "")
            others = {t.object for t in store.incident(here) if t.relation == CONNECTED and t.subject == here}
            name = door.group(1) if door is not None else f"door to {others.pop()}" if len(others) == 1 else None
            if name is not None:
                out.triples.append((name, IS, state))
        elif normalize(thing) in PORTALS:
            if drain is not None:
                out.triples.append((self._resolve(store, drain.group(1)), DRAIN, state))
        else:
            out.triples.append((self._resolve(store, thing), IS, state))

    # -- names and places ----------------------------------------------------------------
    def _resolve(self, store: TripleStore, name: str) -> str:
        """The believed printed name of the thing feedback calls ``name`` (``apple`` -> ``red
        apple``), preferring one here or carried; ``name`` itself when none is believed."""
        name = name_of(name)
        key = normalize(name)
        if store.incident(key):
            return key
        here = {normalize(self.location or ""), INVENTORY}
        candidates = sorted({t.subject for t in _located(store) if same_thing(t.subject, key)})
        near = [c for c in candidates if _rooms_of(store, c) & here]
        unplaced = [c for c in candidates if not _rooms_of(store, c)]  # held where no room is believed
        printed = sorted(p for p in self._printed if same_thing(p, key) and not _rooms_of(store, p))
        return (near or unplaced or printed or [name])[0]  # a thing believed in another room is not at hand

    def _places_here(self, store: TripleStore, name: str) -> list[TripleKey]:
        """Believed places of ``name`` in the current room or the inventory (or in a holder whose
        place is not believed: the agent acted on it, so it is at hand)."""
        here = {normalize(self.location or ""), INVENTORY}
        key = normalize(name)
        return [t.as_tuple() for t in store.incident(key) if t.subject == key and t.relation in LOCATION_RELATIONS
                and self._at_hand(store, t, here)]

    def _at_hand(self, store: TripleStore, triple: Triple, here: set[str]) -> bool:
        """A believed place is ``here`` (the room or the inventory), or in a holder put (or last seen) here,
        or in a holder believed here, or whose room is not believed."""
        if triple.object in here or triple.relation == AT:
            return triple.object in here
        rooms = _rooms_of(store, triple.object)
        placed = self._placed.get(triple.as_tuple())
        if placed is not None and INVENTORY not in rooms:
            return placed in here
        return not rooms or bool(rooms & here)


def looked_at(text: str, action: str) -> Thing | None:
    """The thing a ``look at X``/``examine X`` answer describes (``None``: the answer is not one).

    Example:
        >>> looked_at("a jug (containing an orange)", "look at jug").contents[0].name
        'orange'
    """
    look = _LOOK_AT.match(action.strip())
    if look is None or read_doors(text) or "\n\n" in text.strip():
        return None
    thing = read_description(text)
    target = name_of(_HOLDER_WORDS.sub("", look.group(1)))
    return thing if thing.name and (same_thing(thing.name, target) or same_thing(target, thing.name)) else None


def _located(store: TripleStore) -> list[Triple]:
    return [t for relation in LOCATION_RELATIONS for t in store.with_relation(relation)]


def _is_room(store: TripleStore, name: str) -> bool:
    """Whether ``name`` is a believed room (things are at it, or doors join it)."""
    return any(t.object == name and t.relation in (AT, CONNECTED) for t in store.incident(name))


def _rooms_of(store: TripleStore, thing: str, depth: int = 8) -> set[str]:
    """The rooms (or ``inventory``) the believed places of ``thing`` lead to (``{}``: none believed)."""
    rooms: set[str] = set()
    frontier = {normalize(thing)}
    for _ in range(depth):
        above = set()
        for name in frontier:
            for t in store.incident(name):
                if t.subject != name or t.relation not in LOCATION_RELATIONS:
                    continue
                if t.relation == AT or t.object == INVENTORY:
                    rooms.add(t.object)
                else:
                    above.add(t.object)
        if not above:
            break
        frontier = above
    return rooms


def _contents_gone(store: TripleStore, holders: set[str], shown: set[TripleKey]) -> list[TripleKey]:
    """Believed contents of ``holders`` that a snapshot no longer shows."""
    return [t.as_tuple() for h in sorted(holders) for t in store.incident(h)
            if t.object == h and t.relation in (IN, ON) and t.as_tuple() not in shown]


# -- ground truth ---------------------------------------------------------------------------------
class ScienceWorldObservedTruth:
    """The true triples the text has shown (see the module docstring).

    Attributes:
        seen: Every true triple observed so far (printed names).

    Example:
        >>> truth = ScienceWorldObservedTruth()
        >>> facts = [("agent", "in", "hallway"), ("apple", "in", "hallway"), ("apple", "in", "inventory")]
        >>> truth.step(facts, "look around", "You move to the hallway.")
        set()
        >>> sorted(truth.step(facts, "look around", "This room is called the hallway. In it, you see:\\n"
        ...                                         "\\ta red apple\\nYou also see:\\n"))
        [('red apple', 'is at', 'hallway')]
    """

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        """New episode."""
        self.seen: set[TripleKey] = set()
        self._room: str | None = None
        self._alias: dict[str, str] = {}
        self._supporters: set[str] = set()
        self._doors: dict[str, set[TripleKey]] = {}
        self._mentioned: set[str] = set()

    @property
    def room(self) -> str | None:
        """The agent's room at the last step."""
        return self._room

    @staticmethod
    def map_facts(facts: Iterable[FactTriple]) -> tuple[set[TripleKey], str | None]:
        """ScienceWorld's facts in the memory's vocabulary
        (:func:`~textmem_gym.memory.ground_truth.map_scienceworld_facts`)."""
        mapped, room = map_scienceworld_facts(list(facts))
        return {(normalize(s), r, normalize(o)) for s, r, o in mapped}, room

    def step(self, facts: Iterable[FactTriple], action: str, observation: str | None = None) -> set[TripleKey]:
        """Feeds the facts after ``action`` and the text seen; returns the observed truth now."""
        mapped, room = self.map_facts(facts)
        self._room = room
        door_facts = {t for t in mapped if t[1] == CONNECTED or (t[1] == IS and t[0].startswith("door to "))}
        if room is not None:  # the facts hold the current room's doors only: the others are remembered
            self._doors[room] = door_facts
        truth = (mapped - door_facts) | {t for doors in self._doors.values() for t in doors}
        if observation is None:
            self.seen |= truth
            return truth
        current = {t[0] for t in door_facts if t[1] == IS}  # the current room's doors
        shown = self._read(observation, action, truth, current)
        doors = shown.get("doors", set())
        here = door_facts if room is not None and room in shown["rooms"] else \
            {t for t in door_facts if {t[0].removeprefix("door to "), t[2]} & doors}
        truth = self.as_printed(truth)
        self.seen -= self._told_gone(truth, shown, normalize(room or ""))
        self.seen |= {t for t in truth if t in here or self._shows(t, shown)}
        return truth & self.seen

    def _told_gone(self, truth: set[TripleKey], shown: dict[str, set[str]], room: str) -> set[TripleKey]:
        """Seen places the text said were left: what a poured holder held (``You pour the contents of the
        X ...``), and the places at hand of a substance poured elsewhere (``You pour the water into the
        greenhouse``). They count again once the text shows them (ScienceWorld refills a flower pot with
        water without a word). Moves of things are left alone: of three wood cups, one moved leaves two."""
        at_hand = {room, INVENTORY}
        for _ in range(8):  # holders in the room or carried, at any depth
            at_hand |= {s for s, r, o in truth if r in LOCATION_RELATIONS and o in at_hand}
        moves = [poured.split("\n") for poured in shown["poured"]]
        return {t for t in self.seen if t[1] in LOCATION_RELATIONS and (
            (t[1] != AT and t[2] in shown["emptied"])
            or any(same_thing(t[0], thing) and not same_thing(t[2], target) and t[2] in at_hand
                   for thing, target in moves))}

    def _read(self, observation: str, action: str, truth: set[TripleKey],
              current: set[str] | None = None) -> dict[str, set[str]]:
        """What ``observation`` shows: ``things`` (names printed with their place), ``holders`` (whose
        contents it lists), ``states`` (things whose state it prints), ``rooms`` (whose doors it lists)."""
        shown: dict[str, set[str]] = {"things": set(), "holders": set(), "states": set(), "rooms": set(),
                                      "moved": set(), "emptied": set(), "poured": set()}
        text = observation.strip()
        current = current or set()
        things: list[Thing] = []
        if (view := read_room(text)) is not None:
            things = view.things
            shown["holders"].add(normalize(view.room or ""))
            shown["rooms"].add(normalize(view.room or ""))
        elif (items := read_inventory(text)) is not None:
            things = items
            shown["holders"].add(INVENTORY)
        elif (inside := read_inside(text)) is not None:
            things = inside[1]
            shown["holders"].add(normalize(inside[0]))
        elif (looked := looked_at(text, action)) is not None:
            shown["states"] |= {f"{normalize(looked.name)}\n{_state(v)}" for v in looked.states}
            if looked.contents is not None:
                shown["holders"].add(normalize(looked.name))
                if looked.relation == "on":
                    self._supporters.add(normalize(looked.name))
            things = list(looked.contents or [])
        if view is None:  # a door looked at: that door only
            shown["doors"] = {normalize(other) for other in read_doors(text)}
        for top in things:
            for thing in (top, *(c for c, _ in top.walk())):
                name = normalize(thing.name)
                shown["things"].add(name)
                shown["states"] |= {f"{name}\n{_state(v)}" for v in thing.states}
                if thing.contents is not None:
                    shown["holders"].add(name)
                    if thing.relation == "on":
                        self._supporters.add(name)
        self._learn_aliases(shown["things"], truth)
        for match in (*_MOVED.finditer(text), *_POURED_THING.finditer(text)):
            shown["moved"].add(f"{normalize(match.group(1))}\n{normalize(match.group(2))}")
        shown["emptied"] |= {normalize(match.group(1)) for match in _POURED.finditer(text)}
        shown["poured"] |= {f"{normalize(m.group(1))}\n{normalize(m.group(2))}" for m in _POURED_THING.finditer(text)}
        self._mentioned |= {room for room in ROOMS if room in text.lower()}
        for match in _STATE_NOW.finditer(text):
            door = _DOOR_ACTION.match(action.strip())
            stated = normalize(door.group(1) if match.group(1) == "door" and door else match.group(1))
            if stated == "door" and len(current) == 1:  # the room's only door
                stated = next(iter(current))
            if stated.removeprefix("door to ") in self._mentioned or not stated.startswith("door to "):
                shown["states"].add(f"{stated}\n{match.group(2)}")  # a door's room named by the text, not the action
        return shown

    def _learn_aliases(self, printed: set[str], truth: set[TripleKey]) -> None:
        """Fact names -> the printed names the text used for them (``apple`` -> ``red apple``)."""
        names = {t[0] for t in truth if t[1] in LOCATION_RELATIONS}
        for name in names - printed:
            match = sorted(p for p in printed - names if same_thing(p, name))
            if match:
                self._alias[name] = match[0]

    def as_printed(self, truth: set[TripleKey]) -> set[TripleKey]:
        """``truth`` (:meth:`map_facts`) with the names the text has printed so far (``apple`` -> ``red
        apple``), ``on`` for the holders the text lists ``On the X is:`` (what probe questions read)."""
        out = set()
        for subject, relation, obj in truth:
            subject, obj = self._alias.get(subject, subject), self._alias.get(obj, obj)
            if relation == IN and obj in self._supporters:
                relation = ON
            out.add((subject, relation, obj))
        return out

    def _shows(self, triple: TripleKey, shown: dict[str, set[str]]) -> bool:
        subject, relation, obj = triple
        if relation in LOCATION_RELATIONS:
            if subject in shown["things"] and obj in shown["holders"]:
                return True
            return any(same_thing(subject, moved.split("\n")[0]) and same_thing(obj, moved.split("\n")[1])
                       for moved in shown["moved"])
        return relation == IS and f"{subject}\n{obj}" in shown["states"]
