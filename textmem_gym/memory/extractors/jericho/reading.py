"""What one observation of a Jericho game says, in the game's own names (:func:`read_jericho`)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from textmem_gym.memory.extractors.jericho.names import bare, split_things, unremarked
from textmem_gym.memory.extractors.jericho.prose import ARTICLE, DISTANT, LOCATIVE, PLACED, THING
from textmem_gym.memory.extractors.jericho.titles import TitleStyle, room_titles, title_holder
from textmem_gym.memory.extractors.jericho.vocabulary import PLACE_NOUNS
from textmem_gym.memory.extractors.rules import describes_darkness
from textmem_gym.memory.semantic import AT, IN, INVENTORY, ON


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
        put: Things a ``put all`` answered ``Done.`` for (``battery-powered torch: Done.``).
        opening: Indices in ``things`` of what a room's first paragraph (its own description) names.
        postures: ``(holder, block)``: the holder a title says the player is in or on (``Your Quarters, in the
            bed``), a thing of the room ``rooms[block]``.
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
    put: list[str] = field(default_factory=list)
    opening: set[int] = field(default_factory=set)
    postures: list[tuple[str, int]] = field(default_factory=list)


_HERE = r"(?:here|nearby)"
#: Standard listings: the game prints its own short names.
_PLAIN: tuple[re.Pattern[str], ...] = (
    re.compile(rf"^There(?: is| are|'s) {THING}(?: [a-z]{{4,}}ed)? {_HERE}\b.*$"),  # "a cage discarded nearby"
    re.compile(rf"^There are (?P<thing>[a-z][\w' -]+?) {_HERE}[.!]$"),  # Adventure's "There are bars of silver here!"
    re.compile(rf"^(?:An?|Some) (?P<thing>.+?) (?:is|are) {_HERE}\.?$"),
    re.compile(rf"^(?:You|I) (?:can )?(?:also )?see (?P<thing>.+?) {_HERE}\.?$"),  # Gold's first person: "I can see"
)
#: A listed phrase that describes rather than names (``silver chalice, intricately engraved``).
_DESCRIBED = re.compile(r",|\b(?:which|whose|that|used|bulging|with|on the|in the)\b")
#: A clause of a listed sentence naming another thing here (``There is a control panel here, on which a
#: large metal bolt is mounted.``).
_CLAUSE = re.compile(rf", on which {THING} (?:is|are) [a-z]+ed\b")
#: Prose naming several things (``a bronze coin, two gold coins and a crumpled scroll``).
_LISTED = re.compile(rf"^[^,]+(?:, (?:and )?{ARTICLE} [^,]+)+$| and (?:an?|the|some) ")
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
_CARRYING = re.compile(r"^(?:You are|I am) (?:carrying|holding)(?::| nothing\.?| only:?)\s*(?P<rest>.*)$")
_EMPTY_HANDED = re.compile(r"^(?:You are|I am) empty-handed\.?$|^(?:You are|I am) carrying nothing\.?$"
                           r"|^(?:You|I) have nothing\.?$")
_TAKEN = re.compile(r"^(?:(?P<thing>[^:]+?): )?(?:Taken|Removed|Picked up|You take it|You pick it up|"
                    r"You are now wearing (?:the )?(?P<worn>.+?))[.!]$")
#: Inform's implicit take: ``(first taking the trenchcoat)``.
_FIRST_TAKING = re.compile(r"^\(first taking (?P<thing>.+?)(?: off)?\)$")
#: Inform's room made in a carried holder: ``(putting the book into the sack to make room)``, Anchorhead's
#: ``(slipping the keyring into the pocket of your trenchcoat to get a hand free)``, after the name of what a ``get A
#: and B`` took (``strange metal flute: (slipping ...)``).
_MAKING_ROOM = re.compile(r"^(?:[^:()]+: )?\((?:putting|slipping) (?P<thing>.+?) into (?:the pocket of )?"
                          r"(?P<holder>.+?) to (?:make room|get a hand free)\)$")
#: ``Dropped.``; Adventure's ``Safely deposited.`` (a treasure dropped in the building).
_DROPPED = re.compile(r"^(?:(?P<thing>[^:]+?): )?(?:Dropped|You drop it|Safely deposited)\.$")
_TERSE_STATE = {"opened.": "open", "closed.": "closed"}
#: A ``put all`` done for one thing: ``battery-powered torch: Done.``
_PUT_DONE = re.compile(r"^(?P<thing>[^:]+?): Done\.$")


def _depth(line: str) -> int:
    return len(line) - len(line.lstrip())


def _read_list(lines: list[str], start: int, holder: str, relation: str, view: JerichoView,
               depth: int) -> int:
    """Reads the indented lines under a list head (nested heads recurse); returns the next line."""
    view.listed.add(holder)
    i = start
    last: tuple[str, int] | None = None  # the last line's one thing and its depth
    while i < len(lines) and lines[i].strip() and _depth(lines[i]) > depth:
        line = lines[i].strip()
        if last is not None and _depth(lines[i]) > last[1]:  # Inform's tall list: indented under its holder
            i = _read_list(lines, i, last[0], IN, view, last[1])
            last = None
            continue
        head = _list_head(line)
        if head is not None:
            inner, inner_relation = head
            if (inner, relation, holder, -1, True) not in view.things:  # "A brown sack", then its content
                view.things.append((inner, relation, holder, -1, True))
            i = _read_list(lines, i + 1, inner, inner_relation, view, _depth(lines[i]))
            continue
        names = split_things(line)
        view.things += [(name, relation, holder, -1, True) for name in names]
        last = (names[0], _depth(lines[i])) if len(names) == 1 else None
        i += 1
    return i


def _list_head(line: str) -> tuple[str, str] | None:
    for pattern, relation in _LIST_HEAD:
        match = pattern.match(line)
        if match:
            return bare(match.group("holder")), relation
    return None


def read_jericho(text: str, action: str = "", style: TitleStyle | None = None) -> JerichoView:
    """What ``text`` (one observation) says; see the package docstring (``style``: how the game prints its room
    titles, :class:`~textmem_gym.memory.extractors.jericho.titles.TitleStyle`: in sentence case, and its banners).

    Example:
        >>> view = read_jericho("You are carrying:\\n  A brass lantern\\n  The glass bottle contains:\\n"
        ...                     "    A quantity of water", "inventory")
        >>> view.inventory, view.things
        (['brass lantern', 'glass bottle'], [('quantity of water', 'is in', 'glass bottle', -1, True)])
    """
    view = JerichoView()
    lines = text.splitlines()
    titles = dict(room_titles(text, action, style.sentence_case, style.banners) if style else room_titles(text, action))
    view.dark = describes_darkness(text, action)
    block = -1  # index in view.rooms of the room whose description is being read (-1: feedback)
    i = 0
    while i < len(lines):
        line = lines[i].strip()
        if i in titles:
            view.rooms.append(titles[i])
            block = len(view.rooms) - 1
            holder = title_holder(line)
            if holder:  # "Your Quarters, in the bed": the bed is the room's
                view.postures.append((holder, block))
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
        before = len(view.things)
        _read_line(line, block, view)
        if i - 1 in titles:  # the room's own description
            view.opening |= set(range(before, len(view.things)))
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
    taken, dropped = _TAKEN.match(line) or _FIRST_TAKING.match(line), _DROPPED.match(line)
    if taken:
        thing = taken.group("thing") or taken.groupdict().get("worn")
        view.taken.append(bare(thing) if thing else None)
        return
    making_room = _MAKING_ROOM.match(line)
    if making_room:
        view.things.append((bare(making_room.group("thing")), IN, bare(making_room.group("holder")), -1, True))
        return
    if dropped:
        view.dropped.append(bare(dropped.group("thing")) if dropped.group("thing") else None)
        return
    if line.lower() == "done.":
        view.done = True
        return
    put = _PUT_DONE.match(line)
    if put:
        view.put.append(bare(put.group("thing")))
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
        thing = unremarked(match.group("thing")) if match else ""  # "your Car (which is closed)"
        within = _within(match.group("thing")) if match else []
        if match and _articled_list(thing):  # "You can also see a glistening pearl, a jeweled trident and ..."
            view.things += [(name, AT, None, block, True) for name in split_things(thing)]
            view.things += within
            return
        if match and _DESCRIBED.search(thing):  # "a silver chalice, intricately engraved,"
            view.things.append((_head(thing), AT, None, block, False))
            return
        if match:
            clause = _CLAUSE.search(sentence)
            if clause:
                view.things.append((_head(clause.group("thing")), AT, None, block, False))
                thing = thing[:thing.find(",")] if "," in thing else thing
            view.things += [(name, AT, None, block, True) for name in split_things(thing)]
            view.things += within
            return
    for pattern, relation in PLACED:
        match = pattern.match(sentence)
        if match:
            holder = match.groupdict().get("holder")
            phrase = match.group("thing")  # on a holder, a list: "a bronze coin, two gold coins and a scroll"
            heads = [_head(p) for p in split_things(phrase)] if holder and _LISTED.search(phrase) else [_head(phrase)]
            heads += [_head(match.group("beside"))] if match.groupdict().get("beside") else []  # the willow tree too
            view.things += [(head, relation, bare(holder) if holder else None, block, False) for head in heads]
            return
    if not DISTANT.search(sentence):
        _read_locative(sentence, block, view)


def _read_locative(sentence: str, block: int, view: JerichoView) -> None:
    """A sentence of :data:`~.prose.LOCATIVE` (``Your workbench dominates the center of the room.``); a holder
    that is a place about the room (``in the floor``) is the room."""
    for pattern, relation in LOCATIVE:
        match = pattern.match(sentence)
        if match:
            holder = match.groupdict().get("holder")
            holder = bare(holder) if holder else None
            if holder and holder.split()[-1].lower() in PLACE_NOUNS:
                holder, relation = None, AT
            view.things.append((_head(match.group("thing")), relation, holder, block, False))
            return


_ARTICLE = rf"{ARTICLE} "
#: Inform's remark on a listed holder's content: ``a wicker cage (which is closed) (in which is a little bird)``.
_WITHIN = re.compile(rf"(?:^|, |,? and )(?:{_ARTICLE})?((?:(?! and )[^,()])+?) (?:\((?!in which|on which)[^)]*\) )*"
                     r"\((in|on) which (?:is|are) ([^,()]+?(?: \([^()]+\))?)\)")


def _within(phrase: str) -> list[tuple[str, str, str | None, int, bool]]:
    """What Inform's remarks in a listing put in or on a listed holder (``a milkbottle (in which is a crumpled
    note)``; a count stands for the names it encloses: ``two keys (a key to the house and a key to the cellar)``).

    Example:
        >>> _within("a keyring (on which are two keys (a key to the house and a key to the cellar))")
        [('key to the house', 'is on', 'keyring', -1, True), ('key to the cellar', 'is on', 'keyring', -1, True)]
    """
    return [(name, IN if relation == "in" else ON, bare(item), -1, True)
            for item, relation, inner in _WITHIN.findall(phrase)
            for name in split_things(_NAMED_WITHIN.sub(r"\1", inner))]


#: A count and the names it stands for: ``two keys (a key to the house and a key to the cellar)``.
_NAMED_WITHIN = re.compile(r"^[^()]* \(([^()]+)\)$")


def _articled_list(phrase: str) -> bool:
    """Whether ``phrase`` lists several things, each after an article (``a glistening pearl, a jeweled trident
    and some bars of silver``), rather than describing one (``a silver chalice, intricately engraved``).

    Example:
        >>> _articled_list("a glistening pearl, a jeweled trident and some bars of silver")
        True
        >>> _articled_list("a silver chalice, intricately engraved"), _articled_list("a lamp")
        (False, False)
    """
    parts = re.split(r",\s*(?:and\s+)?|\s+and\s+", phrase.strip())
    return len(parts) > 1 and all(re.match(_ARTICLE, part, re.I) for part in parts)


def _head(phrase: str) -> str:
    """A prose phrase up to its first comma or relative clause (``flaming torch, made of ivory``); a first lone
    adjective before a comma is dropped (``large, unopened tin can``: ``unopened tin can``, as printed)."""
    phrase = re.sub(r"^\w+, (?=(?:[\w-]+ ){1,2}[\w-]+$)(?!.*\b(?:the|an?|of|and|or|with|which|that|probably)\b)",
                    "", phrase.strip())
    phrase = re.split(r",|\s+(?:which|that|who|whose|with|of great|smelling|open to)\s", phrase, maxsplit=1)[0]
    return bare(phrase)

