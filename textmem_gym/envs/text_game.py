"""The base class of every TextMem environment: the environment contract in one place.

A backend subclasses :class:`TextGameEnv` and implements three small methods that talk to its
engine and return a :class:`GameState`; the base class turns those into Gymnasium's 5-tuple
(per-step reward from the cumulative score, cleaned text, the always-present ``info`` keys and
the opt-in privileged ones), sanitizes commands, and guards against use after ``close()``.
The text helpers every backend shares (cleaning game output, sanitizing commands, the printable
charset) live here too.

Example:
    >>> clean_observation("Hello\\n\\n>  -= Kitchen =-0/3")
    'Hello'
    >>> sanitize_command("  take\\tthe  café\\n")
    'take the cafe'
"""

from __future__ import annotations

import re
import string
import unicodedata
from abc import abstractmethod
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, ClassVar

import gymnasium as gym
from gymnasium import spaces

from textmem_gym.core.info import BackendInfo, StepInfo, gym_info
from textmem_gym.envs.lazy import LazyCommands
from textmem_gym.envs.privileged import PRIVILEGED_KEYS, FactTriple, resolve_privileged

#: Characters allowed in observations and actions (``gymnasium.spaces.Text`` charset).
PRINTABLE_CHARSET: str = string.printable
_PRINTABLE = frozenset(PRINTABLE_CHARSET)
_NON_PRINTABLE = re.compile(f"[^{re.escape(PRINTABLE_CHARSET)}]")

#: Commands longer than this are cut: interpreters' line buffers are small (Jericho: under 198 bytes).
MAX_COMMAND_CHARS: int = 190

_BANNER_LINE = re.compile(r"^[\s$_|\\/<>()=-]*[$|\\_][\s$_|\\/<>()=-]*$")
_PROMPT_TAIL = re.compile(r"\n\s*>[^\n]*\s*$")
_MANY_NEWLINES = re.compile(r"\n{3,}")
_TRAILING_SPACES = re.compile(r"[ \t]+\n")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]+")
#: Dumb-frotz (under Jericho and TextWorld's .z8 games) reads ``\x`` as an interpreter escape,
#: some of which crash it; no game command needs a backslash.
_INTERPRETER_ESCAPES = re.compile(r"\\+")
_SPACES = re.compile(r"\s+")


def to_printable(text: str) -> str:
    """Maps text onto :data:`PRINTABLE_CHARSET` (accents folded, other characters dropped)."""
    if _NON_PRINTABLE.search(text) is None:
        return text
    folded = unicodedata.normalize("NFKD", text)
    return "".join(ch for ch in folded if ch in _PRINTABLE)


def clean_observation(text: str) -> str:
    """Removes ASCII-art banners, the ``>`` prompt and status tail, and surplus blank lines.

    Args:
        text: Raw text printed by the game interpreter.

    Returns:
        The feedback a player would read, in the printable charset.
    """
    text = to_printable(text).replace("\r\n", "\n").replace("\r", "\n")
    text = _PROMPT_TAIL.sub("", text)
    if text.lstrip().startswith(">"):
        text = text.lstrip()[1:]
    lines = [line for line in text.split("\n") if not (line.strip() and _BANNER_LINE.match(line))]
    text = _TRAILING_SPACES.sub("\n", "\n".join(lines))
    return _MANY_NEWLINES.sub("\n\n", text).strip()


def sanitize_command(command: str, max_chars: int = MAX_COMMAND_CHARS) -> str:
    """Makes any string safe to send to an interpreter as exactly one command.

    Control characters (newlines included, which would otherwise send several commands) and
    backslashes (interpreter escapes) become spaces, accents are folded to ASCII, other non-ASCII
    characters are dropped, runs of white space collapse, and the result is cut to ``max_chars``.

    Args:
        command: What the agent typed.
        max_chars: Longest command passed through.

    Returns:
        A single-line ASCII command, possibly empty (games answer an empty command themselves).
    """
    command = to_printable(_INTERPRETER_ESCAPES.sub(" ", _CONTROL.sub(" ", command)))
    return _SPACES.sub(" ", command).strip()[:max_chars].strip()


#: Longest observation/action the spaces admit.
MAX_TEXT_LENGTH: int = 100_000

#: Entry-point group through which packages (the library included) name their text parsers:
#: name -> ``"module:Class"`` of a :class:`~textmem_gym.memory.extractors.base.TextParser`
#: (see :attr:`TextGameEnv.text_parser`).
TEXT_PARSER_GROUP = "textmem_gym.text_parsers"


def text_space(max_length: int = MAX_TEXT_LENGTH) -> spaces.Text:
    """A ``Text`` space over printable ASCII (Gymnasium's default charset rejects spaces)."""
    return spaces.Text(max_length=max_length, min_length=0, charset=PRINTABLE_CHARSET)


