"""The house of the Cleaning game: rooms, their furniture and what belongs where.

Each room has a purpose, and each piece of furniture a clear use within it, so where an item
belongs follows from common sense (a toothbrush goes on the bathroom sink, raw meat in the
refrigerator). ``items`` may be misplaced by the generator; ``fixtures`` belong there too but
are never misplaced, because their right place would be open to argument (reading glasses on
the reading table or on the bedside table?). Item names are unique across the house.

Example:
    >>> sorted(HOUSE)[:3]
    ['Bathroom', 'Dining Room', 'Gym']
    >>> home_of("toothbrush")
    ('Bathroom', 'bathroom sink')
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Receptacle:
    """A piece of furniture and the things that belong on (supporter) or in (container) it."""

    name: str
    kind: str  # "supporter" or "container"
    items: tuple[str, ...]
    fixtures: tuple[str, ...] = ()

    @property
    def relation(self) -> str:
        """TextWorld's predicate for "belongs here": ``on`` or ``in``."""
        return "on" if self.kind == "supporter" else "in"


def _s(name: str, items: tuple[str, ...], fixtures: tuple[str, ...] = ()) -> Receptacle:
    return Receptacle(name, "supporter", items, fixtures)


def _c(name: str, items: tuple[str, ...], fixtures: tuple[str, ...] = ()) -> Receptacle:
    return Receptacle(name, "container", items, fixtures)


#: Room -> its furniture (with what belongs there).
HOUSE: dict[str, tuple[Receptacle, ...]] = {
    "Kitchen": (
        _c("refrigerator", ("milk", "raw meat", "cheese"), ("butter",)),
        _c("dishwasher", ("dirty plate", "dirty saucepan")),
        _s("kitchen counter", ("toaster",), ("cutting board", "cooking knife")),
    ),
    "Dining Room": (
        _s("dining table", ("table runner", "placemats"), ("candles", "centerpiece", "napkin holder")),
        _c("china cabinet", (), ("porcelain tea set", "crystal glasses")),
    ),
    "Bathroom": (
        _s("bathroom sink", ("toothbrush", "toothpaste"), ("hand soap",)),
        _s("towel rack", ("bath towel", "bathrobe")),
    ),
    "Gym": (
        _s("dumbbell rack", ("dumbbell", "kettlebell"), ("weight plate",)),
        _s("gym shelf", ("jump rope", "yoga mat"), ("resistance band",)),
    ),
    "Swimming Pool Area": (
        _s("equipment rack", ("swimming goggles", "flippers"), ("pool noodle", "life ring")),
        _s("sun lounger", ("beach towel",), ("sunscreen",)),
    ),
    "Kids Room": (
        _c("toy chest", ("teddy bear", "toy car"), ("building blocks",)),
        _s("study desk", ("school notebooks", "crayons"), ("pencil case",)),
    ),
    "Library": (
        _s("bookcase", ("fantasy book", "detective novel"), ("encyclopedia", "atlas")),
        _s("reading table", (), ("reading glasses", "reading lamp")),
    ),
    "Living Room": (
        _s("tv stand", ("tv remote", "game console"), ("television",)),
        _s("sofa", ("decorative pillow", "throw blanket")),
    ),
    "Master Bedroom": (
        _c("wardrobe", ("business suit", "evening dress"), ("winter coat",)),
        _s("bedside table", ("alarm clock", "sleeping mask"), ("bed lamp",)),
    ),
}

#: How many items the generator misplaces.
MISPLACED_COUNT = 11


def home_of(item: str) -> tuple[str, str]:
    """The ``(room, receptacle)`` where ``item`` belongs.

    Raises:
        KeyError: ``item`` is not in the house.
    """
    for room, receptacles in HOUSE.items():
        for receptacle in receptacles:
            if item in receptacle.items or item in receptacle.fixtures:
                return room, receptacle.name
    raise KeyError(item)


def receptacle(name: str) -> Receptacle:
    """The furniture called ``name``."""
    return next(r for receptacles in HOUSE.values() for r in receptacles if r.name == name)
