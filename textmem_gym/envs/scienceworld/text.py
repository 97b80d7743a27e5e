"""Reading ScienceWorld's text: rooms, nested things, states, doors, the inventory, descriptions.

ScienceWorld describes a room as one line per thing (its ``Location.getDescription``), each
thing described by its own template, contents nested inline::

    This room is called the kitchen. In it, you see:
        the agent
        a substance called air
        a counter. On the counter is: a bowl (containing a red apple, a banana), a drawer.
        a fridge. The fridge door is closed.
        a sink, which is turned off. In the sink is: nothing.
    You also see:
        A door to the hallway (that is open)

A thing's description is a head (an article, ``substance called``, the name; a book's title in
parentheses belongs to the name) followed by any of: ``(containing LIST)``, ``, which is
[turned] on|off|activated|deactivated|open|closed``, ``, currently reading ...``, ``in the
<stage> stage``, ``titled ...``, ``. The X door is open|closed.``, ``. On|In the X is: LIST.``,
``. On the X you see: LIST.``; a list is ``nothing`` or descriptions joined by ``", "``.
:func:`read_description` reads one description into a :class:`Thing` tree; :func:`read_room` a
room (``look around``, ``look in <room>``), :func:`read_inventory` the ``inventory`` answer.
Names are the printed ones, without article (``red apple``, ``substance called`` dropped):
ScienceWorld's feedback names a thing by its short name (``You move the apple to the
inventory.``), which :func:`same_thing` relates to the printed one. The memories' ScienceWorld
parser (:mod:`textmem_gym.memory.extractors.scienceworld`) and its ground truth both read with
these functions.

Example:
    >>> view = read_room("This room is called the kitchen. In it, you see: \\n\\tthe agent\\n"
    ...                  "\\ta counter. On the counter is: a bowl (containing a red apple, a banana), a drawer.\\n"
    ...                  "\\ta fridge. The fridge door is closed.\\nYou also see:\\n"
    ...                  "\\tA door to the hallway (that is open)")
    >>> view.room, [(t.name, t.relation, h) for t, h in view.placed()]  # doctest: +NORMALIZE_WHITESPACE
    ('kitchen', [('counter', 'at', 'kitchen'), ('bowl', 'on', 'counter'), ('red apple', 'in', 'bowl'),
                 ('banana', 'in', 'bowl'), ('drawer', 'on', 'counter'), ('fridge', 'at', 'kitchen')])
    >>> view.doors, view.things[1].states
    ({'hallway': 'open'}, ['closed'])
    >>> same_thing("red apple", "apple"), same_thing("adult bee", "bee 3"), same_thing("sugar water", "sugar")
    (True, True, False)
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field

#: The player, listed among a room's things (never a thing of memory).
AGENT = "agent"
#: ScienceWorld's locations (its ``BuildingMaker``): a thing moved "to the hallway" lies in a room.
ROOMS = frozenset({"art studio", "bathroom", "bedroom", "foundry", "greenhouse", "hallway", "kitchen",
                   "living room", "outside", "workshop"})
#: Portals ScienceWorld lists among a holder's contents (a sink's drain): a state of their holder,
#: not a thing (its object tree, hence the facts, holds no portal).
PORTALS = frozenset({"drain"})
_ARTICLE = re.compile(r"(?:an?|An?|the|The) ")
_ROOM = re.compile(r"This (?:room|outside location) is called the ([^.\n]+)\.")
_INSIDE = re.compile(r"^Inside the (.+?) is:\s*\n", re.M)
_DOOR = re.compile(r"A door to the (.+?) \(that is (open|closed|locked)\)")
_INVENTORY = re.compile(r"In your inventory, you see:\s*\n")
_STATE = re.compile(r", which is (?:turned )?(on|off|activated|deactivated|open|closed|locked)\b\.?")
_READING = re.compile(r", currently reading [^,.()]*")
_STAGE = re.compile(r" in the ([\w ]+?) stage")
_TITLED = re.compile(r" titled [^,()]*")
_DOOR_SENTENCE = re.compile(r"\.?\s*The (.+?) door is (open|closed|locked)\.")
_HOLDS = re.compile(r"\.?\s*(On|In) the (.+?) (?:is|you see):\s*")
_UNWELL = re.compile(r" \(that [^()]*\)")
_GLUED = re.compile(r"(\S)(its (?:terminal \d|anode|cathode) )")
#: ScienceWorld's device words -> the facts' values (:mod:`~textmem_gym.envs.scienceworld.facts`).
DEVICE_STATES = {"on": "activated", "off": "deactivated", "activated": "activated", "deactivated": "deactivated"}


@dataclass
class Thing:
    """One described thing.

    Attributes:
        name: Its printed name, without article.
        states: ``open``/``closed``/``locked`` and ``activated``/``deactivated`` as printed.
        contents: What the description lists in or on it (``None``: its contents are not shown;
            ``[]``: shown empty, ``nothing``).
        relation: ``in`` or ``on`` (``On the table is:``, ``On the apple tree you see:``) for its contents.
        stage: A living thing's life stage (``in the seedling stage``).
    """

    name: str
    states: list[str] = field(default_factory=list)
    contents: list[Thing] | None = None
    relation: str = "in"
    stage: str | None = None

    def walk(self) -> Iterator[tuple[Thing, Thing]]:
        """``(thing, holder)`` of everything it holds, at any depth."""
        for child in self.contents or ():
            yield child, self
            yield from child.walk()


@dataclass
class View:
    """What one text shows of a place or a thing.

    Attributes:
        room: The room described (``None``: the text describes no room).
        things: The things listed at the top (in the room, the inventory, or the thing looked at).
        doors: Other room -> state of the door to it.
    """

    room: str | None = None
    things: list[Thing] = field(default_factory=list)
    doors: dict[str, str] = field(default_factory=dict)

    def placed(self) -> list[tuple[Thing, str]]:
        """``(thing, holder name)`` of everything shown: top-level things are ``at`` the room
        (their ``relation`` is then ``at``), nested ones ``in``/``on`` their holder."""
        out: list[tuple[Thing, str]] = []
        for top in self.things:
            out.append((Thing(top.name, top.states, top.contents, "at", top.stage), self.room or ""))
            out += [(Thing(c.name, c.states, c.contents, holder.relation, c.stage), holder.name)
                    for c, holder in top.walk()]
        return out

    def all_things(self) -> list[Thing]:
        """Every thing shown, at any depth."""
        return [t for top in self.things for t in (top, *(c for c, _ in top.walk()))]


def _name(text: str, i: int) -> tuple[str, int]:
    """The name starting at ``i`` (article already skipped) and where it ends."""
    j = i
    while j < len(text):
        if text.startswith(" (containing ", j) or text.startswith(" (that ", j):
            break
        if text.startswith(" (", j) and (close := text.find(")", j)) > 0:  # a book's title: part of the name
            j = close + 1
            continue
        if text[j] in ",.()\n" or _STAGE.match(text, j) or text.startswith(" titled ", j):
            break
        j += 1
    return text[i:j].strip(), j


def _skip_spaces(text: str, i: int) -> int:
    while i < len(text) and text[i] == " ":
        i += 1
    return i


def _list(text: str, i: int) -> tuple[list[Thing], int]:
    """A list (``nothing`` or descriptions joined by ``", "``) starting at ``i``."""
    if text.startswith("nothing", i):
        return [], i + len("nothing")
    items: list[Thing] = []
    while True:
        thing, j = _description(text, i)
        if j == i or not thing.name:
            break
        items.append(thing)
        k = _skip_spaces(text, j)
        if not text.startswith(", ", k):
            i = j
            break
        i = k + 2
    return items, i


def _close_list(text: str, i: int, closer: str) -> int:
    """Past the list's closing ``)`` or ``.`` (spaces and an item's own period allowed before it)."""
    k = _skip_spaces(text, i)
    if closer == ")" and text.startswith(".", k) and text.startswith(")", _skip_spaces(text, k + 1)):
        k = _skip_spaces(text, k + 1)
    return k + 1 if text.startswith(closer, k) else i


def _description(text: str, i: int) -> tuple[Thing, int]:
    """One thing's description starting at ``i``."""
    if (article := _ARTICLE.match(text, i)) is not None:
        i = article.end()
    if text.startswith("substance called ", i):
        i += len("substance called ")
    name, j = _name(text, i)
    thing = Thing(name)
    while j < len(text):
        if text.startswith(" (containing ", j):
            thing.contents, j = _list(text, j + len(" (containing "))
            j = _close_list(text, j, ")")
        elif (m := _UNWELL.match(text, j)) or (m := _READING.match(text, j)) or (m := _TITLED.match(text, j)):
            j = m.end()
        elif (m := _STATE.match(text, j)) is not None:
            thing.states.append(m.group(1))
            j = m.end()
        elif (m := _STAGE.match(text, j)) is not None:
            thing.stage, j = m.group(1), m.end()
        elif (m := _DOOR_SENTENCE.match(text, j)) is not None:
            thing.states.append(m.group(2))
            j = m.end()
        elif (m := _HOLDS.match(text, j)) is not None and m.group(2) == name:
            thing.relation = m.group(1).lower()
            thing.contents, j = _list(text, m.end())
            j = _close_list(text, j, ".")
        else:
            break
    return thing, j


