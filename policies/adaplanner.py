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

Plan form (``plan_format``): ``"code"`` (the paper's: a Python function in a JSON string), ``"steps"``
(a structured answer: ``{"first_step": {"action": ..., "expect": ...}, "next_steps": [...]}``), or
``"auto"`` (the default): ``"steps"`` where the endpoint takes structured output (the client's
structured-output mode), ``"code"`` where it does not. The steps schema limits the first step's
action, the one played now, to an enum of the admissible commands (best-ranked for the task and
observation first, at most :data:`~textmem_gym.llm.prompts.MAX_ENUM`); on llama.cpp the schema is a
grammar, so every steps plan parses and starts with a command the game offers. The next steps are
free text (the commands of later rooms are not admissible yet). A steps plan is compiled to the same
plan language (:func:`~policies.plan_interpreter.steps_to_code`: each step sends its action and
asserts that the answer holds the expected words) and runs in the same interpreter with the same
refinement and skills; it has no ``ask`` and no loops. Its refinement keeps the steps before the
failed one (done) and asks for the step to do instead (``first_step``, from the enum) and the steps
after it, so the refined plan resumes at its first new step (the steps form's ``start_from``). The
refinement prompt and the skills show a plan as the model wrote it (code, or the steps as JSON).

A planned command the game does not offer when its step comes (not admissible) fails the plan's
implicit assertion that the step can be done: it is thrown back into the run
(:class:`~policies.plan_interpreter.CommandRefused`) and the plan is refined out of plan from that
step (``commands_refused``), while refinements are left; after that it is a counted fallback
(``invalid_mapped`` / ``invalid_defaulted``). A refined plan asked to resume past its last step
resumes at its last step (``resumes_clamped``).

Every env action is counted as for the other LLM policies: a command of the model's plan (``exact``
or ``completed`` to the admissible command extending it) is a model action; otherwise a fallback by
cause: ``invalid_mapped`` / ``invalid_defaulted`` (not admissible, no refinement left), ``unparseable``
(the plan did not parse or was not allowed: the heuristic critic's best untried command), ``llm_error`` /
``context_overflow`` (no plan came back), ``plans_rejected`` (the refinement budget is spent).

Example:
    >>> policy = AdaPlannerPolicy(skills=1)  # no endpoint needed until the first call
    >>> policy.store_skill("cook the meal", "def solution(start_from=1):\\n    act('look')")
    >>> [skill["task"] for skill in policy.similar_skills("cook a meal")]
    ['cook the meal']
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any, ClassVar

from policies.critic import CriticTurns, HeuristicCritic, room_from
from policies.llm_agent import (
    INVALID_COUNTERS,
    SAFE_COMMAND,
    LLMPolicy,
    answer_schema,
    compact,
    resolve_action,
)
from policies.llm_config import LLMConfig
from policies.plan_interpreter import (
    Act,
    Ask,
    CommandRefused,
    Plan,
    PlanAssertion,
    PlanError,
    Run,
    parse_plan,
    run_plan,
    steps_to_code,
    strip_fences,
)
from policies.shared_settings import HISTORY_STEPS, MAX_TOKENS, OBSERVATION_CHARS, TEMPERATURE
from textmem_gym.core.info import admissible, observation_text, step_info
from textmem_gym.core.policy import Info
from textmem_gym.llm import LLMClient
from textmem_gym.llm.prompts import FIXED, MAX_ENUM, SLOW, Trimmable, rank_commands

#: Plan form -> the suffix of its prompt files (``adaplanner_plan<suffix>.txt``, ``adaplanner_refine<suffix>``).
PLAN_FORMATS: dict[str, str] = {"code": "", "steps": "_steps"}
#: ``plan_format`` that picks the form per call: ``steps`` where the endpoint takes structured output, else ``code``.
AUTO_FORMAT = "auto"
#: Model calls one decision may make before a fallback acts (plans that end or fail at once).
CALLS_PER_DECISION = 3


@dataclass(frozen=True)
class WrittenPlan:
    """A plan read from an answer: its code, its text as written (``""``: the code), the step it
    starts at, and a steps plan's steps."""

    source: str
    text: str
    start: int
    steps: list[Any] = field(default_factory=list)


def word_overlap(a: str, b: str) -> float:
    """Jaccard similarity of the lower-cased word sets of two texts.

    Example:
        >>> word_overlap("cook the meal", "cook a meal")
        0.5
    """
    left, right = set(a.lower().split()), set(b.lower().split())
    return len(left & right) / len(left | right) if left | right else 0.0


@dataclass(frozen=True, kw_only=True)
class AdaPlannerConfig(LLMConfig):
    """Settings of :class:`AdaPlannerPolicy`."""

    temperature: float = TEMPERATURE.field(0.0)
    max_tokens: int = MAX_TOKENS.field(800)
    max_refinements: int = 10
    """Out-of-plan refinements per episode; then fallbacks act."""
    skills: int = 2
    """Stored successful plans shown in the planning prompts (most similar tasks first)."""
    skill_library: str | None = None
    """A JSON file the skills are read from and saved to (``None``: in memory)."""
    history_steps: int = HISTORY_STEPS.field(8)
    observation_chars: int = OBSERVATION_CHARS.field(500)
    plan_format: str = AUTO_FORMAT
    """``"auto"`` (``"steps"`` where the endpoint takes structured output, else ``"code"``), ``"code"`` (the
    paper's Python plan) or ``"steps"`` (a structured list of admissible actions and expected words,
    compiled to the same plan language)."""

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.max_refinements < 0 or self.skills < 0 or self.history_steps < 0:
            raise ValueError("max_refinements, skills and history_steps must be >= 0")
        if self.plan_format not in (*PLAN_FORMATS, AUTO_FORMAT):
            raise ValueError(f"plan_format must be one of {sorted([*PLAN_FORMATS, AUTO_FORMAT])}, "
                             f"got {self.plan_format!r}")


class AdaPlannerPolicy(CriticTurns, LLMPolicy):
    """LLM baseline: AdaPlanner, plans (code, or structured steps where the endpoint takes a schema) run by a
    restricted interpreter, refined when an expectation fails, won plans kept as skills

    AdaPlanner's closed loop: a plan as code, refined in and out of plan, skills kept.

    Args:
        config: Its settings (default: :class:`AdaPlannerConfig`'s).
        client: An existing :class:`~textmem_gym.llm.LLMClient` to use instead.
        **fields: Settings to change (fields of :class:`AdaPlannerConfig`: ``plan_format``, ``model``...).
    """

    name: ClassVar[str] = "adaplanner"
    prompt_changes: ClassVar[Mapping[str, str]] = MappingProxyType({"task": FIXED, "skills": FIXED, "plan": SLOW})
    multi_trial: ClassVar[bool] = True
    config_class: ClassVar[type[AdaPlannerConfig]] = AdaPlannerConfig
    config: AdaPlannerConfig

    def __init__(self, config: AdaPlannerConfig | None = None, *, client: LLMClient | None = None,
                 **fields: Any) -> None:
        super().__init__(config, client=client, **fields)
        self.library: list[dict[str, str]] = self._load_library()
        self.critic = HeuristicCritic()
        self.reset("", step_info({}))

    # -- skills ------------------------------------------------------------------------------
    def library_file(self) -> Path | None:
        """The skill library's file (``skill_library``), ``None`` when the skills are kept in memory."""
        return Path(self.config.skill_library) if self.config.skill_library else None

    def _load_library(self) -> list[dict[str, str]]:
        path = self.library_file()
        if path is None or not path.exists():
            return []
        return [dict(skill) for skill in json.loads(path.read_text(encoding="utf-8"))]

    def store_skill(self, task: str, plan: str) -> None:
        """Keeps ``plan`` as the skill of ``task`` (replacing an equal plan); saved to the library file."""
        self.library = [s for s in self.library if s["plan"] != plan] + [{"task": task, "plan": plan}]
        path = self.library_file()
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(self.library, indent=1, ensure_ascii=False), encoding="utf-8")

    def similar_skills(self, task: str) -> list[dict[str, str]]:
        """The ``skills`` stored plans whose tasks are the most similar to ``task`` (newest first on ties)."""
        ranked = sorted(enumerate(self.library), key=lambda item: (-word_overlap(task, item[1]["task"]), -item[0]))
        return [skill for _, skill in ranked[:self.config.skills]]

    # -- episode -----------------------------------------------------------------------------
    def reset(self, observation: Any, info: Info) -> None:
        self.llm.begin_episode()
        self.critic.reset()
        first = observation_text(observation)
        self.goal = compact(info.get("objective") or first)
        self.observation, self.room = first, room_from(first, info)
        self.turns: list[tuple[str, str]] = []
        self.plan: Plan | None = None
        self.plan_text = ""  # the plan as the model wrote it (code, or steps as JSON)
        self.steps: list[Any] = []  # a steps plan's steps (the refined plan keeps those done)
        self.forms: dict[str, int] = {}  # plan and refinement calls by plan form
        self.run: Run | None = None
        self.waiting = False  # the run waits for the observation of its last command
        self.feedback, self.resume = "", 1  # why the last refined plan could not be used, and its start step
        self.shown_skills = self.similar_skills(self.goal) if first else []
        self.counts = {"steps": 0, "plans": 0, "plan_parse_failures": 0, "out_of_plan_refinements": 0,
                       "in_plan_refinements": 0, "assertion_failures": 0, "commands_refused": 0,
                       "resumes_clamped": 0, "plans_finished": 0,
                       "runtime_errors": 0, "llm_fallbacks": 0, "invalid_actions_mapped": 0,
                       "invalid_actions_defaulted": 0, "skills_shown": len(self.shown_skills), "skills_saved": 0}

    def observe(self, action: str, observation: Any, reward: float, terminated: bool, truncated: bool,
                info: Info) -> None:
        super().observe(action, observation, reward, terminated, truncated, info)
        self.observation = self.turns[-1][1]

    def end_episode(self, info: Info) -> None:
        """Keeps the plan of a won episode as a skill (AdaPlanner's skill discovery)."""
        if info.get("won") and self.plan is not None:
            self.store_skill(self.goal, self.plan_text)
            self.counts["skills_saved"] += 1

    def episode_stats(self) -> dict[str, Any]:
        stats = self.llm.episode_stats()
        stats.update(self.counts)
        stats["skills_stored"] = len(self.library)
        stats["plan_forms"] = dict(self.forms)
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
                request = self._next_command(commands)
            except CommandRefused as refused:
                self.counts["commands_refused"] += 1
                feedback, start = f"step {refused.step} cannot be done: {refused.message}", refused.step
            except PlanAssertion as failure:
                self.counts["assertion_failures"] += 1
                feedback, start = f"assertion failed in step {failure.step}: {failure.message}", failure.step
            except PlanError as error:
                self.counts["runtime_errors"] += 1
                feedback, start = f"the plan stopped with an error: {error}", 1
            except StopIteration:
                self.counts["plans_finished"] += 1
                feedback = "the plan finished, but the task is not complete yet"
                start = self.plan.steps + 1 if self.plan else 1  # after its last step
            else:
                self.waiting = True
                return self._command(request.command, commands)
            calls += 1
            self.run = None
            problem = self.refine(feedback, max(start, 1), commands)
            if problem is not None:
                return self._fallback(problem, commands)
        return self._fallback("plans_rejected", commands)

    def _next_command(self, commands: list[str]) -> Act:
        """The run's next command (its ``ask`` questions answered); thrown back into the run as
        :class:`CommandRefused` when the game does not offer it and a refinement can follow."""
        request = self._advance()
        while isinstance(request, Ask):
            request = self._send(self.answer(request.question))
        refinements_left = self.counts["out_of_plan_refinements"] < self.config.max_refinements
        if commands and refinements_left and resolve_action(request.command, commands)[1] in INVALID_COUNTERS:
            assert self.run is not None
            self.run.throw(CommandRefused(0, f"{request.command!r} is not among the possible actions now"))
        return request

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
        chars, steps = self.config.observation_chars, self.config.history_steps
        lines = [f"> {a} -> {compact(o, chars)}" for a, o in self.turns[-steps:]]
        return Trimmable("history", lines, render=lambda kept: "\n" + "\n".join(kept) if kept else "none yet")

    def plan_form(self) -> str:
        """The plan form of the next call: ``plan_format``; for ``"auto"``, ``"steps"`` where the
        client sends answer schemas (structured output), else ``"code"``."""
        if self.config.plan_format != AUTO_FORMAT:
            return self.config.plan_format
        return "steps" if self.llm.client.structured_mode != "none" else "code"

    def _prompt_and_schema(self, kind: str, commands: list[str]) -> tuple[str, str, dict[str, Any]]:
        """The plan form, the prompt of ``kind`` in it and its answer schema (a steps plan's first
        action: an enum of the admissible commands, best-ranked for the task and observation first)."""
        form = self.plan_form()
        self.forms[form] = self.forms.get(form, 0) + 1
        prompt = kind + PLAN_FORMATS[form]
        enum = rank_commands(commands, f"{self.goal} {self.observation}")[:MAX_ENUM]
        return form, prompt, answer_schema(prompt, enum)

    def new_plan(self, commands: list[str]) -> str | None:
        """Asks for the first plan; ``None`` when one runs, else the fallback cause."""
        skills = self._skills_section()
        form, prompt, schema = self._prompt_and_schema("adaplanner_plan", commands)
        answer = self.llm.ask("adaplanner_plan", lambda: self.prompts.render(
            prompt, task=self.goal, skills=skills.text(), observation=compact(self.observation),
            actions=json.dumps(commands, ensure_ascii=False)), temperature=self.config.temperature,
            max_tokens=self.config.max_tokens, schema=schema, trim=[skills])
        return self._take_plan(form, "adaplanner_plan", answer, schema, 1)

    def refine(self, feedback: str, start: int, commands: list[str]) -> str | None:
        """Out-of-plan refinement after ``feedback`` at step ``start``; ``None`` when the refined plan
        runs, else the fallback cause."""
        if self.counts["out_of_plan_refinements"] >= self.config.max_refinements:
            return "plans_rejected"
        self.counts["out_of_plan_refinements"] += 1
        skills, history = self._skills_section(), self._history_section()
        form, prompt, schema = self._prompt_and_schema("adaplanner_refine", commands)
        answer = self.llm.ask("adaplanner_refine", lambda: self.prompts.render(
            prompt, task=self.goal, skills=skills.text(), plan=self.plan_text,
            error=feedback, history=history.text(), observation=compact(self.observation),
            actions=json.dumps(commands, ensure_ascii=False)), temperature=self.config.temperature,
            max_tokens=self.config.max_tokens, schema=schema, trim=[history, skills])
        return self._take_plan(form, "adaplanner_refine", answer, schema, start)

    def _take_plan(self, form: str, kind: str, answer: str | None, schema: dict[str, Any],
                   start: int) -> str | None:
        """Runs the plan of ``answer`` (``None`` when it runs, else the fallback cause)."""
        if answer is None:
            return self.llm.failure_cause()
        read = self._read_steps if form == "steps" else self._read_code
        try:
            written = read(kind, answer, schema, start)
            plan = parse_plan(written.source)
        except PlanError as error:
            self.counts["plan_parse_failures"] += 1
            self.run, self.feedback, self.resume = None, f"the plan could not be used: {error}", start
            return "unparseable"
        resume = written.start
        if plan.steps and resume > plan.steps:
            self.counts["resumes_clamped"] += 1
            resume = plan.steps
        self.plan, self.plan_text, self.steps = plan, written.text or plan.source, written.steps
        self.run, self.waiting = run_plan(plan, resume), False
        self.counts["plans"] += 1
        return None

    def _read_code(self, kind: str, answer: str, schema: dict[str, Any], start: int) -> WrittenPlan:
        """A code plan (the paper's form) and the step it resumes at (its ``start_from``, else ``start``)."""
        parsed = self.llm.read(kind, answer, schema, need=("plan",))
        source, start_from = parsed.get("plan"), parsed.get("start_from")
        resume = int(start_from) if isinstance(start_from, (int, float)) and start_from >= 1 else start
        if isinstance(source, list):  # steps where code was asked for
            return WrittenPlan(steps_to_code(source), json.dumps(source, ensure_ascii=False), resume)
        if not isinstance(source, str) or not source.strip():
            source = strip_fences(answer) if "def solution" in answer else ""
        return WrittenPlan(source, "", resume)

    def _read_steps(self, kind: str, answer: str, schema: dict[str, Any], start: int) -> WrittenPlan:
        """A steps plan: the steps before ``start`` (done), then the answer's first and next steps,
        resumed at its first step."""
        parsed = self.llm.read(kind, answer, schema, need=("first_step",))
        first, rest = parsed.get("first_step"), parsed.get("next_steps")
        done = self.steps[:max(start, 1) - 1]
        steps = [*done, first, *(rest if isinstance(rest, list) else [])]
        return WrittenPlan(steps_to_code(steps), json.dumps(steps, ensure_ascii=False), len(done) + 1, steps)

    def answer(self, question: str) -> str:
        """In-plan refinement: the model's short answer to the plan's ``ask(question)`` ("" on failure)."""
        self.counts["in_plan_refinements"] += 1
        history = self._history_section()
        schema = answer_schema("adaplanner_ask")
        answer = self.llm.ask("adaplanner_ask", lambda: self.prompts.render(
            "adaplanner_ask", task=self.goal, history=history.text(), observation=compact(self.observation),
            question=compact(question, 500)), temperature=self.config.temperature, max_tokens=100, schema=schema,
            trim=[history])
        value = self.llm.read("adaplanner_ask", answer, schema).get("answer") if answer is not None else None
        return compact(str(value)) if value is not None else ""
