"""NetHack observation -> text, from NLE's own observations (no game internals).

The text has the message, an overlay window if one is shown (menus, inventory), the bottom-line
stats (``blstats``), what is around the hero, and the inventory (``inv_strs``). "Around the
hero" lists every map cell that is not plain floor, corridor, wall or unexplored dark, with its
name from NLE's ``screen_descriptions``, its direction and distance from the hero (distance
in moves) and its map position, e.g. ``staircase down: 4 steps northeast (x44 y8)``, like the NLE
language wrapper did; the hero's own position and the extent of its room are given too
(``You are in a room spanning x40-52 y3-9, at x44 y8.``), so a memory can keep where things are.
The scope decides which cells:

- ``"room"``: the hero's current room or corridor only (AriGraph's *Room obs*): the cells reached
  from the hero through room floor (in a room) or corridor (in a corridor), plus the doors and
  walls bounding them.
- ``"level"``: the whole explored level (NetPlay's *Level obs*).

What the text leaves out: the hero's own cell (the map shows the hero, not the staircase or door under
it), monsters out of sight (NetHack does not display them), and, with ``"room"``, everything beyond
the hero's room or corridor; a skill reports the features it found on the way (``Found: fountain
(x24 y7).``) but not a door it kicked open there.

Example:
    >>> compass(3, -1), compass(0, 2), compass(-2, -2), position(44, 8)
    ('east', 'south', 'northwest', 'x44 y8')
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterator, Mapping
from typing import Any

import numpy as np

# Cell classes.
UNSEEN, WALL, DOOR, FLOOR, CORRIDOR, FEATURE, OCCUPANT = range(7)

#: NetHack 3.6 map symbols (``defsym`` order) -> cell class; later symbols are traps (FEATURE).
_CMAP_CLASSES: list[int] = (
    [UNSEEN] + [WALL] * 11 + [DOOR] * 5 + [WALL, WALL] + [FLOOR, FLOOR] + [CORRIDOR, CORRIDOR]
    + [FEATURE] * 19  # stairs, ladders, altar, grave, throne, sink, fountain, water, ice, lava, bridges, air, cloud
)
_TRAPS_END = 65  # cmap symbols 42..64 are traps; later ones are effects (beams, explosions)

#: hunger state (``blstats`` hunger) -> words.
HUNGER = {0: "satiated", 1: "not hungry", 2: "hungry", 3: "weak", 4: "fainting", 5: "fainted", 6: "starved"}
ENCUMBRANCE = {1: "burdened", 2: "stressed", 3: "strained", 4: "overtaxed", 5: "overloaded"}

_DIRECTIONS = ["east", "southeast", "south", "southwest", "west", "northwest", "north", "northeast"]
_EIGHT = [(dx, dy) for dy in (-1, 0, 1) for dx in (-1, 0, 1) if dx or dy]


@functools.lru_cache(maxsize=1)
def _tables() -> tuple[np.ndarray, np.ndarray]:
    """Per-glyph lookup tables: cell class, and kind (0 other, 1 monster, 2 pet, 3 object)."""
    from nle import nethack as nh

    glyphs = np.arange(nh.MAX_GLYPH + 1)
    classes = np.full(glyphs.shape, OCCUPANT, dtype=np.int8)
    cmap = np.full(nh.GLYPH_EXPLODE_OFF - nh.GLYPH_CMAP_OFF, OCCUPANT, dtype=np.int8)
    cmap[:len(_CMAP_CLASSES)] = _CMAP_CLASSES
    cmap[len(_CMAP_CLASSES):_TRAPS_END] = FEATURE
    classes[nh.GLYPH_CMAP_OFF:nh.GLYPH_EXPLODE_OFF] = cmap
    kinds = np.zeros(glyphs.shape, dtype=np.int8)
    kinds[(glyphs < nh.GLYPH_BODY_OFF) | ((glyphs >= nh.GLYPH_RIDDEN_OFF) & (glyphs < nh.GLYPH_OBJ_OFF)) | (
        (glyphs >= nh.GLYPH_WARNING_OFF) & (glyphs < nh.GLYPH_STATUE_OFF))] = 1
    kinds[(glyphs >= nh.GLYPH_PET_OFF) & (glyphs < nh.GLYPH_INVIS_OFF)] = 2
    kinds[((glyphs >= nh.GLYPH_BODY_OFF) & (glyphs < nh.GLYPH_RIDDEN_OFF)) | (
        (glyphs >= nh.GLYPH_OBJ_OFF) & (glyphs < nh.GLYPH_CMAP_OFF)) | (glyphs >= nh.GLYPH_STATUE_OFF)] = 3
    return classes, kinds


def cell_classes(glyphs: np.ndarray) -> np.ndarray:
    """Class of every map cell (UNSEEN, WALL, DOOR, FLOOR, CORRIDOR, FEATURE, OCCUPANT)."""
    return _tables()[0][glyphs]


def compass(dx: int, dy: int) -> str:
    """Compass word of an offset (``dy`` grows southwards); 8 sectors of 45 degrees."""
    angle = math.degrees(math.atan2(dy, dx)) % 360
    return _DIRECTIONS[int(((angle + 22.5) % 360) // 45)]


def where(dx: int, dy: int) -> str:
    """``"4 steps northeast"`` (distance in king moves), or ``"here"``."""
    steps = max(abs(dx), abs(dy))
    if steps == 0:
        return "here"
    return f"{steps} step{'s' if steps > 1 else ''} {compass(dx, dy)}"


def place_kind(classes: np.ndarray, x: int, y: int) -> str:
    """``"room"`` if room floor or a room feature touches the hero, else ``"corridor"``."""
    near = classes[max(y - 1, 0):y + 2, max(x - 1, 0):x + 2]
    return "room" if ((near == FLOOR) | (near == FEATURE)).any() else "corridor"


def region(classes: np.ndarray, x: int, y: int) -> tuple[str, np.ndarray]:
    """The hero's room or corridor: ``("room" | "corridor", mask of its cells)``."""
    kind = place_kind(classes, x, y)
    passable = {FLOOR, FEATURE, OCCUPANT} if kind == "room" else {CORRIDOR, OCCUPANT}
    member = passable | {DOOR, WALL}
    padded = np.full((classes.shape[0] + 2, classes.shape[1] + 2), UNSEEN, dtype=np.int8)
    padded[1:-1, 1:-1] = classes  # an unexplored border: no bounds checks in the walk
    width = padded.shape[1]
    flat = padded.ravel().tolist()  # Python ints: the walk is ~10x faster than on numpy scalars
    offsets = [dy * width + dx for dx, dy in _EIGHT]
    reached = {(y + 1) * width + x + 1}
    stack = list(reached)
    while stack:
        cell = stack.pop()
        for offset in offsets:
            near = cell + offset
            if near not in reached and flat[near] in member:
                reached.add(near)
                if flat[near] in passable:
                    stack.append(near)
    mask = np.zeros(padded.size, dtype=bool)
    mask[list(reached)] = True
    return kind, mask.reshape(padded.shape)[1:-1, 1:-1]


