"""Jericho text for memory: the Jericho envs' text parser and the matching ground truth.

The Jericho env hands this parser over (:attr:`~textmem_gym.envs.jericho.env.JerichoEnv.text_parser`
names :class:`JerichoRules`; :class:`~textmem_gym.wrappers.MemoryGraphWrapper` passes it to the
memory's extractor), so no memory guesses that it plays an Infocom game; nothing in the memories
imports this module.

Infocom's games (and Inform's, which copied them) print a room as a title line followed by its
description and a list of what lies there; feedback is terse. The parser reads the parts those
games print the same way in every game, with the names as the game prints them:

=====================================================  ===================================================
Jericho text                                           triples
=====================================================  ===================================================
a title line after a move, ``look``, a lamp lit        the believed room (``location``): ``West of House``,
                                                       ``<< Closet >>``
``There is a small mailbox here.``                     ``("small mailbox", "is at", "west of house")``
(also ``A X is here.``, ``You can see X here.``)
``The glass bottle contains:`` + indented lines        ``("quantity of water", "is in", "glass bottle")``
``Sitting on the table is:`` + indented lines          ``(x, "is on", "table")``
``Opening the small mailbox reveals a leaflet.``       ``("small mailbox", "is", "open")``,
                                                       ``("leaflet", "is in", "small mailbox")``
(Inform: ``You open the box, revealing a key.``)
``Taken.`` / ``Dropped.``, ``lamp: Taken.``            ``(x, "is in", "inventory")`` / ``(x, "is at", room)``
                                                       (x: the command's object, when the game printed
                                                       that name plainly before; for ``Taken.``, else
                                                       the player's word as the last room printed it)
(Inform's ``Removed.``: taken from a container)
``You are carrying:`` + indented lines (nested)        ``(x, "is in", "inventory")``, ``(y, "is in", x)``
a move that printed another room's title               ``(room b, "is north of", room a)``,
                                                       ``(room a, "has exit", "north")``
``Opened.`` / ``The lid is now open.``                 ``("lid", "is", "open")``
=====================================================  ===================================================

A room described again is a snapshot: believed things of the room that it no longer lists are
invalidated, as are believed contents of a container whose list was printed; an inventory answer
replaces the believed inventory. A move into the dark ("It is pitch black") makes the believed room
:data:`~textmem_gym.memory.extractors.rules.DARK_PLACE`: what happens there has no believed room.

With the game's own words (``info["vocabulary"]`` at reset, its dictionary: :class:`Vocabulary`; not
privileged, it says which words can name a thing, never where one is) it also reads holders a room's
description puts something on or in as things of that room (unless a holder of that name showed up in
another room), places about a room (``in the corner``) as the room, a thing here named by one word of
the game's (``A skeleton ... lies here.``), and a list naming no holder as the room's one holder's.

What it cannot see: the object tree's short name where the prose prints a longer phrase (``an elvish
sword of great antiquity``: ``sword``; every word is the game's, so the dictionary cannot pick): it keeps
the printed name, which belief accuracy aligns with the tree's (below); scenery named only in a room's
first paragraph (the front door of the white house); rooms or holders that share a name; exits not
walked; things leaving the inventory in prose; anything carried by someone else.

The ground truth (:class:`JerichoObservedTruth`) is the Z-machine object tree
(:func:`~textmem_gym.memory.ground_truth.map_jericho_facts`) restricted to what the text showed: a
thing counts once its name (as the tree prints it) and its holder's name appear in one observation
(the room by its title), once it moved into the inventory or a described room on a command naming
it, or once the inventory listed it; a move's two rooms once walked (both ways, until a walk shows
otherwise); a thing on a holder the text never named is at the room once the room's list says it is
``here``. Containers and supporters are one relation in the tree: a holder counts as a supporter
(``is on``) once the text printed "on the <holder>". Open/closed states are not in the tree: the
tracker declares the ``state`` class unchecked, and belief accuracy counts believed states as
unverifiable. The tree's short names are often the tail of what the prose printed (``sword`` for "an
elvish sword", ``gold coffin`` for "the solid-gold coffin"): the tracker aligns names
(:class:`~textmem_gym.memory.belief_metrics.AlignsNames`), so belief accuracy reads a believed name
whose words end with a tree name's, or the other way round, as that tree name when the pair is unique
among the names in view (:func:`~textmem_gym.memory.belief_metrics.head_phrase_alignment`).

Example:
    >>> from textmem_gym.memory.semantic import TripleStore
    >>> rules = JerichoRules()
    >>> out = rules.extract("West of House\\nYou are standing in an open field west of a white house.\\n"
    ...                     "There is a small mailbox here.", "", {}, TripleStore())
    >>> out.location, out.triples
    ('west of house', [('small mailbox', 'is at', 'west of house')])
    >>> rules.extract("Opening the small mailbox reveals a leaflet.", "open mailbox", {}, TripleStore()).triples
    [('leaflet', 'is in', 'small mailbox'), ('small mailbox', 'is', 'open')]
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from textmem_gym.envs.privileged import FactTriple
from textmem_gym.memory.belief_metrics import head_phrase_alignment
from textmem_gym.memory.extractors.base import Extraction
from textmem_gym.memory.extractors.rules import DARK_PLACE, IF_TITLE, describes_darkness, move_direction
from textmem_gym.memory.ground_truth import map_jericho_facts
from textmem_gym.memory.semantic import (
    AT,
    HAS_EXIT,
    IN,
    INVENTORY,
    IS,
    LOCATION_RELATIONS,
    ON,
    OPPOSITE,
    Triple,
    TripleKey,
    TripleStore,
    direction_relation,
    exclusive_conflicts,
    normalize,
)

# -- room titles ------------------------------------------------------------------------------
#: Inform's bracketed titles (``<< Closet >>``).
_BRACKETED = re.compile(r"^\s*<<\s*(.+?)\s*>>\s*$")
#: A title's trailing position (``Bedroom (on the bed)``, Zork's ``Sandy Beach, in the magic boat``).
_POSTURE = re.compile(r"\s*\((?:on|in|sitting on|lying on|standing on)\b[^)]*\)\s*$"
                      r"|,\s+(?:in|on) the [a-z][\w' -]*$")
#: A title with a comma (``Street, by Pizza Parlor``): title-case parts.
_COMMA_TITLE = re.compile(r"^[A-Z][\w'-]*(?: [A-Z][\w'-]*)*, (?:(?:by|near|in|on|at|of|the) )*[A-Z][\w'-]*"
                          r"(?: (?:[A-Z][\w'-]*|of|the|and|in|on|at|a|an|to|by))*$")
#: A title's own parenthesized part (``Maintanence Stairwell (Top)``).
_PART = re.compile(r" \([A-Z][\w'-]*(?: [A-Za-z][\w'-]*)*\)$")
#: Title-case lines that are never rooms.
_NOT_ROOMS = frozenset({"taken", "dropped", "ok", "okay", "done", "opened", "closed", "time passes", "darkness",
                        "oh", "what", "huh", "nothing happens", "yes", "no", "sorry", "thanks", "thank you", "hello",
                        "hi", "really", "fine", "nothing", "the end", "you have died", "you have won"})
#: Commands whose answer may print title-case lines that are no room (a book, a letter, a sign).
_READING = frozenset({"read", "examine", "x", "look at", "consult", "answer", "say", "ask", "tell"})


def _verb(action: str) -> str:
    words = action.strip().lower().split()
    if len(words) > 1 and words[0] in ("look", "l") and words[1] in ("at", "in", "inside", "under", "on"):
        return "look at"
    return words[0] if words else ""


def _title(line: str, bracketed: bool) -> str | None:
    """The room a title line names, else ``None``."""
    match = _BRACKETED.match(line)
    if match:
        return match.group(1)
    if bracketed:
        return None
    title = _POSTURE.sub("", line.strip())
    plain = _PART.sub("", title)  # "Maintanence Stairwell (Top)": the room's own name keeps its part
    if not (2 < len(title) <= 40 and (IF_TITLE.match(plain) or _COMMA_TITLE.match(plain))) \
            or title.lower() in _NOT_ROOMS:
        return None
    if len(title) > 3 and title.upper() == title:  # a banner (ZORK, ENCHANTER), not a room
        return None
    return title


def room_titles(text: str, action: str = "") -> list[tuple[int, str]]:
    """``(line index, room)`` of the room titles in ``text`` (none in the answer to ``read``/``examine``:
    a book or a letter prints title-case lines).

    Example:
        >>> room_titles("The brass lantern is now on.\\n\\nAttic\\nThis is the attic.", "light lamp")
        [(2, 'Attic')]
        >>> room_titles("<< Closet >>\\nYou are in a closet.", "west"), room_titles("Matt Barringer", "read paper")
        ([(0, 'Closet')], [])
    """
    if _verb(action) in _READING:
        return []
    lines = text.splitlines()
    bracketed = any(_BRACKETED.match(line) for line in lines)
    return [(i, title) for i, line in enumerate(lines) if (title := _title(line, bracketed)) is not None]


# -- names ------------------------------------------------------------------------------------
_ARTICLES = ("a ", "an ", "the ", "some ", "your ")


def bare(phrase: str) -> str:
    """``phrase`` without its article and closing punctuation (``"A brass lantern."`` -> ``"brass lantern"``)."""
    phrase = " ".join(phrase.split()).strip(" .!")
    low = phrase.lower()
    for article in _ARTICLES:
        if low.startswith(article):
            return phrase[len(article):].strip()
    return phrase


#: ``and`` between two capitalized words, inside a title-case name (``the Legends and Lore of Pentari``).
_TITLE_AND = re.compile(r"\b([A-Z][\w'-]*) and (?=[A-Z])")


def split_things(text: str) -> list[str]:
    """``"a lunch, and a clove of garlic"`` -> ``["lunch", "clove of garlic"]`` (Inform's
    parenthesized remarks dropped); an ``and`` between two capitalized words is part of a title.

    Example:
        >>> split_things("a sword and a copy of the Legends and Lore of Pentari")
        ['sword', 'copy of the Legends and Lore of Pentari']
    """
    text = _TITLE_AND.sub(lambda m: m.group(1) + " \x00 ", re.sub(r"\([^)]*\)", "", text))
    parts = re.split(r",\s*(?:and\s+)?|\s+and\s+", text.strip().rstrip(".!"))
    return [name for name in (bare(p.replace(" \x00 ", " and ")) for p in parts) if name]


@lru_cache(maxsize=8192)
def _name_pattern(name: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![\w-]){re.escape(name)}(?:e?s)?(?![\w-])")


def printed(name: str, text: str) -> bool:
    """Whether ``name`` appears in ``text`` as a whole phrase (lower case; a plural allowed)."""
    return bool(name) and _name_pattern(name.lower()).search(text) is not None


# -- what one text shows ----------------------------------------------------------------------
@dataclass
class JerichoView:
    """What one observation says, in the game's own names.

    Attributes:
        rooms: The rooms whose titles it printed, in order (the last one: where the player is).
        things: ``(thing, relation, holder, block, plain)`` read: ``holder`` ``None`` for the room
            ``rooms[block]`` (``block`` -1: none); ``plain``: the game's own name (a list, ``There is a
            X here``), else a phrase of prose to resolve against plain names.
        states: Thing -> ``open``/``closed``.
        inventory: The things carried, when the text is an inventory list (``[]``: empty-handed).
        taken: Things the text says were taken (``lamp: Taken.``), and ``None`` for a bare ``Taken.``.
        dropped: Things the text says were dropped, and ``None`` for a bare ``Dropped.``.
        listed: Holders whose whole content was listed (``The brown sack contains:``).
        dark: The text says the player moved into the dark.
        done: The text is Infocom's ``Done.`` (a ``put`` succeeded).
    """

    rooms: list[str] = field(default_factory=list)
    things: list[tuple[str, str, str | None, int, bool]] = field(default_factory=list)
    states: dict[str, str] = field(default_factory=dict)
    inventory: list[str] | None = None
    taken: list[str | None] = field(default_factory=list)
    dropped: list[str | None] = field(default_factory=list)
    listed: set[str] = field(default_factory=set)
    dark: bool = False
    done: bool = False


_HERE = r"(?:here|nearby)"
_THING = r"(?:an?|the|some|two|three|four|five|\d+)\s+(?P<thing>.+?)"
#: Standard listings: the game prints its own short names.
_PLAIN: tuple[re.Pattern[str], ...] = (
    re.compile(rf"^There (?:is|are) {_THING}(?: [a-z]{{4,}}ed)? {_HERE}\b.*$"),  # "a cage discarded nearby"
    re.compile(rf"^(?:An?|Some) (?P<thing>.+?) (?:is|are) {_HERE}\.?$"),
    re.compile(rf"^You (?:can )?(?:also )?see (?P<thing>.+?) {_HERE}\.?$"),
)
#: A listed phrase that describes rather than names (``silver chalice, intricately engraved``).
_DESCRIBED = re.compile(r",|\b(?:which|whose|that|used|bulging|on the|in the)\b")
#: Prose about a thing here, on or in a holder (names resolved against plainly printed ones).
_PROSE: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"^The (?P<thing>.+?) (?:is|are) here[.!]$"), AT),
    (re.compile(rf"^(?:Sitting|Lying|Resting) on (?:the|a|an) (?P<holder>.+?) is {_THING}[.!]$"), ON),
    (re.compile(rf"^On (?:the|a|an) (?P<holder>.+?) (?:is|are|sits|lies) {_THING}[.!]$"), ON),
    (re.compile(rf"^In (?:the|a|an) (?P<holder>.+?) (?:is|are|sits|lies) {_THING}[.!]$"), IN),
    (re.compile(r"^(?:An?|The|Some) (?P<thing>.+?),? (?:lies|sits|stands|rests|hangs|lie|sit|stand|rest|hang) "
                r"here[.!]$"), AT),
    (re.compile(rf"^(?:Beside|Near|Next to|Behind|Below|Beneath|Under|Above|At) (?:the|a|an|you)\b.*? "
                rf"(?:is|are|lies|sits|stands|rests|hangs) {_THING}[.!]$"), AT),
    (re.compile(r"^(?:An?|The|Some) (?P<thing>.+?) (?:is|are) (?:sitting |lying |resting )?on (?:the|a|an) "
                r"(?P<holder>.+?)[.!]$"), ON),
    (re.compile(r"^(?:An?|The|Some) (?P<thing>.+?) (?:is|are) (?:sitting |lying )?in (?:the|a|an) "
                r"(?P<holder>.+?)[.!]$"), IN),
)
_LIST_HEAD: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"^(?:The|Your) (?P<holder>.+?) contains?:$"), IN),
    (re.compile(r"^Your collection of (?P<holder>)treasures consists of:$"), IN),  # Zork's case: names, no holder
    (re.compile(r"^(?:Sitting|Lying|Resting) on (?:the|a|an) (?P<holder>.+?) (?:is|are):$"), ON),
    (re.compile(r"^On (?:the|a|an) (?P<holder>.+?) (?:is|are):$"), ON),
    (re.compile(r"^In (?:the|a|an) (?P<holder>.+?) (?:is|are):$"), IN),
)
#: Infocom's ``Opening the X reveals Y.`` and Inform's library ``You open the X, revealing Y.``
_REVEALS = re.compile(r"^(?:Opening (?:the|a|an) (?P<holder>.+?) reveals|"
                      r"You open (?:the|a|an) (?P<opened>.+?), revealing) (?P<list>.+?)\.$")
_NOW = re.compile(r"^(?:The|Your) (?P<thing>.+?) is now (?P<state>open|closed)\.$")
_CARRYING = re.compile(r"^You are (?:carrying|holding)(?::| nothing\.?| only:?)\s*(?P<rest>.*)$")
_EMPTY_HANDED = re.compile(r"^You are empty-handed\.?$|^You are carrying nothing\.?$|^You have nothing\.?$")
_TAKEN = re.compile(r"^(?:(?P<thing>[^:]+?): )?(?:Taken|Removed|Picked up|You take it|You pick it up|"
                    r"You are now wearing (?:the )?(?P<worn>.+?))\.$")
_DROPPED = re.compile(r"^(?:(?P<thing>[^:]+?): )?(?:Dropped|You drop it)\.$")
_TERSE_STATE = {"opened.": "open", "closed.": "closed"}
_PUT = frozenset({"put", "place", "insert", "throw", "toss", "drop"})
_TIE = frozenset({"tie", "attach", "fasten", "hang"})


def _depth(line: str) -> int:
    return len(line) - len(line.lstrip())


def _read_list(lines: list[str], start: int, holder: str, relation: str, view: JerichoView,
               depth: int) -> int:
    """Reads the indented lines under a list head (nested heads recurse); returns the next line."""
    view.listed.add(holder)
    i = start
    while i < len(lines) and lines[i].strip() and _depth(lines[i]) > depth:
        line = lines[i].strip()
        head = _list_head(line)
        if head is not None:
            inner, inner_relation = head
            if (inner, relation, holder, -1, True) not in view.things:  # "A brown sack", then its content
                view.things.append((inner, relation, holder, -1, True))
            i = _read_list(lines, i + 1, inner, inner_relation, view, _depth(lines[i]))
            continue
        for name in split_things(line):
            view.things.append((name, relation, holder, -1, True))
        i += 1
    return i


def _list_head(line: str) -> tuple[str, str] | None:
    for pattern, relation in _LIST_HEAD:
        match = pattern.match(line)
        if match:
            return bare(match.group("holder")), relation
    return None


def read_jericho(text: str, action: str = "") -> JerichoView:
    """What ``text`` (one observation) says; see the module docstring.

    Example:
        >>> view = read_jericho("You are carrying:\\n  A brass lantern\\n  The glass bottle contains:\\n"
        ...                     "    A quantity of water", "inventory")
        >>> view.inventory, view.things
        (['brass lantern', 'glass bottle'], [('quantity of water', 'is in', 'glass bottle', -1, True)])
    """
    view = JerichoView()
    lines = text.splitlines()
    titles = dict(room_titles(text, action))
    view.dark = describes_darkness(text, action)
    block = -1  # index in view.rooms of the room whose description is being read (-1: feedback)
    i = 0
    while i < len(lines):
        line = lines[i].strip()
        if i in titles:
            view.rooms.append(titles[i])
            block = len(view.rooms) - 1
            i += 1
            continue
        if not line:
            i += 1
            continue
        carrying = _CARRYING.match(line)
        if carrying is not None:
            i = _read_inventory(lines, i, carrying.group("rest"), view)
            continue
        if _EMPTY_HANDED.match(line):
            view.inventory = []
            i += 1
            continue
        head = _list_head(line)
        if head is not None:
            i = _read_list(lines, i + 1, head[0], head[1], view, _depth(lines[i]))
            continue
        _read_line(line, block, view)
        i += 1
    return view


def _read_inventory(lines: list[str], i: int, rest: str, view: JerichoView) -> int:
    if rest.strip() and not rest.strip().endswith(":"):
        view.inventory = split_things(rest)
        return i + 1
    inventory = JerichoView()
    end = _read_list(lines, i + 1, INVENTORY, IN, inventory, _depth(lines[i]))
    view.inventory = [t for t, _, h, _, _ in inventory.things if h == INVENTORY]
    view.things += [t for t in inventory.things if t[2] != INVENTORY]
    view.listed |= inventory.listed - {INVENTORY}
    return end


def _read_line(line: str, block: int, view: JerichoView) -> None:
    """One line of a room description or of feedback."""
    taken, dropped = _TAKEN.match(line), _DROPPED.match(line)
    if taken:
        thing = taken.group("thing") or taken.group("worn")
        view.taken.append(bare(thing) if thing else None)
        return
    if dropped:
        view.dropped.append(bare(dropped.group("thing")) if dropped.group("thing") else None)
        return
    if line.lower() == "done.":
        view.done = True
        return
    if line.lower() in _TERSE_STATE:
        view.states[""] = _TERSE_STATE[line.lower()]
        return
    reveals = _REVEALS.match(line)
    if reveals:
        holder = bare(reveals.group("holder") or reveals.group("opened"))
        view.states[holder] = "open"
        view.things += [(name, IN, holder, -1, True) for name in split_things(reveals.group("list"))
                        if name.lower() != "nothing"]
        view.listed.add(holder)
        return
    now = _NOW.match(line)
    if now:
        view.states[bare(now.group("thing"))] = now.group("state")
        return
    for sentence in re.split(r"(?<=[.!?])\s+", line):
        _read_sentence(sentence.strip(), block, view)


def _read_sentence(sentence: str, block: int, view: JerichoView) -> None:
    if block < 0:
        return
    for pattern in _PLAIN:
        match = pattern.match(sentence)
        thing = re.sub(r"\s*\([^)]*\)", "", match.group("thing")) if match else ""  # "your Car (which is closed)"
        if match and _DESCRIBED.search(thing):  # "a silver chalice, intricately engraved,"
            view.things.append((_head(thing), AT, None, block, False))
            return
        if match:
            view.things += [(name, AT, None, block, True) for name in split_things(thing)]
            return
    for pattern, relation in _PROSE:
        match = pattern.match(sentence)
        if match:
            holder = match.groupdict().get("holder")
            view.things.append((_head(match.group("thing")), relation, bare(holder) if holder else None, block, False))
            return


def _head(phrase: str) -> str:
    """A prose phrase up to its first comma or relative clause (``flaming torch, made of ivory``)."""
    phrase = re.split(r",|\s+(?:which|that|who|whose|with|of great|smelling|open to)\s", phrase, maxsplit=1)[0]
    return bare(phrase)


# -- the game's words -------------------------------------------------------------------------
#: Words before a noun that leave it the game's whole name (``coil of rope``: ``rope``).
_NAME_STARTS = frozenset({"", "a", "an", "the", "some", "of", "your", "his", "her", "its", "their"})
#: Nouns of a place about a room rather than a thing in it (``on the ground``, ``in the corner``).
_PLACE_NOUNS = frozenset({"ground", "floor", "wall", "walls", "ceiling", "corner", "branch", "room", "sky",
                          "air", "shore", "bank", "north", "south", "east", "west", "here", "there"})


class Vocabulary:
    """The words the game's parser knows (``info["vocabulary"]`` at reset: the story file's dictionary,
    words cut at its length, 6 or 9 letters). Not privileged: any player can type any word; it tells which
    words can name a thing, never where a thing is.

    Example:
        >>> words = Vocabulary(["a", "bird", "birds", "brass", "lanter", "nest", "hand-", "pump"])
        >>> words.knows("brass lantern"), words.knows("battery-powered brass lantern"), words.knows("bird's nest")
        (True, False, True)
        >>> words.game_words("battery-powered brass lantern"), Vocabulary([]).knows("anything")
        ('brass lantern', True)
        >>> words.game_words("copy of a lantern")  # a name's middle is no name
        ''
    """

    def __init__(self, words: Iterable[str]) -> None:
        self.words = frozenset(w.lower() for w in words)
        self.cut = max((len(w) for w in self.words), default=0)

    def knows_word(self, word: str) -> bool:
        """Whether the game's parser reads ``word`` (cut as the dictionary cuts; ``bird's`` as ``birds``)."""
        word = word.lower()
        forms = {word, word.replace("'", ""), re.sub(r"'s$", "", word)}
        return any(self._known(form) for form in forms)

    def _known(self, word: str) -> bool:
        return word in self.words or _cut(word, self.cut) in self.words

    def knows(self, name: str) -> bool:
        """Whether every word of ``name`` is the game's (always, for a game whose words are not known)."""
        return not self.words or all(self.knows_word(w) for w in re.findall(r"[\w'-]+", name))

    def game_words(self, phrase: str) -> str:
        """The end of ``phrase`` made of the game's words (``battery-powered brass lantern`` ->
        ``brass lantern``; ``""`` when its last word is not the game's)."""
        words = phrase.split()
        start = len(words)
        while start > 0 and self.knows(words[start - 1]):
            start -= 1
        if 0 < start < len(words) and words[start].lower() in _NAME_STARTS | {"and"}:
            return ""  # the run starts inside a phrase ("copy of the legends"): no name
        return " ".join(words[start:])


