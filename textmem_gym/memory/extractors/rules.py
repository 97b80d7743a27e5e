"""The ``rules`` extractor: deterministic triples from the text the agent sees (no LLM).

It reads TextWorld's templated text (cooking, treasure-hunt and cleaning games) and the usual
text-adventure phrasing: the room from its header, exits and doors with their state, things
on/in furniture, the inventory, feedback of take/drop/put/open/close/unlock/eat/cook/cut, and
the content of things read (recipes, notes). A full room description is a snapshot: things
believed in the room but no longer listed are invalidated. Moving into the dark ("You have moved
into a dark place.", "It is pitch black.", Inform's "Darkness" title) makes the believed room
:data:`DARK_PLACE`, never the room just left; the map gains no edge to or from it, since the
text does not tell which room it is (:func:`describes_darkness`). A backend with other text hands its
own parser over (:meth:`RulesExtractor.use_parser`; the NetHack envs name
:class:`~textmem_gym.memory.extractors.nethack.NetHackRules`), which then reads every step.

Example:
    >>> from textmem_gym.memory.semantic import TripleStore
    >>> rules = RulesExtractor()
    >>> out = rules.extract("-= Kitchen =-\\nYou see a table. You see a knife on the table.", "", {}, TripleStore())
    >>> out.location, sorted(out.triples)
    ('kitchen', [('knife', 'is on', 'table'), ('table', 'is at', 'kitchen')])

It reads rooms with :func:`parse_room` (the second part of this module, also used by the LLM
extractors for the room name). A TextWorld-style room description starts with a ``-= Room =-``
header, introduces furniture and objects with many phrasings ("You see a X.", "Look out! It's
a- oh, never mind, it's just a X."), lists the content of supporters and open containers, then the
exits and doors. The parser keys on the stable parts (the article before the last noun phrase of
a sentence, list syntax, the words ``leading``/``exit``/directions) rather than on every filler
sentence:

    >>> view = parse_room("-= Kitchen =-\\nYou see a table. You see a knife on the table.\\n"
    ...                   "There is a closed wooden door leading north. There is an exit to the east.")
    >>> view.room, view.present, view.on, view.exits
    ('kitchen', ['table'], {'table': ['knife']}, ['east', 'north'])
    >>> view.doors, view.states
    ({'north': 'wooden door'}, {'wooden door': 'closed'})
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from textmem_gym.memory.extractors.base import BaseExtractor, Extraction
from textmem_gym.memory.semantic import (
    AT,
    DIRECTIONS,
    HAS_EXIT,
    IN,
    INVENTORY,
    IS,
    LOCATION_RELATIONS,
    ON,
    OPPOSITE,
    SHORT_DIRECTIONS,
    Triple,
    TripleKey,
    TripleStore,
    direction_relation,
    door_relation,
    exclusive_conflicts,
    normalize,
)

_NAME = r"(?:the )?(.+?)"
_TAKE = frozenset({"take", "get", "pick", "grab"})
_DROP = frozenset({"drop", "discard", "throw"})
_PUT = frozenset({"put", "place", "insert"})
_OPEN, _CLOSE = frozenset({"open"}), frozenset({"close", "shut"})
_UNLOCK, _LOCK = frozenset({"unlock"}), frozenset({"lock"})
_EAT = frozenset({"eat", "drink"})
_ANY: frozenset[str] = frozenset()
_COOK_STATES = {"fried": "fried", "roasted": "roasted", "grilled": "grilled", "dice": "diced",
                "slice": "sliced", "chop": "chopped"}


#: Feedback patterns: (verbs of the action they answer, pattern, handler method, extra arguments).
#: Kept as data (method names, no lambdas) so that extractors pickle and copy.
FEEDBACK: tuple[tuple[frozenset[str], re.Pattern[str], str, tuple[str, ...]], ...] = (
    (_TAKE, re.compile(rf"You (?:pick up|take) {_NAME}(?: from (?:the )?(?:ground|floor|.+?))?[.!]"), "_taken", ()),
    (_DROP, re.compile(rf"You drop {_NAME}(?: on the (?:ground|floor))?[.!]"), "_dropped", ()),
    (_PUT, re.compile(rf"You (?:put|place) {_NAME} on {_NAME}[.!]"), "_put", (ON,)),
    (_PUT, re.compile(rf"You (?:put|place|insert) {_NAME} (?:into|in) {_NAME}[.!]"), "_put", (IN,)),
    (_OPEN, re.compile(rf"You open {_NAME}(?:, revealing (.+?))?[.!]"), "_opened", ()),
    (_CLOSE, re.compile(rf"You close {_NAME}[.!]"), "_set_state", ("closed",)),
    (_UNLOCK, re.compile(rf"You unlock {_NAME}(?: with .+?)?[.!]"), "_set_state", ("closed",)),
    (_LOCK, re.compile(rf"You lock {_NAME}(?: with .+?)?[.!]"), "_set_state", ("locked",)),
    (_EAT, re.compile(r"You eat (?:the )?(.+?)[.!]"), "_gone", ()),
    (_TAKE, re.compile(r"^\s*Taken\.?\s*$"), "_terse", (IN,)),
    (_DROP, re.compile(r"^\s*Dropped\.?\s*$"), "_terse", (AT,)),
    (_ANY, re.compile(r"Adding the meal to your inventory"), "_meal", ()),
    (_ANY, re.compile(r"You are carrying(?::\s*(.+?)|\s+nothing)\s*(?:\.\s*)?$", re.S), "_inventory", ()),
    (_ANY, re.compile(r"You (fried|roasted|grilled) the (.+?)[.!]"), "_cooked", ()),
    (_ANY, re.compile(r"You (dice|slice|chop) the (.+?)[.!]"), "_cooked", ()),
)


def inventory_items(listed: str) -> list[str]:
    """The things of an inventory list: ``"a knife and an apple"``, or one per indented line
    (deeper lines are a container's content; the first line not indented ends the list).

    Example:
        >>> inventory_items("\\n  A brass lantern\\n  The glass bottle contains:\\n    A quantity of water\\n"
        ...                 "  A brown sack\\nYou hear a song bird.")
        ['brass lantern', 'brown sack']
    """
    lines = [line for line in listed.splitlines() if line.strip()]
    if len(lines) < 2:
        return split_list(" ".join(listed.split())) if listed.strip() else []
    indent = len(lines[0]) - len(lines[0].lstrip())
    items: list[str] = []
    for line in lines:
        depth = len(line) - len(line.lstrip())
        if depth < indent or (depth == 0 and items):
            break
        if depth == indent and not line.rstrip().endswith(":"):
            items.extend(split_list(line.strip()))
    return items


#: The believed location after moving into a room the text does not name because it is dark.
DARK_PLACE = "dark place"
#: How games say that the player is in the dark: Infocom's "You have moved into a dark place." and
#: "It is pitch black.", Inform's "Darkness" title and "It is pitch dark" (not "It is now pitch
#: black": a light went out in the room one is in).
_DARKNESS = re.compile(r"You have moved into a dark place|\bIt is pitch (?:black|dark)\b|^\s*Darkness\s*$",
                       re.I | re.M)
_LOOK = frozenset({"look", "l"})


def describes_darkness(observation: str, action: str) -> bool:
    """Whether ``observation`` tells that ``action`` took the player into a dark place (a
    ``look`` in the dark moves no one: the room is the one believed).

    Example:
        >>> describes_darkness("You have moved into a dark place.\\nIt is pitch black.", "up")
        True
        >>> describes_darkness("Darkness\\nIt is pitch dark, and you can't see a thing.", "north")
        True
        >>> describes_darkness("The lamp goes out. It is now pitch black.", "wait")
        False
        >>> describes_darkness("It is pitch black. You are likely to be eaten by a grue.", "look")
        False
    """
    return action.strip().lower() not in _LOOK and bool(_DARKNESS.search(observation))


def move_direction(action: str) -> str | None:
    """The direction of a movement command (``go north``, ``north``, ``n``), else ``None``."""
    words = action.lower().split()
    if words and words[0] in ("go", "walk", "run", "move"):
        words = words[1:]
    if len(words) != 1:
        return None
    word = SHORT_DIRECTIONS.get(words[0], words[0])
    return word if word in OPPOSITE else None


class RulesExtractor(BaseExtractor):
    """Deterministic extractor for templated text-game output (or, once an env backend handed
    its :class:`~textmem_gym.memory.extractors.base.TextParser` over, that parser).

    Example:
        >>> from textmem_gym.memory.semantic import TripleStore
        >>> RulesExtractor().extract("You pick up the apple from the ground.", "take apple",
        ...                          {}, TripleStore()).triples
        [('apple', 'is in', 'inventory')]
    """

    def __init__(self) -> None:
        self.location: str | None = None

    def reset(self) -> None:
        """Forgets the current room (a parser handed over is kept: it belongs to the env)."""
        self.location = None

    def extract(self, observation: str, action: str, info: dict[str, Any], store: TripleStore) -> Extraction:
        """Triples of one step (see the module docstring)."""
        if self.parser is not None:
            return self.parser.extract(observation, action, info, store)
        out = Extraction()
        self._store, self._action = store, action
        view = parse_room(observation)
        if describes_darkness(observation, action):
            self.location = DARK_PLACE
        elif view is not None:
            self._room(out, view, action)
        else:
            self._already(out, observation, action)
            verb = action.strip().lower().split(maxsplit=1)[0] if action.strip() else ""
            for verbs, pattern, handler, args in FEEDBACK:
                match = pattern.search(observation) if (not verbs or verb in verbs) else None
                if match:
                    getattr(self, handler)(out, match, *args)
        out.triples.extend(read_text(observation, action))
        out.location = self.location
        return out

    def outdated(self, existing: Sequence[Triple], new: Sequence[TripleKey]) -> list[Triple]:
        """Structural replacement (:func:`~textmem_gym.memory.semantic.exclusive_conflicts`), or the
        handed parser's own (NetHack's: many things share a name there)."""
        if self.parser is not None:
            return self.parser.outdated(existing, new)
        return exclusive_conflicts(existing, new)

    # -- rooms ---------------------------------------------------------------------------
    def _room(self, out: Extraction, view: RoomView, action: str) -> None:
        previous, room = self.location, view.room
        direction = move_direction(action)
        if previous and previous != DARK_PLACE and direction and previous != room:
            out.triples.append((room, direction_relation(direction), previous))
        self.location = room
        add = out.triples.append
        for thing in view.present:
            add((thing, AT, room))
        for holder, things in view.on.items():
            out.triples.extend((t, ON, holder) for t in things)
        for holder, things in view.inside.items():
            out.triples.extend((t, IN, holder) for t in things)
        for thing, state in view.states.items():
            add((thing, IS, state))
        for exit_direction in view.exits:
            add((room, HAS_EXIT, exit_direction))
        for door_direction_, door in view.doors.items():
            add((room, door_relation(door_direction_), door))
        if view.complete:
            self._snapshot(out, view)

    def _snapshot(self, out: Extraction, view: RoomView) -> None:
        """Invalidates what a full description of the room no longer shows."""
        room = normalize(view.room)
        listed = {normalize(t) for t in view.present}
        shown_on = {normalize(s): {normalize(t) for t in ts} for s, ts in view.on.items()}
        shown_in = {normalize(c): {normalize(t) for t in ts} for c, ts in view.inside.items()}
        open_now = {normalize(c) for c, s in view.states.items() if s == "open"}
        for t in self._store.incident(room):
            if t.relation == AT and t.object == room and t.subject not in listed:
                out.outdated.append(t.as_tuple())
            elif t.relation == HAS_EXIT and t.subject == room and t.object not in view.exits:
                out.outdated.append(t.as_tuple())
        for holder in listed:
            for t in self._store.incident(holder):
                if t.object != holder or t.subject in shown_on.get(holder, ()) or t.subject in shown_in.get(holder, ()):
                    continue
                if t.relation == ON or (t.relation == IN and holder in open_now):
                    out.outdated.append(t.as_tuple())

    # -- feedback ------------------------------------------------------------------------
    def _already(self, out: Extraction, observation: str, action: str) -> None:
        match = re.search(r"(?:That's|It's|It is) already (open|closed|locked)", observation)
        locked = re.search(r"(?:It's|It is|seems to be) locked", observation)
        words = action.split(maxsplit=1)
        if len(words) == 2 and (match or locked):
            self._state(out, words[1], match.group(1) if match else "locked")

    def _state(self, out: Extraction, name: str, state: str) -> None:
        out.triples.append((clean_name(name)[0], IS, state))

    def _set_state(self, out: Extraction, match: re.Match[str], state: str) -> None:
        self._state(out, match.group(1), state)

    def _terse(self, out: Extraction, match: re.Match[str], relation: str) -> None:
        """Terse feedback ("Taken.", "Dropped.") names nothing: the thing is the action's object."""
        obj = INVENTORY if relation == IN else self._lit_room()
        words = self._action.split(maxsplit=1)
        thing = clean_name(re.split(r"\s+(?:from|in|on|into)\s+", words[1])[0])[0] if len(words) == 2 else ""
        if thing and obj and thing.lower() not in ("all", "everything", "it"):
            out.triples.append((thing, relation, obj))

    def _taken(self, out: Extraction, match: re.Match[str]) -> None:
        out.triples.append((clean_name(match.group(1))[0], IN, INVENTORY))

    def _dropped(self, out: Extraction, match: re.Match[str]) -> None:
        room = self._lit_room()
        if room:
            out.triples.append((clean_name(match.group(1))[0], AT, room))

    def _lit_room(self) -> str | None:
        """The believed room, when the text named it (not :data:`DARK_PLACE`: which dark room is unknown)."""
        return None if self.location == DARK_PLACE else self.location

    def _put(self, out: Extraction, match: re.Match[str], relation: str) -> None:
        out.triples.append((clean_name(match.group(1))[0], relation, clean_name(match.group(2))[0]))

    def _opened(self, out: Extraction, match: re.Match[str]) -> None:
        holder = clean_name(match.group(1))[0]
        self._state(out, holder, "open")
        things = split_list(match.group(2)) if match.group(2) else []
        out.triples.extend((t, IN, holder) for t in things)
        shown = {normalize(t) for t in things}
        out.outdated.extend(t.as_tuple() for t in self._store.incident(holder)
                            if t.relation == IN and t.object == normalize(holder) and t.subject not in shown)

    def _gone(self, out: Extraction, match: re.Match[str]) -> None:
        self._forget_location(out, clean_name(match.group(1))[0])

    def _forget_location(self, out: Extraction, name: str) -> None:
        out.outdated.extend(t.as_tuple() for t in self._store.incident(name)
                            if t.subject == normalize(name) and t.relation in LOCATION_RELATIONS)

    def _meal(self, out: Extraction, match: re.Match[str]) -> None:
        out.triples.append(("meal", IN, INVENTORY))
        for t in self._store.incident("recipe"):
            if t.subject == "recipe" and t.relation == "requires":
                self._forget_location(out, t.object)

    def _inventory(self, out: Extraction, match: re.Match[str]) -> None:
        things = inventory_items(match.group(1) or "")
        out.triples.extend((t, IN, INVENTORY) for t in things)
        shown = {normalize(t) for t in things}
        out.outdated.extend(t.as_tuple() for t in self._store.incident(INVENTORY)
                            if t.relation == IN and t.subject not in shown)

    def _cooked(self, out: Extraction, match: re.Match[str]) -> None:
        out.triples.append((clean_name(match.group(2))[0], IS, _COOK_STATES[match.group(1)]))