def read_description(text: str) -> Thing:
    """The :class:`Thing` of one description (a ``look at`` answer, one line of a room)."""
    flat = _GLUED.sub(r"\1. \2", re.sub(r":\s*\n\t", ": ", text.strip()).replace("\n\t", ", "))
    return _description(flat, 0)[0]


def _lines(block: str) -> list[Thing]:
    """One thing per line; a line ending ``is:`` holds every line after it (ScienceWorld lists a
    carried table's contents one per line, at the same indentation)."""
    lines = [line for line in block.split("\n") if line.strip()]
    things = []
    for i, line in enumerate(lines):
        if line.rstrip().endswith(":"):
            things.append(read_description("\n".join(lines[i:])))
            break
        things.append(read_description(line))
    return [t for t in things if t.name and t.name not in (AGENT, "nothing")]


def read_room(text: str) -> View | None:
    """The :class:`View` of a room description (``look around``, ``look in <room>``), else ``None``."""
    match = _ROOM.search(text)
    if match is not None:
        body = text[match.end():]
        start = body.find("\n")
        things, _, portals = body[start + 1 if start >= 0 else len(body):].partition("You also see:")
        room = match.group(1).strip()
    elif (inside := _INSIDE.search(text)) is not None and "You also see:" in text:
        things, _, portals = text[inside.end():].partition("You also see:")
        room = inside.group(1).strip()
    else:
        return None
    view = View(room, _lines(things))
    view.doors = {other.strip(): state for other, state in _DOOR.findall(portals)}
    return view