@dataclass
class GameState:
    """What a backend reports after a reset or a step (scores are cumulative).

    Attributes:
        feedback: Raw text printed by the game (cleaned by the base class).
        score: Cumulative game score.
        max_score: Highest reachable score (``0`` or less means unknown).
        won: The game was won.
        lost: The game was lost.
        moves: The game's own move counter.
        admissible_commands: Valid commands now, or a callable computing them on demand (then
            ``info`` holds a :class:`~textmem_gym.envs.lazy.LazyCommands` that calls it on first read).
        facts: Ground-truth triples now, or a callable computing them (privileged).
        extra: Backend-specific non-privileged ``info`` entries (declared in
            :class:`textmem_gym.core.info.BackendInfo`).
        truncated: The backend ended the episode early (e.g. the interpreter hung); ``step``
            then returns ``truncated=True``.
    """

    feedback: str
    score: float
    max_score: float
    won: bool = False
    lost: bool = False
    moves: int = 0
    admissible_commands: list[str] | Callable[[], list[str]] = field(default_factory=list)
    facts: list[FactTriple] | Callable[[], list[FactTriple]] | None = None
    extra: BackendInfo = field(default_factory=lambda: BackendInfo())
    truncated: bool = False


class TextGameEnv(gym.Env[str, str]):
    """Gymnasium env over a text game engine, implementing the TextMem environment contract.

    Description:
        The base class of every backend (:class:`~textmem_gym.envs.textworld.env.TextWorldEnv`,
        :class:`~textmem_gym.envs.jericho.env.JerichoEnv`,
        :class:`~textmem_gym.envs.scienceworld.env.ScienceWorldEnv`,
        :class:`~textmem_gym.envs.nethack.env.NetHackEnv`). A backend implements three hooks
        that talk to its engine and return a :class:`GameState` with *cumulative* scores:
        :meth:`_game_reset`, :meth:`_game_step` and :meth:`_game_close`; it sets
        :attr:`objective`, and may override :meth:`_walkthrough`,
        :attr:`supported_privileged` and :attr:`text_parser` (how memories read its text).
        This class turns the states into Gymnasium's API.

    Action Space:
        ``Text(0, 100000)`` over :data:`PRINTABLE_CHARSET`: any
        command string. Before it reaches the engine it is made one safe line
        (:func:`sanitize_command`: control characters and
        backslashes become spaces, accents are folded to ASCII, other non-ASCII characters are
        dropped, white space collapses, at most 190 characters). Empty or nonsense commands get
        the game's own answer; a non-``str`` action raises ``TypeError``.

    Observation Space:
        ``Text(0, 100000)`` over the same charset: the game's feedback, cleaned
        (:func:`clean_observation`: ASCII-art banners, the ``>``
        prompt and surplus blank lines removed).

    Rewards:
        The change of the game's score this step (``score`` after minus ``score`` before).

    Termination:
        ``terminated`` when the game is won or lost (``info["won"]``/``info["lost"]``).
        ``truncated`` when the backend gives up on the episode (``GameState.truncated``, e.g. a
        hung interpreter); ``gym.make`` adds the id's step limit (``max_episode_steps``), which
        also truncates.

    Info:
        A :class:`textmem_gym.core.info.StepInfo` (every key is declared there). Always:
        ``score``, ``max_score`` (0 or less: unknown), ``normalized_score`` (``score / max_score``,
        0.0 when the maximum is unknown), ``won``, ``lost``, ``moves`` (the game's own move
        counter), ``objective`` (the task text) and
        ``admissible_commands`` (a list of str, or a
        :class:`~textmem_gym.envs.lazy.LazyCommands` computed on first read), plus the
        backend's own keys (``GameState.extra``). Privileged, only when asked for:
        ``facts`` (ground-truth ``(subject, relation, object)`` triples, every step) and
        ``walkthrough`` (winning commands from the initial state, at ``reset`` only).

    Arguments:
        privileged: ``True``, a key name or key names among :attr:`supported_privileged`
            (``facts``, ``walkthrough``) to add ground truth to ``info``; off by default.
            Unknown names raise ``ValueError``.
        render_mode: ``"human"`` prints the observation, ``"ansi"`` returns it from ``render``.

    Registered ids:
        None: the class is abstract. Each backend's ``ids.py`` table maps ids onto its subclass.

    Example:
        A one-command game: say ``win``.

        >>> class SayWin(TextGameEnv):
        ...     def _game_reset(self):
        ...         self.objective = "Say the magic word."
        ...         return GameState("A voice asks for the magic word.", score=0, max_score=1,
        ...                          admissible_commands=["win", "wait"])
        ...     def _game_step(self, command):
        ...         won = command == "win"
        ...         return GameState("You won!" if won else "Nothing happens.", score=int(won),
        ...                          max_score=1, won=won, moves=1)
        ...     def _game_close(self):
        ...         pass
        >>> env = SayWin()
        >>> obs, info = env.reset(seed=0)
        >>> obs, info["objective"], info["admissible_commands"]
        ('A voice asks for the magic word.', 'Say the magic word.', ['win', 'wait'])
        >>> obs, reward, terminated, truncated, info = env.step("  win\\n")
        >>> obs, reward, terminated, truncated, info["normalized_score"], info["won"]
        ('You won!', 1.0, True, False, 1.0, True)
        >>> env.close()
        >>> env.step("win")
        Traceback (most recent call last):
        ...
        gymnasium.error.Error: SayWin is closed; make a new env with gym.make()
    """

    metadata = {"render_modes": ["human", "ansi"]}
    supported_privileged: ClassVar[frozenset[str]] = PRIVILEGED_KEYS
    #: The text parser memories read this backend's text with (a
    #: :class:`~textmem_gym.memory.extractors.base.TextParser`; ``MemoryGraphWrapper`` builds it and
    #: hands it to the memory's extractor): a name of the entry-point group :data:`TEXT_PARSER_GROUP`
    #: (``"twx"``), or ``"module:Class"``; ``None``: the generic text-adventure reading. Named, not
    #: imported: the envs import (and name) no memory code.
    text_parser: ClassVar[str | None] = None
    #: Whether the game itself takes ``go to <place>`` (NetHack's skills): a memory wrapper then adds
    #: no macro of its own.
    provides_goto: bool = False

    def __init__(self, *, privileged: bool | str | Iterable[str] = False, render_mode: str | None = None):
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}, got {render_mode!r}")
        self.privileged = resolve_privileged(privileged, self.supported_privileged)
        self.render_mode = render_mode
        self.observation_space = text_space()
        self.action_space = text_space()
        self.objective = ""
        self._closed = False
        self._state: GameState | None = None
        self._last_observation = ""

    # -- backend hooks -------------------------------------------------------------------
    @abstractmethod
    def _game_reset(self) -> GameState:
        """Starts the game from its initial state."""

    @abstractmethod
    def _game_step(self, command: str) -> GameState:
        """Sends one sanitized command to the engine."""

    @abstractmethod
    def _game_close(self) -> None:
        """Releases the engine (processes, files)."""

    def _walkthrough(self) -> list[str]:
        """The commands that win from the initial state (privileged); empty if unknown."""
        return []

    def carried(self) -> list[str] | None:
        """What the player carries, named as the game names it, read without spending a move (not
        part of ``info``: a server's ``inventory`` tool asks for it); ``None`` where this backend
        cannot read it without a move (callers then fall back to what they remember, and say so)."""
        self._check_open()
        return None

    # -- Gymnasium API -------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[str, dict[str, Any]]:
        """Starts a new episode; the game itself is fixed by the constructor arguments."""
        self._check_open()
        super().reset(seed=seed)
        self._state = self._game_reset()
        observation = self._observation(self._state)
        info = self._info(self._state)
        if "walkthrough" in self.privileged:
            info["walkthrough"] = list(self._walkthrough())
        return observation, gym_info(info)

    def step(self, action: str) -> tuple[str, float, bool, bool, dict[str, Any]]:
        """Sends ``action`` to the game; any string is accepted (the game answers nonsense)."""
        self._check_open()
        if not isinstance(action, str):
            raise TypeError(f"action must be a str command, got {type(action).__name__}: {action!r}")
        if self._state is None:
            raise gym.error.ResetNeeded("call reset() before step()")
        previous = self._state
        self._state = self._game_step(sanitize_command(action))
        reward = float(self._state.score - previous.score)
        terminated = bool(self._state.won or self._state.lost)
        observation = self._observation(self._state)
        return observation, reward, terminated, bool(self._state.truncated), gym_info(self._info(self._state))

    def render(self) -> str | None:  # type: ignore[override]
        """Returns (``ansi``) or prints (``human``) the last observation."""
        if self.render_mode == "ansi":
            return self._last_observation
        if self.render_mode == "human":
            print(self._last_observation)
        return None

    def close(self) -> None:
        """Releases the engine; further ``reset``/``step`` calls raise ``gymnasium.error.Error``."""
        if not self._closed:
            self._closed = True
            self._game_close()
        super().close()

    # -- helpers -------------------------------------------------------------------------
    def _check_open(self) -> None:
        if self._closed:
            raise gym.error.Error(f"{type(self).__name__} is closed; make a new env with gym.make()")

    def _observation(self, state: GameState) -> str:
        self._last_observation = clean_observation(state.feedback)
        return self._last_observation

    def _info(self, state: GameState) -> StepInfo:
        admissible = state.admissible_commands
        info: StepInfo = {
            "score": float(state.score),  # floats on every backend, as the info table says
            "max_score": float(state.max_score),
            "normalized_score": state.score / state.max_score if state.max_score > 0 else 0.0,
            "won": bool(state.won),
            "lost": bool(state.lost),
            "moves": int(state.moves),
            "objective": self.objective,
            "admissible_commands": LazyCommands(admissible) if callable(admissible) else list(admissible),
        }
        info.update(state.extra)
        if "facts" in self.privileged:
            facts = state.facts() if callable(state.facts) else state.facts
            info["facts"] = list(facts or [])
        return info
