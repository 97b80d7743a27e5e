"""Where household things belong, for the explorer's tidying rule (no LLM).

Two sources of common sense, neither about any particular game:

- **TextWorld Commonsense** (Murugesan et al., 2021, "Text-based RL Agents with Commonsense
  Knowledge", AAAI; IBM/commonsense-rl): its object list says where each of ~500 household things
  goes (``milk`` -> ``fridge``, ``towel`` -> ``towel rail``, ``notebook`` -> ``desk``...). The
  ``textworld-express`` package (Apache-2.0) ships that list as ``twc_objects.folds.json``;
  :func:`twc_homes` reads it from the installed package at run time (nothing is copied here) and is
  empty when the package is missing, leaving the lexical source alone.
- **Lexical affinity** (:func:`policies.affinity.related`): a bath towel belongs with a bathroom, a
  tv remote with a tv stand.

Where both are silent (a kettlebell, crayons, an evening dress), sentence embeddings
(:mod:`policies.explorer_embeddings`, an optional dependency) fill in: a thing lying where nothing
vouches for it is misplaced when another known place fits it clearly better by the embeddings, and
they order the places that the first two sources rank alike.

:class:`HomeIndex` joins them with what the memory believes (which piece of furniture is in which
room, which thing lies on which): an item is *misplaced* when nothing says it fits where it lies
while something says it fits another known place; :meth:`HomeIndex.targets` ranks those places.
A place named by TextWorld Commonsense matches a piece of furniture of the game when their head
nouns agree (``sink`` / ``bathroom sink``), when one is a clipping of the other (``fridge`` /
``refrigerator``), or when they share a word that names no room (``towel rail`` / ``towel rack``);
when only a room word is shared (``bathroom cabinet``) it points at that room, and a place that names
a room (``bathroom cabinet``) is no piece of furniture of another room (a china cabinet in the dining
room).

Example:
    >>> homes = {"milk": ("fridge",), "towel": ("towel rail",)}
    >>> index = HomeIndex([("refrigerator", "is at", "kitchen"), ("towel rack", "is at", "bathroom"),
    ...                    ("sofa", "is at", "den"), ("milk", "is on", "towel rack"),
    ...                    ("bath towel", "is on", "sofa")], ["kitchen", "bathroom", "den"], homes=homes,
    ...                   embeddings=False)
    >>> sorted(index.misplaced())
    ['bath towel', 'milk']
    >>> index.targets("milk"), index.targets("bath towel")[0]
    ([('kitchen', 'refrigerator')], ('bathroom', 'towel rack'))
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterable, Mapping
from importlib import resources

from policies import explorer_embeddings
from policies.affinity import PLACED, related

#: The TextWorld Commonsense object list inside the ``textworld_express`` package.
TWC_PACKAGE, TWC_FILE = "textworld_express", "twc_objects.folds.json"
#: Shortest prefix that makes one word a clipping of another (``frig`` in ``refrigerator``).
CLIPPING = 4
#: Places the embeddings alone (nothing else vouching) propose for a misplaced thing, best first.
EMBEDDING_TARGETS = 4
_WORDS = re.compile(r"[a-z]+")


@functools.lru_cache(maxsize=1)
def twc_homes() -> dict[str, tuple[str, ...]]:
    """TextWorld Commonsense: thing (its name, lower case) -> where it belongs.

    Read from the installed ``textworld_express`` package; ``{}`` when it is not installed.
    """
    try:
        text = resources.files(TWC_PACKAGE).joinpath(TWC_FILE).read_text(encoding="utf-8")
    except (ModuleNotFoundError, FileNotFoundError):
        return {}
    homes: dict[str, tuple[str, ...]] = {}
    for fold in json.loads(text).values():
        for name, entry in fold.items():
            places = tuple(p.lower() for p in entry["locations"])
            homes[name.lower()] = tuple(dict.fromkeys(homes.get(name.lower(), ()) + places))
    return homes


def words(name: str) -> list[str]:
    """Lower-case words of a name, plurals made singular (``notebooks`` -> ``notebook``)."""
    return list(_words(name))


@functools.lru_cache(maxsize=8192)
def _words(name: str) -> tuple[str, ...]:
    """:func:`words`, cached: :func:`homes_of` reads every name of the table for each item it places."""
    return tuple(singular(w) for w in _WORDS.findall(name.lower()))


def singular(word: str) -> str:
    """A plain English singular (``notebooks`` -> ``notebook``, ``glasses`` -> ``glass``)."""
    if word.endswith(("sses", "shes", "ches", "xes")):
        return word[:-2]
    if word.endswith("s") and not word.endswith(("ss", "us", "is")) and len(word) > 3:
        return word[:-1]
    return word


def clipped(a: str, b: str) -> bool:
    """Whether one word is a clipping of the other (``fridge``/``refrigerator``, ``phone``/``telephone``).

    Example:
        >>> clipped("fridge", "refrigerator"), clipped("stand", "nightstand")
        (True, False)
    """
    short, long = sorted((a, b), key=len)
    if short == long:
        return True
    if len(short) <= CLIPPING or long.endswith(short):  # a nightstand is no tv stand
        return False
    # the clipped word keeps the long one's stressed syllable, its spelling may move (fri-dge, fri-gerator)
    at = long.find(short[:CLIPPING - 1])
    return at >= 0 and long[at + CLIPPING - 1: at + CLIPPING] in short[CLIPPING - 1:CLIPPING + 1]


def homes_of(item: str, table: Mapping[str, tuple[str, ...]]) -> tuple[tuple[str, ...], bool]:
    """``(places, exact)``: where ``item`` belongs by the table, by its full name when listed, else
    by its head noun (``evening dress`` -> the dresses listed). ``exact`` when the full name is
    listed, or the item is its head noun alone (``cheese``: a block of cheese), or the table lists
    the bare head noun as a thing of its own (``notebook`` for ``school notebooks``); not when only
    qualified things share the head (``weight plate``: the table lists clean and dirty plates)."""
    name = " ".join(words(item))
    if name in table:
        return table[name], True
    exact = [places for key, places in table.items() if " ".join(words(key)) == name]
    if exact:
        return exact[0], True
    head = name.split()[-1] if name else ""
    places = [p for key, ps in table.items() if words(key)[-1:] == [head] for p in ps]
    return tuple(dict.fromkeys(places)), bool(places) and (name == head or head in table)


def place_matches(place: str, furniture: str, room_words: set[str]) -> bool:
    """Whether a place named by the table is this piece of furniture (see the module doc)."""
    a, b = words(place), words(furniture)
    if not a or not b:
        return False
    if clipped(a[-1], b[-1]):
        return True
    return bool((set(a) & set(b)) - room_words)


class HomeIndex:
    """Where things are (from believed triples) and where they belong (common sense).

    Args:
        triples: ``(subject, relation, object)`` triples believed now.
        rooms: The known rooms.
        homes: Thing -> places it belongs (default: :func:`twc_homes`).
        embeddings: Use sentence embeddings (:mod:`policies.explorer_embeddings`) where the table
            and the names are silent; without the model installed this is off (it warns once).
    """

    def __init__(self, triples: Iterable[tuple[str, str, str]], rooms: Iterable[str],
                 homes: Mapping[str, tuple[str, ...]] | None = None, embeddings: bool = True) -> None:
        triples = list(triples)
        self.rooms = list(rooms)
        self.table = twc_homes() if homes is None else homes
        self.room_of = {s: o for s, r, o in triples if r == "is at" and o in self.rooms}
        self.place_of = {s: o for s, r, o in triples if r in PLACED and o in self.room_of}
        self.room_words = {w for room in self.rooms for w in words(room)}
        self.embeddings = embeddings and explorer_embeddings.available()
        #: Known pieces of furniture (not things lying on others), as (furniture, room).
        self.furniture = [(f, room) for f, room in self.room_of.items() if f not in self.place_of]

    def similarity(self, item: str, furniture: str, room: str) -> float:
        """How well the embeddings say ``item`` fits on ``furniture`` in ``room`` (0 without them)."""
        if not self.embeddings:
            return 0.0
        return explorer_embeddings.affinity(item, furniture, room) or 0.0

    def fit(self, item: str, furniture: str | None, room: str, exact_only: bool = False) -> int:
        """How well ``item`` fits there: 3 the furniture shares a word with it or is where the table
        puts it by its full name, 2 the table puts it there by its head noun, 1 the room fits (its
        name, or another piece of furniture of that room the table names), 0 nothing says so.
        ``exact_only`` ignores what the table says by head noun alone."""
        places, exact = homes_of(item, self.table)
        if exact_only and not exact:
            places = ()
        if furniture is not None:
            if related(item, furniture):
                return 3
            if any(self._matches(p, furniture, room) for p in places):
                return 3 if exact else 2
        room_set = set(words(room))
        if related(item, room) or any(set(words(p)) & room_set for p in places):
            return 1
        here = [f for f, r in self.furniture if r == room]
        return int(any(self._matches(p, f, room) for p in places for f in here))

    def _matches(self, place: str, furniture: str, room: str) -> bool:
        """Whether a place the table names is this piece of furniture of this room: a place that names
        a room (``bathroom cabinet``) is in that room, not the dining room's china cabinet."""
        return place_matches(place, furniture, self.room_words) and \
            set(words(place)) & self.room_words <= set(words(room))

    def targets(self, item: str) -> list[tuple[str, str | None]]:
        """``(room, furniture or None)`` places that fit ``item``, other than where it lies, best
        first (``None``: a fitting room whose furniture is not known yet). Places the table or the
        names vouch for come first, the embeddings ordering those of one rank; then, with the
        embeddings, the :data:`EMBEDDING_TARGETS` places they alone say fit best."""
        here = self.place_of.get(item)
        scored = sorted(((self.fit(item, f, room), self.similarity(item, f, room), room, f)
                         for f, room in self.furniture if f not in (here, item)), key=lambda x: (-x[0], -x[1]))
        found: list[tuple[str, str | None]] = [(room, f) for s, _, room, f in scored if s >= 1]
        if self.embeddings:
            found += [(room, f) for s, _, room, f in scored if s == 0][:EMBEDDING_TARGETS]
        furnished = {room for room in self.room_of.values()}
        found += [(room, None) for room in self.rooms if room not in furnished and self.fit(item, None, room)]
        return found

    def _known_elsewhere(self, item: str, place: str) -> bool:
        """Whether the word of the item's name or the table's entry for its full name (not its head
        noun alone: a weight plate is no dinner plate) fits another known place."""
        return any(self.fit(item, f, room, exact_only=True) for f, room in self.furniture if f not in (place, item))

    def misfit(self, item: str, place: str) -> float | None:
        """By the embeddings: how much better the best other known place fits ``item`` than ``place``
        where it lies (``None`` without them)."""
        if not self.embeddings:
            return None
        return explorer_embeddings.misfit(item, (place, self.room_of[place]), self.furniture)

    def misplaced(self) -> dict[str, list[tuple[str, str | None]]]:
        """Items where nothing says they fit while another known place fits them (by the item's
        own words or the table's entry for its full name, else by the embeddings, clearly: by more
        than :data:`~policies.explorer_embeddings.MARGIN`); :meth:`targets` ranks the places."""
        out = {}
        for item, place in self.place_of.items():
            if self.fit(item, place, self.room_of[place]):
                continue
            if not self._known_elsewhere(item, place):
                gap = self.misfit(item, place)
                if gap is None or gap < explorer_embeddings.MARGIN:
                    continue
            targets = self.targets(item)
            if targets:
                out[item] = targets
        return out
