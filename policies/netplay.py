"""NetPlay agents for the NetHack envs: an LLM choosing skills, and a rule-based skill agent.

- ``netplay`` (:class:`NetPlayPolicy`): NetPlay's loop (Jeurissen et al., 2024) on our skills
  (:mod:`textmem_gym.envs.nethack.skills`): each step one LLM call sees the task, the
  observation, the recent events (the last skill reports) and the skills with their arguments,
  and answers ``{"reason": ..., "skill": ...}`` (prompt ``policies/prompts/netplay.txt``). The
  skill is sent as written: the env answers a bad one with feedback, so it stays the model's
  action. When no usable answer comes (LLM error, context overflow, unparseable answer or empty
  skill) the rule agent acts instead, counted by cause in ``episode_stats()["fallbacks"]`` (the
  causes every LLM policy uses, :data:`textmem_gym.fallbacks.FALLBACK_CAUSES`). Context budget:
  the oldest recent events are trimmed first. Works in both observation
  modes (AriGraph's *NetPlay [Room obs]* and *NetPlay [Level obs]*).
- ``netplay-heuristic`` (:class:`NetPlayHeuristic`): no LLM. Fights monsters that come within two
  steps (not peaceful ones), rests when HP is low, eats when hungry, descends when a staircase
  down is in view (or goes to the one it remembers on this level; after a descent that could not
  reach the stairs it explores a few decisions first), otherwise explores; when
  the level is explored it searches for hidden doors and explores again.

Example:
    >>> agent = NetPlayHeuristic()
    >>> agent.act("Dungeon level 1, turn 1. HP 14/14, not hungry.", {"admissible_commands": ["explore", "rest"]})
    'explore'
    >>> seen = "Dungeon level 1, turn 9. HP 14/14, not hungry.\\n- jackal: 1 step east (x5 y5), monster"
    >>> agent.act(seen, {"admissible_commands": ["explore", "fight jackal"]})
    'fight jackal'
"""

from __future__ import annotations

import random
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, ClassVar

from policies.llm_agent import LLMPolicy, answer_schema
from policies.llm_config import LLMConfig
from policies.shared_settings import MAX_TOKENS, TEMPERATURE
from textmem_gym.core.info import SkillSummary, admissible, observation_text, step_info
from textmem_gym.core.policy import UNRECORDED, ConfiguredPolicy, Info, PolicyConfig
from textmem_gym.llm import LLMClient
from textmem_gym.llm.prompts import FIXED, SLOW, Trimmable

_LINE = re.compile(r"^- (.+?): (\d+) steps? \w+ \(x(\d+) y(\d+)\)(?:, (?:monster|pet))?$", re.M)
_LEVEL = re.compile(r"Dungeon level (\d+), turn")
_HP = re.compile(r"HP (-?\d+)/(\d+)")
_HUNGRY = re.compile(r", (hungry|weak|fainting)[,.]")
_STAIRS = "staircase down"
#: Turns of one search when the level seems explored.
SEARCH_TURNS = 15
#: Decisions spent otherwise after a ``descend`` that could not reach the stairs, before trying again.
DESCEND_WAIT = 3


@dataclass(frozen=True, kw_only=True)
class NetPlayHeuristicConfig(PolicyConfig):
    """Settings of :class:`NetPlayHeuristic`."""

    seed: int | None = field(default=None, metadata=UNRECORDED)
    """Seed of the tie-breaking randomness (a random run when stuck), used when the runner gives none
    (so not recorded)."""