def _text(array: np.ndarray) -> str:
    return array.tobytes().split(b"\0", 1)[0].decode("latin-1").strip()


def notable_cells(obs: Mapping[str, Any], mask: np.ndarray | None = None,
                  classes: np.ndarray | None = None) -> Iterator[tuple[str, int, int]]:
    """``(name, x, y)`` of the doors, features, monsters and objects (within ``mask`` if given)."""
    classes = cell_classes(obs["glyphs"]) if classes is None else classes
    notable = (classes == DOOR) | (classes == FEATURE) | (classes == OCCUPANT)
    if mask is not None:
        notable &= mask
    for cy, cx in zip(*np.nonzero(notable)):
        yield _text(obs["screen_descriptions"][cy, cx]) or "something unknown", int(cx), int(cy)


#: What the text says after a cell's position when a creature stands there (glyph kind -> word).
CREATURES: dict[int, str] = {1: "monster", 2: "pet"}


def entities(obs: Mapping[str, Any], mask: np.ndarray, x: int, y: int, classes: np.ndarray) -> list[str]:
    """``"<name>: <where> (x<X> y<Y>)"`` for the notable cells of ``mask`` but the hero's (nearest
    first), followed by ``, monster`` or ``, pet`` where a creature stands (the map shows it)."""
    kinds = _tables()[1][obs["glyphs"]]
    cells = [(max(abs(cx - x), abs(cy - y)), cy, cx, name)
             for name, cx, cy in notable_cells(obs, mask, classes) if (cx, cy) != (x, y)]
    return [f"{name}: {where(cx - x, cy - y)} ({position(cx, cy)})" + _creature(int(kinds[cy, cx]))
            for _, cy, cx, name in sorted(cells)]


def _creature(kind: int) -> str:
    return f", {CREATURES[kind]}" if kind in CREATURES else ""


def position(x: int, y: int) -> str:
    """A map position as the text names it: ``"x44 y8"``."""
    return f"x{x} y{y}"