def read_inside(text: str) -> tuple[str, list[Thing]] | None:
    """``(holder, things)`` of a ``look in <thing>`` answer (``Inside the X is: ...``) that shows
    no room, else ``None``."""
    inside = _INSIDE.search(text)
    if inside is None or "You also see:" in text:
        return None
    return inside.group(1).strip(), _lines(text[inside.end():])


def read_inventory(text: str) -> list[Thing] | None:
    """The things of an ``inventory`` answer, else ``None``."""
    match = _INVENTORY.search(text)
    return None if match is None else _lines(text[match.end():].split("\n\n", 1)[0])


def read_doors(text: str) -> dict[str, str]:
    """Other room -> door state of each ``A door to the X (that is open)`` in ``text``."""
    return {other.strip(): state for other, state in _DOOR.findall(text)}


def name_of(text: str) -> str:
    """A name as ScienceWorld prints it in a sentence, without article (``"the red apple"`` -> ``"red apple"``)."""
    text = text.strip()
    if (article := _ARTICLE.match(text)) is not None:
        text = text[article.end():]
    return text.removeprefix("substance called ").strip()


def same_thing(printed: str, name: str) -> bool:
    """Whether ``printed`` (a name as a description prints it) names the thing ScienceWorld
    calls ``name`` (its short name, in feedback and in the facts): the same, or the name after
    a colour or a life stage (``red apple``/``apple``, ``adult bee``/``bee 3``), or its egg."""
    printed, name = printed.lower(), name.lower()
    base = re.sub(r" \d+$", "", name)
    return printed == name or printed.endswith(" " + base) or printed == base + " egg"
