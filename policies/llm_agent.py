"""The planner and ReAct decision modules shared by Ariadne and the papers' memory baselines.

Each step: the memory of the policy contributes working-memory sections; the planning module
(appendix E planning prompt) updates a JSON plan of sub-goals; the decision module (appendix E
ReAct prompt) picks one action from the admissible commands (sent as the enum of the answer
schema when the endpoint takes structured outputs). Answers are read by the shared parser
(:mod:`textmem_gym.llm.answers`). Every env action is counted: the model's own command
(``exact``, or ``completed`` to the one admissible command extending it), or a fallback by cause
(an answer outside the commands mapped to the most similar one or defaulted to ``look``; LLM
errors, context overflows and unparseable answers fall back to the heuristic critic's best
untried command). Subclasses change only the memory (:meth:`LLMAgent.memory_sections`,
:meth:`LLMAgent.remember`).

Context budget (see :mod:`textmem_gym.llm.calls`): when the window is known, prompts lose, in this
order, the oldest history steps, then the items of the memory sections (least relevant first,
in the order the sections are listed), then the least relevant commands of the action list
(:func:`~textmem_gym.llm.prompts.rank_commands`, never below
:data:`~textmem_gym.llm.prompts.MIN_ACTIONS`); never the instructions, the goal, the current
observation or the plan.

Every policy that asks a model keeps a :class:`~textmem_gym.llm.LLMCalls` as ``self.llm`` and
subclasses :class:`LLMPolicy`, which gives the runner its LLM hooks (``preflight``,
``take_llm_calls``, ``action_source``). The policies' prompts and answer schemas are the files of
``policies/prompts/`` (:attr:`LLMPolicy.prompts`, :func:`answer_schema`).

Prompt layout (``prompt_layout``, :mod:`textmem_gym.llm.prompts`): every section is declared once
with how often it changes (:class:`~textmem_gym.llm.prompts.Section` for the working memory: the goal
is ``fixed``, the memory sections and the plan ``slow``, the history and the observation ``step``;
:attr:`LLMPolicy.prompt_changes` for the templates' placeholders). ``"paper"`` sends the sections in
the order declared here (the papers'); ``"cache"`` sends the fixed ones first, then the slow ones,
then the new ones. The sections are listed, ranked and trimmed in the declared order either way;
only what is sent is laid out.

Example:
    >>> resolve_action("take the knife", ["take knife from table", "look"])
    ('take knife from table', 'completed')
    >>> resolve_action("Look", ["look"])
    ('look', 'exact')
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, ClassVar

from policies.critic import TurnsCritic, room_from
from policies.llm_config import LLMConfig
from policies.shared_settings import HISTORY_STEPS, MAX_TOKENS, OBSERVATION_CHARS
from textmem_gym.core.info import admissible, observation_text, step_info
from textmem_gym.core.policy import ConfiguredPolicy, Info
from textmem_gym.llm import LLMClient
from textmem_gym.llm.answers import match_command
from textmem_gym.llm.calls import LLMCalls
from textmem_gym.llm.prompts import (
    FIXED,
    MIN_ACTIONS,
    SLOW,
    STEP,
    LayoutFolder,
    PromptFolder,
    Section,
    Trimmable,
    rank_commands,
    with_actions,
)

SAFE_COMMAND = "look"
#: The policies' prompt templates and answer schemas (``policies/prompts/``).
PROMPTS = PromptFolder(__package__)
#: Prompt style -> template name suffix (``planning.txt`` or ``planning_paper.txt``...).
PROMPT_STYLES = {"compact": "", "paper": "_paper"}
#: How an answer was resolved -> the counter it increments.
INVALID_COUNTERS = {"mapped": "invalid_actions_mapped", "default": "invalid_actions_defaulted"}


def compact(text: str, limit: int | None = None) -> str:
    """Whitespace collapsed to single spaces, cut to ``limit`` characters."""
    text = " ".join(str(text).split())
    return text if limit is None or len(text) <= limit else text[: limit - 3] + "..."


def resolve_action(proposed: str, commands: list[str]) -> tuple[str, str]:
    """``(command, how)``: ``how`` is ``exact``, ``completed``, ``mapped`` (most similar admissible)
    or ``default`` (see :func:`textmem_gym.llm.answers.match_command`)."""
    return match_command(proposed, commands)


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


def answer_schema(name: str, actions: Sequence[str] | None = None) -> dict[str, Any]:
    """The answer schema of prompt ``name`` (``policies/prompts/<name>.schema.json``), ``actions`` as its
    action enum (see :func:`~textmem_gym.llm.prompts.with_actions`).

    Example:
        >>> answer_schema("decision", ["look", "go east"])["properties"]["action_to_take"]["enum"]
        ['look', 'go east']
    """
    return with_actions(PROMPTS.schema(name), actions)


class LLMPolicy(ConfiguredPolicy):
    """The base of the policies that ask a model through :attr:`llm`: settings and the runner's LLM hooks.

    Args:
        config: The policy's settings (an instance of its ``config_class``, a :class:`~policies.llm_config.LLMConfig`
            subclass; default: the paper's settings).
        client: An existing :class:`~textmem_gym.llm.LLMClient` to use instead of one built from ``config``.
        **fields: Settings to change (``config``'s fields: ``model``, ``base_url``, ``timeout``...).

    Attributes:
        llm: The policy's :class:`~textmem_gym.llm.LLMCalls` (built from :attr:`config` here).
        config: The settings (:meth:`policy_config` is their
            :meth:`~textmem_gym.core.policy.PolicyConfig.recorded`).
        prompts: ``policies/prompts/`` in the layout of ``config.prompt_layout``: ``prompts.render(name,
            **fields)`` fills a prompt (every placeholder must be given).
        prompt_changes: How often each placeholder of the policy's templates changes (``"fixed"``,
            ``"slow"``; ``"step"`` when not listed): where the ``cache`` layout puts it.

    Example:
        >>> class Echo(LLMPolicy):
        ...     def __init__(self):
        ...         self.llm = LLMCalls(model="m")
        ...     def act(self, observation, info):
        ...         return self.llm.model_action("look")
        >>> policy = Echo()
        >>> policy.act("", {}), policy.action_source(), policy.take_llm_calls()
        ('look', 'model', [])
    """

    config_class: ClassVar[type[LLMConfig]] = LLMConfig
    prompt_changes: ClassVar[Mapping[str, str]] = MappingProxyType({})
    llm: LLMCalls
    config: LLMConfig
    prompts: LayoutFolder

    def __init__(self, config: LLMConfig | None = None, *, client: LLMClient | None = None, **fields: Any) -> None:
        super().__init__(config, **fields)
        self.llm = self.config.calls(client)
        self.prompts = LayoutFolder(PROMPTS.package, self.config.prompt_layout, self.prompt_changes)

    def preflight(self) -> None:
        """Checks the LLM endpoint once, before the first episode (one line and
        :class:`~textmem_gym.core.errors.PolicyNotReady` when it is unusable)."""
        self.llm.preflight()

    def take_llm_calls(self) -> list[dict[str, Any]]:
        """The LLM calls made since the last call (for the trajectory)."""
        return self.llm.take_step_calls()

    def action_source(self) -> str | None:
        """``"model"`` or the fallback cause of the env action counted since the last call (``None``: none)."""
        return self.llm.take_action_source()

    def close(self) -> None:
        """Closes the LLM client."""
        self.llm.close()


@dataclass
class Turn:
    """One executed step: the action and what the game answered."""

    action: str
    observation: str
    reward: float = 0.0
    location: str | None = None
    """The room the memory wrapper believed after it (``info["location"]``; ``None``: no wrapper said)."""


@dataclass(frozen=True, kw_only=True)
class AgentConfig(LLMConfig):
    """Settings of :class:`LLMAgent` (the AriGraph paper's planner + ReAct agent and its memory baselines).

    ``history_steps`` was the paper's ``n_prev``: that keyword is still taken (a ``FutureWarning``), and rows
    record the setting as ``n_prev``, so their resume keys are unchanged.
    """

    renamed: ClassVar[Mapping[str, str]] = MappingProxyType({"n_prev": "history_steps"})

    history_steps: int = HISTORY_STEPS.field(5, recorded_as="n_prev")
    plan_temperature: float = 0.2
    """Sampling temperature of the planning module."""
    action_temperature: float = 0.2
    """Sampling temperature of the decision (ReAct) module."""
    max_tokens: int = MAX_TOKENS.field(400)
    observation_chars: int = OBSERVATION_CHARS.field(700)
    prompt_style: str = "compact"
    """``"compact"`` (every rule of the paper's prompts, tighter wording) or ``"paper"`` (appendix E
    planning and ReAct prompts nearly verbatim)."""

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.history_steps < 0:
            raise ValueError(f"history_steps must be >= 0, got {self.history_steps!r}")
        if self.prompt_style not in PROMPT_STYLES:
            raise ValueError(f"prompt_style must be one of {sorted(PROMPT_STYLES)}, got {self.prompt_style!r}")


class LLMAgent(LLMPolicy):
    """Planner + ReAct decision module over a pluggable memory (the base of all LLM baselines).

    Args:
        config: The settings (default: :class:`AgentConfig`'s, the paper's; a subclass takes its own
            ``config_class``).
        client: An existing :class:`~textmem_gym.llm.LLMClient` to use instead.
        **fields: Settings to change (fields of ``config``: ``history_steps``, ``model``, ``timeout``...).

    Example:
        >>> agent = LLMAgent(history_steps=3)  # no endpoint needed until the first call
        >>> agent.render_sections(agent.working_memory("You see a fridge.", {})[:1])
        '1. Main goal: '
        >>> agent.policy_config()["n_prev"]  # recorded under the paper's name: resume keys unchanged
        3
    """

    name: ClassVar[str] = "llm-agent"
    prompt_changes: ClassVar[Mapping[str, str]] = MappingProxyType({"goal": FIXED})
    uses_planner: ClassVar[bool] = True
    history_label: ClassVar[str] = "History of {n} last observations and actions"
    config_class: ClassVar[type[AgentConfig]] = AgentConfig
    config: AgentConfig

    def __init__(self, config: AgentConfig | None = None, *, client: LLMClient | None = None, **fields: Any) -> None:
        super().__init__(config, client=client, **fields)
        self.prompt_suffix = PROMPT_STYLES[self.config.prompt_style]
        self.reset("", step_info({}))

    # -- episode -------------------------------------------------------------------------
    def reset(self, observation: Any, info: Info) -> None:
        self.llm.begin_episode()
        first = observation_text(observation)
        self.goal = compact(info.get("objective") or first)
        self.turns: list[Turn] = []
        self.plan = "{}"
        self.critic = TurnsCritic(room_from(first, info), self.turns)  # learns from the turns when asked
        self.counts = {"steps": 0, "plan_updates": 0, "invalid_actions_mapped": 0, "invalid_actions_defaulted": 0,
                       "llm_fallbacks": 0, "parse_failures": 0, "exploration_checks": 0}
        self.memory_reset(first, info)

    def observe(self, action: str, observation: Any, reward: float, terminated: bool, truncated: bool,
                info: Info) -> None:
        turn = Turn(action, observation_text(observation), float(reward), info.get("location"))
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
        """Working-memory sections placed after the current observation (``slow`` ones, as a rule)."""
        return []

    def history_turns(self) -> list[Turn]:
        """The turns shown as history (the last ``history_steps`` by default)."""
        return self.turns[-self.config.history_steps:] if self.config.history_steps else []

    def exploration_section(self, info: Info) -> Section | None:
        """Unexplored exits, when the memory knows them and the plan needs exploring."""
        return None

    # -- working memory ------------------------------------------------------------------
    def render_history(self, turns: list[Turn]) -> Trimmable:
        """The history section: one ``> action -> observation`` line per turn (oldest trimmed first)."""
        goal, chars = self.goal, self.config.observation_chars
        lines = []
        for turn in turns:
            text = compact(turn.observation.replace(goal, "") if goal else turn.observation, chars)
            lines.append(f"> {turn.action} -> {text}")
        return Trimmable("history", lines, render=lambda items: "\n" + "\n".join(items) if items else "none yet")

    def working_memory(self, observation: str, info: Info) -> list[Section]:
        """The goal, the recent history, the current observation, then the memory's sections."""
        label = self.history_label.format(n=self.config.history_steps)
        sections = [Section("Main goal", self.goal, FIXED),
                    Section(label, self.render_history(self.history_turns()), STEP),
                    Section("Your current observation", compact(observation), STEP)]
        return sections + self.memory_sections(observation, info)

    def render_sections(self, sections: list[Section]) -> str:
        """The sections as numbered lines, in the prompt layout's order."""
        arranged = self.prompts.layout.arrange(sections)
        return "\n".join(f"{i}. {section.label}: {section.text}" for i, section in enumerate(arranged, 1))

    @staticmethod
    def trimmables(sections: list[Section]) -> list[Trimmable]:
        """The sections that may be trimmed, in trim order (as listed: history first, then memories)."""
        return [section.text for section in sections if isinstance(section.text, Trimmable)]

    # -- modules -------------------------------------------------------------------------
    def update_plan(self, sections: list[Section]) -> None:
        """The planning module: replaces :attr:`plan` with the LLM's updated plan."""
        schema = answer_schema("planning")
        previous = [Section("Your previous plan", self.plan, SLOW)]
        answer = self.llm.ask("plan", lambda: self.prompts.render(
            "planning" + self.prompt_suffix, sections=self.render_sections(sections + previous)),
            temperature=self.config.plan_temperature, max_tokens=self.config.max_tokens, schema=schema,
            trim=self.trimmables(sections))
        if answer is None:
            self.counts["llm_fallbacks"] += 1
            return
        parsed = self.llm.read("plan", answer, schema, need=("plan_steps",))
        steps = parsed.get("plan_steps")
        if not steps:
            self.counts["parse_failures"] += 1
            return
        plan = {"main_goal": parsed.get("main_goal") or self.goal, "plan_steps": [_plan_step(i, step) for i, step in
                                                                                   enumerate(steps, 1)]}
        self.plan = json.dumps(plan, ensure_ascii=False)
        self.counts["plan_updates"] += 1

    def plan_needs_exploration(self) -> bool:
        """The exploration check: does the plan require exploring or finding something?"""
        self.counts["exploration_checks"] += 1
        schema = answer_schema("exploration_check")
        answer = self.llm.ask("exploration_check", self.prompts.render("exploration_check", plan=self.plan),
                              temperature=0.0, max_tokens=20, schema=schema)
        return bool(self.llm.read("exploration_check", answer, schema).get("needs_exploration"))

    def decide(self, sections: list[Section], commands: list[str]) -> str:
        """The ReAct decision module: one action from ``commands``; every outcome counted (see the module)."""
        context = " ".join([self.goal, self.plan] + [str(section.text) for section in sections[-3:]])
        shown = Trimmable("actions", rank_commands(commands, context), drop="last", keep=MIN_ACTIONS,
                          order=commands, render=group_commands)
        schema = answer_schema("decision", commands)
        answer = self.llm.ask("action", lambda: self.prompts.render("decision" + self.prompt_suffix,
                                                                    sections=self.render_sections(sections),
                                                                    actions=shown.text()),
                              temperature=self.config.action_temperature, max_tokens=self.config.max_tokens,
                              schema=schema, trim=self.trimmables(sections) + [shown])
        if answer is None:
            self.counts["llm_fallbacks"] += 1
            return self.llm.fallback(self.llm.failure_cause(), self.critic.best_untried(commands) or SAFE_COMMAND)
        proposed = self.llm.read("action", answer, schema, need=("action_to_take",)).get("action_to_take")
        if proposed is None:
            self.counts["parse_failures"] += 1
            return self.llm.fallback("unparseable", self.critic.best_untried(commands) or SAFE_COMMAND, answer[:200])
        action, how = resolve_action(proposed, commands)
        if how in INVALID_COUNTERS:
            self.counts[INVALID_COUNTERS[how]] += 1
            return self.llm.fallback(f"invalid_{'mapped' if how == 'mapped' else 'defaulted'}", action, proposed)
        return self.llm.model_action(action)

    def act(self, observation: Any, info: Info) -> str:
        text, commands = observation_text(observation), admissible(info)
        self.counts["steps"] += 1
        sections = self.working_memory(text, info)
        if self.uses_planner:
            self.update_plan(sections)
            sections = sections + [Section("Your current plan", self.plan, SLOW)]
        exits = self.exploration_section(info)
        if exits is not None:
            sections.append(exits)
        return self.decide(sections, commands)


def _plan_step(index: int, step: Any) -> dict[str, Any]:
    """One plan step in the prompt's shape (``{"sub_goal_<i>": ..., "reason": ...}``)."""
    if isinstance(step, dict):
        goal = next((v for k, v in step.items() if str(k).lower().startswith("sub")), None)
        if goal is None:
            goal = next((v for k, v in step.items() if k != "reason"), "")
        return {f"sub_goal_{index}": goal, "reason": step.get("reason", "")}
    return {f"sub_goal_{index}": str(step), "reason": ""}