# -- things read (recipes, notes) ---------------------------------------------------------
_SECTION = re.compile(r"Ingredients:\s*\n(?P<ingredients>.*?)\n\s*\n"
                      r"Directions:\s*\n(?P<directions>.*?)(?:\n\s*\n|\Z)", re.S)
_STEP = re.compile(r"^\s*(\w+) the (.+?)\s*$")
_PARTICIPLE = {"slice": "sliced", "dice": "diced", "chop": "chopped", "fry": "fried", "roast": "roasted",
               "grill": "grilled", "cook": "cooked"}
_OPENS = re.compile(r"\b(?:the )?([\w -]+? key) (?:opens|unlocks|fits) (?:the )?([\w -]+?)"
                    r"(?: (?:in|at) (?:the )?([\w -]+?))?[.!]", re.I)
_READ_VERBS = frozenset({"read", "examine", "x", "look"})
#: What precedes the thing read in a command (``look at the cookbook``: the cookbook).
_READ_OBJECT = re.compile(r"^(?:(?:at|in|into|inside|on|under)\s+)?(?:(?:the|a|an)\s+)?", re.I)


def read_recipe(text: str) -> list[TripleKey]:
    """``recipe requires X`` for each ingredient and ``X needs to be <done>`` per direction."""
    match = _SECTION.search(text)
    if not match:
        return []
    triples: list[TripleKey] = []
    for line in match.group("ingredients").splitlines():
        if line.strip():
            triples.append(("recipe", "requires", line.strip()))
    for line in match.group("directions").splitlines():
        step = _STEP.match(line)
        if step and step.group(1).lower() in _PARTICIPLE:
            triples.append((step.group(2), "needs to be", _PARTICIPLE[step.group(1).lower()]))
    return triples


