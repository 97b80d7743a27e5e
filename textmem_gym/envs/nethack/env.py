"""NetHack backend (AriGraph's NetHack experiment): NLE with text observations and word actions.

:class:`NetHackEnv` documents the spaces, rewards, termination, ``info`` keys, determinism and ids.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import ClassVar, Literal

import numpy as np

from textmem_gym.envs.nethack.actions import COMMANDS, MOVES, key_for, prompt_keys
from textmem_gym.envs.nethack.progression import Progression
from textmem_gym.envs.nethack.skills import (
    KICK_LIMIT,
    SKILL_CAP,
    LevelMemory,
    SkillReport,
    SkillRunner,
    admissible_skills,
    parse_skill,
    skill_help,
)
from textmem_gym.envs.nethack.text import describe, glyph_kinds, inventory, message, notable_cells, overlay
from textmem_gym.envs.privileged import FactTriple
from textmem_gym.envs.text_game import GameState, TextGameEnv

SCOPES = ("room", "level")
OBJECTIVE = ("Play NetHack: explore the dungeon, survive, and descend as deep as you can (stairs "
             "down: '>' cells, command 'down'); your score is NetHack's in-game score.")
_OBS_KEYS = ("glyphs", "chars", "blstats", "message", "inv_strs", "inv_letters", "screen_descriptions",
             "tty_chars", "misc", "inv_oclasses")
_HIDDEN_FROM_LIST = {"esc", "more", "space", "quit"}


class NetHackEnv(TextGameEnv):
    """NetHack (NLE) as a text game meeting the TextMem contract.

    Description:
        AriGraph's NetHack experiment: the NetHack Learning Environment played through text.
        Observations are built from NLE's own observations (no game internals): the message,
        an overlay window when one is shown (menus, inventory), the bottom-line stats, what is
        around the hero (every notable map cell with its name, distance and direction:
        ``staircase down: 4 steps northeast``) and the inventory (see
        :mod:`~textmem_gym.envs.nethack.text`). ``scope`` decides which cells: the hero's current
        room or corridor (``"room"``, *Room obs*) or the whole explored level (``"level"``,
        *Level obs*). The objective: explore, survive and descend as deep as possible.

        Determinism: the dungeon comes from NetHack's RNG seeds, set before every reset (no
        reseeding, moon phase fixed): from ``game_seed`` if given (the same dungeon every
        episode), else drawn from the env's RNG, which ``reset(seed=...)`` seeds. Same seed,
        same dungeon, same observations.

    Action Space:
        Any command string (``Text``), read as words (:mod:`~textmem_gym.envs.nethack.actions`):
        compass moves (``north``, ``far east`` runs), command words (``search``, ``pick up``,
        ``eat``, ``kick``, ``up``/``down`` stairs, ``esc``, ``quit``), and single letters, digits
        and a few symbols for menus and prompts (``y``/``n``, ``f`` picks item f). ``go north``
        means ``north``. An unknown word costs no game time and answers with the words to use.
        With ``skills=True`` (the registered ids), NetPlay-style skills play many keys for one
        command (:mod:`~textmem_gym.envs.nethack.skills`): ``explore``, ``go to <feature or
        position>``, ``fight <monster>``, ``pick up <item>``, ``descend``, ``eat <item>``,
        ``rest``, ``search [n]``; a skill stops when done or interrupted, after at most
        ``skill_cap`` keys, and its report comes first in the observation. Skills that walk
        kick a locked door open (up to ``kick_limit`` kicks per door) before routing around it.

    Observation Space:
        ``Text``: the description above; once the game is over, NetHack's last message and
        final window.

    Rewards:
        The change of NetHack's in-game score (bottom line ``S:``), kept at its last value when
        the hero dies.

    Termination:
        ``terminated``: won (ascension) or lost (the game ended otherwise: death, or ``quit``
        then ``y``). ``truncated``: the step limit (1000 commands, a skill counting as one, for
        the registered ids), or ``primitive_limit`` keys pressed in the episode.

    Info:
        The contract keys: NetHack has no maximum score, so ``max_score`` and
        ``normalized_score`` are 0; ``moves`` is NetHack's turn counter; ``admissible_commands``
        lists the moves and command words, or, while a prompt or menu is open, its keys (plus
        directions when it asks for one) and ``esc``. Plus ``dungeon_level``,
        ``max_dungeon_level`` (deepest level reached this episode, AriGraph's "Levels") and
        ``experience_level`` (the same three in ``metrics``, with ``max_experience_level``,
        ``balrog_progression``: BALROG's progression metric in percent,
        :mod:`~textmem_gym.envs.nethack.progression`, and the episode's locked doors:
        ``locked_doors`` met, ``door_kicks``, ``doors_kicked_open``, ``locked_doors_given_up``),
        ``steps`` (``decisions``: commands received, ``primitive``: keys pressed, ``counted``)
        and ``skill`` (the last command's skill: name, argument, keys, completed, reason;
        ``None`` for a plain command).
        With skills, ``admissible_commands`` starts with the skills that apply now.
        Privileged, opt-in: ``facts`` only (the explored level as triples, plus what was last
        seen on the other levels visited: an oracle memory for *Room obs* agents:
        ``("staircase down", "at", "level 1 x40 y12")``, ``("you", "on", "dungeon level 1")``,
        ``("you", "carry", "an uncursed +1 robe (being worn)")``); NetHack has no walkthrough.

    Arguments:
        scope: ``"room"`` (current room or corridor) or ``"level"`` (whole explored level).
        game_seed: Fixes the dungeon (NetHack's core/disp seeds) for every episode; ``None``
            draws it from the ``reset`` seed.
        character: NLE character string (default NLE's ``"mon-hum-neu-mal"``; ``"@"`` random).
        skills: Accept the skill commands (on by default); ``False``: keys and words only.
        skill_cap: Keys one skill may press at most (default
            :data:`~textmem_gym.envs.nethack.skills.SKILL_CAP`).
        kick_limit: Kicks a locked door gets at most in an episode before skills route around
            it (default :data:`~textmem_gym.envs.nethack.skills.KICK_LIMIT`; 0 never kicks).
        primitive_limit: Truncate the episode after this many keys (``None``: no limit).
        privileged: ``"facts"`` (the explored level as triples); off by default.
        render_mode: ``"human"`` or ``"ansi"``.

    Registered ids:
        :mod:`textmem_gym.envs.nethack.ids`, AriGraph's two observation settings, 1000 steps each:
        ``TextMem/NetHack-RoomObs-v0`` (``scope="room"``) and ``TextMem/NetHack-LevelObs-v0``
        (``scope="level"``), skills on. ``gym.make(id, game_seed=N)`` fixes the dungeon,
        ``skills=False`` plays keys and words only.

    Example:
        >>> import gymnasium as gym, textmem_gym
        >>> env = gym.make("TextMem/NetHack-RoomObs-v0")
        >>> obs, info = env.reset(seed=1)
        >>> obs.splitlines()[2]
        'Dungeon level 1, turn 1. HP 14/14, Pw 5/5, AC 4, experience level 1 (0 points), gold 0, ...'
        >>> info["dungeon_level"], info["max_score"], "far east" in info["admissible_commands"]
        (1, 0.0, True)
        >>> obs, reward, terminated, truncated, info = env.step("dance")
        >>> obs.split(".")[0], info["moves"]
        ("'dance' is not a NetHack command", 1)
        >>> env.close()
    """

    supported_privileged: ClassVar[frozenset[str]] = frozenset({"facts"})
    #: Memories read NetHack's text (cells with map positions, levels) with this parser, handed over.
    text_parser: ClassVar[str | None] = "nethack"

    def __init__(self, scope: str = "room", *, game_seed: int | None = None,
                 character: str = "mon-hum-neu-mal", skills: bool = True, skill_cap: int = SKILL_CAP,
                 kick_limit: int = KICK_LIMIT, primitive_limit: int | None = None,
                 privileged: bool | str | Iterable[str] = False, render_mode: str | None = None):
        super().__init__(privileged=privileged, render_mode=render_mode)
        if scope not in SCOPES:
            raise ValueError(f"scope must be one of {SCOPES}, got {scope!r}")
        if game_seed is not None and (not isinstance(game_seed, int) or isinstance(game_seed, bool)
                                      or game_seed < 0):
            raise ValueError(f"game_seed must be a non-negative int or None, got {game_seed!r}")
        if not isinstance(skill_cap, int) or skill_cap < 1:
            raise ValueError(f"skill_cap must be a positive int, got {skill_cap!r}")
        if not isinstance(kick_limit, int) or isinstance(kick_limit, bool) or kick_limit < 0:
            raise ValueError(f"kick_limit must be a non-negative int, got {kick_limit!r}")
        if primitive_limit is not None and (not isinstance(primitive_limit, int) or primitive_limit < 1):
            raise ValueError(f"primitive_limit must be a positive int or None, got {primitive_limit!r}")
        from nle import nethack
        from nle.env.base import NLE

        self.scope, self.game_seed = scope, game_seed
        self.skills, self.skill_cap, self.primitive_limit = bool(skills), skill_cap, primitive_limit
        self.kick_limit = kick_limit
        #: The env carries out ``go to <place>`` itself (memory wrappers then leave it alone).
        self.provides_goto = self.skills
        self.levels = LevelMemory()
        self.decisions = self.primitive_steps = 0
        self._skill: SkillReport | None = None
        self._level_records: dict[int, list[FactTriple]] = {}
        self._nle = NLE(character=character, max_episode_steps=2**62, observation_keys=_OBS_KEYS,
                        actions=nethack.ACTIONS, allow_all_yn_questions=True, fix_moon_phase=True)
        self._action_index = {int(action): index for index, action in enumerate(self._nle.actions)}
        self.objective = OBJECTIVE
        self._obs: dict[str, np.ndarray] = {}
        self._menu = ""
        self._over, self._won, self._score, self._deepest = False, False, 0, 1
        self.progression = Progression()

    # -- backend hooks -------------------------------------------------------------------
    def _game_reset(self) -> GameState:
        if self.game_seed is not None:
            core, disp = self.game_seed, self.game_seed + 1
        else:
            core, disp = (int(v) for v in self.np_random.integers(0, 2**62, size=2))
        self._nle.seed(core, disp, reseed=False)
        observation, _ = self._nle.reset()
        self._over, self._won, self._score, self._deepest = False, False, 0, 1
        self.progression = Progression()
        self.levels = LevelMemory()
        self.decisions = self.primitive_steps = 0
        self._skill, self._level_records = None, {}
        self._take(observation)
        return self._game_state(ended=False)

    def _game_step(self, command: str) -> GameState:
        assert self._state is not None
        if self._over:
            return self._unchanged("The game is over; call reset() to play again.")
        self.decisions += 1
        self._skill = None
        call = parse_skill(command) if self.skills and not self._prompted() else None
        if call is not None:
            self._skill = SkillRunner(self, self.skill_cap, self.kick_limit).run(call)
            return self._game_state(ended=self._over and not self._won)
        key = key_for(command)
        if key is None or key not in self._action_index:
            skills = f" Skills:\n{skill_help()}" if self.skills else ""
            return self._unchanged(f"'{command}' is not a NetHack command. Use a direction ('north', "
                                   f"'far east'), a command ('search', 'pick up', 'down') or a letter.{skills}")
        self.press(key)
        return self._game_state(ended=self._over and not self._won)

    # -- what skills use -----------------------------------------------------------------
    @property
    def obs(self) -> Mapping[str, np.ndarray]:
        """NLE's current observation (read it before the next :meth:`press`)."""
        return self._obs

    def press(self, key: int) -> bool:
        """Sends one key to NetHack (one primitive step); True when the game is over."""
        observation, _, done, _, end = self._nle.step(self._action_index[key])
        self.primitive_steps += 1
        self._over = bool(done)
        self._won = bool(end.get("is_ascended", False))
        self._take(observation)
        return self._over

    def _take(self, obs: Mapping[str, np.ndarray]) -> None:
        from nle import nethack as nh

        self._obs = dict(obs)  # NLE refills these arrays on its next step; read them before then
        if not self._over:
            blstats = self._obs["blstats"]
            self._score = int(blstats[nh.NLE_BL_SCORE])
            self._deepest = max(self._deepest, int(blstats[nh.NLE_BL_DEPTH]))
            self.progression.update(int(blstats[nh.NLE_BL_DEPTH]), int(blstats[nh.NLE_BL_XP]))
            self.levels.see(self._obs)
        elif self._won:
            self.progression.ascended()

    def _prompted(self) -> bool:
        misc = self._obs["misc"]
        return bool(misc[0] or misc[1] or misc[2])

    def _game_close(self) -> None:
        self._nle.close()

    # -- helpers -------------------------------------------------------------------------
    def _game_state(self, ended: bool) -> GameState:
        from nle import nethack as nh

        won = self._over and self._won
        blstats = self._obs["blstats"]
        self._menu = overlay(self._obs["tty_chars"], self._obs["chars"])
        if self._over:  # the bottom lines and the map are blank now: the message and final window
            feedback = "\n\n".join(part for part in (message(self._obs), self._menu, "The game is over.") if part)
        else:
            feedback = describe(self._obs, self.scope, self._menu)
        if self._skill is not None:
            feedback = self._skill.text() + "\n\n" + feedback
        depth = int(blstats[nh.NLE_BL_DEPTH]) or self._last_extra("dungeon_level")
        experience = int(blstats[nh.NLE_BL_XP]) or self._last_extra("experience_level")
        truncated = self.primitive_limit is not None and self.primitive_steps >= self.primitive_limit
        return GameState(
            feedback=feedback, score=self._score, max_score=0, won=won, lost=ended,
            moves=int(blstats[nh.NLE_BL_TIME]), admissible_commands=self._admissible(),
            facts=self._facts if "facts" in self.privileged else None, truncated=truncated and not self._over,
            extra={"dungeon_level": depth, "max_dungeon_level": self._deepest, "experience_level": experience,
                   "metrics": {"max_dungeon_level": self._deepest, "dungeon_level": depth,
                               "experience_level": experience,
                               "max_experience_level": max(self.progression.experience_levels, default=1),
                               "balrog_progression": self.progression.percent,
                               **self.levels.kicks.metrics()},
                   "steps": {"decisions": self.decisions, "primitive": self.primitive_steps,
                             "counted": self.decisions, "limit": None},
                   "skill": self._skill.summary() if self._skill is not None else None},
        )

    def _last_extra(self, key: Literal["dungeon_level", "experience_level"]) -> int:
        return int(self._state.extra.get(key, 1)) if self._state is not None else 1

    def _unchanged(self, feedback: str) -> GameState:
        assert self._state is not None
        return GameState(feedback=feedback, score=self._state.score, max_score=0, won=self._state.won,
                         lost=self._state.lost, moves=self._state.moves,
                         admissible_commands=self._state.admissible_commands, facts=self._state.facts,
                         extra={**self._state.extra, "skill": None,
                                "steps": {**self._state.extra["steps"], "decisions": self.decisions,
                                          "counted": self.decisions}})

    def _admissible(self) -> list[str]:
        if self._over:
            return []
        text = message(self._obs)
        misc = self._obs["misc"]
        menu = self._menu
        if misc[0] or misc[1] or menu:
            directions = [*list(MOVES)[:8], "up", "down", "wait"] if "direction" in text else []
            return [*prompt_keys(text, menu), *directions, "esc"]
        words = [*MOVES, *(word for word in COMMANDS if word not in _HIDDEN_FROM_LIST)]
        if not self.skills:
            return words
        skills = admissible_skills(self._obs, self.levels, self.scope)
        return [*skills, *(word for word in words if word not in skills)]

    def _facts(self) -> list[FactTriple]:
        from nle import nethack as nh

        facts = level_facts(self._obs)
        depth = int(self._obs["blstats"][nh.NLE_BL_DEPTH])
        monsters = glyph_kinds(self._obs["glyphs"])[0]
        self._level_records[depth] = [t for t in facts if t[0] != "you" and not _on_cell(monsters, t[2])]
        for level, kept in sorted(self._level_records.items()):
            if level != depth:
                facts += kept
        return facts


def _on_cell(mask: np.ndarray, place: str) -> bool:
    """Whether ``place`` (``"level 1 x40 y12"``) is a cell of ``mask``."""
    _, _, x, y = place.split()
    return bool(mask[int(y[1:]), int(x[1:])])


def level_facts(obs: Mapping[str, np.ndarray]) -> list[FactTriple]:
    """The explored level as triples (see :class:`NetHackEnv`, Info)."""
    from nle import nethack as nh

    blstats = obs["blstats"]
    depth, x, y = (int(blstats[i]) for i in (nh.NLE_BL_DEPTH, nh.NLE_BL_X, nh.NLE_BL_Y))
    triples: list[FactTriple] = [("you", "on", f"dungeon level {depth}"), ("you", "at", f"level {depth} x{x} y{y}")]
    triples += [(name, "at", f"level {depth} x{cx} y{cy}") for name, cx, cy in notable_cells(obs)
                if (cx, cy) != (x, y)]
    triples += [("you", "carry", line.split(": ", 1)[1]) for line in inventory(obs)]
    return triples
