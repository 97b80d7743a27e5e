"""TextWorld backend: compiled TextWorld games (``.z8``/``.ulx`` with their ``.json``)."""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from textmem_gym.envs.privileged import FactTriple
from textmem_gym.envs.text_game import GameState, TextGameEnv, clean_observation
from textmem_gym.envs.textworld.generation import generate_game, get_generator

#: TextWorld's per-turn extra information (``<moves>3</moves>``) and Inform's debug tags
#: (``[taking inventory - succeeded]``), which its wrappers remove from every answer.
_EXTRA_INFO = re.compile(r"<(\w+)>.*?</\1>|\[[^\]]*\]", re.S)
#: What follows "You are carrying" in the answer to ``inventory`` ("nothing." when empty).
_CARRYING = re.compile(r"You are carrying:\s*(.+?)\s*\.?\s*$")
_ARTICLE = re.compile(r"^(?:a|an|the|some)\s+", re.I)


def proposition_to_triple(proposition: Any) -> FactTriple:
    """Converts a TextWorld fact to a ``(subject, relation, object)`` triple.

    Binary predicates keep TextWorld's names (``at(knife, kitchen)`` ->
    ``("knife", "at", "kitchen")``); unary ones become ``("fridge", "is", "open")``; longer
    ones join the remaining arguments with spaces.
    """
    names = [arg.name for arg in proposition.arguments]
    if len(names) == 1:
        return (names[0], "is", proposition.name)
    if not names:
        return ("world", "is", proposition.name)
    return (names[0], proposition.name, " ".join(names[1:]))


