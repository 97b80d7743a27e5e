"""AriGraph's Treasure Hunt (appendix F, figures 7-9), built from code with TextWorld's GameMaker.

Every room of a grid map holds a locked locker of its own colour. The first room holds the first
key and the first note (which locker that key opens). Each locker of the chain, once unlocked and
opened, holds the next key and a note telling which locker that key opens and in which room; the
last key opens the golden locker, which holds the treasure. Lockers off the chain stay locked.

Names: rooms ``Room A``, ``Room B``, ... (``Room AA`` ... beyond 26); lockers ``<colour> locker``
and ``golden locker``; keys ``<metal> key`` (the metal says nothing about the locker); notes
``first note``, ``second note``, ... (note *k* comes with key *k*); ``treasure``.

Scoring (TextWorld quests): +1 the first time each key is picked up, +1 for taking the treasure,
which also wins the game. Levels (the ``difficulty`` option):

- ``normal``: 12 rooms (4 x 3), 4 keys.
- ``hard``: 16 rooms (4 x 4), 5 keys; the locker key 1 opens (which holds key 2) is the dead end
  farthest from the start.
- ``hardest``: 36 rooms (6 x 6), 7 keys, the far second key, and two distractor items per room.

Example:
    >>> plan = plan_treasure_hunt(seed=0, difficulty="hard")
    >>> len(plan.room_names), len(plan.keys), plan.locker_colour(plan.chain[-1])
    (16, 5, 'golden')
"""

from __future__ import annotations

import random
import string
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from textmem_gym.envs.textworld.game_building import (
    Cell,
    GridMap,
    add_rooms,
    compile_game,
    finish_game,
    new_maker,
    random_grid_map,
    win_quest,
)
from textmem_gym.envs.textworld.generation import GameGenerator
from textmem_gym.loading import lookup

COLOURS = (
    "red", "blue", "green", "yellow", "purple", "orange", "white", "black", "grey", "pink", "brown",
    "violet", "cyan", "magenta", "turquoise", "beige", "crimson", "navy", "olive", "maroon", "teal",
    "lime", "indigo", "amber", "ivory", "scarlet", "azure", "emerald", "lavender", "ochre", "coral",
    "khaki", "ruby", "jade", "plum", "mauve", "sepia", "cobalt",
)
METALS = ("iron", "brass", "copper", "bronze", "steel", "tin", "silver", "nickel", "pewter", "zinc")
ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth")
DISTRACTORS = (
    "umbrella", "flower vase", "candle", "teapot", "old newspaper", "chess board", "wooden spoon",
    "alarm clock", "rubber duck", "paintbrush", "tennis ball", "soup bowl", "picture frame",
    "flashlight", "hammer", "screwdriver", "scarf", "glove", "sock", "hat", "cushion", "blanket",
    "pillow", "toothpick", "coffee mug", "saucer", "fork", "ladle", "whistle", "compass",
    "magnifying glass", "globe", "telescope", "violin", "flute", "drum", "harmonica", "feather",
    "pebble", "seashell", "pine cone", "acorn", "leaf", "ribbon", "button", "thimble", "needle",
    "spool of thread", "pencil", "eraser", "ruler", "stapler", "envelope", "postcard", "stamp",
    "map", "calendar", "dice", "playing cards", "marble", "spinning top", "kite", "toy boat", "puppet",
    "mask", "fan", "mirror", "comb", "brush", "soap", "sponge", "bucket", "broom", "dustpan",
    "watering can", "flower pot", "birdcage", "lantern", "hourglass", "snow globe",
)
#: Walkthrough budget: the chain is re-drawn until the privileged walkthrough is this short.
MAX_WALKTHROUGH = 110
#: Static rules appended to the first observation and the objective.
TREASURE_NOTES = ("Scoring: 1 point for each key you pick up and 1 point for taking the treasure. "
                  "Useful commands: unlock <locker> with <key>, open <locker>, "
                  "take <thing> from <locker>, read <note>.")


@dataclass(frozen=True)
class HuntLevel:
    """The size and twists of one Treasure Hunt variant."""

    width: int
    height: int
    keys: int
    extra_edges: int
    far_second_key: bool = False
    distractors_per_room: int = 0


