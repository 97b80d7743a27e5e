"""AdaPlanner (Sun et al., 2023): closed-loop planning with plans written as code.

The model writes the whole plan at once as a Python function (``def solution(start_from=1):``, one
``if start_from <= k:`` block per step) that sends commands with ``act(...)`` and checks the game's
answers with ``assert``. The plan is run by the restricted interpreter of
:mod:`policies.plan_interpreter` (parsed with :mod:`ast`, only a whitelisted subset runs; never
``exec``), one game command per :meth:`AdaPlannerPolicy.act`. Feedback closes the loop:

* **in-plan refinement**: the plan may ``ask(question)`` the model about the latest observation
  (e.g. which room to search); the answer is a string the plan goes on with, the plan unchanged;
* **out-of-plan refinement**: when an ``assert`` fails (the game did not answer as the plan
  expected), the plan finishes with the task not done, or it fails at run time, the model gets the
  plan, the error and the recent history and rewrites the plan, naming the step it resumes at
  (``start_from``);
* **skill discovery**: the plan of a won episode is kept as a skill; the next episodes' prompts show
  the ``skills`` stored plans whose tasks are the most similar (a ``skill_library`` JSON file keeps
  them across processes and runs).

STMA ran AdaPlanner on its TextWorld cooking levels (Table 1): ``reproduce stma --policy adaplanner``.

Plan form (``plan_format``): ``"code"`` (the default, the paper's: a Python function) or ``"steps"``
(a structured answer, ``[{"action": ..., "expect": ...}, ...]``, that an endpoint's structured output
can enforce, for small models that cannot write the code). A steps plan is compiled to the same
plan language (:func:`~policies.plan_interpreter.steps_to_code`: each step sends its action and
asserts that the answer holds the expected words) and runs in the same interpreter with the same
refinement and skills; it has no ``ask`` and no loops.

Every env action is counted as for the other LLM policies: a command of the model's plan (``exact``
or ``completed`` to the admissible command extending it) is a model action; otherwise a fallback by
cause: ``invalid_mapped`` / ``invalid_defaulted`` (not admissible), ``unparseable`` (the plan did not
parse or was not allowed: the heuristic critic's best untried command), ``llm_error`` /
``context_overflow`` (no plan came back), ``plans_rejected`` (the refinement budget is spent).

Example:
    >>> policy = AdaPlannerPolicy(skills=1)  # no endpoint needed until the first call
    >>> policy.store_skill("cook the meal", "def solution(start_from=1):\\n    act('look')")
    >>> [skill["task"] for skill in policy.similar_skills("cook a meal")]
    ['cook the meal']
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, ClassVar

from policies.critic import CriticTurns, HeuristicCritic, room_from
from policies.llm_agent import (
    INVALID_COUNTERS,
    SAFE_COMMAND,
    LLMPolicy,
    answer_schema,
    compact,
    render_prompt,
    resolve_action,
)
from policies.plan_interpreter import (
    Act,
    Ask,
    Plan,
    PlanAssertion,
    PlanError,
    Run,
    parse_plan,
    run_plan,
    steps_to_code,
    strip_fences,
)
from textmem_gym.core.info import admissible, observation_text, step_info
from textmem_gym.core.policy import Info
from textmem_gym.llm.calls import LLMCalls, Trimmable

#: Plan form -> the suffix of its prompt files (``adaplanner_plan<suffix>.txt``, ``adaplanner_refine<suffix>``).
PLAN_FORMATS: dict[str, str] = {"code": "", "steps": "_steps"}
#: Model calls one decision may make before a fallback acts (plans that end or fail at once).
CALLS_PER_DECISION = 3


def word_overlap(a: str, b: str) -> float:
    """Jaccard similarity of the lower-cased word sets of two texts.

    Example:
        >>> word_overlap("cook the meal", "cook a meal")
        0.5
    """
    left, right = set(a.lower().split()), set(b.lower().split())
    return len(left & right) / len(left | right) if left | right else 0.0


class AdaPlannerPolicy(CriticTurns, LLMPolicy):
    """AdaPlanner's closed loop: a plan as code, refined in and out of plan, skills kept.

    Args:
        model, base_url, api_key: The OpenAI-compatible endpoint (else ``OPENAI_*`` variables).
        client: An existing :class:`~textmem_gym.llm.LLMClient` to use instead.
        temperature: Sampling temperature of every call.
        max_tokens: Completion limit of plan and refinement calls.
        max_refinements: Out-of-plan refinements per episode; then fallbacks act.
        skills: Stored successful plans shown in the planning prompts (most similar tasks first).
        skill_library: A JSON file the skills are read from and saved to (``None``: in memory).
        history_steps: Recent steps shown to the refinement and ``ask`` prompts.
        observation_chars: Characters kept of each observation in prompts.
        strict: End the episode at the first fallback.
        plan_format: ``"code"`` (the paper's Python plan) or ``"steps"`` (a structured list of actions and
            expected words, compiled to the same plan language).
        **client_options: Further ``LLMClient`` arguments (``structured_output``, ``context_window``...).
    """

    name: ClassVar[str] = "adaplanner"
    multi_trial: ClassVar[bool] = True

    def __init__(self, model: str | None = None, base_url: str | None = None, api_key: str | None = None, *,
                 client: Any = None, temperature: float = 0.0, max_tokens: int = 800, max_refinements: int = 10,
                 skills: int = 2, skill_library: str | None = None, history_steps: int = 8,
                 observation_chars: int = 500, strict: bool = False, plan_format: str = "code",
                 **client_options: Any) -> None:
        if max_refinements < 0 or skills < 0 or history_steps < 0:
            raise ValueError("max_refinements, skills and history_steps must be >= 0")
        if plan_format not in PLAN_FORMATS:
            raise ValueError(f"plan_format must be one of {sorted(PLAN_FORMATS)}, got {plan_format!r}")
        self.plan_format = plan_format
        self.llm = LLMCalls(model, base_url, api_key, client=client, client_options=client_options, strict=strict)
        self.temperature, self.max_tokens, self.max_refinements = temperature, max_tokens, max_refinements
        self.skills, self.history_steps, self.observation_chars = skills, history_steps, observation_chars
        self.skill_library = Path(skill_library) if skill_library else None
        self.config = {"temperature": temperature, "max_tokens": max_tokens, "max_refinements": max_refinements,
                       "skills": skills, "skill_library": skill_library, "history_steps": history_steps,
                       "observation_chars": observation_chars, "strict": bool(strict), "plan_format": plan_format,
                       **{k: v for k, v in client_options.items() if k in ("structured_output", "context_window",
                                                                           "seed")}}
        self.library: list[dict[str, str]] = self._load_library()
        self.critic = HeuristicCritic()
        self.reset("", step_info({}))

    # -- skills ------------------------------------------------------------------------------
    def _load_library(self) -> list[dict[str, str]]:
        if self.skill_library is None or not self.skill_library.exists():
            return []
        return [dict(skill) for skill in json.loads(self.skill_library.read_text(encoding="utf-8"))]

    def store_skill(self, task: str, plan: str) -> None:
        """Keeps ``plan`` as the skill of ``task`` (replacing an equal plan); saved to the library file."""
        self.library = [s for s in self.library if s["plan"] != plan] + [{"task": task, "plan": plan}]
        if self.skill_library is not None:
            self.skill_library.parent.mkdir(parents=True, exist_ok=True)
            self.skill_library.write_text(json.dumps(self.library, indent=1, ensure_ascii=False), encoding="utf-8")

    def similar_skills(self, task: str) -> list[dict[str, str]]:
        """The ``skills`` stored plans whose tasks are the most similar to ``task`` (newest first on ties)."""
        ranked = sorted(enumerate(self.library), key=lambda item: (-word_overlap(task, item[1]["task"]), -item[0]))
        return [skill for _, skill in ranked[:self.skills]]

    # -- episode -----------------------------------------------------------------------------
    def reset(self, observation: Any, info: Info) -> None:
        self.llm.begin_episode()
        self.critic.reset()
        first = observation_text(observation)
        self.goal = compact(info.get("objective") or first)
        self.observation, self.room = first, room_from(first, info)
        self.turns: list[tuple[str, str]] = []
        self.plan: Plan | None = None
        self.run: Run | None = None
        self.waiting = False  # the run waits for the observation of its last command
        self.feedback, self.resume = "", 1  # why the last refined plan could not be used, and its start step
        self.shown_skills = self.similar_skills(self.goal) if first else []
        self.counts = {"steps": 0, "plans": 0, "plan_parse_failures": 0, "out_of_plan_refinements": 0,
                       "in_plan_refinements": 0, "assertion_failures": 0, "plans_finished": 0,
                       "runtime_errors": 0, "llm_fallbacks": 0, "invalid_actions_mapped": 0,
                       "invalid_actions_defaulted": 0, "skills_shown": len(self.shown_skills), "skills_saved": 0}

    def observe(self, action: str, observation: Any, reward: float, terminated: bool, truncated: bool,
                info: Info) -> None:
        super().observe(action, observation, reward, terminated, truncated, info)
        self.observation = self.turns[-1][1]

    def end_episode(self, info: Info) -> None:
        """Keeps the plan of a won episode as a skill (AdaPlanner's skill discovery)."""
        if info.get("won") and self.plan is not None:
            self.store_skill(self.goal, self.plan.source)
            self.counts["skills_saved"] += 1

    def episode_stats(self) -> dict[str, Any]:
        stats = self.llm.episode_stats()
        stats.update(self.counts)
        stats["skills_stored"] = len(self.library)
        return stats

    # -- the loop ----------------------------------------------------------------------------
    def act(self, observation: Any, info: Info) -> str:
        self.counts["steps"] += 1
        self.observation = observation_text(observation)
        commands = admissible(info)
        calls = 0
        while calls <= CALLS_PER_DECISION:
            if self.run is None:
                calls += 1
                problem = (self.new_plan(commands) if self.plan is None
                           else self.refine(self.feedback, self.resume, commands))
                if problem is not None:
                    return self._fallback(problem, commands)
            assert self.run is not None
            try:
                request = self._advance()
                while isinstance(request, Ask):
                    request = self._send(self.answer(request.question))
            except PlanAssertion as failure:
                self.counts["assertion_failures"] += 1
                feedback, start = f"assertion failed in step {failure.step}: {failure.message}", failure.step
            except PlanError as error:
                self.counts["runtime_errors"] += 1
                feedback, start = f"the plan stopped with an error: {error}", 1
            except StopIteration:
                self.counts["plans_finished"] += 1
                feedback, start = "the plan finished, but the task is not complete yet", (self.plan.steps if
                                                                                        self.plan else 1)
            else:
                self.waiting = True
                return self._command(request.command, commands)
            calls += 1
            self.run = None
            problem = self.refine(feedback, max(start, 1), commands)
            if problem is not None:
                return self._fallback(problem, commands)
        return self._fallback("plans_rejected", commands)

    def _advance(self) -> Act | Ask:
        assert self.run is not None
        if self.waiting:
            self.waiting = False
            return self.run.send(self.observation)
        return next(self.run)

    def _send(self, answer: str) -> Act | Ask:
        assert self.run is not None
        return self.run.send(answer)

    def _command(self, command: str, commands: list[str]) -> str:
        if not commands:
            return self.llm.model_action(command)
        action, how = resolve_action(command, commands)
        if how in INVALID_COUNTERS:
            self.counts[INVALID_COUNTERS[how]] += 1
            return self.llm.fallback(f"invalid_{how if how == 'mapped' else 'defaulted'}", action, command)
        return self.llm.model_action(action)

    def _fallback(self, cause: str, commands: list[str]) -> str:
        if cause in ("llm_error", "context_overflow"):
            self.counts["llm_fallbacks"] += 1
        return self.llm.fallback(cause, self.critic.best_untried(self.room, commands) or SAFE_COMMAND)

    # -- model calls ---------------------------------------------------------------------------
    def _skills_section(self) -> Trimmable:
        items = [f"Task: {s['task']}\n{s['plan']}" for s in self.shown_skills]
        return Trimmable("skills", items, drop="last", render=lambda kept: (
            "Plans that solved similar tasks before (your skills):\n" + "\n\n".join(kept) + "\n") if kept else "")

    def _history_section(self) -> Trimmable:
        lines = [f"> {a} -> {compact(o, self.observation_chars)}" for a, o in self.turns[-self.history_steps:]]
        return Trimmable("history", lines, render=lambda kept: "\n" + "\n".join(kept) if kept else "none yet")

    def new_plan(self, commands: list[str]) -> str | None:
        """Asks for the first plan; ``None`` when one runs, else the fallback cause."""
        skills = self._skills_section()
        prompt = "adaplanner_plan" + PLAN_FORMATS[self.plan_format]
        schema = answer_schema(prompt)
        answer = self.llm.ask("adaplanner_plan", lambda: render_prompt(
            prompt, task=self.goal, skills=skills.text(), observation=compact(self.observation),
            actions=json.dumps(commands, ensure_ascii=False)), temperature=self.temperature,
            max_tokens=self.max_tokens, schema=schema, trim=[skills])
        return self._take_plan("adaplanner_plan", answer, schema, 1)

    def refine(self, feedback: str, start: int, commands: list[str]) -> str | None:
        """Out-of-plan refinement after ``feedback``; ``None`` when the refined plan runs, else the fallback cause."""
        if self.counts["out_of_plan_refinements"] >= self.max_refinements:
            return "plans_rejected"
        self.counts["out_of_plan_refinements"] += 1
        skills, history = self._skills_section(), self._history_section()
        prompt = "adaplanner_refine" + PLAN_FORMATS[self.plan_format]
        schema = answer_schema(prompt)
        answer = self.llm.ask("adaplanner_refine", lambda: render_prompt(
            prompt, task=self.goal, skills=skills.text(), plan=self.plan.source if self.plan else "",
            error=feedback, history=history.text(), observation=compact(self.observation),
            actions=json.dumps(commands, ensure_ascii=False)), temperature=self.temperature,
            max_tokens=self.max_tokens, schema=schema, trim=[history, skills])
        parsed = self.llm.read("adaplanner_refine", answer, schema, need=("plan",)) if answer is not None else None
        start_from = parsed.get("start_from") if parsed is not None else None
        resume = int(start_from) if isinstance(start_from, (int, float)) and start_from >= 1 else start
        return self._take_plan("adaplanner_refine", answer, schema, resume)

    def _take_plan(self, kind: str, answer: str | None, schema: dict[str, Any], start_from: int) -> str | None:
        if answer is None:
            return self.llm.failure_cause()
        source = self.llm.read(kind, answer, schema, need=("plan",)).get("plan")
        try:
            if isinstance(source, list):  # a steps plan
                source = steps_to_code(source)
            if not isinstance(source, str) or not source.strip():
                source = strip_fences(answer) if "def solution" in answer else ""
            plan = parse_plan(source)
        except PlanError as error:
            self.counts["plan_parse_failures"] += 1
            self.run, self.feedback, self.resume = None, f"the plan could not be used: {error}", start_from
            return "unparseable"
        self.plan, self.run, self.waiting = plan, run_plan(plan, start_from), False
        self.counts["plans"] += 1
        return None

    def answer(self, question: str) -> str:
        """In-plan refinement: the model's short answer to the plan's ``ask(question)`` ("" on failure)."""
        self.counts["in_plan_refinements"] += 1
        history = self._history_section()
        schema = answer_schema("adaplanner_ask")
        answer = self.llm.ask("adaplanner_ask", lambda: render_prompt(
            "adaplanner_ask", task=self.goal, history=history.text(), observation=compact(self.observation),
            question=compact(question, 500)), temperature=self.temperature, max_tokens=100, schema=schema,
            trim=[history])
        value = self.llm.read("adaplanner_ask", answer, schema).get("answer") if answer is not None else None
        return compact(str(value)) if value is not None else ""
