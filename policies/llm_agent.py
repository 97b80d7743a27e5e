"""The planner and ReAct decision modules shared by Ariadne and the papers' memory baselines.

Each step: the memory of the policy contributes working-memory sections; the planning module
(appendix E planning prompt) updates a JSON plan of sub-goals; the decision module (appendix E
ReAct prompt) picks one action from the admissible commands. An answer outside them is mapped
to the closest admissible command (else ``look``) and counted; LLM failures fall back to the
heuristic critic's best untried command. Subclasses change only the memory
(:meth:`LLMAgent.memory_sections`, :meth:`LLMAgent.remember`).

Example:
    >>> resolve_action("take the knife", ["take knife from table", "look"])
    ('take knife from table', 'mapped')
    >>> resolve_action("Look", ["look"])
    ('look', 'exact')
"""

from __future__ import annotations

import difflib
import json
import re
from dataclasses import dataclass
from typing import Any, ClassVar

from policies.base import BasePolicy, Info
from policies.critic import HeuristicCritic, room_from
from policies.llm_calls import LLMCalls, render_prompt
from policies.memory_env import admissible, observation_text
from textmem_gym.llm import parse_json_object

SAFE_COMMAND = "look"
#: Prompt style -> template name suffix (``planning.txt`` or ``planning_paper.txt``...).
PROMPT_STYLES = {"compact": "", "paper": "_paper"}
#: How an answer was resolved -> the counter it increments.
INVALID_COUNTERS = {"mapped": "invalid_actions_mapped", "default": "invalid_actions_defaulted"}
Section = tuple[str, str]


def compact(text: str, limit: int | None = None) -> str:
    """Whitespace collapsed to single spaces, cut to ``limit`` characters."""
    text = " ".join(str(text).split())
    return text if limit is None or len(text) <= limit else text[: limit - 3] + "..."


def resolve_action(proposed: str, commands: list[str]) -> tuple[str, str]:
    """``(command, how)``: ``how`` is ``exact``, ``mapped`` (closest admissible) or ``default``."""
    wanted = compact(proposed).strip(" .\"'").lower()
    if not commands:
        return (wanted or SAFE_COMMAND), "exact"
    by_lower = {c.lower(): c for c in commands}
    if wanted in by_lower:
        return by_lower[wanted], "exact"
    best, score = max(((c, _similarity(wanted, c)) for c in by_lower), key=lambda pair: pair[1])
    if score >= 0.6:
        return by_lower[best], "mapped"
    return (by_lower.get(SAFE_COMMAND) or SAFE_COMMAND), "default"


_STOP = {"the", "a", "an", "to", "with", "from", "on", "in", "into", "at"}


def _similarity(wanted: str, command: str) -> float:
    """Character similarity, or the share of the wanted content words found in ``command``."""
    words = [w for w in wanted.split() if w not in _STOP]
    have = set(command.split())
    covered = sum(w in have for w in words) / len(words) if words else 0.0
    same_verb = bool(words) and command.split()[:1] == words[:1]
    return max(difflib.SequenceMatcher(None, wanted, command).ratio(), covered if same_verb else 0.0)


def group_commands(commands: list[str]) -> str:
    """Commands as compact JSON grouped by first word (``go to`` apart): same list, fewer tokens.

    Example:
        >>> group_commands(["go east", "go to kitchen", "take knife", "take apple", "look"])
        '{"go":["east"],"go to":["kitchen"],"take":["knife","apple"],"look":[""]}'
    """
    groups: dict[str, list[str]] = {}
    for command in commands:
        head, _, rest = command.partition(" ")
        if head == "go" and rest.startswith("to "):
            head, rest = "go to", rest[3:]
        groups.setdefault(head, []).append(rest)
    return json.dumps(groups, ensure_ascii=False, separators=(",", ":"))


@dataclass
class Turn:
    """One executed step: the action and what the game answered."""

    action: str
    observation: str
    reward: float = 0.0


