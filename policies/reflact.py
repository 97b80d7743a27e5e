"""The Text Adventure Agent's ReflAct loop (reflect, keep an objective, act) and its helpers.

Each step one LLM call answers ``REFLECTION`` (belief state + goal progress), ``OBJECTIVE``
(persistent: it stays in every prompt until the LLM replaces it) and ``ACTION``. Around it:
the heuristic critic (see below), loop guards (:class:`~policies.critic.LoopGuard` forbids a
command that repeats a loop: three identical in a row, five of the last 10, or one already played
from the same world state, Jericho's hash; counted as ``loop_guard``; 4+ of the last 10 and
revisited game states add warnings; escalating stuck warnings), narrative
synthesis (every 5 steps or on a score change), action hints (on room change) and the
NPC-conversation stall tracker. The belief state comes from AriGraph through MemoryGraphWrapper.
Locations are keyed by the game's stable id (Jericho's Z-machine location object,
``info["location_id"]``; the room for TextWorld), not the printed name: the critic's tries, the
per-location log of the last 40 actions (with the score before and after) and the tried list
follow a room whose name changes.

The critic (:class:`~policies.critic.HeuristicCritic`, no LLM call) scores a command -1 when it is
a direction blocked here before or was tried twice or more here without reward; such a command is
never played. How it acts is the ``critic`` option:

* ``"constrain"`` (default): the critic constrains what the model may choose. Before the call the
  commands it would reject are left out of the valid actions and of the answer schema's action
  enum, and the prompt names them ("Rejected by the critic (do not repeat): ..."; summed over the
  steps in ``critic_withheld``); when it would reject every admissible command the list stays
  whole. A model that still proposes a rejected command (free text, or an endpoint ignoring the
  schema) is asked once more with the critic's reason (a ``reflact_reask`` call, counted in
  ``critic_reasks``); an acceptable answer is the model's action (``critic_reasks_accepted``),
  otherwise the best untried valid command is sent (fallback ``critic_substitution``).
* ``"substitute"``: the seed's critic: the model chooses among all admissible commands and a
  rejected choice is replaced at once by the best untried valid command (``critic_substitution``).
* ``"off"``: no critic (the loop guards still act).

Every env action is counted: the model's own command, or a fallback by cause (LLM error,
unparseable answer, an off-list action mapped or defaulted, critic substitution, loop guard;
the first that applies). Context budget: the prompt loses the oldest recent-history steps,
then the belief-state lines, then the critic's rejected commands, then the least relevant
valid actions (never below :data:`~textmem_gym.llm.prompts.MIN_ACTIONS`).

Example:
    >>> parse_reflact("REFLECTION: in the hall\\nOBJECTIVE: find the lamp\\nACTION: go north")
    {'reflection': 'in the hall', 'objective': 'find the lamp', 'action': 'go north'}
"""

from __future__ import annotations

import json
from collections import defaultdict, deque
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, ClassVar

import gymnasium as gym

from policies.critic import HeuristicCritic, LoopGuard, place_of, room_from
from policies.llm_agent import (
    INVALID_COUNTERS,
    SAFE_COMMAND,
    LLMPolicy,
    Turn,
    answer_schema,
    compact,
    resolve_action,
)
from policies.llm_config import LLMConfig
from policies.shared_settings import HISTORY_STEPS, MACRO_COUNTS_AS_ONE_STEP, MAX_TOKENS, TEMPERATURE
from textmem_gym.core.info import admissible, observation_text, step_info
from textmem_gym.core.policy import Info
from textmem_gym.llm import LLMClient
from textmem_gym.llm.answers import parse_answer
from textmem_gym.llm.prompts import FIXED, MIN_ACTIONS, SLOW, STEP, Section, Trimmable, rank_commands
from textmem_gym.wrappers.memory_graph import ensure_memory_wrapper

