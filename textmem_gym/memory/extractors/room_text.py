"""Parsing TextWorld-style room descriptions (the templated text of the house grammars).

A description starts with a ``-= Room =-`` header, introduces furniture and objects with
many phrasings ("You see a X.", "Look out! It's a- oh, never mind, it's just a X."), lists
the content of supporters and open containers, then the exits and doors. The parser keys on
the stable parts (the article before the last noun phrase of a sentence, list syntax, the
words ``leading``/``exit``/directions) rather than on every filler sentence.

Example:
    >>> view = parse_room("-= Kitchen =-\\nYou see a table. You see a knife on the table.\\n"
    ...                   "There is a closed wooden door leading north. There is an exit to the east.")
    >>> view.room, view.present, view.on, view.exits
    ('kitchen', ['table'], {'table': ['knife']}, ['east', 'north'])
    >>> view.doors, view.states
    ({'north': 'wooden door'}, {'wooden door': 'closed'})
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from textmem_gym.memory.semantic import DIRECTIONS

HEADER = re.compile(r"^\s*-=\s*(.+?)\s*=-\s*$", re.M)
_SMALL_WORDS = "of|the|and|in|on|at|a|an|to|by"
#: Interactive-fiction room titles ("West of House", "Living Room"): a line of capitalized words.
IF_TITLE = re.compile(rf"^(?:[A-Z][\w'-]*)(?: (?:[A-Z][\w'-]*|{_SMALL_WORDS}))*$")
_NOT_ROOMS = frozenset({"taken", "dropped", "ok", "okay", "done", "opened", "closed", "time passes"})
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