class TextWorldEnv(TextGameEnv):
    """A TextWorld game as a Gymnasium env meeting the TextMem contract.

    Description:
        Plays one compiled TextWorld game (``.z8``/``.ulx`` with TextWorld's ``.json`` beside
        it). Either ``game_file`` names the game, or ``generator`` builds it from code:
        ``"tw-cooking"`` (TextWorld's cooking games: read the cookbook, gather, cut and cook the
        ingredients, prepare and eat the meal), ``"treasure-hunt"`` (AriGraph's chain of keys,
        lockers and notes) or ``"cleaning"`` (AriGraph's house with misplaced items to put
        back). Generated games are made in a child process with a fixed ``PYTHONHASHSEED`` and
        cached under the user cache dir, so the same arguments give the same game in every
        process (see :mod:`textmem_gym.envs.textworld.generation`). The game is fixed by the
        constructor arguments; ``reset(seed=...)`` replays it from the start.

    Action Space:
        Any command string (``Text``, see :class:`~textmem_gym.envs.text_game.TextGameEnv`),
        parsed by TextWorld: ``go north``, ``take knife from table``, ``open fridge``,
        ``slice yellow bell pepper with knife``, ``prepare meal``, ``eat meal``, ``look``,
        ``inventory``... Unknown commands get TextWorld's own answer and change nothing.

    Observation Space:
        ``Text``: TextWorld's feedback, cleaned (no banner, no prompt). The reset observation is
        the game's introduction and the first room, followed by ``objective=`` when given and
        by the generator's notes (the cooking games' appliance rules).

    Rewards:
        The change of TextWorld's score: quest points, e.g. +1 for each recipe step of a cooking
        game (taking an ingredient, cutting or cooking it as the recipe says, preparing the meal,
        eating it), +1 per key and for the treasure in a treasure hunt, +1 per item picked up
        and per item put where it belongs when cleaning.

    Termination:
        ``terminated``: TextWorld's ``won`` (every quest done, e.g. the meal eaten) or ``lost``
        (a quest failed, e.g. a recipe ingredient burnt or eaten). ``truncated``: the id's step
        limit (``max_episode_steps``).

    Info:
        The contract keys: ``score``, ``max_score``, ``normalized_score``, ``won``, ``lost``,
        ``moves``, ``objective`` (``objective=`` or TextWorld's objective text, plus the
        generator's notes),
        ``admissible_commands`` (TextWorld's list for the current state). Privileged, opt-in
        with ``privileged=``: ``facts`` (TextWorld's state as triples with its predicate
        names: ``("knife", "on", "table")``, ``("knife", "in", "I")`` for the inventory,
        ``("fridge", "is", "open")``, ``("kitchen", "north_of", "corridor")``) and
        ``walkthrough`` (the game's winning commands, at ``reset``).

    Arguments:
        game_file: Path of a compiled TextWorld game; its ``.json`` must lie beside it.
        generator: Name of a registered game generator (``"tw-cooking"``, ``"treasure-hunt"``,
            ``"cleaning"``); give exactly one of ``game_file`` and ``generator``.
        generator_options: Settings passed to the generator (tw-cooking: ``recipe``, ``take``,
            ``go``, ``open``, ``cook``, ``cut``, ``drop``; treasure hunt: ``difficulty``).
        game_seed: Which instance to build; ``None`` uses ``default_game_seed``.
        default_game_seed: The instance of the registered id (the papers' game).
        split: ``"train"``, ``"valid"`` or ``"test"`` for generators with splits (tw-cooking's
            food distribution).
        objective: Task text for the policy: replaces the game's own objective in
            ``info["objective"]`` and is appended to the first observation (a game file may state
            no goal; the ``TextMem/AriGraph-*`` ids give the text AriGraph gave its agents).
        privileged: Ground truth to add to ``info`` (``facts``, ``walkthrough``); off by default.
        render_mode: ``"human"`` or ``"ansi"``.

    Registered ids:
        Every id of :mod:`textmem_gym.envs.textworld.ids` is this class with generator
        arguments and a step limit; ``gym.make(id, game_seed=N)`` builds another instance.

        - ``TextMem/Cooking-v0``, ``-Hard-v0``, ``-Hardest-v0``: AriGraph's cooking games
          (3/4/5 ingredients, 9/12/12 rooms; Hardest adds closed doors and a limited
          inventory), 150 steps.
        - ``TextMem/CookingRL-L1-v0`` ... ``-L4-v0``: AriGraph's RL levels (L1/L2: one
          ingredient in one room, L3: one ingredient in 9 rooms, L4: 3 ingredients in 6 rooms),
          100 steps.
        - ``TextMem/STMA-Cooking-L1-v0`` ... ``-L4-v0``: STMA's levels (1 to 4 ingredients,
          6 to 12 rooms, open/cook/cut), 50 steps.
        - ``TextMem/TreasureHunt-v0``, ``-Hard-v0``, ``-Hardest-v0``: generator
          ``treasure-hunt`` with ``difficulty`` ``normal``/``hard``/``hardest`` (12/16/36 rooms,
          4/5/7 keys), 150 steps.
        - ``TextMem/Cleaning-v0``: generator ``cleaning`` (9 rooms, 11 misplaced items), 150 steps.
        - ``TextMem/TextWorld-v0``: any compiled game, ``gym.make(id, game_file=PATH)``, 150 steps.
        - ``TextMem/AriGraph-TreasureHunt-v0``, ``-Hard-v0``, ``TextMem/AriGraph-Cooking-v0``,
          ``-Hard-v0``, ``-Hardest-v0``: AriGraph's own published game files
          (:class:`~textmem_gym.envs.textworld.published_env.PublishedGameEnv`: found in
          ``TEXTMEM_ARIGRAPH_GAMES_DIR`` or the cache, else downloaded and sha256-checked, when the
          id is made) with the paper's task text as ``objective``; 150 steps for the hunts, 60 for cooking.

    Example:
        >>> import gymnasium as gym, textmem_gym
        >>> env = gym.make("TextMem/CookingRL-L1-v0", privileged="walkthrough")
        >>> obs, info = env.reset(seed=0)
        >>> obs.splitlines()[0]
        "You are hungry! Let's cook a delicious meal. Check the cookbook in the kitchen for the recipe. ..."
        >>> info["max_score"], env.spec.max_episode_steps, "take knife from table" in info["admissible_commands"]
        (4.0, 100, True)
        >>> for command in info["walkthrough"]:
        ...     obs, reward, terminated, truncated, info = env.step(command)
        >>> obs.splitlines()[0], reward, terminated, info["normalized_score"], info["won"]
        ('You eat the meal. Not bad.', 1.0, True, 1.0, True)
        >>> env.close()
    """

    def __init__(self, game_file: str | Path | None = None, *, generator: str | None = None,
                 generator_options: Mapping[str, Any] | None = None, game_seed: int | None = None,
                 default_game_seed: int = 0, split: str | None = None, objective: str | None = None,
                 privileged: bool | str | Iterable[str] = False, render_mode: str | None = None):
        super().__init__(privileged=privileged, render_mode=render_mode)
        if objective is not None and not isinstance(objective, str):
            raise ValueError(f"objective must be a str or None, got {type(objective).__name__}")
        self.given_objective = (objective or "").strip()
        self.game_file = self._resolve_game(game_file, generator, generator_options,
                                            default_game_seed if game_seed is None else game_seed, split)
        self.notes = get_generator(generator).notes if generator else ""
        self._tw_env = self._start(self.game_file)
        self._walkthrough_cache: list[str] | None = None

    @staticmethod
    def _resolve_game(game_file: str | Path | None, generator: str | None,
                      options: Mapping[str, Any] | None, seed: int, split: str | None) -> Path:
        if (game_file is None) == (generator is None):
            raise ValueError("give exactly one of game_file=PATH (a compiled TextWorld game, its .json beside it) "
                             f"or generator=NAME, got game_file={game_file!r}, generator={generator!r}")
        if generator is not None:
            if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
                raise ValueError(f"game_seed must be a non-negative int, got {seed!r}")
            return generate_game(generator, seed, options or {}, split)
        assert game_file is not None  # exactly one of the two was given
        path = Path(game_file).expanduser()
        if not path.is_file():
            raise ValueError(f"game_file {str(path)!r} does not exist")
        if not path.with_suffix(".json").is_file():
            raise ValueError(f"{path.name} has no TextWorld .json beside it; for other "
                             "interactive fiction use TextMem/Jericho-v0")
        return path

    def _start(self, game_file: Path) -> Any:
        import textworld

        # TextWorld re-plans ``policy_commands`` after every step: ask for them only when the
        # game's metadata has no walkthrough (ours always have one), which is read once.
        infos = textworld.EnvInfos(
            admissible_commands=True, objective=True, max_score=True, score=True, won=True,
            lost=True, moves=True, facts="facts" in self.privileged,
            policy_commands="walkthrough" in self.privileged and not _has_walkthrough(game_file),
            extras=["walkthrough"])
        return textworld.start(str(game_file), request_infos=infos)

    def _game_reset(self) -> GameState:
        game_state = self._tw_env.reset()
        objective = self.given_objective or (game_state.objective or "").strip()
        self.objective = f"{objective}\n{self.notes}".strip()
        if self._walkthrough_cache is None and "walkthrough" in self.privileged:
            self._walkthrough_cache = self._read_walkthrough(game_state)
        state = self._convert(game_state)
        added = "\n\n".join(text for text in (self.given_objective, self.notes) if text)
        if added:
            state.feedback = f"{clean_observation(state.feedback)}\n\n{added}"
        return state

    def _game_step(self, command: str) -> GameState:
        game_state, _, _ = self._tw_env.step(command)
        return self._convert(game_state)

    def _game_close(self) -> None:
        self._tw_env.close()

    def _walkthrough(self) -> list[str]:
        return list(self._walkthrough_cache or [])

    def carried(self) -> list[str] | None:
        """The game's own answer to ``inventory``, asked of the interpreter and undone: its state is
        saved, the command run, the state restored (what TextWorld's ``EnvInfos(inventory=True)``
        does after every step, here only when asked), so no move is spent."""
        self._check_open()
        frotz = self._tw_env.unwrapped._jericho  # TextWorld's jericho.FrotzEnv (it has no public handle)
        saved = frotz.get_state()
        try:
            answer = frotz.step("inventory")[0]
        finally:
            frotz.set_state(saved)
        return inventory_items(answer)

    def _convert(self, gs: Any) -> GameState:
        facts = gs.get("facts")
        return GameState(
            feedback=gs.feedback or "",
            score=gs.score or 0,
            max_score=gs.max_score or 0,
            won=bool(gs.won),
            lost=bool(gs.lost),
            moves=gs.moves or 0,
            admissible_commands=gs.admissible_commands or [],  # _info copies it into info
            facts=(lambda: [proposition_to_triple(p) for p in facts]) if facts is not None else None,
        )

    @staticmethod
    def _read_walkthrough(gs: Any) -> list[str]:
        walkthrough = gs.get("extra.walkthrough")
        if isinstance(walkthrough, str):
            walkthrough = ast.literal_eval(walkthrough)
        return list(walkthrough or gs.get("policy_commands") or [])


def inventory_items(answer: str) -> list[str]:
    """The things a TextWorld game's answer to ``inventory`` lists, without articles.

    Example:
        >>> inventory_items("You are carrying: a knife, some milk and a red apple. [taking inventory - succeeded]"
        ...                 "<moves>3</moves>")
        ['knife', 'milk', 'red apple']
        >>> inventory_items("You are carrying nothing.")
        []
    """
    text = " ".join(_EXTRA_INFO.sub(" ", answer).split())
    match = _CARRYING.search(text)
    if match is None or not match.group(1):
        return []
    parts = re.split(r",\s*(?:and\s+)?|\s+and\s+", match.group(1))
    return [name for name in (_ARTICLE.sub("", part.strip()) for part in parts) if name]


def _has_walkthrough(game_file: Path) -> bool:
    """Whether the TextWorld game's ``.json`` metadata holds a walkthrough."""
    metadata = json.loads(game_file.with_suffix(".json").read_text(encoding="utf-8")).get("metadata") or {}
    return bool(metadata.get("walkthrough"))
