"""The ground truth of the Jericho envs: the object tree restricted to what the text showed."""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable

from textmem_gym.envs.privileged import FactTriple
from textmem_gym.memory.belief_metrics import head_phrase_alignment
from textmem_gym.memory.extractors.jericho.commands import PUT_VERBS, Pronoun, command_verb
from textmem_gym.memory.extractors.jericho.holders import HolderKinds
from textmem_gym.memory.extractors.jericho.names import printed
from textmem_gym.memory.extractors.jericho.titles import CENTRED, READING_VERBS, room_name, room_titles, title_holder
from textmem_gym.memory.extractors.rules import move_direction
from textmem_gym.memory.ground_truth import map_jericho_facts
from textmem_gym.memory.semantic import (
    AT,
    HAS_EXIT,
    IN,
    INVENTORY,
    LOCATION_RELATIONS,
    ON,
    OPPOSITE,
    TripleKey,
    direction_relation,
    normalize,
)

_INVENTORY_COMMANDS = frozenset({"inventory", "i", "inv"})
_LOOKS = frozenset({"look", "l"})
_STOP = frozenset({"the", "a", "an", "of", "some", "and", "all", "to", "in", "on", "with", "from"})

def _printable(name: str) -> str:
    """A tree name normalized; an internal one (``(bronze_coin)``) by its words (``bronze coin``).

    Example:
        >>> _printable("(bronze_coin)"), _printable("Brass Lantern")
        ('bronze coin', 'brass lantern')
    """
    internal = re.fullmatch(r"\((\w+)\)", name.strip())
    return normalize(internal.group(1).replace("_", " ") if internal else name)


def _holders(truth: Iterable[TripleKey], relations: Iterable[str]) -> dict[str, str]:
    """Each thing's one holder by ``relations``; a name two things share (Balances' two cubes) has none:
    which of them moved cannot be told, and the answer does not hang on the order of a set.

    Example:
        >>> truth = [("cube", "is at", "cave"), ("cube", "is at", "chasm"), ("lamp", "is in", "box")]
        >>> _holders(truth, ("is at", "is in"))
        {'lamp': 'box'}
    """
    wanted = frozenset(relations)
    found: dict[str, set[str]] = {}
    for thing, relation, holder in truth:
        if relation in wanted:
            found.setdefault(thing, set()).add(holder)
    return {thing: next(iter(held)) for thing, held in sorted(found.items()) if len(held) == 1}