#: How the policy reaches the game (see ``ReflActPolicy``).
TRANSPORTS = ("inprocess", "mcp")
#: What the critic does (see the module docstring).
CRITIC_MODES = ("constrain", "substitute", "off")
#: The prompt's line naming the commands the critic rejected (``$critic`` of ``prompts/reflact.txt``).
REJECTED_LINE = "\nRejected by the critic (do not repeat): {}"
#: What the re-ask adds to the prompt when the model proposed a rejected command.
REASK_LINE = "\nThe critic rejected '{action}' because {reason}; choose another action from the valid actions."
CONVERSATION_VERBS = ("ask", "tell", "say", "answer", "speak", "talk")
#: Actions kept per location with their consequence (the seed's room bucket).
ROOM_LOG = 40
#: Entries of the current location's log shown in the prompt (``ROOM_HISTORY``).
ROOM_HISTORY_SHOWN = 5


@dataclass
class RoomTurn:
    """One action taken at a location, with its consequence (the seed's rich room history)."""

    action: str
    observation: str
    reward: float
    score_before: float
    score_after: float

    def line(self) -> str:
        """``open door (score 0 -> 1, +1): <result>``."""
        return (f"{self.action} (score {self.score_before:g} -> {self.score_after:g}, {self.reward:+g}): "
                f"{compact(self.observation, 100)}")
#: Turns without a score change -> warning.
STUCK_WARNINGS = {30: "CRITICAL: 30 turns without progress. Try unexplored exits, open containers, use items you hold.",
                  20: "URGENT: 20 turns without progress; change strategy.",
                  10: "NOTE: 10 turns without progress; consider exploring."}


def parse_reflact(text: str) -> dict[str, str]:
    """The REFLECTION / OBJECTIVE / ACTION fields of an answer (missing ones are absent)."""
    return {k: str(v) for k, v in parse_answer(text, answer_schema("reflact")).values.items()}


@dataclass(frozen=True, kw_only=True)
class ReflActConfig(LLMConfig):
    """Settings of :class:`ReflActPolicy` (the Text Adventure Agent's)."""

    unrecorded: ClassVar[frozenset[str]] = frozenset({"seed"})

    temperature: float = TEMPERATURE.field(0.2)
    history_steps: int = HISTORY_STEPS.field(10, recorded_as="history")
    narrative_every: int = 5
    """Steps between narrative syntheses."""
    max_tokens: int = MAX_TOKENS.field(300)
    transport: str = "inprocess"
    """``"inprocess"`` (the env and its memory wrapper live in this process) or ``"mcp"``: as the Text
    Adventure Agent, play through the MCP server's tools only (``textmem-gym mcp`` spawned over stdio:
    ``reset``, ``play_action``, ``valid_actions``, ``graph_memory_context``); the results are recorded
    the same way."""
    critic: str = "constrain"
    """``"constrain"`` (rejected commands are kept from the model's choice, a rejected proposal is asked
    again once), ``"substitute"`` (the seed's critic: a rejected proposal is replaced at once) or
    ``"off"``; see :mod:`policies.reflact`."""
    macro_counts_as_one_step: bool = MACRO_COUNTS_AS_ONE_STEP.field(False)

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.transport not in TRANSPORTS:
            raise ValueError(f"transport must be one of {TRANSPORTS}, got {self.transport!r}")
        if self.critic not in CRITIC_MODES:
            raise ValueError(f"critic must be one of {CRITIC_MODES}, got {self.critic!r}")