LEVELS: dict[str, HuntLevel] = {
    "normal": HuntLevel(width=4, height=3, keys=4, extra_edges=2),
    "hard": HuntLevel(width=4, height=4, keys=5, extra_edges=2, far_second_key=True),
    "hardest": HuntLevel(width=6, height=6, keys=7, extra_edges=4, far_second_key=True, distractors_per_room=2),
}


@dataclass
class HuntPlan:
    """Everything about one game, decided before TextWorld is touched.

    Attributes:
        grid: The map.
        room_names: Room name of each cell.
        start: The player's first room (holds the first key and note).
        colours: Locker colour of each cell (``golden`` for the treasure's room).
        chain: Cells of the lockers opened by key 1, 2, ..., the last being the golden one.
        keys: Key names, in chain order.
        notes: ``(name, text)`` of each note; note *k* comes with key *k*.
        distractors: Extra items lying in each room.
    """

    grid: GridMap
    room_names: dict[Cell, str]
    start: Cell
    colours: dict[Cell, str]
    chain: list[Cell]
    keys: list[str]
    notes: list[tuple[str, str]] = field(default_factory=list)
    distractors: dict[Cell, list[str]] = field(default_factory=dict)

    def locker_colour(self, cell: Cell) -> str:
        """The colour of the locker in ``cell``."""
        return self.colours[cell]

    @property
    def objective(self) -> str:
        """The task as told at the start (the first locker's colour, not its room)."""
        return (f"Find the treasure hidden in the golden locker. The {self.keys[0]} lying here opens "
                f"the {self.colours[self.chain[0]]} locker. Each locker you open holds the next key "
                "and a note saying which locker that key opens and where it is: read every note "
                "you find. Take the treasure to win.")

    def walkthrough(self) -> list[str]:
        """The shortest winning command list (privileged)."""
        commands, here = [f"take {self.keys[0]}", f"read {self.notes[0][0]}"], self.start
        for index, cell in enumerate(self.chain):
            locker = f"{self.colours[cell]} locker"
            commands += self.grid.path_commands(here, cell)
            commands += [f"unlock {locker} with {self.keys[index]}", f"open {locker}"]
            if index + 1 < len(self.keys):
                commands += [f"take {self.keys[index + 1]} from {locker}", f"read {self.notes[index + 1][0]}"]
            else:
                commands.append(f"take treasure from {locker}")
            here = cell
        return commands


def room_labels(count: int) -> list[str]:
    """``A``, ``B``, ..., ``Z``, ``AA``, ``AB``, ... (``count`` labels)."""
    letters = string.ascii_uppercase
    labels = list(letters) + [a + b for a in letters for b in letters]
    return labels[:count]


def plan_treasure_hunt(seed: int, difficulty: str = "normal") -> HuntPlan:
    """Draws one game of the given level from ``seed`` (pure Python, deterministic).

    Raises:
        ValueError: Unknown ``difficulty``.
    """
    level = lookup("treasure hunt difficulty", difficulty, LEVELS)
    rng = random.Random(f"treasure-hunt/{difficulty}/{seed}")
    grid = random_grid_map(rng, level.width, level.height, level.extra_edges)
    labels = room_labels(len(grid.cells))
    rng.shuffle(labels)
    names = {cell: f"Room {label}" for cell, label in zip(grid.cells, labels)}
    start = rng.choice(grid.cells)
    keys = [f"{metal} key" for metal in rng.sample(METALS, level.keys)]
    for _ in range(1000):
        plan = _draw_chain(rng, grid, names, start, keys, level)
        if len(plan.walkthrough()) <= MAX_WALKTHROUGH:
            break
    else:  # pragma: no cover - the budget leaves ample room
        raise RuntimeError(f"no treasure hunt chain within {MAX_WALKTHROUGH} steps for seed {seed}")
    pool = rng.sample(DISTRACTORS, level.distractors_per_room * len(grid.cells))
    for i, cell in enumerate(grid.cells):
        plan.distractors[cell] = pool[i * level.distractors_per_room:(i + 1) * level.distractors_per_room]
    return plan


