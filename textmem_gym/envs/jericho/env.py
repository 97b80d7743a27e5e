"""Jericho backend: classic interactive fiction (Z-machine games) through ``jericho.FrotzEnv``.

:class:`JerichoEnv` documents the spaces, rewards, termination, ``info`` keys, seeding and ids.
"""

from __future__ import annotations

import ctypes
import re
import warnings
from collections import Counter
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, ClassVar

import gymnasium as gym

from textmem_gym.envs.jericho.admissible import ALWAYS_ADMISSIBLE, AdmissibleCommands
from textmem_gym.envs.jericho.dictionary import story_words, word_letters
from textmem_gym.envs.jericho.roms import find_rom
from textmem_gym.envs.jericho.world import WorldStateHasher, halted, location_id, object_tree_facts, snapshot
from textmem_gym.envs.step_guard import StepWatchdog
from textmem_gym.envs.text_game import GameState, TextGameEnv

#: Seconds a step (or ``reset``) may run before the episode is truncated.
DEFAULT_STEP_TIMEOUT: float = 10.0
#: Seconds computing the admissible commands of one state may run.
ADMISSIBLE_TIMEOUT: float = 120.0
#: Interpreter seed for games whose Jericho bindings give none.
DEFAULT_INTERPRETER_SEED: int = 1234
#: Interpreter seeds are C ints.
_SEED_MODULUS = 2**31 - 1
#: Inform's closing line of a won game.
_WON_TEXT = re.compile(r"\*\*\*\s*You have won", re.IGNORECASE)