def _cut(word: str, length: int) -> str:
    """``word`` as a dictionary of ``length`` Z-characters stores it (a letter takes one, any other
    character two: ``hand-held`` -> ``hand-``).

    Example:
        >>> _cut("lantern", 6), _cut("hand-held", 6), _cut("ab", 6)
        ('lanter', 'hand-', 'ab')
    """
    kept, used = [], 0
    for char in word:
        used += 1 if "a" <= char <= "z" else 2
        if used > length:
            break
        kept.append(char)
    return "".join(kept)


# -- the parser -------------------------------------------------------------------------------
class JerichoRules:
    """The Jericho envs' :class:`~textmem_gym.memory.extractors.base.TextParser` (see the module docstring).

    Attributes:
        location: The room the agent is in, as the text last showed it (:data:`DARK_PLACE` in the dark).
        names: Things the game printed by their plain names (in a list, ``There is a X here``,
            ``lamp: Taken.``, an inventory): prose and commands are resolved against them.
        holders: Holders the text named (``Sitting on the pedestal``): ``put`` commands are resolved
            against them too.
        vocabulary: The game's own words (:class:`Vocabulary`, from ``info["vocabulary"]`` at reset; empty
            until then, and the readings that need it are not made).
        fixtures: Holder -> the room whose description put something on or in it (believed there).
        ambiguous: Holders of one name seen in two rooms (believed in neither).
    """

    def __init__(self) -> None:
        self.location: str | None = None
        self.names: set[str] = set()
        self.holders: set[str] = set()
        self.kinds = HolderKinds()
        self.typed: set[str] = set()
        self.fixtures: dict[str, str] = {}
        self.ambiguous: set[str] = set()
        self.vocabulary = Vocabulary(())
        self._room_text = ""

    def extract(self, observation: str, action: str, info: dict[str, Any], store: TripleStore) -> Extraction:
        """Triples of one step and the believed ones it shows to be gone."""
        out = Extraction()
        if "vocabulary" in info:  # at reset: the game's own words
            self.vocabulary = Vocabulary(info["vocabulary"])
        view = read_jericho(observation, action)
        self.kinds.read(observation.lower())
        if view.rooms:
            self._room_text = observation.lower()
        self._learn_names(out, view, store)
        previous = self.location
        if view.rooms:
            self._walked(out, previous, normalize(view.rooms[0]), action)
            self.location = normalize(view.rooms[-1])
        elif view.dark:
            self.location = DARK_PLACE
        self._things(out, view, store)
        self._feedback(out, view, observation, action, store)
        self._let_go(out, observation, action, store)
        out.location = self.location
        return out

    def outdated(self, existing: Sequence[Triple], new: Sequence[TripleKey]) -> list[Triple]:
        """Structural replacement (one location per thing, one state, one neighbour per direction)."""
        return exclusive_conflicts(existing, new)

    @staticmethod
    def observed_truth() -> JerichoObservedTruth:
        """The ground truth of the Jericho envs' object tree in this parser's vocabulary."""
        return JerichoObservedTruth()

    @staticmethod
    def builds(name: str) -> bool:
        """Every name comes from the game's text as printed (none is built)."""
        return False

    # -- reading --------------------------------------------------------------------------
    def _learn_names(self, out: Extraction, view: JerichoView, store: TripleStore) -> None:
        """Learns the plain names ``view`` prints; a longer name believed before that ends with a new
        one (``exquisite jade figurine``, then ``A jade figurine``) was the same thing described: its
        believed places are dropped (the short name is the game's own)."""
        view.things = [(self._game_name(t), r, h, b, plain) if plain else (t, r, h, b, plain)
                       for t, r, h, b, plain in view.things]
        new = {normalize(t) for t, _, _, _, plain in view.things if plain}
        new |= {normalize(t) for t in (*view.taken, *view.dropped, *(view.inventory or ())) if t}
        new |= {normalize(t) for t in view.states if t}
        for name in new - self.names:
            for other in [n for n in self.names if n.endswith(" " + name)]:  # a longer name: the thing described
                self.names.discard(other)
                out.outdated += [t.as_tuple() for t in store.incident(other)
                                 if t.subject == other and t.relation in LOCATION_RELATIONS]
            for other in [n for n in self.typed if name.endswith(" " + n) or name.startswith(n + " of ")]:
                # the player's word for this thing (``coffin``: ``gold coffin``; ``pot``: ``pot of gold``)
                self.names.discard(other)
                self.typed.discard(other)
                places = [t.as_tuple() for t in store.incident(other)
                          if t.subject == other and t.relation in LOCATION_RELATIONS]
                out.outdated += places
                out.triples += [(name, relation, holder) for _, relation, holder in places]
        self.names |= new
        self.holders |= {normalize(h) for _, _, h, _, _ in view.things if h and h != INVENTORY and _holder_name(h)}

    def _game_name(self, name: str) -> str:
        """A listed name without leading words the game does not know (``folded pile of plastic``, when
        ``folded`` is no word of the game's); itself when none of it is."""
        return self.vocabulary.game_words(name) or name

    def resolve(self, phrase: str) -> str | None:
        """The plainly printed name ``phrase`` stands for (itself, or the longest known name it
        ends with: ``battery-powered brass lantern`` -> ``brass lantern``), else ``None``.

        Example:
            >>> rules = JerichoRules(); rules.names = {"brass lantern", "lantern"}
            >>> rules.resolve("battery-powered brass lantern"), rules.resolve("sword")
            ('brass lantern', None)
        """
        phrase = normalize(phrase)
        if phrase in self.names:
            return phrase
        ends = [n for n in self.names | self.holders if phrase.endswith(" " + n)]
        return max(ends, key=len) if ends else None

    def _one_word(self, word: str) -> str | None:
        """A prose thing named by one word of the game's (``A skeleton ... lies here``): the one known name
        ending with it (``bottle``: ``glass bottle``), else the word itself; ``None`` for anything else, and
        for a game whose words are not known."""
        if " " in word or not self.vocabulary.words or word in _PLACE_NOUNS or word in _NAME_STARTS \
                or not self.vocabulary.knows_word(word):
            return None
        ends = [n for n in self.names | self.holders if n.endswith(" " + word)]
        return ends[0] if len(ends) == 1 else (word if not ends else None)

    def _named(self, phrase: str, typed: bool = False) -> str | None:
        """The known thing a command's object names (``egg`` -> ``jewel-encrusted egg``, when one
        known name alone ends with it); with ``typed`` (``Taken.``), else the one name of the last room's
        text holding the word (``toner``: ``toner cartridge``), else the command's own words when
        the last room description printed them (``get rope`` after ``A large coil of rope is lying in
        the corner.``: ``rope``, learned as a name until a plain name ending with it is printed); else
        ``None``."""
        phrase = normalize(re.sub(r"^(?:the|a|an)\s+", "", phrase.strip(), flags=re.I))
        if not phrase or phrase in ("all", "everything", "it", "them"):
            return None
        known = self.names | self.holders
        if phrase in known:
            return phrase
        ends = [n for n in known if n.endswith(" " + phrase)]
        if ends or not typed:
            return ends[0] if len(ends) == 1 else None
        within = [n for n in self.names if printed(phrase, n) and printed(n, self._room_text)]
        if within:  # ``take toner`` after ``You can see a Toner Cartridge here.``: one of the room's names
            return within[0] if len(within) == 1 else None
        if len(phrase) > 2 and _bare_noun(phrase, self._room_text) and self._whole_name(phrase):
            # the room's prose printed the player's word, with no word of the game's before it
            self.names.add(phrase)
            self.typed.add(phrase)
            return phrase
        return None

    def _whole_name(self, word: str) -> bool:
        """Whether the last room's prose prints ``word`` after no word the game knows but an article
        (``a large coil of rope``: ``rope``; ``a large black book``: the game's name may be ``black book``).
        Always, for a game whose words are not known."""
        before = re.findall(rf"([\w'-]+)\s+{re.escape(word)}(?![\w-])", self._room_text)
        return not any(w not in _NAME_STARTS and self.vocabulary.words and self.vocabulary.knows_word(w)
                       for w in before)

    def _walked(self, out: Extraction, previous: str | None, room: str, action: str) -> None:
        direction = move_direction(action)
        if previous and previous != DARK_PLACE and direction and previous != room:
            out.triples += [(room, direction_relation(direction), previous), (previous, HAS_EXIT, direction)]

    def _things(self, out: Extraction, view: JerichoView, store: TripleStore) -> None:
        rooms = [normalize(r) for r in view.rooms]
        shown: dict[str, set[str]] = {}
        for thing, relation, holder, block, plain in view.things:
            where = normalize(holder) if holder else (rooms[block] if block >= 0 else "")
            if holder == "" and rooms:  # Zork's "Your collection of treasures consists of:": the room's one holder
                where = self._one_fixture(rooms[-1])
            name: str | None = normalize(thing)
            if not plain:  # prose: resolved against plainly printed names; a thing here by one word of the game's
                name = self.resolve(thing) or (self._one_word(normalize(thing)) if relation == AT else None)
                where = (self.resolve(holder) or normalize(holder)) if holder else where
            if holder and block >= 0 and self._place(where):  # ``in the corner``: the room
                holder, where, relation = None, rooms[block], AT
            if holder and block >= 0 and self._fixture(where, rooms[block], view, out):
                out.triples.append((where, AT, rooms[block]))
                shown.setdefault(rooms[block], set()).add(where)
            if name and where and name != where and (not holder or _holder_name(where)):
                if holder is not None and holder != INVENTORY:
                    relation = self.kinds.relation(where, relation)
                out.triples.append((name, relation, where))
                shown.setdefault(where, set()).add(name)
        out.triples += [(normalize(t), IS, state) for t, state in view.states.items() if t]
        for room in rooms:
            self._snapshot(out, store, room, shown.get(room, set()) | set(self.fixtures))
        for holder in view.listed - {INVENTORY}:
            self._snapshot(out, store, normalize(holder), shown.get(normalize(holder), set()), relations=(IN, ON))

    def _one_fixture(self, room: str) -> str:
        """The one holder believed in ``room`` (``""``: none, or several)."""
        held = [holder for holder, at in self.fixtures.items() if at == room and holder not in self.ambiguous]
        return held[0] if len(held) == 1 else ""

    def _place(self, holder: str) -> bool:
        """Whether ``holder`` names a place about the room (``corner of the room``, ``ground``) rather than a thing."""
        return bool(self.vocabulary.words) and (not _holder_name(holder) or holder.split()[-1] in _PLACE_NOUNS)

    def _fixture(self, holder: str, room: str, view: JerichoView, out: Extraction) -> bool:
        """Whether ``holder``, which a line of ``room``'s description puts something on or in (``On the
        altar is``), is a thing of that room by a name the game knows: not a place about the room (``on the
        ground``), not listed in or on something else, every word the game's (only with its words), and no
        holder of the same name seen in another room (Zork's kitchen table and attic table: neither is
        believed)."""
        if not (self.vocabulary.words and holder and holder != room and self.vocabulary.knows(holder)) \
                or holder in self.ambiguous or any(normalize(t) == holder and h for t, _, h, _, _ in view.things):
            return False
        other = self.fixtures.setdefault(holder, room)
        if other != room:
            self.ambiguous.add(holder)
            out.outdated.append((holder, AT, other))
            return False
        return True

    @staticmethod
    def _snapshot(out: Extraction, store: TripleStore, holder: str, shown: set[str],
                  relations: Iterable[str] = (AT,)) -> None:
        """Invalidates what ``holder``'s listing no longer shows."""
        relations = set(relations)
        out.outdated += [t.as_tuple() for t in store.incident(holder)
                         if t.object == holder and t.relation in relations and t.subject not in shown]

    def _feedback(self, out: Extraction, view: JerichoView, observation: str, action: str,
                  store: TripleStore) -> None:
        obj = _object(action)
        lit = None if self.location == DARK_PLACE else self.location
        for thing in view.taken:
            name = normalize(thing) if thing else (self._named(obj, typed=True) if len(view.taken) == 1 else None)
            if name:
                out.triples.append((name, IN, INVENTORY))
        for thing in view.dropped:
            name = normalize(thing) if thing else \
                (self._named(obj) or _carried_within(obj, store) if len(view.dropped) == 1 else None)
            if name and lit:
                out.triples.append((name, AT, lit))
        if "" in view.states and _verb(action) in ("open", "close", "shut"):
            name = self._named(obj)
            if name:
                out.triples.append((name, IS, view.states[""]))
        if (view.done or self._put_told(action, observation)) and _verb(action) in _PUT:
            self._put(out, action, store)
        if view.inventory is not None:
            carried = {normalize(t) for t in view.inventory}
            out.triples += [(t, IN, INVENTORY) for t in sorted(carried)]
            out.outdated += [t.as_tuple() for t in store.incident(INVENTORY)
                             if t.relation == IN and t.object == INVENTORY and t.subject not in carried]


    def _let_go(self, out: Extraction, observation: str, action: str, store: TripleStore) -> None:
        """``tie rope to railing`` answered with the rope's name (``The rope drops over the side``): the
        thing is tied to something else, no longer believed carried; ``The bell ... falls to the ground``:
        a carried thing the game let fall, no longer believed carried."""
        for phrase in _FALLS.findall(observation):
            name = self._named(phrase)
            if name:
                out.outdated += [t.as_tuple() for t in store.incident(name)
                                 if t.subject == name and t.relation == IN and t.object == INVENTORY]
        if _verb(action) not in _TIE:
            return
        name = self._named(_object(action))
        if name and printed(name.split()[-1], observation.lower()):
            out.outdated += [t.as_tuple() for t in store.incident(name)
                             if t.subject == name and t.relation == IN and t.object == INVENTORY]

    @staticmethod
    def _put_told(action: str, observation: str) -> bool:
        """Whether the game answered ``put X in Y`` by telling it in its own words (``When you plug the fuse
        into the generator, it springs to life``): the last words of X and Y, in that order, joined by
        ``in``/``into``/``on``/``onto``."""
        parts = re.split(r"\s+(?:in|into|inside|on|onto)\s+", action.strip().lower(), maxsplit=1)
        if len(parts) != 2 or not parts[0].split()[1:] or not parts[1].split():
            return False
        thing, holder = re.escape(parts[0].split()[-1]), re.escape(parts[1].split()[-1])
        return re.search(rf"\b{thing} (?:in|into|inside|on|onto) (?:the |your )?(?:[\w'-]+ )?{holder}\b",
                         observation.lower()) is not None and not _REFUSED.search(observation)

    def _put(self, out: Extraction, action: str, store: TripleStore) -> None:
        """``put X in Y`` answered ``Done.``: X is in (on) Y, or at least no longer carried."""
        parts = re.split(r"\s+(in|into|inside|on|onto)\s+", action.strip().split(maxsplit=1)[-1], maxsplit=1,
                         flags=re.I)
        thing = self._named(parts[0])
        if thing is None:
            return
        holder = self._named(parts[2]) if len(parts) == 3 else None
        if holder is not None:
            out.triples.append((thing, self.kinds.relation(holder, ON if parts[1].lower() in ("on", "onto") else IN),
                                holder))
        else:
            out.outdated += [t.as_tuple() for t in store.incident(thing)
                             if t.subject == thing and t.relation == IN and t.object == INVENTORY]