class JerichoObservedTruth:
    """The object tree's true triples the text has shown (see the package docstring).

    Attributes:
        seen: Every true triple the text has shown so far.
        unchecked_classes: The relation classes the object tree cannot check (``state``: it has no
            open/closed facts); belief accuracy counts believed states as unverifiable.

    It aligns names (:meth:`align_names`): the tree's short name and the phrase the prose printed
    denote one thing when one's words end with the other's and the pair is unique.

    Example:
        >>> JerichoObservedTruth().align_names({"elvish sword", "brass lantern"}, {"sword", "lantern", "lamp"})
        {'brass lantern': 'lantern', 'elvish sword': 'sword'}
    """

    unchecked_classes: frozenset[str] = frozenset({"state"})

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        """New episode."""
        self.seen: set[TripleKey] = set()
        self._room: str | None = None
        self._lit = False
        self._text = ""
        self._before: dict[str, str] = {}
        self._kinds = HolderKinds()
        self._walked: dict[tuple[str, str], str] = {}
        self._descriptions: dict[str, set[str]] = {}
        self._heads: set[str] = set()
        self._titled: set[str] = set()
        self._unknown: set[str] = set()
        self._pronoun = Pronoun()
        self._titled_as: dict[str, str] = {}
        self._tree_room: str | None = None
        self._placed = False
        self._nameless: str | None = None

    @property
    def room(self) -> str | None:
        """The player's room at the last step."""
        return self._room

    @staticmethod
    def align_names(believed: Collection[str], truth: Collection[str]) -> dict[str, str]:
        """Believed names read as the tree's names they uniquely share a head-noun phrase with
        (:func:`~textmem_gym.memory.belief_metrics.head_phrase_alignment`; ``truth``: the names in view)."""
        return head_phrase_alignment(believed, truth)

    @staticmethod
    def map_facts(facts: Iterable[FactTriple]) -> tuple[set[TripleKey], str | None]:
        """The object tree in the memory's vocabulary (:func:`~textmem_gym.memory.ground_truth.map_jericho_facts`);
        an Inform object whose short name is its internal one (Balances' ``(bronze_coin)``: the game prints
        it by a routine) by the words of that name (``bronze coin``), the only name the text can print."""
        triples, room = map_jericho_facts([(str(s), str(r), str(o)) for s, r, o in facts])
        return {(_printable(s), normalize(r), _printable(o)) for s, r, o in triples}, room

    def step(self, facts: Iterable[FactTriple], action: str, observation: str | None = None) -> set[TripleKey]:
        """Feeds the facts after ``action`` and the text seen; returns the observed truth now (``it`` in
        ``action`` read as the game's parser reads it: :class:`~.commands.Pronoun`)."""
        action = self._pronoun.resolve(action)
        found = room_titles(observation or "", action)
        printed_titles = [room_name(t) for _, t in found]
        tree, room = self._as_titled(*self.map_facts(facts), printed_titles)
        placed, room = room is not None, self._unnamed_room(room, printed_titles)
        self._heads = {_head_word(name) for s, _, o in tree for name in (s, o)}
        text = (observation or "").lower()
        self._text += "\n" + text
        self._kinds.read(text)
        truth = {(s, self._kinds.relation(o, IN), o) if r == IN and o != INVENTORY else (s, r, o) for s, r, o in tree}
        parents = _holders(truth, LOCATION_RELATIONS)
        nested = self._through_unnamed(truth, parents)
        truth |= nested
        title_lines = _titles(observation or "", action, room, found)
        titles = [room_name(t) for _, t in title_lines]
        if room is not None and (room, AT, parents.get(room)) in truth and room not in self._titled | set(titles):
            room = parents[room]  # on a thing never titled (a bed, a garbage can): its room; not Anchor's library
        block = self._room_block(observation or "", action, room, found)
        lit = block is not None or (self._lit and room == self._room)
        if observation is None:
            self.seen |= truth
        else:
            self._titled.update(titles)
            self._see(truth - nested, parents, room, text, action, block, lit)
            here = [line for line in (block or "").splitlines() if re.search(r"\bhere\b", line)]
            self.seen |= {t for t in nested if t[2] == room and any(printed(t[0], line) for line in here)}
            lines = observation.splitlines()
            held = {normalize(holder) for i, _ in title_lines if (holder := title_holder(lines[i]))}
            self.seen |= {t for t in truth if t[0] in held and t[1:] == (AT, room)}  # "Your Quarters, in the bed"
            end = titles[0] if titles else room  # a move, then something carries the player on (Zork II's wizard)
            if room != self._room and lit and self._lit and self._room and end:
                self._walk(self._room, end, action)
        self.seen |= self._spatial()
        self._room, self._lit, self._before = room, lit, parents
        self._placed = self._placed or placed
        return (truth | self._spatial()) & self.seen

    def _unnamed_room(self, room: str | None, titles: list[str]) -> str | None:
        """``room``, or where the tree puts the player in an object with no name (Theatre's Tight Stairway) in an
        episode it placed the player before: the one title printed there (of ``titles``) names it, until the
        player leaves."""
        if room is not None or not self._placed:
            self._nameless = None
            return room
        if len(titles) == 1:
            self._nameless = titles[0]
        elif titles:
            self._nameless = None
        return self._nameless

    def _as_titled(self, tree: set[TripleKey], room: str | None,
                   titles: list[str]) -> tuple[set[TripleKey], str | None]:
        """The tree's rooms by the titles the text prints for them (``titles``; Trinity's ``Halfway`` is titled
        ``Halfway Up``): entering a room, the one title printed names it, unless that title is a name of the
        tree's (a vehicle's room: ``Sandy Beach, in the magic boat``) or names another room already."""
        entered = room is not None and room != self._tree_room and room not in self._titled_as
        self._tree_room = room
        if entered and titles:
            names = {name for s, _, o in tree for name in (s, o)}
            if len(titles) == 1 and titles[0] not in names and titles[0] not in self._titled_as.values():
                self._titled_as[str(room)] = titles[0]
        if not self._titled_as:
            return tree, room
        name = self._titled_as.get
        return {(name(s, s), r, name(o, o)) for s, r, o in tree}, None if room is None else name(room, room)

    def rehome(self, believed: set[TripleKey]) -> tuple[set[TripleKey], set[TripleKey]]:
        """``(scored, unverifiable)`` of the believed triples (normalized, names aligned) whose holder the
        object tree lacks: a holder believed holding something (``in``/``on``) whose head word no name of the
        whole tree ends with (Planetfall's ``upper shelf``: the tree has the metal bar at the tool room and no
        shelf). A thing in or on it is scored at the holder's believed room (``("metal bar", "is at", "tool
        room")``; unverifiable when no room is believed); the holder's own place is unverifiable. Holders are
        remembered for the episode. In an episode whose tree has never placed the player (a game whose object
        table Jericho cannot read: Party Foul's rooms have no short names) every belief is unverifiable; a step
        that does not place the player in an episode that did is scored as before (the truth seen so far).

        Example:
            >>> truth = JerichoObservedTruth()
            >>> _ = truth.step([("player", "at", "Tool Room"), ("metal bar", "in", "Tool Room")], "look")
            >>> believed = {("metal bar", "is on", "upper shelf"), ("upper shelf", "is at", "tool room")}
            >>> truth.rehome(believed)
            ({('metal bar', 'is at', 'tool room')}, {('upper shelf', 'is at', 'tool room')})
        """
        if not self._placed:  # the tree never placed the player (Party Foul's Inform 7 objects): nothing to check
            return set(), set(believed)
        self._unknown |= {o for _, r, o in believed if r in (IN, ON) and o != INVENTORY and self._lacks(o)}
        rooms = {s: o for s, r, o in sorted(believed) if r == AT and s in self._unknown}
        scored: set[TripleKey] = set()
        lacking: set[TripleKey] = set()
        for triple in believed:
            thing, relation, holder = triple
            if thing in self._unknown or (holder in self._unknown and holder not in rooms):
                lacking.add(triple)
            elif holder in self._unknown:
                scored.add((thing, AT, rooms[holder]))
            else:
                scored.add(triple)
        return scored, lacking

    def _lacks(self, name: str) -> bool:
        """Whether no name of the whole object tree ends with ``name``'s head word."""
        return bool(self._heads) and _head_word(name) not in self._heads

    def _through_unnamed(self, truth: set[TripleKey], parents: dict[str, str]) -> set[TripleKey]:
        """``(x, is at, room)`` for a thing held by a holder the text never named, in that room (Zork's
        sack on the ``kitchen table``, printed as ``There is a brown sack here.``): true by the tree's own
        nesting, and seen only when a line of the room's list says the thing is ``here``."""
        rooms = _holders(truth, (AT,))
        added: set[TripleKey] = set()
        for thing, relation, holder in truth:
            if relation == AT or holder == INVENTORY or printed(holder, self._text):
                continue
            step, hops = holder, 0
            while step not in rooms and step in parents and hops < 8:
                step, hops = parents[step], hops + 1
            if step in rooms and step != thing:
                added.add((thing, AT, rooms[step]))
        return added

    def _room_block(self, observation: str, action: str, room: str | None,
                    found: list[tuple[int, str]]) -> str | None:
        """The lines under the title of ``room`` in ``observation`` (lower case) without the room's own
        description (the first paragraph on a first visit or a ``look``: scenery named there in
        passing is not listed), ``None`` when the text does not title the room (``found``: its
        :func:`~.titles.room_titles`)."""
        lines = observation.splitlines()
        titles = _titles(observation, action, room, found)
        starts = [i for i, title in titles if room_name(title) == room]
        if room is None or not starts:
            return None
        ends = [i for i, _ in titles if i > starts[-1]]
        body = [line.strip().lower() for line in lines[starts[-1] + 1:ends[0] if ends else len(lines)]]
        body = [line for line in body if line]
        known = self._descriptions.setdefault(room, set())
        first = _first_sentence(body[0]) if body else ""
        if body and (not known or command_verb(action) in _LOOKS or first in known):
            known.add(first)
            body = body[1:]
        return "\n".join(body)

    def _see(self, truth: set[TripleKey], parents: dict[str, str], room: str | None, text: str, action: str,
             block: str | None, lit: bool) -> None:
        words = {w for w in re.findall(r"[\w'-]+", action.lower()) if w not in _STOP}
        verb = command_verb(action)
        for thing, relation, holder in truth:
            moved = parents.get(thing) != self._before.get(thing) and printed(thing, self._text) \
                and (bool(words & set(thing.split())) or printed(thing, text))
            if holder == room:
                shown = (block is not None and printed(thing, block)) or (moved and lit and verb in PUT_VERBS)
            elif holder == INVENTORY:
                shown = (verb in _INVENTORY_COMMANDS and printed(thing, text)) or moved
            else:  # at a room the text never titled, its name beside the thing's states nothing (Pentari's topics)
                titled = relation != AT or holder in self._titled
                shown = (titled and printed(thing, text) and printed(holder, text)) or \
                    (moved and printed(holder, self._text) and bool(words & set(holder.split())))
            if shown:
                self.seen.add((thing, relation, holder))

    def _walk(self, start: str, end: str, action: str) -> None:
        direction = move_direction(action)
        if direction is None:
            return
        self._walked[(start, direction)] = end

    def _spatial(self) -> set[TripleKey]:
        """Walked exits (``end is <d> of start``, ``start has exit <d>``) and their reverses, unless a walk
        the other way led elsewhere."""
        triples: set[TripleKey] = set()
        for (start, direction), end in self._walked.items():
            triples |= {(end, direction_relation(direction), start), (start, HAS_EXIT, direction)}
            back = OPPOSITE[direction]
            if self._walked.get((end, back), start) == start:
                triples.add((start, direction_relation(back), end))
        return triples


