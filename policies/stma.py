"""STMA (Spatio-Temporal Memory Agent): STMA memory + planner-critic (section 4.3, Algorithm 2).

Each step the memory (updated by the MemoryGraphWrapper on every primitive step) gives the
temporal belief and the spatial belief for the current observation. When no plan is pending,
the planner (appendix D.4, chain of thought) writes a sub-goal and a multi-step action plan.
Before each planned action is executed, it is checked: an action outside the admissible
commands is rejected without an LLM call (the D.5 critic's "strictly reject" rule), otherwise
the critic (appendix D.5) judges it (temporal consistency, spatial feasibility, agreement with
the observation, safety). A rejection stores the feedback (also in the history buffer) and
triggers re-planning with it. When no plan survives (LLM failure, unparseable plan, replan
limit) the heuristic critic's best untried command is sent and counted as a fallback by cause.
The STMA suite (``TextMem/STMA-Cooking-L*-v0``) has the paper's 50-turn limit.

Defaults follow the paper: the LLM relation retriever (D.2), summarizer and aggregator;
``extractor="rules"`` and ``memory_llm=False`` are the rule variants. Answers (YAML blocks,
numbered or bulleted plans, commands with articles) are read by the shared parser.
Context budget: the planner's and critic's prompts lose the oldest temporal-belief sentences,
then spatial-memory lines, then the least relevant commands (never below
:data:`~textmem_gym.llm.prompts.MIN_ACTIONS`); the memory's own calls (summarizer, relation
retriever, aggregator) are fitted the same way through this policy's calls (their order is in
:mod:`textmem_gym.memory.stma.memory`). Entity similarity (``similarity="auto"``, the default):
the endpoint's embeddings when it serves them (one probe call per policy), else BM25 over entity
names; ``episode_stats()["similarity"]`` records which (``"openai"`` or ``"bm25"``).

Example:
    >>> parse_plan('Plan:\\n```YAML\\nSubgoal: "get the knife"\\nAction Plan:\\n- "go east"\\n- "take knife"\\n```')
    ('get the knife', ['go east', 'take knife'])
    >>> parse_plan('Subgoal: cut it\\nAction Plan:\\n1. "take the knife"\\n2. chop the carrot with the knife.')
    ('cut it', ['take the knife', 'chop the carrot with the knife.'])
    >>> parse_verdict('Action Suitability: False\\nFeedback: "the door is closed"')
    (False, 'the door is closed')
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, ClassVar

import gymnasium as gym

from policies.critic import HeuristicCritic, room_from
from policies.llm_agent import SAFE_COMMAND, LLMPolicy, answer_schema, compact
from policies.llm_config import LLMConfig
from policies.shared_settings import MACRO_COUNTS_AS_ONE_STEP, MAX_TOKENS, TEMPERATURE
from textmem_gym.core.info import admissible, observation_text, step_info
from textmem_gym.core.policy import RECORDED_SCALARS, Info
from textmem_gym.llm import LLMClient
from textmem_gym.llm.answers import match_command, parse_answer
from textmem_gym.llm.prompts import FIXED, MIN_ACTIONS, SLOW, Trimmable, rank_commands
from textmem_gym.memory.stma.memory import STMAMemory, paragraph_section
from textmem_gym.wrappers.memory_graph import adopt_memory, ensure_memory_wrapper, find_memory_wrapper

#: Entity similarities of the policy: ``auto`` resolves to ``openai`` (the endpoint's embeddings) or ``bm25``.
SIMILARITIES = ("auto", "bm25", "openai")


def _unquote(text: str) -> str:
    return text.strip().strip("\"'`").strip()


def parse_plan(answer: str | None, schema: dict[str, Any] | None = None) -> tuple[str, list[str]]:
    """``(subgoal, actions)`` of a planner answer (YAML block, JSON, or a numbered/bulleted plan)."""
    parsed = parse_answer(answer, schema or answer_schema("stma_planner"))
    subgoal = _unquote(str(parsed.get("subgoal") or "").split(" #")[0])
    actions = [_unquote(str(a)) for a in parsed.get("action_plan") or [] if isinstance(a, str)]
    return subgoal, [a for a in actions if a]


def parse_verdict(answer: str | None) -> tuple[bool | None, str]:
    """``(suitable, feedback)`` of a critic answer (``None`` when no verdict is found)."""
    parsed = parse_answer(answer, answer_schema("stma_critic"))
    feedback = _unquote(str(parsed.get("feedback") or "").split("```")[0])
    return parsed.get("action_suitability"), feedback


def executable(action: str, commands: list[str]) -> str | None:
    """The admissible command for a planned action: the same command (any case, quotes,
    articles or trailing punctuation aside), or the one command extending it (``take knife`` ->
    ``take knife from table``); else ``None``."""
    command, how = match_command(action, commands, default=None)
    return command if how in ("exact", "completed") else None


@dataclass(frozen=True, kw_only=True)
class STMAConfig(LLMConfig):
    """Settings of :class:`STMAPolicy` (the STMA paper's defaults)."""

    unrecorded: ClassVar[frozenset[str]] = frozenset({"seed"})

    extractor: str = "llm"
    """Relation retriever of the memory: ``"llm"`` (the paper's D.2 prompt) or ``"rules"``."""
    memory_llm: bool = True
    """Run the summarizer and the aggregator with the LLM (as the paper; ``False``: deterministic)."""
    memory_options: dict[str, Any] | None = field(default=None, metadata=RECORDED_SCALARS)
    """Further :class:`~textmem_gym.memory.stma.memory.STMAMemory` arguments (``history``, ``top_n``,
    ``hops``...; a ``similarity`` there stands for the field below). Its text, number and boolean values
    are recorded as settings of their own."""
    similarity: str = "auto"
    """Entity similarity of Algorithm 1: ``"auto"`` (the endpoint's embeddings when it serves them, else
    BM25; recorded as ``episode_stats()["similarity"]``), ``"bm25"`` or ``"openai"`` (the endpoint's
    embeddings)."""
    max_replans: int = 3
    """Re-plans allowed within one decision before falling back."""
    max_tokens: int = MAX_TOKENS.field(1500)
    temperature: float = TEMPERATURE.field(0.0)
    macro_counts_as_one_step: bool = MACRO_COUNTS_AS_ONE_STEP.field(False)

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.max_replans < 0:
            raise ValueError(f"max_replans must be >= 0, got {self.max_replans!r}")
        options = dict(self.memory_options or {})
        if "entity_similarity" in options:
            raise ValueError("give similarity=... (auto, bm25 or openai), not memory_options['entity_similarity']")
        if "similarity" in options:
            object.__setattr__(self, "similarity", str(options.pop("similarity")))
            object.__setattr__(self, "memory_options", options)
        if self.similarity not in SIMILARITIES:
            raise ValueError(f"similarity must be one of {SIMILARITIES}, got {self.similarity!r}")


class STMAPolicy(LLMPolicy):
    """LLM: STMA spatio-temporal memory + planner-critic (multi-step plans checked before each action)

    The STMA agent.

    Args:
        config: Its settings (default: :class:`STMAConfig`'s, the paper's).
        client: An existing :class:`~textmem_gym.llm.LLMClient` to use instead.
        **fields: Settings to change (fields of :class:`STMAConfig`: ``extractor``, ``similarity``, ``model``...).
    """

    name: ClassVar[str] = "stma"
    # the critic's feedback changes between the re-plans of one step: it stays last
    prompt_changes: ClassVar[Mapping[str, str]] = MappingProxyType({
        "goal": FIXED, "knowledge": FIXED, "temporal": SLOW, "spatial": SLOW, "inventory": SLOW, "subgoal": SLOW})
    config_class: ClassVar[type[STMAConfig]] = STMAConfig
    config: STMAConfig

    def __init__(self, config: STMAConfig | None = None, *, client: LLMClient | None = None, **fields: Any) -> None:
        super().__init__(config, client=client, **fields)
        self.resolved_similarity: str | None = None
        self.critic = HeuristicCritic()
        self.memory: STMAMemory | None = None
        self.reset("", step_info({}))

    def _ask(self, kind: str, prompt: str | Callable[[], str], *, trim: Sequence[Trimmable] = (),
             schema: Mapping[str, Any] | None = None) -> str | None:
        """The memory's :class:`~textmem_gym.llm.calls.Ask`: fitted, counted by kind, recorded."""
        return self.llm.ask(kind, prompt, temperature=self.config.temperature, max_tokens=self.config.max_tokens,
                            trim=trim, schema=schema)

    def _budgeted(self, kind: str, template: str, context: dict[str, str], commands: list[str],
                  schema: dict[str, Any], **fields: Any) -> str | None:
        """One planner or critic call fitted to the context window (temporal sentences, then spatial
        lines, then the least relevant commands are trimmed)."""
        temporal = paragraph_section("temporal_memory", context["temporal"], empty="nothing yet")
        spatial = Trimmable("spatial_memory", context["spatial"].splitlines(), drop="last", sep="\n",
                            empty="nothing yet")
        shown = Trimmable("actions", rank_commands(commands, context["goal"] + " " + context["observation"]),
                          drop="last", keep=MIN_ACTIONS,
                          order=commands, render=json.dumps)

        def build() -> str:
            return self.prompts.render(template, **{**context, "temporal": temporal.text(),
                                                    "spatial": spatial.text()}, actions=shown.text(), **fields)

        return self.llm.ask(kind, build, temperature=self.config.temperature, max_tokens=self.config.max_tokens,
                            schema=schema, trim=[temporal, spatial, shown])

    def wrap_env(self, env: gym.Env) -> gym.Env:
        """Adds a MemoryGraphWrapper holding this agent's STMA memory (or adopts an existing one)."""
        if self.resolved_similarity is None and find_memory_wrapper(env) is None:
            self.resolved_similarity = self.llm.similarity(self.config.similarity)  # probed outside the episode
        self.llm.start_early()  # the LLM summarizer reads the first observation during env.reset
        self.memory = adopt_memory(env, STMAMemory, self.name)
        if self.memory is not None:  # the env's memory retrieves as it was built to
            if self.memory.entity_similarity == "bm25":
                self.resolved_similarity = "bm25"
            elif self.resolved_similarity != "openai":
                self.resolved_similarity = "embeddings"
            return env
        mode = "llm" if self.config.memory_llm else "rules"
        if self.resolved_similarity == "openai":
            entities: dict[str, Any] = {"entity_similarity": "embeddings", "client": self.llm.client}
        else:
            entities = {"entity_similarity": "bm25"}
        self.memory = STMAMemory(self.config.extractor, llm=self._ask, summarizer=mode, aggregator=mode,
                                 **{**entities, **(self.config.memory_options or {})})
        return ensure_memory_wrapper(env, memory=self.memory, goto=False,
                                     macro_counts_as_one_step=self.config.macro_counts_as_one_step)

    # -- episode -------------------------------------------------------------------------
    def reset(self, observation: Any, info: Info) -> None:
        self.llm.begin_episode()
        self.critic.reset()
        objective = str(info.get("objective") or observation_text(observation))
        self.goal, self.knowledge = compact(objective.split("\n")[0]), compact(objective)
        self.queue: deque[str] = deque()
        self.subgoal, self.feedback = "", "none"
        self.room = room_from(observation_text(observation), info)
        steps: Mapping[str, Any] = info.get("steps") or {}
        self.limit = steps.get("limit") or "?"
        self.counts: dict[str, int] = {"steps": 0, "plans": 0, "replans": 0, "critic_calls": 0,
                                       "critic_rejections": 0, "inadmissible_rejections": 0, "llm_fallbacks": 0,
                                       "parse_failures": 0}
        self.plan_lengths: list[int] = []
        self.plan_failure: str | None = None

    def observe(self, action: str, observation: Any, reward: float, terminated: bool, truncated: bool,
                info: Info) -> None:
        before, self.room = self.room, room_from(observation_text(observation), info, self.room)
        self.critic.record(action, before, self.room, reward)

    def _context(self, observation: str) -> dict[str, str]:
        if self.memory is None:
            raise RuntimeError("STMA needs its MemoryGraphWrapper: run it through textmem_gym.evaluate "
                               "or wrap the env with policy.wrap_env(env)")
        return {"goal": self.goal, "knowledge": self.knowledge, "observation": compact(observation),
                "temporal": self.memory.temporal_belief or "nothing yet",
                "spatial": self.memory.spatial_belief(observation),  # the wrapper's query: computed once
                "inventory": ", ".join(t[0] for t in self.memory.believed_triples() if t[1:] == ("is in", "inventory"))
                or "nothing known"}

    # -- planner and critic ----------------------------------------------------------------
    def plan(self, context: dict[str, str], commands: list[str]) -> None:
        """The planner: a sub-goal and an action sequence (queued)."""
        schema = answer_schema("stma_planner", commands)
        answer = self._budgeted("stma_plan", "stma_planner", context, commands, schema, turn=self.counts["steps"],
                                limit=self.limit, feedback=self.feedback)
        self.counts["plans"] += 1
        if answer is None:
            self.counts["llm_fallbacks"] += 1
            self.plan_failure = self.llm.failure_cause()
            return
        self.llm.read("stma_plan", answer, schema, need=("action_plan",))  # counts a parse failure
        subgoal, actions = parse_plan(answer, schema)
        if not actions:
            self.counts["parse_failures"] += 1
            self.plan_failure = "unparseable"
            return
        self.plan_failure = None
        self.subgoal, self.feedback = subgoal or self.subgoal, "none"
        self.queue = deque(actions)
        self.plan_lengths.append(len(actions))

    def check(self, action: str, context: dict[str, str], commands: list[str]) -> tuple[bool, str, str]:
        """``(valid, feedback, command)`` for a planned action (Algorithm 2 line 12)."""
        command = executable(action, commands) if commands else action
        if command is None:
            self.counts["inadmissible_rejections"] += 1
            return False, f"'{action}' is not among the possible actions now; choose from the list.", action
        self.counts["critic_calls"] += 1
        schema = answer_schema("stma_critic")
        answer = self._budgeted("stma_critic", "stma_critic", context, commands, schema,
                                subgoal=self.subgoal or "none", action=command)
        if answer is None:
            self.counts["llm_fallbacks"] += 1
            return True, "", command
        self.llm.read("stma_critic", answer, schema, need=("action_suitability",))  # counts a parse failure
        valid, feedback = parse_verdict(answer)
        if valid is None:
            self.counts["parse_failures"] += 1
        return valid is not False, feedback, command

    def act(self, observation: Any, info: Info) -> str:
        text, commands = observation_text(observation), admissible(info)
        self.counts["steps"] += 1
        context = self._context(text)
        for attempt in range(self.config.max_replans + 1):
            if not self.queue:
                self.counts["replans"] += int(attempt > 0)
                self.plan(context, commands)
            if not self.queue:
                break
            valid, feedback, command = self.check(self.queue[0], context, commands)
            if valid:
                self.queue.popleft()
                return self.llm.model_action(command)
            self.counts["critic_rejections"] += 1
            self.feedback = f"'{self.queue[0]}' was rejected: {feedback}"
            self.memory.note_feedback(self.feedback)  # type: ignore[union-attr]
            self.queue.clear()
        cause = self.plan_failure or "plans_rejected"
        return self.llm.fallback(cause, self.critic.best_untried(self.room, commands) or SAFE_COMMAND)

    def episode_stats(self) -> dict[str, Any]:
        stats = self.llm.episode_stats()
        stats.update(self.counts, plan_lengths=list(self.plan_lengths))
        if self.memory is not None:
            stats["memory_llm_failures"] = self.memory.llm_failures
            stats["embedding_calls"] = self.memory.embedding_calls
        stats["similarity"] = self.resolved_similarity or self.config.similarity
        return stats