#: Words of an answer that refuses.
_REFUSED = re.compile(r"\b(?:can't|cannot|won't|isn't|aren't|don't|doesn't|no room|not|too)\b", re.I)
#: A thing the game lets fall (``The bell suddenly becomes red hot and falls to the ground``).
_FALLS = re.compile(r"\b(?:The|the|Your|your) ([a-z][\w'-]*(?: [a-z][\w'-]*)??) (?:[\w ,'-]+? and )?(?:falls?|drops?) "
                    r"to the (?:ground|floor)\b")
_PLACES = re.compile(r"^(?:front|middle|center|centre|corner|end|side|top|bottom|edge|back|rest|two ends)\b|\bof the\b")


def _bare_noun(word: str, text: str) -> bool:
    """Whether ``text`` prints ``word`` as a noun with at most a plain modifier (``elvish sword``, ``coil of
    rope``), not within a longer compound that is likely the game's own name (``nasty-looking knife``,
    ``egg encrusted with jewels``: ``jewel-encrusted egg``).

    Example:
        >>> _bare_noun("rope", "a large coil of rope is lying here."), _bare_noun("knife", "a nasty-looking knife.")
        (True, False)
    """
    found = False
    pattern = rf"(?<![\w-])(?P<before>[\w'-]+\s+)?{re.escape(word)}(?![\w-])(?P<after>\s+[\w'-]+)?"
    for match in re.finditer(pattern, text):
        before, after = (match.group("before") or "").strip(), (match.group("after") or "").strip()
        if "-" in before or re.fullmatch(r"\w+(?:ed|ing)", after):
            return False
        found = True
    return found


