"""STMA (Spatio-Temporal Memory Agent): STMA memory + planner-critic (section 4.3, Algorithm 2).

Each step the memory (updated by the MemoryGraphWrapper on every primitive step) gives the
temporal belief and the spatial belief for the current observation. When no plan is pending,
the planner (appendix D.4, chain of thought) writes a sub-goal and a multi-step action plan.
Before each planned action is executed, it is checked: an action outside the admissible
commands is rejected without an LLM call (the D.5 critic's "strictly reject" rule), otherwise
the critic (appendix D.5) judges it (temporal consistency, spatial feasibility, agreement with
the observation, safety). A rejection stores the feedback (also in the history buffer) and
triggers re-planning with it. LLM failures fall back to the heuristic critic's best untried
command. The STMA suite (``TextMem/STMA-Cooking-L*-v0``) has the paper's 50-turn limit.

Example:
    >>> parse_plan('Plan:\\n```YAML\\nSubgoal: "get the knife"\\nAction Plan:\\n- "go east"\\n- "take knife"\\n```')
    ('get the knife', ['go east', 'take knife'])
    >>> parse_verdict('Action Suitability: False\\nFeedback: "the door is closed"')
    (False, 'the door is closed')
"""

from __future__ import annotations

import json
import re
from collections import deque
from typing import Any, ClassVar

import gymnasium as gym

from policies.base import BasePolicy, Info
from policies.critic import HeuristicCritic, room_from
from policies.llm_agent import SAFE_COMMAND, compact
from policies.llm_calls import LLMCalls, render_prompt
from policies.memory_env import admissible, adopt_memory, ensure_memory_wrapper, observation_text
from textmem_gym.memory.stma.memory import STMAMemory

_SUBGOAL = re.compile(r"^\s*\**Subgoal\**\s*:\s*(.+)$", re.I | re.M)
_PLAN_HEAD = re.compile(r"^\s*\**Action Plan\**\s*:", re.I | re.M)
_ITEM = re.compile(r"^\s*-\s*(.+?)\s*$")
_SUITABLE = re.compile(r"Action Suitability\**\s*:\s*\**\s*(true|false)", re.I)
_FEEDBACK = re.compile(r"Feedback\**\s*:\s*(.+)", re.I | re.S)


def _unquote(text: str) -> str:
    return text.strip().strip("\"'`").strip()


def parse_plan(answer: str) -> tuple[str, list[str]]:
    """``(subgoal, actions)`` of a planner answer (the last ``Subgoal``/``Action Plan`` block)."""
    subgoals = _SUBGOAL.findall(answer or "")
    heads = list(_PLAN_HEAD.finditer(answer or ""))
    actions: list[str] = []
    if heads:
        for line in answer[heads[-1].end():].splitlines():
            item = _ITEM.match(line)
            if item:
                actions.append(_unquote(item.group(1)))
            elif line.strip() and not line.strip().startswith("```") and actions:
                break
    subgoal = _unquote(subgoals[-1].split("#")[0]) if subgoals else ""
    return subgoal, [a for a in actions if a]


def parse_verdict(answer: str) -> tuple[bool | None, str]:
    """``(suitable, feedback)`` of a critic answer (``None`` when no verdict is found)."""
    flags = _SUITABLE.findall(answer or "")
    feedback = _FEEDBACK.search(answer or "")
    text = _unquote(feedback.group(1).split("```")[0]) if feedback else ""
    return (flags[-1].lower() == "true" if flags else None), text


def executable(action: str, commands: list[str]) -> str | None:
    """The admissible command for a planned action: the same command (any case), or the one
    command extending it (``take knife`` -> ``take knife from table``); else ``None``."""
    wanted = " ".join(action.lower().split()).strip(" .")
    lowered = {c.lower(): c for c in commands}
    if wanted in lowered:
        return lowered[wanted]
    longer = [c for low, c in lowered.items() if low.startswith(wanted + " ")]
    return longer[0] if len(longer) == 1 else None