def read_text(text: str, action: str = "") -> list[TripleKey]:
    """Triples of everything readable in ``text``: the cooking games' recipe, notes naming which
    key opens which locker and where (stored as hearsay, ``is said to be in``: not seen yet), and,
    with a ``read``/``examine`` action, ``(thing, says, first sentence)``.

    Example:
        >>> for triple in read_text("The steel key opens the yellow locker in Room J.", "read second note"):
        ...     print(triple)
        ('steel key', 'opens', 'yellow locker')
        ('yellow locker', 'is said to be in', 'Room J')
        ('second note', 'says', 'The steel key opens the yellow locker in Room J.')
        >>> text = "Recipe #1\\n\\nIngredients:\\n  red apple\\n\\nDirections:\\n  slice the red apple\\n  prepare meal"
        >>> read_text(text)
        [('recipe', 'requires', 'red apple'), ('red apple', 'needs to be', 'sliced')]
        >>> read_text("Welcome to the kitchen.", "look at the cookbook")
        [('cookbook', 'says', 'Welcome to the kitchen.')]
    """
    triples = read_recipe(text)
    for key, locker, place in _OPENS.findall(text):
        triples.append((key.strip(), "opens", locker.strip()))
        if place:
            triples.append((locker.strip(), "is said to be in", place.strip()))
    words = action.strip().split(maxsplit=1)
    thing = _READ_OBJECT.sub("", words[1].strip()) if len(words) == 2 else ""
    if thing and thing.lower() not in OPPOSITE and words[0].lower() in _READ_VERBS and text.strip() \
            and "-=" not in text:
        first = re.split(r"(?<=[.!?])\s", " ".join(text.split()), maxsplit=1)[0]
        triples.append((thing, "says", first[:200]))
    return triples