def _carried_within(phrase: str, store: TripleStore) -> str | None:
    """The one believed carried thing whose name holds the command's words, as the game's parser takes
    them: the phrase, or each word among the name's (``drop pile``: ``pile of plastic``; ``drop kitchen
    card``: ``kitchen access card``).

    Example:
        >>> store = TripleStore(); _ = store.add("pile of plastic", IN, INVENTORY, 0)
        >>> for card in ("kitchen access card", "shuttle access card"):
        ...     _ = store.add(card, IN, INVENTORY, 0)
        >>> _carried_within("the pile", store), _carried_within("plastic bag", store)
        ('pile of plastic', None)
        >>> _carried_within("kitchen card", store), _carried_within("access card", store)
        ('kitchen access card', None)
    """
    phrase = normalize(re.sub(r"^(?:the|a|an)\s+", "", phrase.strip(), flags=re.I))
    carried = [t.subject for t in store.incident(INVENTORY) if t.relation == IN and t.object == INVENTORY]
    words = set(phrase.split())
    within = [name for name in carried if phrase and (printed(phrase, name) or words <= set(name.split()))]
    return within[0] if len(within) == 1 else None


def _holder_name(name: str) -> bool:
    """Whether ``name`` names a holder rather than a place about one (``front of the machine``)."""
    return bool(name) and not _PLACES.search(name)