def _titles(observation: str, action: str, room: str | None,
            titles: list[tuple[int, str]]) -> list[tuple[int, str]]:
    """The room titles of ``observation`` (``titles``: its :func:`~.titles.room_titles`), and a line that is the
    tree's name of the player's room in any case (Goldilocks is a FOX!'s ``In the enchanted forest``, ``19th
    Street``): the truth knows the room.

    Example:
        >>> text = "In the enchanted forest\\nA large wooden sign."
        >>> _titles(text, "look", "in the enchanted forest", room_titles(text, "look"))
        [(0, 'In the enchanted forest')]
    """
    if room is None or command_verb(action) in READING_VERBS:
        return titles
    lines = observation.splitlines()
    named = [(i, line.strip()) for i, line in enumerate(lines)
             if line.strip() and normalize(line) == room and not CENTRED.match(line)]  # Trinity's status line
    titled = dict(titles)
    return sorted(set(titles) | {(i, line) for i, line in named if i not in titled})


def _head_word(name: str) -> str:
    """The last word of a name (a hyphen splits words).

    Example:
        >>> _head_word("upper shelf"), _head_word("jewel-encrusted egg")
        ('shelf', 'egg')
    """
    words = re.split(r"[\s-]+", name.strip())
    return words[-1] if words else ""


def _first_sentence(line: str) -> str:
    return re.split(r"(?<=[.!?])\s", line, maxsplit=1)[0]

