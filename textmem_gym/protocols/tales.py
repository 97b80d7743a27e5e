"""TALES (Cui et al., 2025; microsoft/tale-suite): its games of the frameworks we have, its protocol and leaderboard.

What TALES runs, read from its repository (we depend on nothing of it):

- games: TextWorld Express's 16 (:data:`TWX_GAMES`, TALES's parameters, in its order), ScienceWorld's 30 tasks
  (no simplification), Jericho's suite without ``hollywood`` and ``theatre`` (:data:`JERICHO_GAMES`,
  54), TextWorld's ``TWCookingLevel1-10`` and ALFWorld's 12 tasks;
- instance: the first seed of TWX's test fold, the first test variation of ScienceWorld (the reset
  seed picks a variation by index; TALES runs with none given);
- budget: 100 commands per game; when the game is won or lost earlier (short of the maximum
  score) it restarts and the agent plays on;
- score: the best score reached in the budget over the maximum score; a framework's score is the
  mean over its games, the overall score the mean over all 122 games.

A replay of the walkthrough (ScienceWorld's gold path) reaches the maximum score on 26 of the 30
ScienceWorld games. On four, which the plan marks not winnable, ScienceWorld's own gold path is
longer than the budget: the inclined planes' friction games poll the sliding block with ``look at``
once per tick, Mendelian genetics waits out two plant generations. No replay of it can finish there
(ScienceWorld's own Python API, default JVM, gives paths as long or longer, and 31-40 % in 100
commands).

Played here: TextWorld Express, ScienceWorld and Jericho (a Jericho game whose ROM cannot be found
is listed as not played). Gaps, named in the report: TextWorld's ten games are GATA's published
``rl.0.2`` files (downloaded by TALES; the seeds that made them are not published, so they cannot be
built here) and ALFWorld is not a backend of ours. The leaderboard (per framework, 40 models) is
``protocols/data/tales.json``, with its source.

Example:
    >>> [cell.label for cell in PROTOCOL.cells][:3], len(PROTOCOL.cells)
    (['TWXCookingWorld', 'TWXTextWorldCommonsense', 'TWXCoinCollector'], 100)
    >>> PROTOCOL.cells[2].env_id, PROTOCOL.cells[2].env_kwargs["numDistractorItems"], PROTOCOL.cells[2].max_steps
    ('TextMem/TWX-CoinCollector-v0', 5, 100)
    >>> framework_of("ScienceWorldBoil"), framework_of("JerichoEnvZork1")
    ('ScienceWorld', 'Jericho')
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from typing import Any

from textmem_gym.envs.jericho.ids import env_id as jericho_id
from textmem_gym.envs.scienceworld.ids import TASKS as SCIENCEWORLD_TASKS
from textmem_gym.envs.scienceworld.ids import env_id as scienceworld_id
from textmem_gym.envs.twx.ids import VARIANTS
from textmem_gym.envs.twx.ids import env_id as twx_id
from textmem_gym.protocols import published
from textmem_gym.protocols.base import Cell, Protocol

#: TALES's step budget per game.
BUDGET = 100

#: TALES's TextWorld Express games: label suffix -> (our id, more ``gym.make`` arguments). Its
#: parameters: CookingWorld and the nine Simon Says games have ids of their own
#: (:data:`textmem_gym.envs.twx.ids.VARIANTS`); the others are TWX's defaults changed by these.
TWX_GAMES: dict[str, tuple[str, dict[str, int]]] = {
    "CookingWorld": ("TextMem/TWX-CookingWorld-Easy-v0", {}),
    "TextWorldCommonsense": (twx_id("twc"), {"numLocations": 1, "numItemsToPutAway": 1, "includeDoors": 0,
                                             "limitInventorySize": 0}),
    "CoinCollector": (twx_id("coin"), {"numLocations": 1, "numDistractorItems": 5, "limitInventorySize": 0}),
    "Arithmetic": (twx_id("arithmetic"), {}),
    "MapReader": (twx_id("mapreader"), {"numLocations": 2, "maxDistanceApart": 1, "maxDistractorItemsPerLocation": 2,
                                        "includeDoors": 0, "limitInventorySize": 0}),
    "Sorting": (twx_id("sorting"), {}),
    **{name: (f"TextMem/TWX-{name}-v0", {}) for name in VARIANTS if name.startswith("SimonSays")},
    "PeckingOrder": (twx_id("peckingorder"), {}),
}

#: TALES's Jericho games (the Jericho suite without ``hollywood`` and ``theatre``, which TALES drops).
JERICHO_GAMES: tuple[str, ...] = (
    "905", "acorncourt", "advent", "adventureland", "afflicted", "anchor", "awaken", "balances", "ballyhoo",
    "curses", "cutthroat", "deephome", "detective", "dragon", "enchanter", "enter", "gold", "hhgg", "huntdark",
    "infidel", "inhumane", "jewel", "karn", "library", "loose", "lostpig", "ludicorp", "lurking", "moonlit",
    "murdac", "night", "omniquest", "partyfoul", "pentari", "planetfall", "plundered", "reverb", "seastalker",
    "sherlock", "snacktime", "sorcerer", "spellbrkr", "spirit", "temple", "trinity", "tryst205", "weapon",
    "wishbringer", "yomomma", "zenon", "zork1", "zork2", "zork3", "ztuu",
)

#: Label prefix of a TALES game -> its framework (the leaderboard's column).
FRAMEWORKS: dict[str, str] = {"TWX": "TextWorld Express", "ScienceWorld": "ScienceWorld", "JerichoEnv": "Jericho"}

#: TALES frameworks not played here, and why.
GAPS: dict[str, str] = {
    "TextWorld": ("TWCookingLevel1-10 are GATA's published rl.0.2 test games (files TALES downloads); the seeds "
                  "that made them are not published, so they cannot be built here"),
    "ALFWorld": "12 ALFWorld tasks (seen/unseen): ALFWorld is not a backend of textmem_gym",
}


def framework_of(label: str) -> str:
    """The TALES framework of a game label (``"TWXSorting"`` -> ``"TextWorld Express"``)."""
    return next(name for prefix, name in FRAMEWORKS.items() if label.startswith(prefix))


def _cells() -> tuple[Cell, ...]:
    twx = [Cell(f"TWX{name}", env, BUDGET, env_kwargs=params, note="TALES's parameters, test seed 0")
           for name, (env, params) in TWX_GAMES.items()]
    science = [Cell(f"ScienceWorld{task.title().replace('-', '')}", scienceworld_id(task), BUDGET,
                    env_kwargs={"simplification": ""}, note="first test variation, no simplification")
               for task in SCIENCEWORLD_TASKS]
    jericho = [Cell(f"JerichoEnv{game.title()}", jericho_id(game), BUDGET, note="the suite's ROM")
               for game in JERICHO_GAMES]
    return tuple(twx + science + jericho)


PROTOCOL = Protocol(
    name="tales",
    title="TALES (2025): TextWorld Express, ScienceWorld and Jericho games, 100 commands each, best score reached",
    cells=_cells(),
    attempts=1,
    step_accounting=f"every command counts; {BUDGET} per game, the game restarts after each win or loss",
    scale=100.0,
    reports_success=True,
    restart_within_budget=True,
    skip_unavailable=True,
    report="textmem_gym.protocols.tales:format_tales_report",
)


def format_tales_report(protocol: Protocol, played: Sequence[Any], policy: str,
                        rows: list[str] | None = None) -> str:
    """Our score per game, then per framework beside TALES's leaderboard, then the gaps.

    Args:
        protocol: :data:`PROTOCOL` (or a subset of it).
        played: The :class:`~textmem_gym.protocols.run.CellResult` of each cell.
        policy: Our policy's name (the row label).
        rows: Leaderboard rows to show (default: all of them).
    """
    data = published(protocol.name)
    lines = [protocol.title, f"paper: {data['paper']}", f"leaderboard: {data['source']}",
             f"metric: {data['metric']}; steps: {protocol.step_accounting}", "",
             f"| game | framework | played | walkthrough fits | {policy}: score % | wins / losses / restarts |",
             "|---|---|---|---|---|---|"]
    lines += [_game_line(item) for item in played]
    lines += ["", _framework_table(played, policy, data, rows), "", "not played:"]
    lines += [f"- {name}: {why}" for name, why in GAPS.items()]
    missing = [item.plan.cell.label for item in played if item.plan.unavailable]
    if missing:
        lines.append(f"- {len(missing)} game(s) whose files were not found: {', '.join(missing)} "
                     f"(first reason: {next(i.plan.unavailable for i in played if i.plan.unavailable)})")
    return "\n".join(lines)


def game_score(item: Any) -> float | None:
    """A played cell's score in % (mean normalized score of its episodes; ``None``: not played)."""
    scores = [float(r["normalized_score"]) for r in item.results if not r.get("error")]
    return 100 * statistics.fmean(scores) if scores else None