def _draw_chain(rng: random.Random, grid: GridMap, names: dict[Cell, str], start: Cell,
                keys: list[str], level: HuntLevel) -> HuntPlan:
    others = [cell for cell in grid.cells if cell != start]
    if level.far_second_key:
        first = _far_dead_end(rng, grid, start)
        chain = [first] + rng.sample([c for c in others if c != first], level.keys - 1)
    else:
        chain = rng.sample(others, level.keys)
    palette = iter(rng.sample(COLOURS, len(grid.cells) - 1))
    colours = {cell: "golden" if cell == chain[-1] else next(palette) for cell in grid.cells}
    plan = HuntPlan(grid, names, start, colours, chain, keys)
    plan.notes = [(f"{ORDINALS[0]} note", f"The {keys[0]} opens the {colours[chain[0]]} locker.")]
    plan.notes += [(f"{ORDINALS[k]} note", f"The {keys[k]} opens the {colours[chain[k]]} locker in {names[chain[k]]}.")
                   for k in range(1, len(keys))]
    return plan


def _far_dead_end(rng: random.Random, grid: GridMap, start: Cell) -> Cell:
    """A room with one exit at the greatest distance from ``start`` (the farthest room if none)."""
    distances = grid.distances(start)
    dead_ends = [c for c in grid.cells if c != start and len(grid.neighbours(c)) == 1] or list(distances)
    farthest = max(distances[c] for c in dead_ends)
    return rng.choice([c for c in dead_ends if distances[c] == farthest])


def build_treasure_hunt(output: Path, seed: int, split: str | None, difficulty: str = "normal") -> None:
    """Builds and compiles one Treasure Hunt game (runs in the generating process).

    Args:
        output: Where to write the ``.z8`` file.
        seed: The game seed (map, colours, chain, distractors).
        split: Unused (no splits).
        difficulty: ``normal``, ``hard`` or ``hardest``.
    """
    compile_game(make_treasure_hunt_game(seed, difficulty), output)


def make_treasure_hunt_game(seed: int, difficulty: str = "normal") -> Any:
    """The ``textworld.Game`` of one Treasure Hunt instance (quests, objective, walkthrough)."""
    plan = plan_treasure_hunt(seed, difficulty)
    maker = new_maker(seed)
    rooms = add_rooms(maker, plan.grid, plan.room_names)
    maker.set_player(rooms[plan.start])
    lockers = {}
    for cell in plan.grid.cells:
        lockers[cell] = maker.new(type="c", name=f"{plan.colours[cell]} locker")
        lockers[cell].add_property("locked")
        rooms[cell].add(lockers[cell])
        rooms[cell].add(*[maker.new(type="o", name=item) for item in plan.distractors[cell]])
    maker.quests = _place_chain(maker, plan, rooms, lockers)
    return finish_game(maker, plan.objective, plan.walkthrough())


def _place_chain(maker: Any, plan: HuntPlan, rooms: dict[Cell, Any], lockers: dict[Cell, Any]) -> list[Any]:
    """Puts keys, notes and the treasure in place; returns the scoring quests."""
    holders = [rooms[plan.start]] + [lockers[cell] for cell in plan.chain]
    quests = []
    for index, (key_name, (note_name, text)) in enumerate(zip(plan.keys, plan.notes)):
        key = maker.new(type="k", name=key_name)
        holders[index].add(key, maker.new(type="o", name=note_name, desc=text))
        maker.add_fact("match", key, lockers[plan.chain[index]])
        quests.append(win_quest([maker.new_fact("in", key, maker.inventory)], reward=1, optional=True))
    treasure = maker.new(type="o", name="treasure", desc="A chest of gold coins: the treasure you were looking for!")
    holders[-1].add(treasure)
    quests.append(win_quest([maker.new_fact("in", treasure, maker.inventory)], reward=1))
    return quests


#: The generator, declared as ``treasure-hunt`` in the entry-point group ``textmem_gym.game_generators``
#: (the library's ``setup.cfg``), as another package declares its own.
TREASURE_HUNT = GameGenerator(
    build="textmem_gym.envs.textworld.treasure_hunt:build_treasure_hunt",
    version="2",
    notes=TREASURE_NOTES,
)