class LLMAgent(BasePolicy):
    """Planner + ReAct decision module over a pluggable memory (the base of all LLM baselines).

    Args:
        model, base_url, api_key: The OpenAI-compatible endpoint (else ``OPENAI_*`` variables).
        client: An existing :class:`~textmem_gym.llm.LLMClient` to use instead.
        n_prev: Recent observations and actions in working memory.
        plan_temperature, action_temperature: Sampling temperatures of the two modules.
        max_tokens: Completion limit of planner and decision calls.
        observation_chars: Characters kept of each past observation in the history.
        prompt_style: ``"compact"`` (default: every rule of the paper's prompts, tighter wording)
            or ``"paper"`` (appendix E planning and ReAct prompts nearly verbatim).
        **client_options: Further ``LLMClient`` arguments (``timeout``, ``max_retries``, ``cache``...).

    Example:
        >>> agent = LLMAgent(n_prev=3)  # no endpoint needed until the first call
        >>> agent.render_sections(agent.working_memory("You see a fridge.", {})[:1])
        '1. Main goal: '
    """

    name: ClassVar[str] = "llm-agent"
    uses_planner: ClassVar[bool] = True
    history_label: ClassVar[str] = "History of {n} last observations and actions"

    def __init__(self, model: str | None = None, base_url: str | None = None, api_key: str | None = None, *,
                 client: Any = None, n_prev: int = 5, plan_temperature: float = 0.2,
                 action_temperature: float = 0.2, max_tokens: int = 400, observation_chars: int = 700,
                 prompt_style: str = "compact", **client_options: Any) -> None:
        if n_prev < 0:
            raise ValueError(f"n_prev must be >= 0, got {n_prev!r}")
        if prompt_style not in PROMPT_STYLES:
            raise ValueError(f"prompt_style must be one of {sorted(PROMPT_STYLES)}, got {prompt_style!r}")
        self.prompt_suffix = PROMPT_STYLES[prompt_style]
        self.llm = LLMCalls(model, base_url, api_key, client=client, client_options=client_options)
        self.n_prev, self.max_tokens, self.observation_chars = n_prev, max_tokens, observation_chars
        self.plan_temperature, self.action_temperature = plan_temperature, action_temperature
        self.critic = HeuristicCritic()
        self.reset("", {})

    # -- episode -------------------------------------------------------------------------
    def reset(self, observation: Any, info: Info) -> None:
        self.llm.begin_episode()
        self.critic.reset()
        first = observation_text(observation)
        self.goal = compact(info.get("objective") or first)
        self.turns: list[Turn] = []
        self.plan = "{}"
        self.room = room_from(first, info)
        self.counts = {"steps": 0, "plan_updates": 0, "invalid_actions_mapped": 0, "invalid_actions_defaulted": 0,
                       "llm_fallbacks": 0, "parse_failures": 0, "exploration_checks": 0}
        self.memory_reset(first, info)

    def observe(self, action: str, observation: Any, reward: float, terminated: bool, truncated: bool,
                info: Info) -> None:
        text = observation_text(observation)
        before, self.room = self.room, room_from(text, info, self.room)
        self.critic.record(action, before, self.room, reward)
        turn = Turn(action, text, float(reward))
        self.turns.append(turn)
        self.remember(turn, info)

    def episode_stats(self) -> dict[str, Any]:
        stats = self.llm.episode_stats()
        stats.update(self.counts)
        return stats

    # -- memory hooks (subclasses) ---------------------------------------------------------
    def memory_reset(self, observation: str, info: Info) -> None:
        """Starts the memory of a new episode."""

    def remember(self, turn: Turn, info: Info) -> None:
        """Adds one executed step to the memory."""

    def memory_sections(self, observation: str, info: Info) -> list[Section]:
        """Working-memory sections placed after the current observation."""
        return []

    def history_turns(self) -> list[Turn]:
        """The turns shown as history (the last ``n_prev`` by default)."""
        return self.turns[-self.n_prev:] if self.n_prev else []

    def exploration_section(self, info: Info) -> Section | None:
        """Unexplored exits, when the memory knows them and the plan needs exploring."""
        return None

    # -- working memory ------------------------------------------------------------------
    def render_history(self, turns: list[Turn]) -> str:
        if not turns:
            return "none yet"
        goal = self.goal
        lines = []
        for turn in turns:
            text = compact(turn.observation.replace(goal, "") if goal else turn.observation, self.observation_chars)
            lines.append(f"> {turn.action} -> {text}")
        return "\n" + "\n".join(lines)

    def working_memory(self, observation: str, info: Info) -> list[Section]:
        label = self.history_label.format(n=self.n_prev)
        sections = [("Main goal", self.goal), (label, self.render_history(self.history_turns())),
                    ("Your current observation", compact(observation))]
        return sections + self.memory_sections(observation, info)

    @staticmethod
    def render_sections(sections: list[Section]) -> str:
        return "\n".join(f"{i}. {label}: {text}" for i, (label, text) in enumerate(sections, 1))

    # -- modules -------------------------------------------------------------------------
    def update_plan(self, sections: list[Section]) -> None:
        """The planning module: replaces :attr:`plan` with the LLM's updated plan."""
        prompt = render_prompt("planning" + self.prompt_suffix, sections=self.render_sections(sections + [("Your previous plan", self.plan)]))
        answer = self.llm.ask("plan", prompt, temperature=self.plan_temperature, max_tokens=self.max_tokens)
        if answer is None:
            self.counts["llm_fallbacks"] += 1
            return
        parsed = parse_json_object(answer)
        if not isinstance(parsed.value, dict) or "plan_steps" not in parsed.value:
            self.counts["parse_failures"] += 1
            return
        plan = {k: v for k, v in parsed.value.items() if k in ("main_goal", "plan_steps")}
        self.plan = json.dumps(plan, ensure_ascii=False)
        self.counts["plan_updates"] += 1

    def plan_needs_exploration(self) -> bool:
        """The exploration check: does the plan require exploring or finding something?"""
        self.counts["exploration_checks"] += 1
        answer = self.llm.ask("exploration_check", render_prompt("exploration_check", plan=self.plan),
                              temperature=0.0, max_tokens=5)
        return bool(answer) and "true" in answer.lower()

    def decide(self, sections: list[Section], commands: list[str]) -> str:
        """The ReAct decision module: one action from ``commands`` (mapped and counted if not)."""
        prompt = render_prompt("decision" + self.prompt_suffix, sections=self.render_sections(sections), actions=group_commands(commands))
        answer = self.llm.ask("action", prompt, temperature=self.action_temperature, max_tokens=self.max_tokens)
        if answer is None:
            self.counts["llm_fallbacks"] += 1
            return self.critic.best_untried(self.room, commands) or SAFE_COMMAND
        parsed = parse_json_object(answer, required=("action_to_take",))
        if isinstance(parsed.value, dict) and isinstance(parsed.value.get("action_to_take"), str):
            proposed = parsed.value["action_to_take"]
        else:
            self.counts["parse_failures"] += 1
            proposed = _first_line(answer)
        action, how = resolve_action(proposed, commands)
        if how != "exact":
            self.counts[INVALID_COUNTERS[how]] += 1
        return action

    def act(self, observation: Any, info: Info) -> str:
        text, commands = observation_text(observation), admissible(info)
        self.counts["steps"] += 1
        sections = self.working_memory(text, info)
        if self.uses_planner:
            self.update_plan(sections)
            sections = sections + [("Your current plan", self.plan)]
        exits = self.exploration_section(info)
        if exits is not None:
            sections.append(exits)
        return self.decide(sections, commands)

    def close(self) -> None:
        """Closes the LLM client."""
        self.llm.close()


def _first_line(text: str) -> str:
    """A command guessed from a free-text answer: an ``action: X`` line, else the first line."""
    match = re.search(r"action[_ a-z]*\"?\s*[:=]\s*\"?([^\"\n]+)", text, re.I)
    if match:
        return match.group(1)
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return lines[0] if lines else ""
