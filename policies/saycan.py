"""SayCan (Ahn et al., 2022) as SwiftSage's ScienceWorld baseline, which DAVIS's Table 7 follows.

Each step, every candidate command ``c`` is scored by ``log p_LM(c | prompt) + log affordance(c)``
and the argmax is played:

* **the language term**: the summed log-probability of the command's tokens as the next action
  after the prompt (SwiftSage's: one example trajectory of the task, then the task and the steps so
  far, ending with ``>``), read from the endpoint's completions with ``echo`` and ``logprobs``
  (:meth:`~textmem_gym.llm.LLMClient.prompt_logprobs`: llama.cpp's ``llama-cpp-python`` server,
  vLLM, OpenAI's completion models);
* **the affordance term** is SwiftSage's: 1 for ScienceWorld's admissible commands (the valid
  action-object combinations) less the last ``recent_excluded`` actions, commands on doors other
  than ``open``, and ``focus on`` things not in the recent observations; 0 for the rest. SayCan's
  learned value functions were trained for its robot; SwiftSage and DAVIS used none, nor does this
  policy.

ScienceWorld offers hundreds of admissible commands per step: the afforded ones are pre-ranked by
the words they share with the task and the observation (:func:`~textmem_gym.llm.prompts.rank_commands`)
and the first ``max_candidates`` are scored (one completions request each; ``candidates_cut``
counts the steps that cut). The example is the gold path of a training variation of the task
(never the played one; ``examples=0``: none, as on other envs).

**Fallback** when the endpoint gives no log-probabilities (no completions route, or answers
without them; found at the first step and remembered): the model picks the command by chat from
the afforded candidates (structured output where offered), and the env action is counted as the
fallback ``no_logprobs`` (``episode_stats()["fallbacks"]``). LLM errors while scoring count as
``llm_error`` (the heuristic critic's best untried command is played).

**Endpoints.** ``textmem-gym serve-llm`` (a local GGUF model) answers these requests through its
own scoring route (:mod:`textmem_gym.llm.scoring_server`): the prompt is evaluated once and each
candidate from the cached prompt, so a step costs about one prompt evaluation. vLLM answers them too
(completions with ``echo`` and ``logprobs``, computed from its ``prompt_logprobs``), as does any server
whose completions echo the prompt's log-probabilities in OpenAI's legacy shape. llama-cpp-python's
stock server (``python -m llama_cpp.server``, 0.3.36) does not suit SayCan: its echo path sorts the
whole vocabulary in Python for every prompt token (hours per step) and, for a model without a BOS token
such as SmolLM2, its values are one token off.

**Scores** follow SayCan's notebook: the language score is the sum of the command's token
log-probabilities; it is multiplied (as a probability) by the affordance and normalised over the
candidates (``last_probabilities``); the argmax is played. A candidate the endpoint answered without
log-probabilities is left out and counted (``unscored_commands``); every action not chosen by the
model's scores is counted by cause in ``episode_stats()["fallbacks"]``.

Example:
    >>> policy = SayCanPolicy()
    >>> policy.reset("You are in the kitchen. You see a door to the hallway (closed).", {"objective": "boil water"})
    >>> policy.afforded(["open door to hallway", "close door to hallway", "focus on stove", "look around"])
    ['open door to hallway', 'look around']
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, ClassVar

import gymnasium as gym

from policies.critic import CriticTurns, HeuristicCritic, room_from
from policies.gold_examples import gold_examples
from policies.llm_agent import (
    INVALID_COUNTERS,
    SAFE_COMMAND,
    LLMPolicy,
    answer_schema,
    compact,
    resolve_action,
)
from policies.llm_config import LLMConfig
from policies.shared_settings import HISTORY_STEPS, OBSERVATION_CHARS
from textmem_gym.core.info import admissible, observation_text, step_info
from textmem_gym.core.policy import Info
from textmem_gym.llm import LLMClient
from textmem_gym.llm.prompts import FIXED, Trimmable, fit_prompt, prompt_limit, rank_commands

#: HTTP statuses meaning the endpoint has no (legacy) completions to score prompts with.
NO_COMPLETIONS = (400, 404, 405, 422, 501)
#: Tokens kept free after the prompt for the scored command.
COMMAND_TOKENS = 32


def combined_scores(logprobs: Mapping[str, float], affordance: Mapping[str, float]) -> dict[str, float]:
    """SayCan's notebook: ``p_LM(c) * affordance(c)``, normalised over the candidates (computed from the
    summed log-probabilities without underflow); all zero when no candidate is afforded.

    Example:
        >>> import math
        >>> scores = combined_scores({"a": math.log(0.2), "b": math.log(0.6), "c": 0.0}, {"a": 1, "b": 1, "c": 0})
        >>> {c: round(p, 3) for c, p in scores.items()}
        {'a': 0.25, 'b': 0.75, 'c': 0.0}
    """
    kept = {c: lp for c, lp in logprobs.items() if affordance.get(c, 0.0) > 0}
    if not kept:
        return {c: 0.0 for c in logprobs}
    peak = max(kept.values())
    weights = {c: math.exp(lp - peak) * affordance[c] for c, lp in kept.items()}
    total = sum(weights.values())
    return {c: weights.get(c, 0.0) / total for c in logprobs}


@dataclass(frozen=True, kw_only=True)
class SayCanConfig(LLMConfig):
    """Settings of :class:`SayCanPolicy`."""

    max_candidates: int = 30
    """Afforded commands scored per step (the best-ranked; see :mod:`policies.saycan`)."""
    examples: int = 1
    """Gold trajectories of other training variations shown as examples (ScienceWorld)."""
    example_steps: int = 30
    """Steps kept of each example."""
    history_steps: int = HISTORY_STEPS.field(10)
    observation_chars: int = OBSERVATION_CHARS.field(400)
    recent_excluded: int = 3
    """The last actions the affordance excludes (SwiftSage: 3)."""
    affordance: str = field(default="admissible commands with SwiftSage's filters", init=False)
    """The affordance function (fixed; recorded so that results say which)."""

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.max_candidates < 1 or self.examples < 0 or self.history_steps < 0 or self.recent_excluded < 0:
            raise ValueError("need max_candidates >= 1 and examples, history_steps, recent_excluded >= 0")


class SayCanPolicy(CriticTurns, LLMPolicy):
    """LLM baseline: SayCan, every admissible command scored by its log-probability as the next action x affordance
    (ScienceWorld's valid commands, SwiftSage's filters)

    SayCan: the argmax over afforded commands of their log-probability as the next action.

    Args:
        config: Its settings (default: :class:`SayCanConfig`'s).
        client: An existing :class:`~textmem_gym.llm.LLMClient` to use instead.
        **fields: Settings to change (fields of :class:`SayCanConfig`: ``max_candidates``, ``model``...).
    """

    name: ClassVar[str] = "saycan"
    prompt_changes: ClassVar[Mapping[str, str]] = MappingProxyType({"task": FIXED, "example": FIXED})
    config_class: ClassVar[type[SayCanConfig]] = SayCanConfig
    config: SayCanConfig

    def __init__(self, config: SayCanConfig | None = None, *, client: LLMClient | None = None,
                 **fields: Any) -> None:
        super().__init__(config, client=client, **fields)
        self.example_paths: list[Any] = []
        self.logprobs_served: bool | None = None  # found at the first scoring
        self.critic = HeuristicCritic()
        self.reset("", step_info({}))

    def wrap_env(self, env: gym.Env) -> gym.Env:
        """Loads the example trajectories (ScienceWorld: gold paths of other training variations)."""
        self.example_paths = gold_examples(env, self.config.examples)
        return env

    # -- episode -----------------------------------------------------------------------------
    def reset(self, observation: Any, info: Info) -> None:
        self.llm.begin_episode()
        self.critic.reset()
        first = observation_text(observation)
        self.goal = compact(info.get("objective") or first)
        self.first, self.room = first, room_from(first, info)
        self.turns: list[tuple[str, str]] = []
        self.counts = {"steps": 0, "scored_commands": 0, "candidates_cut": 0, "llm_fallbacks": 0,
                       "parse_failures": 0, "invalid_actions_mapped": 0, "invalid_actions_defaulted": 0,
                       "examples": len(self.example_paths), "trimmed_prompts": 0, "unscored_commands": 0}
        self.last_scores: dict[str, float] = {}
        self.last_probabilities: dict[str, float] = {}

    def episode_stats(self) -> dict[str, Any]:
        stats = self.llm.episode_stats()
        stats.update(self.counts)
        stats["logprobs_served"] = self.logprobs_served
        return stats

    # -- affordance and prompt ---------------------------------------------------------------
    def afforded(self, commands: list[str]) -> list[str]:
        """SwiftSage's affordance: the admissible commands less the recent actions, door commands
        other than ``open``, and ``focus on`` things absent from the recent observations."""
        recent = {a for a, _ in self.turns[-self.config.recent_excluded:]} if self.config.recent_excluded else set()
        seen = set(re.findall(r"[a-z0-9]+", " ".join([self.first] + [o for _, o in self.turns[-5:]]).lower()))
        kept = []
        for command in commands:
            if command in recent or ("door" in command and not command.startswith("open")):
                continue
            if command.startswith("focus on") and not set(re.findall(r"[a-z0-9]+", command[8:].lower())) <= seen:
                continue
            kept.append(command)
        return kept

    def _example_steps(self) -> Trimmable:
        lines = []
        for path in self.example_paths:
            lines.append(compact(path.observation, self.config.observation_chars * 2))
            lines += [f"> {action}\n{compact(obs, self.config.observation_chars)}" for action, obs, _ in
                      path.steps[:self.config.example_steps]]
        return Trimmable("example", lines, drop="last", keep=1,
                         render=lambda kept: "\n".join(kept) if kept else "(none)")

    def prompt(self) -> str:
        """The scoring prompt: the example, the task, the steps so far, ending with ``>``; fitted to the
        context window (when known) by dropping the oldest history steps, then the example's last steps."""
        chars, steps = self.config.observation_chars, self.config.history_steps
        history = [compact(self.first, chars * 2)] if len(self.turns) < steps else []
        history += [f"> {a}\n{compact(o, chars)}" for a, o in self.turns[-steps:]]
        past = Trimmable("history", history, keep=1, render="\n".join)
        example = self._example_steps()

        def build() -> str:
            text = self.prompts.render("saycan", example=example.text(), task=self.goal, history=past.text())
            return text.rstrip() + "\n>"

        limit = prompt_limit(self.llm.client.context_window, COMMAND_TOKENS)
        text, dropped = fit_prompt(lambda t: self.llm.client.count_tokens([{"role": "user", "content": t}])[0],
                                   build, [past, example], limit)
        self.counts["trimmed_prompts"] += int(bool(dropped))
        return text

    # -- the decision ------------------------------------------------------------------------
    def act(self, observation: Any, info: Info) -> str:
        self.counts["steps"] += 1
        commands = admissible(info)
        candidates = self.afforded(commands) or commands
        context = " ".join([self.goal, observation_text(observation)] + [a for a, _ in self.turns[-3:]])
        if len(candidates) > self.config.max_candidates:
            self.counts["candidates_cut"] += 1
            candidates = rank_commands(candidates, context)[:self.config.max_candidates]
        if not candidates:
            return self.llm.fallback("invalid_defaulted", SAFE_COMMAND)
        if self.logprobs_served is not False:
            scores = self.score(candidates)
            if scores:
                self.last_scores = scores
                self.last_probabilities = combined_scores(scores, {c: 1.0 for c in candidates})
                probabilities = self.last_probabilities
                return self.llm.model_action(max(candidates, key=lambda c: probabilities.get(c, -1.0)))
            if self.logprobs_served is not False:  # scoring failed for another reason
                self.counts["llm_fallbacks"] += 1
                return self.llm.fallback(self.llm.failure_cause(),
                                         self.critic.best_untried(self.room, candidates) or candidates[0])
        return self.choose_by_chat(observation_text(observation), candidates)

    def score(self, candidates: list[str]) -> dict[str, float]:
        """``log p(command | prompt)`` of each candidate (``{}`` when the endpoint gives none)."""
        prompt = self.prompt()
        scores: dict[str, float] = {}
        for command in candidates:
            text = f"{prompt} {command}"
            result = self.llm.score("saycan_score", text)
            if result is None:
                if self.logprobs_served is None and self._no_completions():
                    self.logprobs_served = False
                return {}
            value = result.continuation(len(prompt), len(text))
            if value is None:  # the endpoint answered without log-probabilities
                if self.logprobs_served is None:
                    self.logprobs_served = False
                    return {}
                self.counts["unscored_commands"] += 1
                continue
            self.logprobs_served = True
            scores[command] = value
            self.counts["scored_commands"] += 1
        return scores

    def _no_completions(self) -> bool:
        """The last scoring call failed because the endpoint has no completions route (not a fault)."""
        calls = self.llm.step_calls
        fallback = str(calls[-1].get("fallback") or "") if calls else ""
        status = self.llm.last_error_status
        return fallback.startswith("llm_error") and status in NO_COMPLETIONS

    def choose_by_chat(self, observation: str, candidates: list[str]) -> str:
        """The ``no_logprobs`` fallback: the model picks from the candidates by chat."""
        chars = self.config.observation_chars
        history = "\n".join(f"> {a} -> {compact(o, chars)}" for a, o in self.turns[-5:]) or "none"
        schema = answer_schema("saycan_choice", candidates)
        answer = self.llm.ask("saycan_choice", self.prompts.render(
            "saycan_choice", task=self.goal, history=history, observation=compact(observation),
            actions=json.dumps(candidates, ensure_ascii=False)), temperature=0.0, max_tokens=100, schema=schema)
        default = self.critic.best_untried(self.room, candidates) or candidates[0]
        if answer is None:
            self.counts["llm_fallbacks"] += 1
            return self.llm.fallback(self.llm.failure_cause(), default)
        proposed = self.llm.read("saycan_choice", answer, schema, need=("action",)).get("action")
        if proposed is None:
            self.counts["parse_failures"] += 1
            return self.llm.fallback("unparseable", default, answer[:200])
        action, how = resolve_action(str(proposed), candidates)
        if how in INVALID_COUNTERS:
            self.counts[INVALID_COUNTERS[how]] += 1
        return self.llm.fallback("no_logprobs", action, str(proposed))
