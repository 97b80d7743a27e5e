"""ScienceWorld backend: the 30 ScienceWorld tasks (DAVIS's benchmark) as TextMem envs.

:class:`ScienceWorldEnv` documents the spaces, rewards, termination, ``info`` keys, determinism and ids.
"""

from __future__ import annotations

import weakref
from collections.abc import Iterable, Sequence
from typing import Any, ClassVar

from textmem_gym.envs.privileged import FactTriple
from textmem_gym.envs.scienceworld.facts import object_tree_facts
from textmem_gym.envs.scienceworld.ids import SPLITS, TASKS, split_variations
from textmem_gym.envs.scienceworld.process import ScienceWorldProcess
from textmem_gym.envs.text_game import GameState, TextGameEnv
from textmem_gym.loading import lookup


class ScienceWorldEnv(TextGameEnv):
    """A ScienceWorld task as a Gymnasium env meeting the TextMem contract.

    Description:
        One variation of one of ScienceWorld's 30 science tasks (boil water, find a living
        thing, test conductivity, grow a fruit...), DAVIS's benchmark. Each env owns one JVM
        (:class:`~textmem_gym.envs.scienceworld.process.ScienceWorldProcess`), started in the
        constructor and stopped by ``close()`` or when the env is garbage collected;
        ``reset()`` restarts the loaded task in the same JVM. The objective is the task
        description.

        Determinism: ScienceWorld seeds its world from the variation index, so the game is fixed
        by the constructor arguments (task, variation, simplification); the ``reset`` seed
        changes nothing. The JVM runs with a constant identity hash so that the object order,
        too, is the same after every reset (see :mod:`~textmem_gym.envs.scienceworld.process`).

    Action Space:
        Any command string (``Text``) in ScienceWorld's action language: ``look around``,
        ``open door to kitchen``, ``teleport to kitchen`` (with the ``easy`` simplification),
        ``pick up thermometer``, ``focus on orange``, ``move orange to orange box``, ``wait``...
        Other text gets ``No known action matches that input.``

    Observation Space:
        ``Text``: ScienceWorld's feedback. The reset observation is the task description
        followed by the start room's ``look around``.

    Rewards:
        The change of ScienceWorld's 0-100 progress score (partial credit for the task's
        subgoals; the score may start above 0). A failed task sets the score to 0, so that
        step's reward takes back every point gathered.

    Termination:
        ``terminated``: won (ScienceWorld's task completion) or lost (ScienceWorld marks a
        failed task, e.g. focusing on a wrong object, with a negative score). ``truncated``: the
        step limit (100 steps for the registered ids).

    Info:
        The contract keys: ``max_score`` is 100 and ``score`` the progress score, 0 when the task
        failed (so ``normalized_score`` stays in [0, 1]), ``moves`` ScienceWorld's move count,
        ``objective`` the task description. Plus ``scienceworld_score`` (the raw score, negative
        on failure), ``task`` and ``variation``. ``admissible_commands``: ScienceWorld's valid
        action-object combinations (hundreds), computed (about 0.1 s) only when first read; if an
        ``info`` still holds them unread when the env steps again, they are computed just before
        that step, so a late read still gets its own step's commands. Privileged, opt-in:
        ``facts`` (object-tree and door triples: ``("thermometer", "in", "kitchen")``,
        ``("door to kitchen", "is", "open")``; see :mod:`~textmem_gym.envs.scienceworld.facts`)
        and ``walkthrough`` (ScienceWorld's gold action sequence, generated at load time only
        when requested).

    Arguments:
        task: ScienceWorld task name (e.g. ``"find-living-thing"``; see
            :data:`~textmem_gym.envs.scienceworld.ids.TASKS`).
        variation: ScienceWorld variation index (must belong to ``split``); ``None`` picks the
            ``game_seed``-th variation of ``split``.
        split: ``"train"``, ``"dev"`` or ``"test"`` (DAVIS evaluated on test variations).
        game_seed: Position of the variation in the split when ``variation`` is ``None``
            (default 0); give ``variation`` or ``game_seed``, not both.
        simplification: ScienceWorld simplification string; ``"easy"`` (DAVIS; all of
            ``teleportAction``, ``selfWateringFlowerPots``, ``openContainers``, ``openDoors``,
            ``noElectricalAction``) by default, ``""`` for none, or comma-separated names
            (``"teleportAction,openDoors"``).
        java_options: JVM tuning options (``None``: fast-start defaults; the options that make
            ScienceWorld deterministic are always added).
        privileged: ``facts`` (object-tree triples) and/or ``walkthrough`` (the gold action
            sequence); off by default.
        render_mode: ``"human"`` or ``"ansi"``.

    Registered ids:
        :mod:`textmem_gym.envs.scienceworld.ids`: ``TextMem/ScienceWorld-<Task>-v0`` for each of
        the 30 tasks, ``<Task>`` the task name in CamelCase (``find-living-thing`` ->
        ``TextMem/ScienceWorld-FindLivingThing-v0``, i.e. ``task="find-living-thing"``), with
        DAVIS's settings: the first test variation, the ``easy`` simplification, 100 steps.
        ``gym.make(id, game_seed=N)`` plays the N-th test variation; ``split=`` and
        ``variation=`` pick others.

    Example:
        >>> import gymnasium as gym, textmem_gym
        >>> env = gym.make("TextMem/ScienceWorld-FindLivingThing-v0", privileged="walkthrough")
        >>> obs, info = env.reset(seed=0)
        >>> info["objective"].split(". ")[0]
        'Your task is to find a(n) living thing'
        >>> info["max_score"], info["task"], info["variation"], len(info["walkthrough"]) > 0
        (100.0, 'find-living-thing', 225, True)
        >>> env.step("dance")[0]
        'No known action matches that input.'
        >>> env.close()
    """

    #: How memories read ScienceWorld's text (see :class:`~textmem_gym.envs.text_game.TextGameEnv`).
    text_parser: ClassVar[str | None] = "scienceworld"
    #: ``go to <room>`` is ScienceWorld's own move: a memory wrapper adds no macro of its own.
    provides_goto: bool = True

    def __init__(self, task: str, *, variation: int | None = None, split: str = "test",
                 game_seed: int | None = None, simplification: str = "easy",
                 java_options: Sequence[str] | None = None,
                 privileged: bool | str | Iterable[str] = False, render_mode: str | None = None):
        super().__init__(privileged=privileged, render_mode=render_mode)
        _check_arguments(task, variation, split, game_seed, simplification)
        self.task, self.split, self.simplification = task, split, simplification
        self.variation = self._choose_variation(variation, game_seed or 0)
        self._sim = ScienceWorldProcess(java_options)
        try:
            self._sim.load(task, self.variation, simplification, generateGoldPath="walkthrough" in self.privileged)
        except BaseException:
            self._sim.close()
            raise
        self._fresh = True  # just loaded: the world is in its initial state
        self.objective = str(self._sim.get_task_description())
        self._walkthrough_cache = (list(self._sim.get_gold_action_sequence())
                                   if "walkthrough" in self.privileged else [])
        self._tick = 0  # counts resets and steps: dates lazily computed admissible commands
        self._snapshot: weakref.ref[_DatedCommands] | None = None

    def _choose_variation(self, variation: int | None, game_seed: int) -> int:
        variations = split_variations(self.task, self.split)
        if variation is None:
            if game_seed >= len(variations):
                raise ValueError(f"game_seed must be below {len(variations)} (the number of {self.split} "
                                 f"variations of {self.task!r}), got {game_seed}")
            return variations[game_seed]
        if variation not in variations:
            raise ValueError(f"variation {variation} is not in the {self.split} split of {self.task!r} "
                             f"({variations.start}..{variations.stop - 1})")
        return variation

    # -- backend hooks -------------------------------------------------------------------
    def _game_reset(self) -> GameState:
        self._settle_admissible()
        if not self._fresh:
            self._sim.server.reset()
        self._fresh = False
        look = str(self._sim.server.step("look around"))
        self._tick += 1
        return self._game_state(f"{self.objective}\n\n{look}")

    def _game_step(self, command: str) -> GameState:
        self._settle_admissible()
        self._tick += 1
        return self._game_state(str(self._sim.server.step(command)))

    def _game_close(self) -> None:
        self._sim.close()

    def _walkthrough(self) -> list[str]:
        return list(self._walkthrough_cache)

    # -- helpers -------------------------------------------------------------------------
    def _game_state(self, feedback: str) -> GameState:
        raw_score = int(round(100 * float(self._sim.server.getScore())))
        lost = raw_score < 0
        return GameState(
            feedback=feedback, score=max(raw_score, 0), max_score=100,
            won=bool(self._sim.server.getCompleted()) and not lost, lost=lost,
            moves=int(self._sim.server.getNumMoves()),
            admissible_commands=self._admissible_now(),
            facts=self._facts if "facts" in self.privileged else None,
            extra={"scienceworld_score": raw_score, "task": self.task, "variation": self.variation},
        )

    def _admissible_now(self) -> _DatedCommands:
        snapshot = _DatedCommands(self, self._tick)
        self._snapshot = weakref.ref(snapshot)
        return snapshot

    def _settle_admissible(self) -> None:
        """Before the world changes: computes the current admissible commands if an ``info``
        still holds them unread (nothing is computed when nobody kept them)."""
        if self._state is not None:
            self._state.admissible_commands = []  # the env itself no longer needs them
        snapshot = self._snapshot() if self._snapshot is not None else None
        if snapshot is not None:
            snapshot()

    def _valid_commands(self, tick: int) -> list[str]:
        self._check_open()
        if tick != self._tick:
            raise RuntimeError("admissible commands of an earlier step can no longer be computed")
        return [str(command) for command in self._sim.get_valid_action_object_combinations()]

    def _facts(self) -> list[FactTriple]:
        return object_tree_facts(self._sim.getObjectTree(), str(self._sim.look()))


class _DatedCommands:
    """The admissible commands of one step, computed once, on first call (see ``LazyCommands``).

    The env keeps only a weak reference: if an ``info`` still holds this object unread when the
    env is about to step, the env calls it first, so a late read still gets that step's commands.
    """

    def __init__(self, env: ScienceWorldEnv, tick: int):
        self._env, self._tick = env, tick
        self._result: list[str] | None = None

    def __call__(self) -> list[str]:
        if self._result is None:
            self._result = self._env._valid_commands(self._tick)
        return list(self._result)


def _check_arguments(task: Any, variation: Any, split: Any, game_seed: Any, simplification: Any) -> None:
    lookup("ScienceWorld task", task, TASKS)
    if split not in SPLITS:
        raise ValueError(f"split must be one of {sorted(SPLITS)}, got {split!r}")
    for name, value in (("variation", variation), ("game_seed", game_seed)):
        if value is not None and (not isinstance(value, int) or isinstance(value, bool) or value < 0):
            raise ValueError(f"{name} must be a non-negative int or None, got {value!r}")
    if variation is not None and game_seed is not None:
        raise ValueError("give variation or game_seed, not both")
    if not isinstance(simplification, str):
        raise TypeError(f"simplification must be a str, got {type(simplification).__name__}")
