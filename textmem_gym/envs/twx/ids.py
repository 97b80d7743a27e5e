"""The ``TextMem/TWX-*`` ids: the eight TextWorld Express games, and their parameters.

Each id is ``TextMem/TWX-<Game>-v0`` and plays TWX's game with TWX's default parameters
(:data:`GAMES`); every parameter is also an env keyword (``gym.make("TextMem/TWX-CookingWorld-v0",
numLocations=1, includeDoors=0)``), checked against the range TWX documents. The easy variant
``TextMem/TWX-CookingWorld-Easy-v0`` (one room, two ingredients, no doors: TALES's CookingWorld
parameters) and TALES's nine Simon Says games (``TextMem/TWX-SimonSays10-v0`` ...
``TextMem/TWX-SimonSaysWithMemory100Verbose-v0``) are registered too. This module imports no env code (nor starts Java).

Example:
    >>> env_id("cookingworld")
    'TextMem/TWX-CookingWorld-v0'
    >>> ENV_TABLE["TextMem/TWX-CoinCollector-v0"].kwargs
    {'game': 'coin'}
    >>> game_params("coin", {"numLocations": 3})
    'numLocations=3, numDistractorItems=0, includeDoors=1, limitInventorySize=1'
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple

from textmem_gym.envs.entry import EnvEntry
from textmem_gym.loading import lookup

TWX_ENTRY = "textmem_gym.envs.twx.env:TWXEnv"

#: ``max_episode_steps`` of the TWX ids (TALES's step budget).
STEP_LIMIT = 100
#: ``max_score`` of every TWX id: TWX's normalized score (0-1) times 100, as TALES reports it.
MAX_SCORE = 100


class Param(NamedTuple):
    """One TWX game parameter: its default and its valid range (both ends included)."""

    default: int
    low: int
    high: int


class TWXGame(NamedTuple):
    """One TWX game.

    Attributes:
        name: The id's ``<Game>`` part (``CookingWorld``).
        title: One line for ``textmem-gym list``.
        params: Parameter name -> :class:`Param`, as TWX's README documents them.
    """

    name: str
    title: str
    params: dict[str, Param]


_DOORS, _INVENTORY = Param(1, 0, 1), Param(1, 0, 1)

#: TWX game name -> :class:`TWXGame` (TWX's defaults and ranges).
GAMES: dict[str, TWXGame] = {
    "cookingworld": TWXGame("CookingWorld", "gather and prepare a recipe's ingredients, then eat the meal", {
        "numLocations": Param(11, 1, 11), "numIngredients": Param(3, 1, 5),
        "numDistractorItems": Param(10, 0, 10), "includeDoors": _DOORS, "limitInventorySize": _INVENTORY}),
    "twc": TWXGame("TextWorldCommonsense", "put misplaced things where they belong (common sense)", {
        "numLocations": Param(3, 1, 3), "numItemsToPutAway": Param(4, 1, 10),
        "includeDoors": Param(0, 0, 1), "limitInventorySize": Param(0, 0, 1)}),
    "coin": TWXGame("CoinCollector", "explore the house and take the coin", {
        "numLocations": Param(11, 1, 11), "numDistractorItems": Param(0, 0, 10),
        "includeDoors": _DOORS, "limitInventorySize": _INVENTORY}),
    "mapreader": TWXGame("MapReader", "read the map, fetch the coin, bring it back to the box", {
        "numLocations": Param(15, 1, 50), "maxDistanceApart": Param(4, 1, 8),
        "maxDistractorItemsPerLocation": Param(3, 0, 3), "includeDoors": Param(0, 0, 1),
        "limitInventorySize": Param(0, 0, 1)}),
    "arithmetic": TWXGame("Arithmetic", "solve the math problem, put the item of that quantity in the box", {}),
    "sorting": TWXGame("Sorting", "put the items in the box from the smallest quantity up", {}),
    "simonsays": TWXGame("SimonSays", "do exactly what Simon says", {
        "gameLength": Param(5, 1, 1000), "numDistractors": Param(3, 0, 5),
        "memorization": Param(0, 0, 1), "verbose": Param(0, 0, 1)}),
    "peckingorder": TWXGame("PeckingOrder", "follow the instructions book, one step after another", {}),
}

#: Registered variants beyond one id per game: id suffix -> (game, parameters). TALES's CookingWorld,
#: and its nine Simon Says games (10, 50 or 100 instructions; with memorization; verbose), which
#: are distinct games of its list (and so distinct ids: results rows are keyed by id).
VARIANTS: dict[str, tuple[str, dict[str, int]]] = {
    "CookingWorld-Easy": ("cookingworld", {"numLocations": 1, "numIngredients": 2, "numDistractorItems": 5,
                                           "includeDoors": 0, "limitInventorySize": 0}),
    **{f"SimonSays{memory}{n}{verbose}": ("simonsays", {"gameLength": n, "numDistractors": 4,
                                                        "memorization": int(memory > ""), "verbose": int(verbose > "")})
       for memory, verbose in (("", ""), ("WithMemory", ""), ("WithMemory", "Verbose")) for n in (10, 50, 100)},
}


def check_params(game: str, params: Mapping[str, object]) -> dict[str, int]:
    """``params`` checked against :data:`GAMES` (names and ranges).

    Raises:
        ValueError: For an unknown game, an unknown parameter or a value out of range (the message
            names the bad value and the valid ones).
    """
    known = lookup("TWX game", game, GAMES).params
    checked = {}
    for name, value in params.items():
        if name not in known:
            valid = ", ".join(known) or "none"
            raise ValueError(f"unknown parameter {name!r} of TWX game {game!r}; its parameters: {valid}")
        spec = known[name]
        if not isinstance(value, int) or isinstance(value, bool) or not spec.low <= value <= spec.high:
            raise ValueError(f"{name} of TWX game {game!r} must be an int in {spec.low}..{spec.high}, got {value!r}")
        checked[name] = value
    return checked


def game_params(game: str, params: Mapping[str, object] | None = None) -> str:
    """TWX's parameter string: every parameter of ``game``, ``params`` overriding the defaults."""
    chosen = {name: spec.default for name, spec in GAMES[game].params.items()}
    chosen.update(check_params(game, params or {}))
    return ", ".join(f"{name}={value}" for name, value in chosen.items())


def env_id(game: str, variant: str = "") -> str:
    """The registered id of a TWX game (``"coin"`` -> ``TextMem/TWX-CoinCollector-v0``)."""
    return f"TextMem/TWX-{GAMES[game].name}{variant}-v0"


def _entry(game: str, params: dict[str, int], note: str = "") -> EnvEntry:
    spec = GAMES[game]
    shown = ", ".join(f"{k}={v}" for k, v in params.items()) or "TWX defaults"
    description = f"TextWorld Express {spec.name}: {spec.title} ({shown}{note}; {STEP_LIMIT} steps)"
    return EnvEntry(TWX_ENTRY, {"game": game, **params}, STEP_LIMIT, description, MAX_SCORE)


ENV_TABLE: dict[str, EnvEntry] = {
    **{env_id(game): _entry(game, {}) for game in GAMES},
    **{f"TextMem/TWX-{suffix}-v0": _entry(game, params, ", TALES's parameters")
       for suffix, (game, params) in VARIANTS.items()},
}