class STMAPolicy(BasePolicy):
    """The STMA agent.

    Args:
        model, base_url, api_key, client, **client_options: LLM endpoint (see :class:`~policies.llm_calls.LLMCalls`).
        extractor: Relation retriever of the memory: ``"rules"`` (default) or ``"llm"`` (D.2).
        memory_llm: Run the summarizer and the aggregator with the LLM (else deterministic).
        memory_options: Further :class:`~textmem_gym.memory.stma.memory.STMAMemory` arguments (``history``,
            ``top_n``, ``hops``, ``entity_similarity``...).
        max_replans: Re-plans allowed within one decision before falling back.
        max_tokens: Completion limit of planner and critic calls.
        temperature: Sampling temperature of planner and critic.
    """

    name: ClassVar[str] = "stma"

    def __init__(self, model: str | None = None, base_url: str | None = None, api_key: str | None = None, *,
                 client: Any = None, extractor: str = "rules", memory_llm: bool = True,
                 memory_options: dict[str, Any] | None = None, max_replans: int = 3,
                 max_tokens: int = 1500, temperature: float = 0.0, **client_options: Any) -> None:
        if max_replans < 0:
            raise ValueError(f"max_replans must be >= 0, got {max_replans!r}")
        self.llm = LLMCalls(model, base_url, api_key, client=client, client_options=client_options)
        self.extractor, self.memory_llm, self.memory_options = extractor, bool(memory_llm), dict(memory_options or {})
        self.max_replans, self.max_tokens, self.temperature = max_replans, max_tokens, temperature
        self.critic = HeuristicCritic()
        self.memory: STMAMemory | None = None
        self.reset("", {})

    def _ask(self, kind: str, prompt: str) -> str | None:
        return self.llm.ask(kind, prompt, temperature=self.temperature, max_tokens=self.max_tokens)

    def wrap_env(self, env: gym.Env) -> gym.Env:
        """Adds a MemoryGraphWrapper holding this agent's STMA memory (or adopts an existing one)."""
        self.llm.start_early()  # the LLM summarizer reads the first observation during env.reset
        self.memory = adopt_memory(env, STMAMemory, self.name)
        if self.memory is not None:
            return env
        mode = "llm" if self.memory_llm else "rules"
        options = {"client": self.llm.client} if self.memory_options.get("entity_similarity") == "embeddings" else {}
        self.memory = STMAMemory(self.extractor, llm=self._ask, summarizer=mode, aggregator=mode,
                                 **{**options, **self.memory_options})
        return ensure_memory_wrapper(env, memory=self.memory, goto=False)

    # -- episode -------------------------------------------------------------------------
    def reset(self, observation: Any, info: Info) -> None:
        self.llm.begin_episode()
        self.critic.reset()
        objective = str(info.get("objective") or observation_text(observation))
        self.goal, self.knowledge = compact(objective.split("\n")[0]), compact(objective)
        self.queue: deque[str] = deque()
        self.subgoal, self.feedback = "", "none"
        self.room = room_from(observation_text(observation), info)
        self.limit = (info.get("steps") or {}).get("limit") or "?"
        self.counts = {"steps": 0, "plans": 0, "replans": 0, "critic_calls": 0, "critic_rejections": 0,
                       "inadmissible_rejections": 0, "llm_fallbacks": 0, "parse_failures": 0, "plan_lengths": []}

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
        answer = self._ask("stma_plan", render_prompt("stma_planner", **context, turn=self.counts["steps"], limit=self.limit,
                                                      actions=json.dumps(commands), feedback=self.feedback))
        self.counts["plans"] += 1
        if answer is None:
            self.counts["llm_fallbacks"] += 1
            return
        subgoal, actions = parse_plan(answer)
        if not actions:
            self.counts["parse_failures"] += 1
            return
        self.subgoal, self.feedback = subgoal or self.subgoal, "none"
        self.queue = deque(actions)
        self.counts["plan_lengths"].append(len(actions))

    def check(self, action: str, context: dict[str, str], commands: list[str]) -> tuple[bool, str, str]:
        """``(valid, feedback, command)`` for a planned action (Algorithm 2 line 12)."""
        command = executable(action, commands) if commands else action
        if command is None:
            self.counts["inadmissible_rejections"] += 1
            return False, f"'{action}' is not among the possible actions now; choose from the list.", action
        self.counts["critic_calls"] += 1
        answer = self._ask("stma_critic", render_prompt("stma_critic", **context, subgoal=self.subgoal or "none",
                                                        actions=json.dumps(commands), action=command))
        if answer is None:
            self.counts["llm_fallbacks"] += 1
            return True, "", command
        valid, feedback = parse_verdict(answer)
        if valid is None:
            self.counts["parse_failures"] += 1
        return valid is not False, feedback, command

    def act(self, observation: Any, info: Info) -> str:
        text, commands = observation_text(observation), admissible(info)
        self.counts["steps"] += 1
        context = self._context(text)
        for attempt in range(self.max_replans + 1):
            if not self.queue:
                self.counts["replans"] += int(attempt > 0)
                self.plan(context, commands)
            if not self.queue:
                break
            valid, feedback, command = self.check(self.queue[0], context, commands)
            if valid:
                self.queue.popleft()
                return command
            self.counts["critic_rejections"] += 1
            self.feedback = f"'{self.queue[0]}' was rejected: {feedback}"
            self.memory.note_feedback(self.feedback)  # type: ignore[union-attr]
            self.queue.clear()
        return self.critic.best_untried(self.room, commands) or SAFE_COMMAND

    def episode_stats(self) -> dict[str, Any]:
        stats = self.llm.episode_stats()
        stats.update(self.counts)
        if self.memory is not None:
            stats["memory_llm_failures"] = self.memory.llm_failures
        return stats

    def close(self) -> None:
        """Closes the LLM client."""
        self.llm.close()