# ---- room descriptions ----

HEADER = re.compile(r"^\s*-=\s*(.+?)\s*=-\s*$", re.M)
_SMALL_WORDS = "of|the|and|in|on|at|a|an|to|by"
#: Interactive-fiction room titles ("West of House", "Living Room"): a line of capitalized words.
IF_TITLE = re.compile(rf"^(?:[A-Z][\w'-]*)(?: (?:[A-Z][\w'-]*|{_SMALL_WORDS}))*$")
_NOT_ROOMS = frozenset({"taken", "dropped", "ok", "okay", "done", "opened", "closed", "time passes", "darkness"})
_DIR = "|".join(DIRECTIONS)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n+")
_ARTICLE = r"(?:an?|some|the)"
#: Adjectives printed before a name that are not part of it (state of food or containers).
STATE_WORDS: frozenset[str] = frozenset(
    "raw fried roasted grilled burned cooked uncut chopped sliced diced empty".split())
_CONTAINER_STATE = {"open": "open", "opened": "open", "closed": "closed", "locked": "locked"}
_HERE = r"(?:here|in the room|nearby|close by|in the corner|right there by you)"
_TAIL = re.compile(r"\s*(?:,\s*so (?:there's that|why not take a picture.*)|,\s*which looks.*)?[.!?]*\s*$")
_PRESENCE = re.compile(
    r"(?:^|\b(?:see|make out|seeing|it's|It's|follow it to|fall onto|find|other than|just|"
    r"Here's|notice|reveal|there,|over there!?|There is|There are)\s+)(?:an?|some)\s+([^,.!?]+?)"
    rf"(?:\s+{_HERE})?\s*(?:,\s*so .*)?[.!?]*$")