def extent(mask: np.ndarray) -> str:
    """``"x40-52 y3-9"``: the bounding box of a region's cells."""
    rows, cols = np.nonzero(mask)
    return f"x{int(cols.min())}-{int(cols.max())} y{int(rows.min())}-{int(rows.max())}"


def glyph_kinds(glyphs: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(monsters, pets, objects)`` masks of a glyph map (monsters exclude pets; the hero is a monster)."""
    kinds = _tables()[1][glyphs]
    return kinds == 1, kinds == 2, kinds == 3


def open_directions(classes: np.ndarray, x: int, y: int) -> list[str]:
    """Directions of the neighbouring cells one can step on (not walls or unexplored rock)."""
    height, width = classes.shape
    return [compass(dx, dy) for dx, dy in _EIGHT
            if 0 <= x + dx < width and 0 <= y + dy < height and classes[y + dy, x + dx] not in (UNSEEN, WALL)]


def message(obs: Mapping[str, Any]) -> str:
    """The top-line message."""
    return _text(obs["message"])


def status(blstats: np.ndarray) -> str:
    """The bottom lines as a sentence."""
    from nle import nethack as nh

    b = [int(v) for v in blstats]
    text = (f"Dungeon level {b[nh.NLE_BL_DEPTH]}, turn {b[nh.NLE_BL_TIME]}. HP {b[nh.NLE_BL_HP]}/"
            f"{b[nh.NLE_BL_HPMAX]}, Pw {b[nh.NLE_BL_ENE]}/{b[nh.NLE_BL_ENEMAX]}, AC {b[nh.NLE_BL_AC]}, "
            f"experience level {b[nh.NLE_BL_XP]} ({b[nh.NLE_BL_EXP]} points), gold {b[nh.NLE_BL_GOLD]}, "
            f"St {b[nh.NLE_BL_STR25]} Dx {b[nh.NLE_BL_DEX]} Co {b[nh.NLE_BL_CON]} In {b[nh.NLE_BL_INT]} "
            f"Wi {b[nh.NLE_BL_WIS]} Ch {b[nh.NLE_BL_CHA]}, {HUNGER.get(b[nh.NLE_BL_HUNGER], 'hungry')}")
    burden = ENCUMBRANCE.get(b[nh.NLE_BL_CAP])
    return text + (f", {burden}." if burden else ".")


def inventory(obs: Mapping[str, Any]) -> list[str]:
    """``"a: an uncursed +1 robe (being worn)"`` lines."""
    lines = []
    for letter, item in zip(obs["inv_letters"], obs["inv_strs"]):
        if letter == 0:
            break
        lines.append(f"{chr(letter)}: {_text(item)}")
    return lines


def overlay(tty_chars: np.ndarray, chars: np.ndarray) -> str:
    """Text of a window drawn over the map (a menu, the inventory list), or ``""``."""
    screen = tty_chars[1:1 + chars.shape[0], :chars.shape[1]]
    differs = screen != chars
    if not differs.any():
        return ""
    rows, cols = np.nonzero(differs)
    left = int(cols.min())
    lines = [_text(screen[r, left:]) for r in range(int(rows.min()), int(rows.max()) + 1)]
    return "\n".join(line for line in lines if line)


def describe(obs: Mapping[str, Any], scope: str, menu: str | None = None) -> str:
    """The whole observation text for ``scope`` ``"room"`` or ``"level"`` (``menu``: the
    :func:`overlay` text if already computed)."""
    from nle import nethack as nh

    x, y = int(obs["blstats"][nh.NLE_BL_X]), int(obs["blstats"][nh.NLE_BL_Y])
    classes = cell_classes(obs["glyphs"])
    menu = overlay(obs["tty_chars"], obs["chars"]) if menu is None else menu
    parts = [message(obs), menu, status(obs["blstats"])]
    kind, mask = region(classes, x, y)
    span = f" spanning {extent(mask)}" if kind == "room" else ""
    if scope == "level":
        seen = entities(obs, classes != UNSEEN, x, y, classes)
        parts.append(f"You are in a {kind}{span}, at {position(x, y)}. On this level you see:")
    else:
        seen = entities(obs, mask, x, y, classes)
        parts.append(f"You are in a {kind}{span}, at {position(x, y)}. In this {kind} you see:")
    parts[-1] += "".join(f"\n- {line}" for line in seen) if seen else " nothing special."
    parts.append("You can step: " + ", ".join(open_directions(classes, x, y)) + ".")
    parts.append("Inventory:" + "".join(f"\n{line}" for line in inventory(obs)))
    return "\n\n".join(part for part in parts if part)
