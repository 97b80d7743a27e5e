"""Shared pieces of the hand-designed TextWorld games (Treasure Hunt, Cleaning).

Maps are rooms on a grid joined by a random spanning tree plus a few extra passages (loops),
all drawn from one :class:`random.Random`, so a seed gives the same map in every process.
The compile step is TextWorld's own (``generate_inform7_source`` + ``compile_inform7_game``)
with one extra Inform7 line: ``read`` is a synonym of ``examine``. (TextWorld's own source already
refuses implicit taking, so every pickup is a turn of its own and scored by its own quest.)

Example:
    >>> import random
    >>> grid = random_grid_map(random.Random(0), width=3, height=3, extra_edges=1)
    >>> len(grid.cells), grid.is_connected()
    (9, True)
    >>> grid.path_commands((0, 0), (0, 0))
    []
"""

from __future__ import annotations

import random
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

Cell = tuple[int, int]

#: Grid steps of each direction (x grows to the east, y to the south).
DIRECTIONS: dict[str, Cell] = {"north": (0, -1), "south": (0, 1), "east": (1, 0), "west": (-1, 0)}
OPPOSITE: dict[str, str] = {"north": "south", "south": "north", "east": "west", "west": "east"}

#: Inform7 lines added to every hand-designed game.
EXTRA_INFORM7 = """
Understand "read [something]" as examining.
"""


@dataclass
class GridMap:
    """Rooms on grid cells joined by passages.

    Attributes:
        cells: The cells that hold a room, in creation order.
        edges: Passages as ``(cell, direction, neighbour)`` with each passage listed once.
    """

    cells: list[Cell]
    edges: list[tuple[Cell, str, Cell]] = field(default_factory=list)

    def neighbours(self, cell: Cell) -> list[tuple[str, Cell]]:
        """The ``(direction, cell)`` pairs reachable from ``cell`` in one move."""
        found = [(d, b) for a, d, b in self.edges if a == cell]
        found += [(OPPOSITE[d], a) for a, d, b in self.edges if b == cell]
        return sorted(found)

    def distances(self, start: Cell) -> dict[Cell, int]:
        """Breadth-first distances (in moves) from ``start``."""
        dist: dict[Cell, int] = {}
        for cell, previous in self._breadth_first(start).items():  # parents come before children
            dist[cell] = 0 if previous is None else dist[previous[0]] + 1
        return dist

    def _breadth_first(self, start: Cell, goal: Cell | None = None) -> dict[Cell, tuple[Cell, str] | None]:
        """Cell -> (the cell it is first reached from, direction), in breadth-first order, until ``goal``."""
        previous: dict[Cell, tuple[Cell, str] | None] = {start: None}
        queue = deque([start])
        while queue and goal not in previous:
            cell = queue.popleft()
            for direction, nxt in self.neighbours(cell):
                if nxt not in previous:
                    previous[nxt] = (cell, direction)
                    queue.append(nxt)
        return previous

    def is_connected(self) -> bool:
        """Whether every room can be reached from every other."""
        return not self.cells or len(self.distances(self.cells[0])) == len(self.cells)

    def path_commands(self, start: Cell, goal: Cell) -> list[str]:
        """The shortest list of ``go <direction>`` commands from ``start`` to ``goal``."""
        previous = self._breadth_first(start, goal)
        commands: list[str] = []
        cell = goal
        while (link := previous[cell]) is not None:
            cell, direction = link
            commands.append(f"go {direction}")
        return commands[::-1]


def random_grid_map(rng: random.Random, width: int, height: int, extra_edges: int) -> GridMap:
    """A random spanning tree over a ``width`` x ``height`` grid plus ``extra_edges`` loops.

    Args:
        rng: The source of randomness (the only one used).
        width: Cells per row.
        height: Rows.
        extra_edges: Passages added after the tree (fewer if the grid has no more room).

    Returns:
        A connected :class:`GridMap` over every cell of the grid.
    """
    cells = [(x, y) for y in range(height) for x in range(width)]
    candidates = [((x, y), d, (x + dx, y + dy)) for (x, y) in cells for d, (dx, dy) in DIRECTIONS.items()
                  if d in ("east", "south") and (x + dx, y + dy) in cells]
    rng.shuffle(candidates)
    parent = {cell: cell for cell in cells}

    def root(cell: Cell) -> Cell:
        while parent[cell] != cell:
            cell = parent[cell]
        return cell

    tree, spare = [], []
    for edge in candidates:  # Kruskal over a shuffled edge list: a uniform-ish random tree
        a, b = root(edge[0]), root(edge[2])
        if a != b:
            parent[a] = b
            tree.append(edge)
        else:
            spare.append(edge)
    return GridMap(cells, tree + spare[:extra_edges])


def add_rooms(maker: Any, grid: GridMap, names: dict[Cell, str]) -> dict[Cell, Any]:
    """Creates one GameMaker room per cell and connects the passages of ``grid``."""
    rooms = {cell: maker.new_room(names[cell]) for cell in grid.cells}
    for a, direction, b in grid.edges:
        maker.connect(getattr(rooms[a], direction), getattr(rooms[b], OPPOSITE[direction]))
    return rooms


def new_maker(seed: int) -> Any:
    """A ``textworld.GameMaker`` whose text grammar is seeded by ``seed``."""
    import textworld

    options = textworld.GameOptions()
    options.seeds = seed
    return textworld.GameMaker(options)


def win_quest(conditions: list[Any], reward: int, optional: bool = False) -> Any:
    """A TextWorld quest completed (once) when all ``conditions`` hold at the end of a turn."""
    from textworld.generator.game import Event, Quest

    return Quest(win_events=[Event(conditions=conditions)], reward=reward, optional=optional)


def finish_game(maker: Any, objective: str, walkthrough: list[str]) -> Any:
    """Builds the ``textworld.Game`` of ``maker`` with its objective and walkthrough metadata."""
    game = maker.build()
    game.objective = objective
    game.metadata["walkthrough"] = list(walkthrough)
    return game


def compile_game(game: Any, output: Path) -> None:
    """Compiles ``game`` to ``output`` (``.z8``) with :data:`EXTRA_INFORM7`, JSON beside it."""
    from textworld.generator import compile_inform7_game
    from textworld.generator.inform7 import generate_inform7_source

    source = generate_inform7_source(game) + EXTRA_INFORM7
    output.parent.mkdir(parents=True, exist_ok=True)
    game.save(str(output.with_suffix(".json")))
    compile_inform7_game(source, str(output))