_STATE_SUBJECT = re.compile(rf"^(?:an?|An?)\s+(open|opened|closed|locked)\s+(.+?)\s+is\s+{_HERE}[.!?]*$")
_DOOR = re.compile(rf"\b(?:an?\s+)?(open|opened|closed|locked)\s+([^,.!?]+?)\s+"
                   rf"(?:leading|leads|facing|heading)\s+({_DIR})\b")
_EXIT = re.compile(rf"\b(?:exits?|going|go|leave by the|exit to the|leads?(?: off)?(?: to the)?|to the)\s+"
                   rf"(?:[^.!?]*?\s)?({_DIR})\b"
                   rf"|\b({_DIR})\b[^.!?]*\bexits?\b")
_CONTAINS = r"(?:contains|has|is filled with|reveals inside it|holds|shelters|offers you|reveals to you)"
_WHICH_LOOKS = re.compile(r",\s*which looks [^,.!?]+,?")
#: Things TextWorld describes as "closed" although they cannot be opened (no state fact).
NOT_OPENABLE: frozenset[str] = frozenset({"bbq"})
_EMPTY = re.compile(r"^(?:What a letdown! )?The (.+?) is empty(?:[.!,]|$)|^()Empty!$")
_SHUT = re.compile(r"^The (.+?) is (closed|locked)[.!]?$")
_LIST_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("floor", re.compile(r"^There (?:is|are) (?P<list>.+?) on the floor$")),
    ("on", re.compile(r"^On the (?P<ref>.+?),? you (?:can )?(?:see|make out) (?P<list>.+)$")),
    ("on", re.compile(r"^You (?:can )?(?:see|make out) (?P<list>.+?) on the (?P<ref>.+)$")),
    ("in", re.compile(rf"^The (?P<ref>.+?) {_CONTAINS} (?P<list>.+)$")),
    ("in", re.compile(rf"^(?:It|it|the (?P<ref>.+?)) {_CONTAINS} (?P<list>.+)$")),
    ("in", re.compile(rf"^It is [^,]+, and {_CONTAINS} (?P<list>.+)$")),
    ("in", re.compile(r"^(?:Also, )?[Tt]here (?:is|are) (?P<list>.+?) (?:in|found in) "
                      r"(?:it|the (?P<ref>.+?)|this silly .+ thing)$")),
    ("in", re.compile(r"^You can see (?P<list>.+?) in (?:it|the (?!(?:room|corner)$)(?P<ref>.+?))$")),
    ("in", re.compile(r"^In it, you can see (?P<list>.+)$")),
    ("in", re.compile(r"^(?:Let's see what's inside -|Contents-|Contained within-|Inside are the following-|"
                      r"Inventory is as follows-|Here's what's inside)\s*(?P<list>.+)$")),
    ("in", re.compile(r"Oh, how they also contained (?P<list>.+)$")),
)


