"""BALROG's NetHack progression metric (Paglieri et al., 2024, "BALROG: Benchmarking Agentic LLM
and VLM Reasoning On Games"; the BALROG leaderboard compares NetHack agents by it).

In-game score rewards many things besides progress; BALROG measured, on human games (the NAO
dataset), the share of games that went on to ascend after reaching each dungeon level
(``Dlvl:N``, NetHack's depth) and each experience level (``Xp:N``). An episode's progression is the
highest such value among the dungeon depths and experience levels it reached: 0 at the start
(Dlvl:1, Xp:1), 1 for an ascension. BALROG reports the mean over episodes as a percentage.

The values are BALROG's table (``balrog_achievements.json`` beside this module, with its source);
this module is our own code. As in BALROG, the ``Dlvl:N`` and ``Xp:N`` entries are read at every
key press (a depth or level missing from the table adds nothing); an ascension is 1, as BALROG's
table and paper define it.

Example:
    >>> progress = Progression()
    >>> progress.update(depth=1, experience_level=1); progress.value
    0.0
    >>> progress.update(depth=3, experience_level=2); round(progress.percent, 2)
    1.85
    >>> progress.update(depth=1, experience_level=2); progress.highest
    'Xp:2'
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

_TABLE = Path(__file__).with_name("balrog_achievements.json")


@cache
def achievements() -> dict[str, float]:
    """BALROG's table: ``"Dlvl:N"`` and ``"Xp:N"`` -> share of human games that ascended after it."""
    data: dict[str, Any] = json.loads(_TABLE.read_text(encoding="utf-8"))
    table = {f"Dlvl:{level}": float(v) for level, v in data["dungeon_level"].items()}
    table.update({f"Xp:{level}": float(v) for level, v in data["experience_level"].items()})
    return table


def progression(depths: list[int] | set[int], experience_levels: list[int] | set[int]) -> float:
    """The progression (0-1) of an episode that reached these depths and experience levels.

    Example:
        >>> round(progression({1, 2, 3}, {1, 4}), 4)
        0.0242
    """
    table = achievements()
    reached = [f"Dlvl:{d}" for d in depths] + [f"Xp:{x}" for x in experience_levels]
    return max((table[key] for key in reached if key in table), default=0.0)


class Progression:
    """Tracks one episode's progression step by step.

    Attributes:
        value: Progression so far (0-1).
        highest: The achievement that gave it (``"Dlvl:3"``), ``None`` at the start.
        depths: Dungeon depths reached.
        experience_levels: Experience levels reached.
    """

    def __init__(self) -> None:
        self.value = 0.0
        self.highest: str | None = None
        self.depths: set[int] = set()
        self.experience_levels: set[int] = set()

    def update(self, depth: int, experience_level: int) -> None:
        """Counts the depth and experience level of the current step."""
        table = achievements()
        for key, seen, level in (("Dlvl", self.depths, depth), ("Xp", self.experience_levels, experience_level)):
            seen.add(level)
            achievement = f"{key}:{level}"
            if table.get(achievement, 0.0) > self.value:
                self.value, self.highest = table[achievement], achievement

    def ascended(self) -> None:
        """The game was won: progression 1 (BALROG's "You ascend" entry)."""
        self.value, self.highest = 1.0, "You ascend"

    @property
    def percent(self) -> float:
        """:attr:`value` as BALROG reports it (a percentage)."""
        return 100.0 * self.value