def _object(action: str) -> str:
    """The direct object of a command (``take the lamp from the case`` -> ``the lamp``)."""
    words = action.strip().split(maxsplit=1)
    if len(words) < 2:
        return ""
    rest = words[1]
    if words[0].lower() == "pick":
        rest = re.sub(r"^(?:up|down|on|off|in|out)\s+", "", rest, flags=re.I)
    return re.split(r"\s+(?:from|in|into|on|onto|with|to|under|off|out of)\s+", rest, maxsplit=1, flags=re.I)[0]


def _first_sentence(line: str) -> str:
    return re.split(r"(?<=[.!?])\s", line, maxsplit=1)[0]


class HolderKinds:
    """Which holders the text shows as supporters (``on the table``) and which as containers (``the
    case contains``, ``in the basket``): the Z-machine does not tell them apart, the text does; a holder
    ever shown as a container is one.

    Example:
        >>> kinds = HolderKinds(); kinds.read("sitting on the pedestal is a torch. the basket contains:")
        >>> kinds.relation("pedestal", IN), kinds.relation("basket", ON), kinds.relation("box", ON)
        ('is on', 'is in', 'is on')
    """

    _ON = re.compile(r"\b(?:on|onto|upon) (?:the|a|an) ([\w' -]+?)(?=[.,:;!?]| is\b| are\b| (?:sits|lies)\b|$)", re.M)
    _IN = re.compile(r"\b(?:the|your) ([\w' -]+?) contains?\b|\bopening the ([\w' -]+?) reveals\b"
                     r"|\byou open the ([\w' -]+?), revealing\b"
                     r"|\bin (?:the|a|an) ([\w' -]+?)(?=[.,:;!?]| is\b| are\b|$)", re.M)

    def __init__(self) -> None:
        self.supporters: set[str] = set()
        self.containers: set[str] = set()

    def read(self, text: str) -> None:
        """Learns from one text (lower case)."""
        self.supporters |= {m.strip() for m in self._ON.findall(text)}
        self.containers |= {g.strip() for groups in self._IN.findall(text) for g in groups if g}

    def relation(self, holder: str, default: str) -> str:
        """``is in`` for a container, ``is on`` for a supporter, else ``default``."""
        holder = normalize(holder)
        if holder in self.containers:
            return IN
        return ON if holder in self.supporters else default