def clean_name(phrase: str) -> tuple[str, str | None]:
    """Strips article, state adjectives and trailing filler from a noun phrase.

    Returns:
        ``(name, container_state)`` where ``container_state`` is ``open``/``closed``/``locked``
        when the phrase said so.
    """
    phrase = _TAIL.sub("", phrase.strip())
    words = phrase.split()
    if words and words[0].lower() in ("a", "an", "some", "the"):
        words = words[1:]
    state = None
    while words and (words[0].lower() in STATE_WORDS or words[0].lower() in _CONTAINER_STATE):
        state = _CONTAINER_STATE.get(words[0].lower(), state)
        words = words[1:]
    if "looking" in words[:-1]:  # "<adjective> looking <noun>": the noun names it
        words = words[words.index("looking") + 1:]
    return " ".join(words), state


def split_list(text: str) -> list[str]:
    """``"a knife, an apple and some milk"`` -> ``["knife", "apple", "milk"]``."""
    text = _TAIL.sub("", text)
    parts = re.split(r",\s*(?:and\s+)?|\s+and\s+", text)
    names = [clean_name(p)[0] for p in parts if p.strip()]
    return [n for n in names if n]


@dataclass
class RoomView:
    """What one room description says.

    Attributes:
        room: Room name (lower case, from the header).
        present: Things lying in the room (furniture, objects on the floor).
        on: Supporter -> things on it.
        inside: Container -> things in it (open containers only show content).
        states: Thing or door -> ``open``/``closed``/``locked``.
        exits: Directions one can leave by.
        doors: Direction -> door name.
        complete: The description lists the whole room (a header was found).
    """

    room: str
    present: list[str] = field(default_factory=list)
    on: dict[str, list[str]] = field(default_factory=dict)
    inside: dict[str, list[str]] = field(default_factory=dict)
    states: dict[str, str] = field(default_factory=dict)
    exits: list[str] = field(default_factory=list)
    doors: dict[str, str] = field(default_factory=dict)
    complete: bool = True

    def add_present(self, name: str) -> None:
        """Records ``name`` as lying in the room (once; never the room itself)."""
        if name and name not in self.present and name != self.room:
            self.present.append(name)

    def resolve(self, ref: str | None) -> str | None:
        """Resolves a short reference (``"chest"``, ``"it"``) to a named thing of the room."""
        holders = list(self.present) + list(self.on) + list(self.inside)
        if not ref or ref in ("it", "It"):
            containers = [h for h in holders if h in self.states or h in self.inside]
            return containers[-1] if containers else (holders[-1] if holders else None)
        ref = clean_name(ref)[0]
        for name in reversed(holders):
            if name == ref or name.endswith(" " + ref):
                return name
        return ref