class NetPlayHeuristic(ConfiguredPolicy):
    """no LLM, NetHack: skill rules (fight near monsters, rest, eat, descend, else explore/search)

    The non-LLM skill agent (see the module docstring).

    Args:
        config: Its settings (default: :class:`NetPlayHeuristicConfig`'s).
        **fields: Settings to change (``seed``).
    """

    name: ClassVar[str] = "netplay-heuristic"
    config_class: ClassVar[type[NetPlayHeuristicConfig]] = NetPlayHeuristicConfig
    config: NetPlayHeuristicConfig

    def __init__(self, config: NetPlayHeuristicConfig | None = None, **fields: Any) -> None:
        super().__init__(config, **fields)
        self.rng = random.Random(self.config.seed)
        self.reset("", step_info({}))

    def seed(self, seed: int | None) -> None:
        self.rng = random.Random(seed if seed is not None else self.config.seed)

    def reset(self, observation: Any, info: Info) -> None:
        self.stairs: dict[int, tuple[int, int]] = {}
        self.peaceful: set[str] = set()
        self.explored: dict[int, int] = {}
        self.failed_goto: set[tuple[int, int, int]] = set()
        self.descend_wait: dict[int, int] = {}
        self.last_skill: SkillSummary | None = None
        self.counts = {"steps": 0, "explore": 0, "descend": 0, "fight": 0, "search": 0, "rest": 0, "eat": 0,
                       "go_to_stairs": 0, "random_run": 0, "answer_prompt": 0}
        self._read(observation_text(observation))

    def observe(self, action: str, observation: Any, reward: float, terminated: bool, truncated: bool,
                info: Info) -> None:
        text = observation_text(observation)
        skill = info.get("skill")
        self.last_skill = skill if isinstance(skill, dict) else None
        level = self._level(text)
        reason = self.last_skill["reason"] if self.last_skill else ""
        if self.last_skill and self.last_skill["name"] == "explore" and (
                reason.startswith("nothing left") or reason.startswith("no known way")):
            self.explored[level] = self.explored.get(level, 0) + 1
        if "Really attack" in reason:
            self.peaceful.add(self.last_skill["argument"] if self.last_skill else "")
        if action.startswith("go to " + _STAIRS) and self.last_skill and not self.last_skill["completed"]:
            spot = self.stairs.get(level)
            if spot is not None:
                self.failed_goto.add((level, *spot))
        if action == "descend" and self.last_skill and not self.last_skill["completed"]:
            self.descend_wait[level] = DESCEND_WAIT  # no way to the stairs yet: explore before trying again
        self._read(text)

    def episode_stats(self) -> dict[str, Any]:
        return dict(self.counts)

    # -- reading the text ----------------------------------------------------------------
    @staticmethod
    def _level(text: str) -> int:
        match = _LEVEL.search(text)
        return int(match.group(1)) if match else 0

    def _read(self, text: str) -> None:
        level = self._level(text)
        for name, _, x, y in _LINE.findall(text):
            if name == _STAIRS:
                self.stairs[level] = (int(x), int(y))

    # -- deciding ------------------------------------------------------------------------
    def act(self, observation: Any, info: Info) -> str:
        text, commands = observation_text(observation), admissible(info)
        self.counts["steps"] += 1
        action, rule = self.choose(text, commands)
        self.counts[rule] += 1
        return action

    def choose(self, text: str, commands: list[str]) -> tuple[str, str]:
        """``(command, rule that chose it)``."""
        if commands and "explore" not in commands:  # a question or a menu is open
            return ("esc" if "esc" in commands else commands[0]), "answer_prompt"
        level = self._level(text)
        hp = _HP.search(text)
        low = hp is not None and 3 * int(hp.group(1)) < int(hp.group(2))
        fights = {c[len("fight "):] for c in commands if c.startswith("fight ")} - self.peaceful
        near = sorted((int(d), name) for name, d, _, _ in _LINE.findall(text) if name in fights and int(d) <= 2)
        if near:
            return f"fight {near[0][1]}", "fight"
        if low and "rest" in commands:
            return "rest", "rest"
        eat = [c for c in commands if c.startswith("eat ")]
        if _HUNGRY.search(text) and eat:
            return eat[0], "eat"
        wait = self.descend_wait.get(level, 0)
        self.descend_wait[level] = max(wait - 1, 0)
        if "descend" in commands and not wait:
            return "descend", "descend"
        spot = self.stairs.get(level)
        if spot is not None and (level, *spot) not in self.failed_goto:
            return f"go to {_STAIRS} x{spot[0]} y{spot[1]}", "go_to_stairs"
        searched = self.explored.get(level, 0)
        if searched and searched % 2 == 1:
            if searched > 8:
                self.explored[level] = 0
                return "far " + self.rng.choice(("north", "south", "east", "west")), "random_run"
            self.explored[level] = searched + 1
            return f"search {SEARCH_TURNS}", "search"
        return "explore", "explore"