# -- ground truth -----------------------------------------------------------------------------
_INVENTORY_COMMANDS = frozenset({"inventory", "i", "inv"})
_LOOKS = frozenset({"look", "l"})
_STOP = frozenset({"the", "a", "an", "of", "some", "and", "all", "to", "in", "on", "with", "from"})


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
    """The object tree's true triples the text has shown (see the module docstring).

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
        """The object tree in the memory's vocabulary (:func:`~textmem_gym.memory.ground_truth.map_jericho_facts`)."""
        triples, room = map_jericho_facts([(str(s), str(r), str(o)) for s, r, o in facts])
        return {(normalize(s), normalize(r), normalize(o)) for s, r, o in triples}, room

    def step(self, facts: Iterable[FactTriple], action: str, observation: str | None = None) -> set[TripleKey]:
        """Feeds the facts after ``action`` and the text seen; returns the observed truth now."""
        tree, room = self.map_facts(facts)
        text = (observation or "").lower()
        self._text += "\n" + text
        self._kinds.read(text)
        truth = {(s, self._kinds.relation(o, IN), o) if r == IN and o != INVENTORY else (s, r, o) for s, r, o in tree}
        parents = _holders(truth, LOCATION_RELATIONS)
        nested = self._through_unnamed(truth, parents)
        truth |= nested
        block = self._room_block(observation or "", action, room)
        lit = block is not None or (self._lit and room == self._room)
        if observation is None:
            self.seen |= truth
        else:
            self._see(truth - nested, parents, room, text, action, block, lit)
            here = [line for line in (block or "").splitlines() if re.search(r"\bhere\b", line)]
            self.seen |= {t for t in nested if t[2] == room and any(printed(t[0], line) for line in here)}
            titles = [normalize(_POSTURE.sub("", t)) for _, t in room_titles(observation, action)]
            end = titles[0] if titles else room  # a move, then something carries the player on (Zork II's wizard)
            if room != self._room and lit and self._lit and self._room and end:
                self._walk(self._room, end, action)
        self.seen |= self._spatial()
        self._room, self._lit, self._before = room, lit, parents
        return (truth | self._spatial()) & self.seen

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

    def _room_block(self, observation: str, action: str, room: str | None) -> str | None:
        """The lines under the title of ``room`` in ``observation`` (lower case) without the room's own
        description (the first paragraph on a first visit or a ``look``: scenery named there in
        passing is not listed), ``None`` when the text does not title the room."""
        lines = observation.splitlines()
        titles = room_titles(observation, action)
        starts = [i for i, title in titles if normalize(_POSTURE.sub("", title)) == room]
        if room is None or not starts:
            return None
        ends = [i for i, _ in titles if i > starts[-1]]
        body = [line.strip().lower() for line in lines[starts[-1] + 1:ends[0] if ends else len(lines)]]
        body = [line for line in body if line]
        known = self._descriptions.setdefault(room, set())
        first = _first_sentence(body[0]) if body else ""
        if body and (not known or _verb(action) in _LOOKS or first in known):
            known.add(first)
            body = body[1:]
        return "\n".join(body)

    def _see(self, truth: set[TripleKey], parents: dict[str, str], room: str | None, text: str, action: str,
             block: str | None, lit: bool) -> None:
        words = {w for w in re.findall(r"[\w'-]+", action.lower()) if w not in _STOP}
        verb = _verb(action)
        for thing, relation, holder in truth:
            moved = parents.get(thing) != self._before.get(thing) and printed(thing, self._text) \
                and (bool(words & set(thing.split())) or printed(thing, text))
            if holder == room:
                shown = (block is not None and printed(thing, block)) or (moved and lit and verb in _PUT)
            elif holder == INVENTORY:
                shown = (verb in _INVENTORY_COMMANDS and printed(thing, text)) or moved
            else:
                shown = (printed(thing, text) and printed(holder, text)) or \
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
