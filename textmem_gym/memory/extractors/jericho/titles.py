"""Room titles as Infocom's and Inform's games print them (``West of House``, ``<< Closet >>``)."""

from __future__ import annotations

import re
from collections.abc import Collection

from textmem_gym.memory.extractors.jericho.commands import command_verb
from textmem_gym.memory.extractors.rules import IF_TITLE
from textmem_gym.memory.semantic import normalize

#: Inform's bracketed titles (``<< Closet >>``).
_BRACKETED = re.compile(r"^\s*<<\s*(.+?)\s*>>\s*$")
#: A title's trailing position (``Bedroom (on the bed)``, Zork's ``Sandy Beach, in the magic boat``); ``held`` or
#: ``aboard``: the holder it names after ``the`` (:func:`title_holder`).
TITLE_POSTURE = re.compile(r"\s*\((?:on|in|sitting on|lying on|standing on)\b(?: the (?P<held>[a-z][\w' -]*)(?=\)))?"
                           r"[^)]*\)\s*$|,\s+(?:in|on) the (?P<aboard>[a-z][\w' -]*)$")
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
READING_VERBS = frozenset({"read", "examine", "x", "look at", "consult", "answer", "say", "ask", "tell"})
#: A house number or a street's ordinal before a title (``19th Street``, ``221-B Baker Street``).
_NUMBERED = re.compile(r"^\d[\w-]*\s+(?=[A-Z])")
#: A number after a capitalized word of a title (Enterprise's ``Hall Near Room 7``), not a status line's (``Score 10``).
_NUMBER_AFTER = re.compile(r"\b((?!(?:Score|Moves|Turns?|Time)\b)[A-Z][\w'-]*) \d+[A-Za-z]?\b")
#: A short abbreviation inside a title (Deephome's ``N. Main Street``).
_ABBREVIATION = re.compile(r"\b([A-Z][a-z]?)\. (?=[A-Z])")
#: A title in sentence case (Goldilocks is a FOX!'s ``In the enchanted forest``): letters only, no stop.
_SENTENCE_CASE = re.compile(r"^[A-Z][a-z'-]*(?: [A-Za-z][a-z'-]*){1,6}$")
_LOOKS = frozenset({"look", "l"})
#: A line set far right or centred (Hunter, in Darkness's fall: "                    Pain"): no room's title.
CENTRED = re.compile(r"^\s{8}")

def _title(line: str, bracketed: bool, sentence_case: bool = False) -> str | None:
    """The room a title line names, else ``None`` (``sentence_case``: the game prints titles so)."""
    match = _BRACKETED.match(line)
    if match:
        return match.group(1)
    if bracketed or CENTRED.match(line):
        return None
    title = TITLE_POSTURE.sub("", line.strip())
    # "Maintanence Stairwell (Top)": the room's own name keeps its part; Adventure's "Low N/S Passage", 'At "Y2"'
    plain = _NUMBERED.sub("", _PART.sub("", title).replace("/", " ").replace('"', ""))
    plain = _NUMBER_AFTER.sub(r"\1", _ABBREVIATION.sub(r"\1 ", plain))
    shaped = IF_TITLE.match(plain) or _COMMA_TITLE.match(plain) or (sentence_case and _SENTENCE_CASE.match(plain))
    if not (2 < len(title) <= 40 and shaped) or title.lower() in _NOT_ROOMS:
        return None
    if len(title) > 3 and title.upper() == title:  # a banner (ZORK, ENCHANTER), not a room
        return None
    return title


def title_holder(title: str) -> str | None:
    """The holder a title puts the player in or on, as printed (``None``: the title names none).

    Example:
        >>> title_holder("Your Quarters, in the bed"), title_holder("Bedroom (on the bed)"), title_holder("Attic")
        ('bed', 'bed', None)
    """
    match = TITLE_POSTURE.search(title.strip())
    holder = match and (match.group("held") or match.group("aboard"))
    return holder.strip() if holder else None


def room_name(title: str) -> str:
    """The room a title names, in the memory's vocabulary (its posture dropped, normalized).

    Example:
        >>> room_name("Bedroom (on the bed)"), room_name("Sandy Beach, in the magic boat")
        ('bedroom', 'sandy beach')
    """
    return normalize(TITLE_POSTURE.sub("", title))