@dataclass(frozen=True, kw_only=True)
class NetPlayConfig(LLMConfig):
    """Settings of :class:`NetPlayPolicy`."""

    n_events: int = 8
    """Recent events (action and the first lines of its report) in the prompt."""
    temperature: float = TEMPERATURE.field(0.2)
    max_tokens: int = MAX_TOKENS.field(200)
    seed: int | None = field(default=None, metadata=UNRECORDED)
    """Seed of the fallback agent (:class:`NetPlayHeuristic`); not sent to the model, not recorded."""

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.n_events < 0:
            raise ValueError(f"n_events must be >= 0, got {self.n_events!r}")


class NetPlayPolicy(LLMPolicy):
    """LLM, NetHack: NetPlay's loop, one skill per step with a short reason (explore, go to, fight...)

    NetPlay: an LLM picks one skill per step with a short reason (see the module docstring).

    Args:
        config: Its settings (default: :class:`NetPlayConfig`'s).
        client: An existing :class:`~textmem_gym.llm.LLMClient` to use instead.
        **fields: Settings to change (fields of :class:`NetPlayConfig`: ``n_events``, ``seed``, ``model``...).
    """

    name: ClassVar[str] = "netplay"
    prompt_changes: ClassVar[Mapping[str, str]] = MappingProxyType({"task": FIXED, "skills": FIXED, "memory": SLOW})
    config_class: ClassVar[type[NetPlayConfig]] = NetPlayConfig
    config: NetPlayConfig

    def __init__(self, config: NetPlayConfig | None = None, *, client: LLMClient | None = None,
                 **fields: Any) -> None:
        super().__init__(config, client=client, **fields)
        self.fallback = NetPlayHeuristic(seed=self.config.seed)
        self.reset("", step_info({}))

    def seed(self, seed: int | None) -> None:
        self.fallback.seed(seed)

    def reset(self, observation: Any, info: Info) -> None:
        self.llm.begin_episode()
        self.fallback.reset(observation, info)
        self.task = str(info.get("objective") or "Play NetHack and descend as deep as you can.")
        self.events: list[str] = []
        self.reasons: list[str] = []
        self.counts = {"steps": 0}

    def observe(self, action: str, observation: Any, reward: float, terminated: bool, truncated: bool,
                info: Info) -> None:
        self.fallback.observe(action, observation, reward, terminated, truncated, info)
        first = observation_text(observation).split("\n\n", 1)[0]
        self.events.append(f"> {action}: {' '.join(first.split())[:300]}")

    def episode_stats(self) -> dict[str, Any]:
        stats = self.llm.episode_stats()
        stats.update(self.counts)
        return stats

    def memory_text(self, observation: str, info: Info) -> str:
        """Extra prompt text after the observation (none here; Ariadne-style agents add memory)."""
        return ""

    def prompt(self, observation: str, info: Info, events: Trimmable | None = None) -> str:
        """The NetPlay prompt for this step (``events``: the trimmable recent events)."""
        from textmem_gym.envs.nethack.skills import skill_help

        events = events if events is not None else self.recent_events()
        return self.prompts.render("netplay", task=self.task, observation=observation,
                                   memory=self.memory_text(observation, info),
                                   events=events.text(), skills=skill_help(),
                                   commands=", ".join(admissible(info)))

    def recent_events(self) -> Trimmable:
        """The last ``n_events`` events (oldest trimmed first)."""
        n_events = self.config.n_events
        return Trimmable("events", self.events[-n_events:] if n_events else [], sep="\n", empty="none yet")

    def act(self, observation: Any, info: Info) -> str:
        text = observation_text(observation)
        self.counts["steps"] += 1
        events = self.recent_events()
        schema = answer_schema("netplay")
        answer = self.llm.ask("skill", lambda: self.prompt(text, info, events), temperature=self.config.temperature,
                              max_tokens=self.config.max_tokens, schema=schema, trim=[events])
        parsed = self.llm.read("skill", answer, schema, need=("skill",))
        skill = " ".join(str(parsed.get("skill") or "").split())
        if skill:
            self.reasons.append(str(parsed.get("reason", ""))[:200])
            return self.llm.model_action(skill)
        cause = self.llm.failure_cause() if answer is None else "unparseable"
        return self.llm.fallback(cause, self.fallback.choose(text, admissible(info))[0])