class ReflActPolicy(LLMPolicy):
    """LLM: the Text Adventure Agent's ReflAct loop (reflection, objective, critic, loop guards, narrative)

    The Text Adventure Agent's ReflAct loop as a policy.

    Args:
        config: Its settings (default: :class:`ReflActConfig`'s).
        client: An existing :class:`~textmem_gym.llm.LLMClient` to use instead.
        **fields: Settings to change (fields of :class:`ReflActConfig`: ``critic``, ``transport``, ``model``...).

    Raises:
        ValueError: ``transport`` or ``critic`` is not one of the known values.

    Example:
        >>> policy = ReflActPolicy()
        >>> policy.objective, policy.config.critic
        ('explore and make progress', 'constrain')
    """

    name: ClassVar[str] = "reflact"
    prompt_changes: ClassVar[Mapping[str, str]] = MappingProxyType({"goal": FIXED})
    config_class: ClassVar[type[ReflActConfig]] = ReflActConfig
    config: ReflActConfig

    def __init__(self, config: ReflActConfig | None = None, *, client: LLMClient | None = None,
                 **fields: Any) -> None:
        super().__init__(config, client=client, **fields)
        self.critic, self.guard = HeuristicCritic(), LoopGuard()
        self.reset("", step_info({}))

    def wrap_env(self, env: gym.Env) -> gym.Env:
        """Adds MemoryGraphWrapper (the AriGraph belief state of the prompt); with
        ``transport="mcp"``, the same game served over MCP instead (see ``transport``)."""
        if self.config.transport == "mcp":
            from textmem_gym.serving.client import MCPGameEnv

            return MCPGameEnv.serving(env)
        return ensure_memory_wrapper(env, macro_counts_as_one_step=self.config.macro_counts_as_one_step)

    def reset(self, observation: Any, info: Info) -> None:
        self.llm.begin_episode()
        self.critic.reset()
        self.guard.reset()
        self.goal = compact(info.get("objective") or observation_text(observation))
        self.objective, self.narrative, self.hints, self.npc_analysis = "explore and make progress", "", "", ""
        self.turns: list[Turn] = []
        self.room_log: dict[str | None, deque[RoomTurn]] = defaultdict(lambda: deque(maxlen=ROOM_LOG))
        self.room = place_of(observation_text(observation), info)
        self.room_name = room_from(observation_text(observation), info)
        self.tried_in: dict[str | None, set[str]] = defaultdict(set)
        self.score, self.since_score, self.last_npc = float(info.get("score", 0) or 0), 0, -99
        self.belief = observation.get("belief", "") if isinstance(observation, dict) else ""
        self.counts = {"steps": 0, "objective_changes": 0, "critic_substitutions": 0, "critic_reasks": 0,
                       "critic_reasks_accepted": 0, "critic_withheld": 0, "loop_forced_look": 0,
                       "invalid_actions_mapped": 0, "invalid_actions_defaulted": 0, "llm_fallbacks": 0,
                       "parse_failures": 0, "narratives": 0, "hints": 0, "npc_analyses": 0}

    # -- prompt --------------------------------------------------------------------------
    def warnings(self) -> list[str]:
        out = self.guard.warnings()
        out += [text for limit, text in STUCK_WARNINGS.items() if self.since_score >= limit][:1]
        return out

    def sections(self, observation: str, trim: list[Trimmable] | None = None) -> str:
        """The prompt's sections (``trim``: the history and belief sections of :meth:`trimmables`)."""
        recent, belief = trim if trim is not None else self.trimmables()
        tried = sorted(self.tried_in[self.room])
        history = [t.line() for t in list(self.room_log[self.room])[-ROOM_HISTORY_SHOWN:]]
        parts = [Section("GOAL", self.goal, FIXED), Section("CURRENT_OBJECTIVE", self.objective, SLOW),
                 Section("NARRATIVE_SYNTHESIS", self.narrative or "none yet", SLOW),
                 Section("ACTION_HINTS", self.hints or "none", SLOW),
                 Section("NPC_PUZZLE_ANALYSIS", self.npc_analysis or "none", SLOW),
                 Section("ROOM", self.room_name or "unknown", SLOW),
                 Section("ALL_TRIED_IN_THIS_ROOM", ", ".join(tried) or "nothing", STEP),
                 Section("ROOM_HISTORY", " | ".join(history) or "nothing yet", STEP),
                 Section("ARIGRAPH_BELIEF_STATE", belief.text(), SLOW), Section("RECENT_HISTORY", recent.text(), STEP),
                 Section("CURRENT_OBSERVATION", compact(observation), STEP),
                 Section("WARNINGS", " ".join(self.warnings()) or "none", STEP)]
        return "\n".join(f"{part.label}: {part.text}" for part in self.prompts.layout.arrange(parts))

    def trimmables(self) -> list[Trimmable]:
        """The recent history (oldest trimmed first) and the belief state (last lines first)."""
        recent = Trimmable("history", [f"> {t.action} -> {compact(t.observation, 200)}"
                                       for t in self.turns[-self.config.history_steps:]],
                           render=lambda items: "\n" + "\n".join(items) if items else "none")
        lines = [compact(line) for line in (self.belief or "")[:1500].splitlines() if line.strip()]
        return [recent, Trimmable("belief", lines, drop="last", sep=" ", empty="none")]

    # -- Policy API ----------------------------------------------------------------------
    def act(self, observation: Any, info: Info) -> str:
        text, commands = observation_text(observation), admissible(info)
        self.belief = observation.get("belief", "") if isinstance(observation, dict) else ""
        self.counts["steps"] += 1
        allowed, rejected = self.constrained(commands)
        self.counts["critic_withheld"] += len(rejected)
        context = f"{self.goal} {self.objective} {text}"
        recent, belief = self.trimmables()
        shown = Trimmable("actions", rank_commands(allowed, context), drop="last", keep=MIN_ACTIONS,
                          order=allowed, render=json.dumps)
        vetoed = Trimmable("rejected", rank_commands(rejected, context), drop="last",
                           render=lambda items: REJECTED_LINE.format(json.dumps(items)) if items else "")
        trim = [recent, belief, vetoed, shown]
        schema = answer_schema("reflact", allowed)

        def prompt(feedback: str = "") -> str:
            return self.prompts.render("reflact", sections=self.sections(text, [recent, belief]), actions=shown.text(),
                                 critic=vetoed.text() + feedback)

        answer = self.llm.ask("reflact", prompt, temperature=self.config.temperature, max_tokens=self.config.max_tokens,
                              schema=schema, trim=trim)
        fields = self.llm.read("reflact", answer, schema, need=("action",)).values
        cause: str | None = None
        if answer is None:
            self.counts["llm_fallbacks"] += 1
            cause = self.llm.failure_cause()
        elif "action" not in fields:
            self.counts["parse_failures"] += 1
            cause = "unparseable"
        self._take_objective(fields)
        how = "fallback"
        if "action" in fields:
            action, how = resolve_action(fields["action"], commands)
        else:
            action = self.critic.best_untried(self.room, commands) or SAFE_COMMAND
        better = self.critic.replacement(action, self.room, commands) if self.config.critic != "off" else None
        # Asked again only when the model proposed the command and an acceptable one is offered.
        if better is not None and self.config.critic == "constrain" and how not in ("fallback", "default") \
                and (not commands or len(allowed) < len(commands)):
            self.counts["critic_reasks"] += 1
            feedback = REASK_LINE.format(action=action, reason=self.critic.why(action, self.room))
            answer = self.llm.ask("reflact_reask", lambda: prompt(feedback), temperature=self.config.temperature,
                                  max_tokens=self.config.max_tokens, schema=schema, trim=trim)
            again = self.llm.read("reflact_reask", answer, schema, need=("action",)).values
            if "action" in again:
                retry, retry_how = resolve_action(again["action"], commands)
                if retry_how != "default" and self.critic.replacement(retry, self.room, commands) is None:
                    self.counts["critic_reasks_accepted"] += 1
                    self._take_objective(again)
                    action, how = retry, retry_how
        if how in INVALID_COUNTERS:
            self.counts[INVALID_COUNTERS[how]] += 1
            cause = f"invalid_{'mapped' if how == 'mapped' else 'defaulted'}"
        if self.config.critic != "off":  # the critic's last word: a rejected command is never played
            action, _, substituted = self.critic.review(action, self.room, commands)
            self.counts["critic_substitutions"] += int(substituted)
            cause = cause or ("critic_substitution" if substituted else None)
        alternatives = self.critic.untried(self.room, commands) + list(commands)
        action, forced = self.guard.check(action, alternatives)
        self.counts["loop_forced_look"] += int(forced)
        cause = cause or ("loop_guard" if forced else None)
        return self.llm.fallback(cause, action) if cause else self.llm.model_action(action)

    def constrained(self, commands: list[str]) -> tuple[list[str], list[str]]:
        """``(allowed, rejected)``: the admissible commands the model may choose and those the critic
        rejects (with ``critic="constrain"``; otherwise, or when it would reject them all, every
        command is allowed and none is named rejected)."""
        rejected = self.critic.rejected(self.room, commands) if self.config.critic == "constrain" else []
        if len(rejected) == len(commands):
            return list(commands), []
        withheld = set(rejected)
        return [c for c in commands if c not in withheld], rejected

    def _take_objective(self, fields: dict[str, Any]) -> None:
        if fields.get("objective") and fields["objective"] != self.objective:
            self.objective = fields["objective"]
            self.counts["objective_changes"] += 1

    def observe(self, action: str, observation: Any, reward: float, terminated: bool, truncated: bool,
                info: Info) -> None:
        text = observation_text(observation)
        before, self.room = self.room, place_of(text, info, self.room)
        self.room_name = room_from(text, info, self.room_name)
        self.critic.record(action, before, self.room, reward)
        score = float(info.get("score", self.score) or 0)
        self.guard.record(action, str(info.get("world_state_hash") or f"{self.room}|{text}|{score}"))
        turn = Turn(action, text, float(reward))
        self.turns.append(turn)
        self.room_log[before].append(RoomTurn(action, text, float(reward), self.score, score))
        self.tried_in[before].add(action)
        changed, self.score = score != self.score, score
        self.since_score = 0 if changed else self.since_score + 1
        if terminated or truncated:
            return
        if changed or len(self.turns) % self.config.narrative_every == 0:
            self._synthesize()
        if self.room != before:
            self._hint(admissible(info))
        self._track_npc()

    # -- helpers (sub-agents) --------------------------------------------------------------
    def _call(self, kind: str, prompt: str, max_tokens: int) -> str | None:
        answer = self.llm.ask(kind, prompt, temperature=0.0, max_tokens=max_tokens)
        if answer is None:
            self.counts["llm_fallbacks"] += 1
        return compact(answer) if answer and answer.strip() else None

    def _synthesize(self) -> None:
        history = "\n".join(f"> {t.action} -> {compact(t.observation, 200)}" for t in self.turns[-30:])
        answer = self._call("narrative", self.prompts.render("narrative", goal=self.goal, score=self.score,
                                                             history=history), 250)
        if answer:
            self.narrative = answer
            self.counts["narratives"] += 1

    def _hint(self, commands: list[str]) -> None:
        tried = sorted(self.tried_in[self.room]) or ["nothing"]
        answer = self._call("hints", self.prompts.render("action_hints", goal=self.goal, room=self.room_name,
                                                         actions=commands, tried=tried), 100)
        if answer:
            self.hints = answer
            self.counts["hints"] += 1

    def _track_npc(self) -> None:
        log = list(self.room_log[self.room])
        talks = [t for t in log if t.action.split()[:1] and t.action.split()[0].lower() in CONVERSATION_VERBS]
        if len(talks) < 5 or self.since_score < 10 or len(self.turns) - self.last_npc < 5:
            return
        self.last_npc = len(self.turns)
        conversation = "\n".join(f"> {t.action} -> {compact(t.observation, 300)}" for t in log[-10:])
        answer = self._call("npc", self.prompts.render("npc_tracker", goal=self.goal, conversation=conversation),
                            120)
        if answer:
            self.npc_analysis = answer
            self.counts["npc_analyses"] += 1

    def episode_stats(self) -> dict[str, Any]:
        stats = self.llm.episode_stats()
        stats.update(self.counts)
        return stats

