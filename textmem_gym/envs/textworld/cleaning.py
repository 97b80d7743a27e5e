"""AriGraph's Cleaning game (appendix F, figure 10), built from code with TextWorld's GameMaker.

The nine rooms of :data:`~textmem_gym.envs.textworld.cleaning_data.HOUSE` lie on a 3 x 3 grid (which room
is where, and which passages exist, depend on the seed). Eleven items are misplaced: each lies on
a piece of furniture of another room (a toothbrush on the dining table). The agent must put each
one back where it belongs; where that is, is common sense and is never stated.

Scoring, as in the paper, with TextWorld quests (each completed at most once):

- +1 the first time each misplaced item is picked up;
- +1 when a misplaced item is put where it belongs;
- -1 the first time an item that was already in its place is picked up (an optional quest with
  a negative reward, not counted in ``max_score``);
- won (a quest with reward 0) when all eleven are in place at once. Maximum score 22.

Example:
    >>> plan = plan_cleaning(seed=0)
    >>> len(plan.misplaced), len(set(plan.room_at.values()))
    (11, 9)
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from textmem_gym.envs.textworld.cleaning_data import HOUSE, MISPLACED_COUNT, home_of, receptacle
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

CLEANING_NOTES = (
    "Scoring: 1 point the first time you pick up each misplaced item, 1 point for putting it where "
    "it belongs, and minus 1 point the first time you pick up an item that was already in its place. "
    "The game is won when every misplaced item is back in its place.")
_KINDS = {"supporter": "s", "container": "c"}
#: At most this many misplaced items come from one room, and lie on one piece of furniture.
MAX_PER_ROOM = 2
MAX_PER_SPOT = 2


@dataclass
class CleaningPlan:
    """Everything about one Cleaning game, decided before TextWorld is touched.

    Attributes:
        grid: The map (3 x 3).
        room_at: Room name of each cell.
        start: The player's first room.
        misplaced: Misplaced item -> the furniture it lies on at the start.
    """

    grid: GridMap
    room_at: dict[Cell, str]
    start: Cell
    misplaced: dict[str, str]

    @property
    def objective(self) -> str:
        """The task as told at the start (where items belong is left to common sense)."""
        return (f"The house is a mess: {len(self.misplaced)} items are not where they belong. Find "
                "each misplaced item and put it back in its proper place in the house, on or in the "
                "right piece of furniture. Leave the items that are already in their place alone.")

    def cell_of(self, room: str) -> Cell:
        """The cell of ``room``."""
        return next(cell for cell, name in self.room_at.items() if name == room)

    def walkthrough(self) -> list[str]:
        """A winning command list (privileged): collect every misplaced item, then return each."""
        here, commands = self.start, []
        pickups = {item: self.cell_of(_room_of_furniture(spot)) for item, spot in self.misplaced.items()}
        for cell, items in self._tour(here, pickups):
            commands += self.grid.path_commands(here, cell) + [f"take {i} from {self.misplaced[i]}" for i in items]
            here = cell
        homes = {item: self.cell_of(home_of(item)[0]) for item in self.misplaced}
        opened: set[str] = set()
        for cell, items in self._tour(here, homes):
            commands += self.grid.path_commands(here, cell)
            for item in items:
                furniture = receptacle(home_of(item)[1])
                if furniture.kind == "container" and furniture.name not in opened:
                    commands.append(f"open {furniture.name}")
                    opened.add(furniture.name)
                verb = "put {} on {}" if furniture.kind == "supporter" else "insert {} into {}"
                commands.append(verb.format(item, furniture.name))
            here = cell
        return commands

    def _tour(self, start: Cell, targets: dict[str, Cell]) -> list[tuple[Cell, list[str]]]:
        """Visits the cells of ``targets`` nearest-first; returns (cell, items there) in order."""
        left, here, order = dict(targets), start, []
        while left:
            distances = self.grid.distances(here)
            cell = min(left.values(), key=lambda c: (distances[c], c))
            items = sorted(item for item, c in left.items() if c == cell)
            order.append((cell, items))
            for item in items:
                del left[item]
            here = cell
        return order


def _room_of_furniture(name: str) -> str:
    return next(room for room, pieces in HOUSE.items() if any(p.name == name for p in pieces))


def _choose_misplaced(rng: random.Random) -> list[str]:
    """Draws the misplaced items, at most :data:`MAX_PER_ROOM` from any one room."""
    candidates = sorted(item for pieces in HOUSE.values() for piece in pieces for item in piece.items)
    rng.shuffle(candidates)
    chosen: list[str] = []
    for item in candidates:
        if sum(home_of(other)[0] == home_of(item)[0] for other in chosen) < MAX_PER_ROOM:
            chosen.append(item)
    return chosen[:MISPLACED_COUNT]


def plan_cleaning(seed: int) -> CleaningPlan:
    """Draws one Cleaning game from ``seed`` (pure Python, deterministic)."""
    rng = random.Random(f"cleaning/{seed}")
    grid = random_grid_map(rng, 3, 3, extra_edges=3)
    rooms = list(HOUSE)
    rng.shuffle(rooms)
    room_at = dict(zip(grid.cells, rooms))
    misplaced: dict[str, str] = {}
    for item in _choose_misplaced(rng):
        home_room = home_of(item)[0]
        spots = [r.name for room in HOUSE if room != home_room for r in HOUSE[room]
                 if r.kind == "supporter" and list(misplaced.values()).count(r.name) < MAX_PER_SPOT]
        misplaced[item] = rng.choice(spots)
    return CleaningPlan(grid, room_at, rng.choice(grid.cells), misplaced)


def build_cleaning(output: Path, seed: int, split: str | None) -> None:
    """Builds and compiles one Cleaning game (runs in the generating process).

    Args:
        output: Where to write the ``.z8`` file.
        seed: The game seed (layout, passages, start, which items are misplaced and where).
        split: Unused (no splits).
    """
    compile_game(make_cleaning_game(seed), output)


def make_cleaning_game(seed: int) -> Any:
    """The ``textworld.Game`` of one Cleaning instance (quests, objective, walkthrough)."""
    plan = plan_cleaning(seed)
    maker = new_maker(seed)
    rooms = add_rooms(maker, plan.grid, plan.room_at)
    maker.set_player(rooms[plan.start])
    furniture = {}
    for cell, room in plan.room_at.items():
        for piece in HOUSE[room]:
            furniture[piece.name] = maker.new(type=_KINDS[piece.kind], name=piece.name,
                                              desc=f"The {piece.name} of the {room.lower()}.")
            if piece.kind == "container":
                furniture[piece.name].add_property("closed")
            rooms[cell].add(furniture[piece.name])
    maker.quests = _place_items(maker, plan, furniture)
    return finish_game(maker, plan.objective, plan.walkthrough())


def _place_items(maker: Any, plan: CleaningPlan, furniture: dict[str, Any]) -> list[Any]:
    """Puts every item on/in its furniture; returns the scoring quests."""
    quests, in_place = [], []
    for pieces in HOUSE.values():
        for piece in pieces:
            for name in piece.items + piece.fixtures:
                item = maker.new(type="o", name=name, desc=f"You see nothing special about the {name}.")
                furniture[plan.misplaced.get(name, piece.name)].add(item)
                taken = [maker.new_fact("in", item, maker.inventory)]
                if name not in plan.misplaced:
                    quests.append(win_quest(taken, reward=-1, optional=True))
                    continue
                placed = maker.new_fact(piece.relation, item, furniture[piece.name])
                quests += [win_quest(taken, reward=1, optional=True), win_quest([placed], reward=1, optional=True)]
                in_place.append(placed)
    quests.append(win_quest(in_place, reward=0))
    return quests


#: The generator, declared as ``cleaning`` in the entry-point group ``textmem_gym.game_generators``
#: (the library's ``setup.cfg``), as another package declares its own.
CLEANING = GameGenerator(
    build="textmem_gym.envs.textworld.cleaning:build_cleaning",
    notes=CLEANING_NOTES,
)

