"""TextWorld Express backend: the eight TWX games as TextMem envs.

:class:`TWXEnv` documents the spaces, rewards, termination, ``info`` keys, determinism and ids.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from typing import Any, ClassVar

from textmem_gym.envs.text_game import GameState, TextGameEnv
from textmem_gym.envs.twx.facts import WorldModel, crawl
from textmem_gym.envs.twx.ids import GAMES, MAX_SCORE, game_params
from textmem_gym.envs.twx.process import FOLDS, TWXProcess
from textmem_gym.envs.twx.text import read_room
from textmem_gym.loading import lookup


class TWXEnv(TextGameEnv):
    """A TextWorld Express game as a Gymnasium env meeting the TextMem contract.

    Description:
        One generated instance of one of TWX's eight games (Jansen & Cote, 2022): CookingWorld
        (find a recipe's ingredients, prepare them, eat the meal), TextWorld Commonsense (put
        things where they belong), Coin Collector (find the coin), Map Reader (bring the coin to
        the box, with a map), Arithmetic, Sorting, Simon Says and Pecking Order. TWX reimplements
        these TextWorld-style games in Scala and steps them in microseconds. Each env owns one
        JVM (:class:`~textmem_gym.envs.twx.process.TWXProcess`), started in the constructor and
        stopped by ``close()`` or when the env is garbage collected.

        Determinism: a TWX game is fixed by its parameters and its seed; ``split`` and
        ``game_seed`` choose the seed (the ``game_seed``-th seed of TWX's fold: train 0-999, dev
        10000-10999, test 20000-20999). ``reset`` regenerates the same game; its seed changes
        nothing.

    Mission Space:
        The task text of the game (``info["objective"]``), also the first paragraph of the reset
        observation: ``"You are hungry! Let's cook a delicious meal. ..."``.

    Action Space:
        Any command string (``Text``) in TWX's grammar, which is strict: ``move north``,
        ``open door to north``, ``take knife``, ``put coin in box``, ``cook red potato in
        stove``, ``look around``, ``inventory``, ``read map``. For agents written for other text
        games, a few common forms that TWX rejects are read as TWX's own
        (:data:`ALIASES`): ``go north`` / ``north`` / ``n`` -> ``move north``; ``open plain
        door`` (a door of this room by name) -> ``open door to north``; ``look`` -> ``look
        around``; ``i`` -> ``inventory``. Anything else TWX does not know gets ``Unknown action:
        I'm not sure what you mean.``

    Observation:
        ``Text``: TWX's answer to the command. The reset observation is the task text, a blank
        line, then the start room's description.

    Rewards:
        The change of the score, TWX's normalized score (0-1) times 100 rounded (as TALES
        reports it): CookingWorld gives 10 points per ingredient found, cut or cooked as the
        recipe says, Coin Collector 100 for the coin, and so on.

    Termination:
        ``terminated`` when TWX marks the task done (won) or failed (lost, e.g. a wrong item put
        in the box, a wrong answer to Simon); ``truncated`` at the step limit (100 steps for the
        registered ids, TALES's budget).

    Info:
        The contract keys: ``score`` 0-100, ``max_score`` 100, ``moves`` (commands sent),
        ``objective``, ``admissible_commands`` (TWX's valid actions, returned with every step).
        Privileged, opt-in: ``walkthrough`` (TWX's gold action sequence, generated at reset only
        when requested) and ``facts`` (TextWorld-style triples of the whole world: rooms, map,
        doors, furniture, things on and in them, inventory; see :mod:`~textmem_gym.envs.twx.facts`).

    Arguments:
        game: TWX's game name (``cookingworld``, ``twc``, ``coin``, ``mapreader``, ``arithmetic``,
            ``sorting``, ``simonsays``, ``peckingorder``; see :data:`~textmem_gym.envs.twx.ids.GAMES`).
        split: TWX's seed fold, ``"train"``, ``"dev"`` or ``"test"`` (default ``"test"``, as TALES).
        game_seed: Which seed of the fold (its position, default 0).
        java_options: JVM options (``None``: :data:`~textmem_gym.envs.twx.process.DEFAULT_JAVA_OPTIONS`).
        privileged: ``facts`` and/or ``walkthrough``; off by default.
        render_mode: ``"human"`` or ``"ansi"``.
        **params: The game's parameters, TWX's names and ranges (``numLocations=1``,
            ``includeDoors=0``...); unset ones keep TWX's defaults.

    Registered Configurations:
        :mod:`textmem_gym.envs.twx.ids`: ``TextMem/TWX-CookingWorld-v0``,
        ``-TextWorldCommonsense-v0``, ``-CoinCollector-v0``, ``-MapReader-v0``,
        ``-Arithmetic-v0``, ``-Sorting-v0``, ``-SimonSays-v0``, ``-PeckingOrder-v0`` (TWX's
        default parameters) and ``TextMem/TWX-CookingWorld-Easy-v0`` (one room, two ingredients,
        no doors); 100 steps each.

    Example:
        >>> import gymnasium as gym, textmem_gym
        >>> env = gym.make("TextMem/TWX-CoinCollector-v0", numLocations=2, privileged=True)
        >>> obs, info = env.reset(seed=0)
        >>> info["objective"]
        'Your task is to search the environment and find the coin.  Once you find the coin, take it.'
        >>> for command in info["walkthrough"]:
        ...     obs, reward, terminated, truncated, info = env.step(command)
        >>> obs, reward, info["won"], info["score"], info["max_score"]
        ('You take the coin.', 100.0, True, 100.0, 100.0)
        >>> env.step("dance")[0]
        "Unknown action: I'm not sure what you mean."
        >>> env.close()
    """

    #: How memories read TWX's text (see :class:`~textmem_gym.envs.text_game.TextGameEnv`).
    text_parser: ClassVar[str | None] = "twx"

    def __init__(self, game: str, *, split: str = "test", game_seed: int | None = None,
                 java_options: Sequence[str] | None = None, privileged: bool | str | Iterable[str] = False,
                 render_mode: str | None = None, **params: Any):
        super().__init__(privileged=privileged, render_mode=render_mode)
        lookup("TWX game", game, GAMES)
        if split not in FOLDS:
            raise ValueError(f"split must be one of {list(FOLDS)}, got {split!r}")
        position = 0 if game_seed is None else game_seed
        if not isinstance(position, int) or isinstance(position, bool) or position < 0:
            raise ValueError(f"game_seed must be a non-negative int or None, got {game_seed!r}")
        self.game, self.split, self.params = game, split, game_params(game, params)
        self._sim = TWXProcess(java_options)
        try:
            self._sim.load(game, self.params)
            self.seed = self._choose_seed(position)
        except BaseException:
            self._sim.close()
            raise
        self._moves = 0
        self._world: WorldModel | None = None
        self._walkthrough_cache: list[str] = []
        self._look = ""

    def _choose_seed(self, position: int) -> int:
        seeds = self._sim.seeds(self.split)
        if position >= len(seeds):
            raise ValueError(f"game_seed must be below {len(seeds)} (the {self.split} seeds of TWX), got {position}")
        return seeds[position]

    # -- backend hooks -------------------------------------------------------------------
    def _game_reset(self) -> GameState:
        if "facts" in self.privileged:
            first = self._sim.new_game(self.seed, self.split)
            self._world = crawl(self._sim.step, first)
        data = self._sim.new_game(self.seed, self.split, gold_path="walkthrough" in self.privileged)
        if "walkthrough" in self.privileged:
            self._walkthrough_cache = self._sim.gold_actions()
        self.objective = self._sim.task_description()
        self._moves = 0
        return self._game_state(data, f"{self.objective}\n\n{data['observation']}")

    def _game_step(self, command: str) -> GameState:
        data = self._sim.step(self._twx_command(command))
        self._moves += 1
        return self._game_state(data, str(data["observation"]))

    def _game_close(self) -> None:
        self._sim.close()

    def _walkthrough(self) -> list[str]:
        return list(self._walkthrough_cache)

    # -- helpers -------------------------------------------------------------------------
    def _game_state(self, data: dict[str, Any], feedback: str) -> GameState:
        self._look = str(data.get("look", ""))
        if self._world is not None:
            self._world.observe(self._look, str(data.get("inventory", "")))
        world = self._world
        return GameState(
            feedback=feedback, score=max(int(round(MAX_SCORE * float(data["score"]))), 0), max_score=MAX_SCORE,
            won=bool(data["tasksuccess"]), lost=bool(data["taskfailure"]) and not data["tasksuccess"],
            moves=self._moves, admissible_commands=[str(c) for c in data["validActions"]],
            facts=world.facts if world is not None and "facts" in self.privileged else None,
        )

    def _twx_command(self, command: str) -> str:
        """``command`` in TWX's grammar: unchanged when TWX knows it, else its alias (:data:`ALIASES`)."""
        valid = self._state.admissible_commands if self._state is not None else []
        if not isinstance(valid, list) or command in valid:
            return command
        for pattern, rewrite in ALIASES:
            match = pattern.fullmatch(command.strip().lower())
            if match:
                return rewrite(match, self._look) or command
        return command


_DIRECTION = {"n": "north", "s": "south", "e": "east", "w": "west",
              "north": "north", "south": "south", "east": "east", "west": "west"}


def _door_command(match: re.Match[str], look: str) -> str | None:
    """``open plain door`` -> ``open door to north`` when one door of the room has that name."""
    view = read_room(look)
    verb, name = match.group(1), match.group(2).removeprefix("the ")
    wanted = "closed" if verb == "open" else "open"
    if view is None:
        return None
    named = [d for d, (door, _) in view.doors.items() if door == name]
    preferred = [d for d in named if view.doors[d][1] == wanted] or named
    return f"{verb} door to {preferred[0]}" if preferred else None


#: Common text-adventure commands TWX rejects -> TWX's own form (tried only when TWX's valid
#: actions do not hold the command). Each rewrite gets the match and the room's description.
ALIASES: tuple[tuple[re.Pattern[str], Callable[[re.Match[str], str], str | None]], ...] = (
    (re.compile(r"(?:go |walk |run |move )?(n|s|e|w|north|south|east|west)"),
     lambda m, _: f"move {_DIRECTION[m.group(1)]}"),
    (re.compile(r"(open|close) (.+ door)"), _door_command),
    (re.compile(r"look|l"), lambda m, _: "look around"),
    (re.compile(r"i|inv|check inventory"), lambda m, _: "inventory"),
)