def _header(text: str) -> tuple[str, int, bool] | None:
    """``(room, end of header, complete)``: TextWorld's ``-= Room =-`` header (a full
    description), else an interactive-fiction title line (the description may be brief)."""
    match = HEADER.search(text)
    if match:
        return match.group(1).strip().lower(), match.end(), True
    offset = 0
    for line in text.splitlines(keepends=True):
        title = line.strip()
        if 2 < len(title) <= 40 and IF_TITLE.match(title) and title.lower() not in _NOT_ROOMS:
            return title.lower(), offset + len(line), False
        offset += len(line)
    return None


def room_name(text: str) -> str | None:
    """The room named by a header or title line in ``text`` (lower case), or ``None``."""
    header = _header(text)
    return header[0] if header else None


def parse_room(text: str) -> RoomView | None:
    """Parses a room description; ``None`` if ``text`` has no room header or title."""
    header = _header(text)
    if header is None:
        return None
    view = RoomView(room=header[0], complete=header[2])
    body = text[header[1]:]
    for sentence in (s.strip() for s in _SENTENCE_END.split(body)):
        if sentence:
            _parse_sentence(sentence, view)
    _drop_partial_names(view)
    view.exits = sorted(set(view.exits) | set(view.doors))
    return view


def _parse_sentence(sentence: str, view: RoomView) -> None:
    sentence = _WHICH_LOOKS.sub("", sentence)
    door = _DOOR.search(sentence)
    if door:
        state, name, direction = door.groups()
        name = clean_name(name)[0]
        view.doors[direction] = name
        view.states[name] = _CONTAINER_STATE[state]
        return
    exits = [a or b for a, b in _EXIT.findall(sentence)]
    if exits:
        view.exits.extend(exits)
        return
    if _parse_list(sentence, view):
        return
    empty = _EMPTY.search(sentence)
    if empty:
        holder = view.resolve(empty.group(1))
        if holder and holder not in view.on:
            view.states[holder] = "open"
            view.inside.setdefault(holder, [])
        return
    shut = _SHUT.match(sentence)
    if shut:
        holder = view.resolve(shut.group(1))
        if holder:
            view.states[holder] = shut.group(2)
        return
    stated = _STATE_SUBJECT.match(sentence)
    if stated:
        name = clean_name(stated.group(2))[0]
        view.states[name] = _CONTAINER_STATE[stated.group(1)]
        view.add_present(name)
        return
    present = _PRESENCE.search(sentence)
    if present:
        name, state = clean_name(present.group(1))
        if state and name.lower() not in NOT_OPENABLE:
            view.states[name] = state
        view.add_present(name)


def _parse_list(sentence: str, view: RoomView) -> bool:
    sentence = _TAIL.sub("", sentence)
    for kind, pattern in _LIST_PATTERNS:
        match = pattern.search(sentence)
        if not match:
            continue
        items = split_list(match.group("list"))
        if kind == "floor":
            for item in items:
                view.add_present(item)
            return True
        holder = view.resolve(match.groupdict().get("ref"))
        if holder is None:
            continue
        target = view.on if kind == "on" else view.inside
        target.setdefault(holder, []).extend(i for i in items if i not in target.get(holder, []))
        if kind == "in":
            view.states.setdefault(holder, "open")
        return True
    return False


def _drop_partial_names(view: RoomView) -> None:
    """Drops a name that is only the head noun of another thing of the room (``table`` when
    ``patio table`` is there): filler sentences repeat things by their noun alone."""
    named = set(view.present) | {i for items in view.on.values() for i in items} \
        | {i for items in view.inside.values() for i in items}
    view.present = [n for n in view.present
                    if not any(o != n and o.endswith(" " + n) for o in named)]