def room_titles(text: str, action: str = "", sentence_case: bool = False,
                banners: Collection[str] = ()) -> list[tuple[int, str]]:
    """``(line index, room)`` of the room titles in ``text`` (none in the answer to ``read``/``examine``:
    a book or a letter prints title-case lines). How the game prints them (:class:`TitleStyle`):
    ``sentence_case`` (such a title starts the text or follows a blank line), and ``banners``, never rooms.

    Example:
        >>> room_titles("The brass lantern is now on.\\n\\nAttic\\nThis is the attic.", "light lamp")
        [(2, 'Attic')]
        >>> room_titles("<< Closet >>\\nYou are in a closet.", "west"), room_titles("Matt Barringer", "read paper")
        ([(0, 'Closet')], [])
        >>> room_titles("the floor drops away --\\n" + " " * 60 + "Pain", "left")
        []
        >>> room_titles("N. Main Street\\nThe street runs south.", "south")  # an abbreviation inside a title
        [(0, 'N. Main Street')]
        >>> room_titles("Hall Near Room 7\\nA hall.", "north"), room_titles("Score 10", "north")  # a number in it
        ([(0, 'Hall Near Room 7')], [])
    """
    if command_verb(action) in READING_VERBS:
        return []
    lines = text.splitlines()
    bracketed = any(_BRACKETED.match(line) for line in lines)
    return [(i, title) for i, line in enumerate(lines)
            if (title := _title(line, bracketed, sentence_case and not (i and lines[i - 1].strip()))) is not None
            and title not in banners]


#: A banner that says what it is (``An Interactive Text Adventure``, ``By Andrew Gawthorpe``).
_SELF_CREDIT = re.compile(r"^(?:(?:an?|the)\b.*\b(?:interactive|adventure|fiction|story)\b|by\b)", re.I)
#: The line under a banner (``Copyright (c) 1998 by ...``, ``Release 2 / Serial number ...``).
_CREDIT = re.compile(r"copyright|\(c\)|release \d|serial number|adventure game|interactive fiction", re.I)
#: A short line under a banner (``A Cave Crawl by Dave Ahl Jr.``: by a name; "You stand by the door." is none).
_SHORT_CREDIT = re.compile(r"\b[Bb]y [A-Z]|\b[Ii]nteractive\b")
_CREDIT_CHARS = 70


class TitleStyle:
    """How one game prints its room titles, learned from the first line that ``look`` answers (every
    Infocom and Inform game starts that answer with the room's title): title case unless that line is a
    title only in sentence case (``In the enchanted forest``).

    Example:
        >>> style = TitleStyle()
        >>> style.learn("In the enchanted forest\\nA large wooden sign informs me ...", "look")
        >>> style.sentence_case, room_titles("\\nLost in the forest\\nI'm walking.", "n", style.sentence_case)
        (True, [(1, 'Lost in the forest')])
        >>> opening = TitleStyle()
        >>> opening.learn("Release 1 / Serial number 090410\\n\\nIn the enchanted forest\\nA sign.\\nA pedlar.", "")
        >>> opening.sentence_case, TitleStyle().sentence_case
        (True, False)
    """

    def __init__(self) -> None:
        self.sentence_case = False
        self.banners: frozenset[str] = frozenset()

    def learn(self, text: str, action: str) -> None:
        """Reads the answer to ``action``: the game's opening text (``action`` empty) names its banners
        (:meth:`read_banners`); a ``look`` whose first line is a sentence-case title sets the style, as does an
        opening whose last paragraph starts with one above prose and that holds no title-case title but
        banners (the opening ends with the first room, as a ``look`` prints it)."""
        if not action:
            self.read_banners(text)
        if self.sentence_case or command_verb(action) not in (*_LOOKS, "") \
                or room_titles(text, action, banners=self.banners):
            return
        paragraphs = [[line.strip() for line in block.splitlines() if line.strip()] for block in text.split("\n\n")]
        paragraphs = [lines for lines in paragraphs if lines]
        if not paragraphs:
            return
        lines = paragraphs[0] if action else paragraphs[-1]
        prose = len(lines) > 1 and lines[1][-1:] in (".", "!", "?", "'", '"')
        self.sentence_case = (prose or bool(action)) and bool(room_titles(lines[0], action, sentence_case=True))

    def read_banners(self, opening: str) -> None:
        """The title-case lines of the game's opening that are its banner, never a room (Hunter, in Darkness
        opens dark: its only title is the banner): one that says what it is, one above a short credit line
        (``by ...``, ``Copyright``, ``Release 2 / Serial number``), or one above another banner line.

        Example:
            >>> style = TitleStyle()
            >>> style.read_banners("Lost Pig\\nAnd Place Under Ground\\nRelease 2 / Serial number 080406\\n\\n"
            ...                    "Outside\\nGrunk think that pig probably go this way.")
            >>> sorted(style.banners), room_titles("Hunter, in Darkness\\nA Cave Crawl by Dave Ahl Jr.", "")
            (['And Place Under Ground', 'Lost Pig'], [(0, 'Hunter, in Darkness')])
            >>> style.read_banners("Kitchen\\nYou stand by the stove."); "Kitchen" in style.banners
            False
        """
        lines = [line.strip() for line in opening.splitlines() if line.strip()]
        titled = dict(room_titles("\n".join(lines)))
        banners: set[str] = set()
        for i in sorted(titled, reverse=True):
            below = lines[i + 1] if i + 1 < len(lines) else ""
            credit = _CREDIT.search(below) or (len(below) <= _CREDIT_CHARS and _SHORT_CREDIT.search(below))
            if _SELF_CREDIT.match(titled[i]) or credit \
                    or (i + 1 in titled and titled[i + 1] in banners):
                banners.add(titled[i])
        self.banners = self.banners | banners