def _game_line(item: Any) -> str:
    planned = item.plan
    label = planned.cell.label
    score = game_score(item)
    if planned.unavailable or score is None:
        return f"| {label} | {framework_of(label)} | not played | - | - | - |"
    fits = [i.get("winnable") for i in planned.instances.values()]
    fit = "?" if all(f is None for f in fits) else ("yes" if all(fits) else "NO")
    counts = "/".join(str(sum(int(r.get(k, 0)) for r in item.results)) for k in ("wins", "losses", "restarts"))
    return f"| {label} | {framework_of(label)} | {planned.env_id} | {fit} | {score:.1f} | {counts} |"


def _framework_table(played: Sequence[Any], policy: str, data: dict[str, Any], rows: list[str] | None) -> str:
    columns = list(data["columns"])
    totals: dict[str, int] = data["games"]
    ours: dict[str, list[float]] = {}
    for item in played:
        score = game_score(item)
        if score is not None:
            ours.setdefault(framework_of(item.plan.cell.label), []).append(score)
    every = [s for scores in ours.values() for s in scores]
    cells = [f"{statistics.fmean(ours[c]):.1f} ({len(ours[c])} of {totals[c]} games)" if c in ours else "not played"
             for c in columns[:-1]]
    cells.append(f"{statistics.fmean(every):.1f} ({len(every)} of {sum(totals.values())} games)" if every else "-")
    lines = ["| row | " + " | ".join(columns) + " |", "|---" * (len(columns) + 1) + "|",
             f"| {policy} (ours) | " + " | ".join(cells) + " |"]
    for name in rows or list(data["rows"]):
        values = data["rows"][name]
        lines.append(f"| TALES: {name} | " + " | ".join(f"{values[c]['score']:.1f}" for c in columns) + " |")
    return "\n".join(lines)


__all__ = ["BUDGET", "FRAMEWORKS", "GAPS", "JERICHO_GAMES", "PROTOCOL", "TWX_GAMES",
           "format_tales_report", "framework_of", "game_score"]