class JerichoEnv(TextGameEnv):
    """A Z-machine game as a Gymnasium env meeting the TextMem contract.

    Description:
        Classic interactive fiction (Zork, Anchorhead, ...) played by Jericho's Frotz
        interpreter in this process. ``game`` picks a game of the Jericho suite, whose ROM is
        found by :func:`~textmem_gym.envs.jericho.roms.find_rom` (``TEXTMEM_ROMS_DIR``, the
        cache, or a checksummed download); ``rom_path`` plays any Z-machine file instead
        (without Jericho's bindings: no score or walkthrough, and generic action templates). The
        objective is generic: explore, solve the puzzles, raise the score.

        Randomness: ``reset(seed=s)`` seeds the interpreter with ``walkthrough_seed + s``, so
        ``reset(seed=0)`` (and a first unseeded ``reset()``) plays with the seed of Jericho's
        walkthrough (:attr:`walkthrough_seed`), the usual Jericho benchmark setting, and the
        privileged walkthrough replays; other seeds give other random events. Unseeded resets
        after a seeded one draw the next interpreter seed from the env's seeded ``np_random``.

    Action Space:
        Any command string (``Text``): the game's own parser reads it (``open mailbox``,
        ``north``, ``put egg in case``). Unknown words get the game's answer (``I don't know
        the word "dance".``).

    Observation Space:
        ``Text``: the interpreter's output, cleaned. The reset observation is the game's opening
        text (banner lines and all) and the first room.

    Rewards:
        The change of the game's score (Jericho's ``get_score``); some games take points away.

    Termination:
        ``terminated``: won (Jericho's ``victory()``, or Inform's ``*** You have won ***``
        when the game ends, which Jericho misses in ``anchor`` and ``deephome``) or lost (the
        game ended otherwise, e.g. the player died). ``truncated``: the step limit, or a step
        the interpreter does not finish within ``step_timeout`` seconds (or a runtime error
        that halts it): the step is stopped, ``info["interpreter_error"]`` says why, and
        ``reset()`` starts a fresh game.

    Info:
        The contract keys (``max_score`` is Jericho's maximum score; 0 for games it does not
        know), plus ``world_state_hash`` (a hash of the object tree and the RAM Jericho
        tracks, see :class:`~textmem_gym.envs.jericho.world.WorldStateHasher`) and
        ``state_visits`` (how many times this episode has been in that world state, 1 on the
        first visit: for loop detection) and ``location_id`` (``"z<N>"``: the Z-machine object the
        player is in, a room's stable identity while its printed name changes, see
        :func:`~textmem_gym.envs.jericho.world.location_id`); at ``reset`` only, ``vocabulary`` (the words the
        game's parser knows, from the story file's dictionary: :meth:`vocabulary`; memories read the
        game's names with it). ``admissible_commands`` is computed on first read,
        without spaCy, by simulating template commands (see
        :mod:`~textmem_gym.envs.jericho.admissible`), and cached by world state; ``look`` and
        ``inventory`` are always in it. Privileged, opt-in: ``facts`` (the Z-machine object
        tree: ``("player", "at", ROOM)``, ``(OBJECT, "in", PARENT)``, ``(OBJECT, "in", "I")``
        for the inventory; see :mod:`~textmem_gym.envs.jericho.world`) and ``walkthrough``
        (Jericho's, winning from ``reset(seed=0)``).

    Arguments:
        game: A game of the Jericho suite (``"zork1"``); its ROM is found by
            :func:`~textmem_gym.envs.jericho.roms.find_rom`.
        rom_path: Any Z-machine file to play instead (games Jericho does not know play with
            score, walkthrough and templates unavailable).
        step_timeout: Seconds a step may run before the episode is truncated.
        download: Whether a missing ROM may be downloaded.
        admissible_cache_size: World states whose admissible commands are kept (0: none, so
            every read recomputes).
        privileged: Ground truth to add to ``info`` (``facts``, ``walkthrough``); off by default.
        render_mode: ``"human"`` or ``"ansi"``.

    Registered ids:
        :mod:`textmem_gym.envs.jericho.ids`: ``TextMem/Jericho-<Game>-v0`` for each of the 57
        games of the Jericho suite, ``<Game>`` the capitalized ROM name (``zork1.z5`` ->
        ``TextMem/Jericho-Zork1-v0``, i.e. ``game="zork1"``), 1000 steps (1400 for
        ``spirit``, whose walkthrough is longer); ``TextMem/Jericho-v0`` plays any Z-machine
        file: ``gym.make("TextMem/Jericho-v0", rom_path=PATH)``.

    Example:
        >>> import gymnasium as gym, textmem_gym
        >>> env = gym.make("TextMem/Jericho-Zork1-v0")
        >>> obs, info = env.reset(seed=0)
        >>> obs.splitlines()[-3], obs.splitlines()[-1]
        ('West of House', 'There is a small mailbox here.')
        >>> info["max_score"], sorted(info["admissible_commands"])
        (350.0, ['inventory', 'look', 'north', 'open mailbox', 'south', 'west'])
        >>> [word for word in info["vocabulary"] if word.startswith("mail")]  # the game's words, cut at 6 letters
        ['mail', 'mailbo']
        >>> obs, reward, terminated, truncated, info = env.step("open mailbox")
        >>> obs, reward, terminated, info["state_visits"]
        ('Opening the small mailbox reveals a leaflet.', 0.0, False, 1)
        >>> print(env.step("dance")[0])
        I don't know the word "dance".
        >>> env.close()
    """

    #: Memories read its text with :class:`~textmem_gym.memory.extractors.jericho.JerichoRules`.
    text_parser: ClassVar[str | None] = "jericho"

    def __init__(self, game: str | None = None, *, rom_path: str | Path | None = None,
                 step_timeout: float = DEFAULT_STEP_TIMEOUT, download: bool = True,
                 admissible_cache_size: int = 4096, privileged: bool | str | Iterable[str] = False,
                 render_mode: str | None = None):
        super().__init__(privileged=privileged, render_mode=render_mode)
        if not isinstance(admissible_cache_size, int) or admissible_cache_size < 0:
            raise ValueError(f"admissible_cache_size must be a non-negative int, got {admissible_cache_size!r}")
        self._watchdog = StepWatchdog(self._halt, step_timeout)  # validates step_timeout
        self.rom_path = find_rom(game, rom_path, download=download)
        self.game = game or self.rom_path.stem
        self._frotz = _load_frotz(self.rom_path)
        self.supported = bool(self._frotz.is_fully_supported and self._frotz.bindings)
        bindings = self._frotz.bindings or {}
        self.walkthrough_seed: int = int(bindings.get("seed", DEFAULT_INTERPRETER_SEED))
        self.interpreter_seed = self.walkthrough_seed
        self._rng_seeded = False
        self._halt_flag = ctypes.c_int.in_dll(self._frotz.frotz_lib, "emulator_halted")
        self._actions = AdmissibleCommands(self._frotz, capacity=admissible_cache_size)
        self._world_state_hash = WorldStateHasher(self._frotz)
        self._visits: Counter[str] = Counter()
        self._words: list[str] | None = None
        max_score = self._frotz.get_max_score() if self.supported else 0
        goal = f" (maximum score {max_score})" if max_score > 0 else ""
        self.objective = (f"Play the interactive fiction game {self.game}: explore, solve its puzzles "
                          f"and raise your score{goal}.")

    # -- Gymnasium API -------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[str, dict[str, Any]]:
        """Starts the game; see the class docstring (Randomness) for how ``seed`` sets the interpreter's."""
        if seed is not None:
            if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
                raise ValueError(f"seed must be a non-negative int, got {seed!r}")
            self.interpreter_seed = (self.walkthrough_seed + seed) % _SEED_MODULUS
        elif self._rng_seeded:
            self.interpreter_seed = int(self.np_random.integers(1, _SEED_MODULUS))
        self._rng_seeded = self._rng_seeded or seed is not None
        observation, info = super().reset(seed=seed, options=options)
        info["vocabulary"] = self.vocabulary()
        info["vocabulary_letters"] = word_letters(self.rom_path.read_bytes()[0])  # the story file's version
        return observation, info

    # -- backend hooks -------------------------------------------------------------------
    def _game_reset(self) -> GameState:
        # FrotzEnv.seed() would turn 0 into the bindings' seed or -1 (time-based): set it as is.
        self._frotz._seed = self.interpreter_seed
        with self._watchdog.watch() as watch:
            text, _ = self._frotz.reset()
        if watch.fired or halted(self._frotz):
            raise gym.error.Error(f"{self.game} did not start within {self._watchdog.timeout} s")
        self._visits.clear()
        return self._game_state(text)

    def _game_step(self, command: str) -> GameState:
        with self._watchdog.watch() as watch:
            text = self._frotz.step(command)[0]  # ASCII, within Frotz's buffer: see sanitize_command
        if watch.fired or halted(self._frotz):
            reason = (f"the interpreter did not answer {command!r} within {self._watchdog.timeout} s"
                      if watch.fired else f"the interpreter halted on {command!r} (runtime error)")
            return self._halted_state(reason)
        return self._game_state(text)

    def _game_close(self) -> None:
        self._watchdog.close()
        self._frotz.close()

    def _walkthrough(self) -> list[str]:
        if not self.supported:
            return []
        return list(self._frotz.get_walkthrough())

    def carried(self) -> list[str] | None:
        """The player's children in the Z-machine object tree (Jericho's ``get_inventory``), by their
        short names (``"jewel-encrusted egg"``): read from memory, so no move is spent."""
        self._check_open()
        return [item.name for item in self._frotz.get_inventory() if item.name]

    def vocabulary(self) -> list[str]:
        """The words the game's parser knows: its dictionary, sorted, as the story file stores them (cut
        at 6 letters in version 1-3 games, 9 later: ``"lanter"``; read from the file's bytes by
        :func:`~textmem_gym.envs.jericho.dictionary.story_words`). Not privileged: a player may type any
        word, and the dictionary says nothing of where things are or which exist; the object tree's names
        (privileged ``facts``) are another matter."""
        self._check_open()
        if self._words is None:
            self._words = story_words(self.rom_path.read_bytes())
        return list(self._words)

    # -- helpers -------------------------------------------------------------------------
    def _halt(self) -> None:
        self._halt_flag.value = 1

    def _game_state(self, text: str) -> GameState:
        frotz = self._frotz
        state_hash = self._world_state_hash()
        self._visits[state_hash] += 1
        lost = frotz.game_over()
        won = frotz.victory() or (lost and bool(_WON_TEXT.search(text)))
        return GameState(
            feedback=text, score=frotz.get_score(), max_score=frotz.get_max_score(), won=won,
            lost=lost and not won, moves=frotz.get_moves(),
            admissible_commands=list(ALWAYS_ADMISSIBLE) if won or lost else self._lazy_admissible(state_hash),
            facts=object_tree_facts(frotz) if "facts" in self.privileged else None,
            extra={"world_state_hash": state_hash, "state_visits": self._visits[state_hash],
                   "location_id": location_id(frotz)},
        )

    def _halted_state(self, reason: str) -> GameState:
        previous = self._state
        assert previous is not None
        message = f"[{reason}; the episode is truncated: call reset() to play again]"
        return GameState(feedback=message, score=previous.score, max_score=previous.max_score,
                         moves=previous.moves, truncated=True, facts=previous.facts,
                         extra={**previous.extra, "interpreter_error": message})

    def _lazy_admissible(self, state_hash: str) -> Callable[[], list[str]]:
        state = snapshot(self._frotz)
        return lambda: self._admissible(state_hash, state)

    def _admissible(self, state_hash: str, snapshot: Any) -> list[str]:
        self._check_open()
        with self._watchdog.watch(ADMISSIBLE_TIMEOUT) as watch:
            commands = self._actions.commands(state_hash, snapshot)
        if watch.fired:
            self._actions.forget(state_hash)  # computed by a halted interpreter
            self._halt_flag.value = 0
            warnings.warn(f"{self.game}: admissible commands took over {ADMISSIBLE_TIMEOUT} s; "
                          f"listing only {ALWAYS_ADMISSIBLE}", RuntimeWarning, stacklevel=2)
            return list(ALWAYS_ADMISSIBLE)
        return commands


def _load_frotz(rom_path: Path) -> Any:
    import jericho

    return jericho.FrotzEnv(str(rom_path))
