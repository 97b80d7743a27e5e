"""DAVIS: planning with a retrieval-augmented world model, then actor-critic execution
(section 3.5, Algorithms 1 and 2).

When no plan is pending, the world model predicts a trajectory of up to ``horizon`` (5)
steps ``(o, a, o', r)``; before each prediction it may ask its temporal KG up to
``max_questions`` (5) questions (graph QA of :class:`~textmem_gym.memory.davis.memory.DAVISMemory`),
each answer appended to the inner monologue. The belief state is the recent trajectory of the
episode: a belief the LLM updates after every step (``f(tau)``, updated recurrently) plus
the last ``history_steps`` steps verbatim, and the critic's reflections. The actor turns the planned
high-level actions into executable commands (prompted with the admissible commands); they are executed one per step.
After each step the critic compares the predicted and the actual transition; a significant
deviation stores a reflection and triggers re-planning. Commands are sent as the actor wrote
them (mapped to the admissible spelling when one matches: ScienceWorld's list of valid commands
is partial, e.g. it lacks ``open door to hallway``), so the critic judges them by their outcome.
When no command comes (LLM failure, context overflow, unparseable answers), the heuristic
critic's best untried command is sent and counted as a fallback by cause. Defaults follow the
paper: LLM extraction of the temporal KG (``extractor="rules"`` is the rule variant). Context
budget: the world model's prompt loses the oldest steps of the belief's recent trajectory first,
then the inner monologue's oldest answers; the actor's loses the least relevant permissible
commands (never below :data:`~textmem_gym.llm.prompts.MIN_ACTIONS`). One world-model call
predicts both the next observation and the reward (Algorithm 2's transition and reward models
share their inputs, so they are asked together).

The world model: on ScienceWorld envs (``world_model="auto"``) the gold trajectories of
``train_variations`` (5) training variations of the task, built once and cached
(:func:`~textmem_gym.memory.davis.world_model.build_world_model`), read-only during the episode.

Example:
    >>> parse_prediction('{"question": "Where is water?"}')
    ('question', 'Where is water?')
    >>> parse_prediction('{"action": "go to kitchen", "predicted_observation": "You move.", "predicted_reward": 5}')
    ('step', Prediction(action='go to kitchen', observation='You move.', reward=5.0))
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any, ClassVar

import gymnasium as gym

from policies.critic import HeuristicCritic, room_from
from policies.llm_agent import SAFE_COMMAND, LLMPolicy, Turn, answer_schema, compact
from policies.llm_config import LLMConfig
from policies.shared_settings import HISTORY_STEPS, MACRO_COUNTS_AS_ONE_STEP, MAX_TOKENS, TEMPERATURE
from policies.stma import executable
from textmem_gym.core.info import admissible, observation_text, step_info
from textmem_gym.core.policy import Info
from textmem_gym.llm import LLMClient
from textmem_gym.llm.answers import parse_answer
from textmem_gym.llm.prompts import FIXED, MIN_ACTIONS, SLOW, Trimmable, rank_commands
from textmem_gym.memory.davis.kg import TemporalKG
from textmem_gym.memory.davis.memory import DAVISMemory
from textmem_gym.wrappers.memory_graph import adopt_memory, ensure_memory_wrapper


@dataclass
class Prediction:
    """One predicted step (a high-level action, or an executable command after the actor)."""

    action: str
    observation: str = ""
    reward: float = 0.0


def _number(value: Any) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        return 0.0


def parse_prediction(answer: str | None) -> tuple[str, Any]:
    """``("question", text)``, ``("step", Prediction)``, ``("done", None)`` or ``("invalid", None)``
    (an answer with both a question and an action is a step)."""
    value = parse_answer(answer, answer_schema("davis_world_model")).values
    if value.get("action"):
        return "step", Prediction(value["action"], str(value.get("predicted_observation", "")),
                                  _number(value.get("predicted_reward")))
    if value.get("question"):
        return "question", value["question"]
    return ("done", None) if value.get("done") else ("invalid", None)


def scienceworld_task(env: gym.Env) -> str | None:
    """The ScienceWorld task name of ``env``, if it is a ScienceWorld env."""
    from textmem_gym.envs.scienceworld.env import ScienceWorldEnv

    unwrapped = env.unwrapped
    return unwrapped.task if isinstance(unwrapped, ScienceWorldEnv) else None


@dataclass(frozen=True, kw_only=True)
class DAVISConfig(LLMConfig):
    """Settings of :class:`DAVISPolicy` (the DAVIS paper's defaults)."""

    unrecorded: ClassVar[frozenset[str]] = frozenset({"seed"})

    world_model: TemporalKG | str | Path | None = "auto"
    """``"auto"`` (ScienceWorld: built from gold trajectories), ``None``, a :class:`TemporalKG` or a path to
    a saved one (recorded as its text)."""
    train_variations: int = 5
    """Training variations of the ScienceWorld world model."""
    horizon: int = 5
    """Predicted trajectory length ``L``."""
    max_questions: int = 5
    """Graph questions per prediction ``k``."""
    extractor: str = "llm"
    """Temporal-KG extractor of this episode: ``"llm"`` (as the paper) or ``"rules"``."""
    history_steps: int = HISTORY_STEPS.field(10, recorded_as="history")
    max_tokens: int = MAX_TOKENS.field(800)
    temperature: float = TEMPERATURE.field(0.0)
    macro_counts_as_one_step: bool = MACRO_COUNTS_AS_ONE_STEP.field(False)

    def __post_init__(self) -> None:
        super().__post_init__()
        for label, value in (("horizon", self.horizon), ("max_questions", self.max_questions),
                             ("history_steps", self.history_steps)):
            if not isinstance(value, int) or value < (1 if label == "horizon" else 0):
                raise ValueError(f"{label} must be a {'positive' if label == 'horizon' else 'non-negative'} int, "
                                 f"got {value!r}")


class DAVISPolicy(LLMPolicy):
    """LLM: DAVIS temporal-KG world model (predicts 5 steps, asks its graph) + actor-critic with reflection

    The DAVIS agent.

    Args:
        config: Its settings (default: :class:`DAVISConfig`'s, the paper's).
        client: An existing :class:`~textmem_gym.llm.LLMClient` to use instead.
        **fields: Settings to change (fields of :class:`DAVISConfig`: ``horizon``, ``world_model``, ``model``...).
    """

    name: ClassVar[str] = "davis"
    # questions_left ends a line of the world model's instructions: the line stays with them
    prompt_changes: ClassVar[Mapping[str, str]] = MappingProxyType({"goal": FIXED, "questions_left": FIXED,
                                                                     "reflections": SLOW})
    config_class: ClassVar[type[DAVISConfig]] = DAVISConfig
    config: DAVISConfig

    def __init__(self, config: DAVISConfig | None = None, *, client: LLMClient | None = None, **fields: Any) -> None:
        super().__init__(config, client=client, **fields)
        self.critic = HeuristicCritic()
        self.memory: DAVISMemory | None = None
        self.reset("", step_info({}))

    def _ask(self, kind: str, prompt: str | Callable[[], str], *, trim: Sequence[Trimmable] = (),
             schema: Mapping[str, Any] | None = None) -> str | None:
        """The :class:`~textmem_gym.llm.calls.Ask` of this agent and its memory (extraction, graph QA):
        :meth:`~textmem_gym.llm.LLMCalls.ask` at this policy's temperature and completion limit,
        fitted to the context window by dropping items of ``trim``."""
        return self.llm.ask(kind, prompt, temperature=self.config.temperature, max_tokens=self.config.max_tokens,
                            trim=trim, schema=schema)

    def wrap_env(self, env: gym.Env) -> gym.Env:
        """Adds a MemoryGraphWrapper (``go to`` off: ScienceWorld has its own ``go to``) holding
        this agent's DAVIS memory with its world model."""
        self.llm.start_early()  # an LLM extractor reads the first observation during env.reset
        self.memory = adopt_memory(env, DAVISMemory, self.name)
        if self.memory is not None:
            return env
        world = self.config.world_model
        if world == "auto":
            task = scienceworld_task(env)
            if task is not None:
                from textmem_gym.envs.scienceworld.gold import gold_trajectories
                from textmem_gym.memory.davis.world_model import build_world_model

                world = build_world_model(task, self.config.train_variations, gold=gold_trajectories)
            else:
                world = None
        self.memory = DAVISMemory(self.config.extractor, llm=self._ask, world_model=world)
        return ensure_memory_wrapper(env, memory=self.memory, goto=False,
                                     macro_counts_as_one_step=self.config.macro_counts_as_one_step)

    # -- episode -------------------------------------------------------------------------
    def reset(self, observation: Any, info: Info) -> None:
        self.llm.begin_episode()
        self.critic.reset()
        self.goal = compact(info.get("objective") or observation_text(observation))
        self.turns: list[Turn] = []
        self.last_observation = observation_text(observation)
        self.queue: deque[Prediction] = deque()
        self.pending: Prediction | None = None
        self.reflections: list[str] = []
        self.state = "nothing known yet"
        self.room = room_from(self.last_observation, info)
        self.counts = {"steps": 0, "plans": 0, "replans": 0, "predictions": 0, "questions": 0, "critic_calls": 0,
                       "divergences": 0, "off_list_commands": 0, "llm_fallbacks": 0, "parse_failures": 0}
        self.failure: str | None = None

    def observe(self, action: str, observation: Any, reward: float, terminated: bool, truncated: bool,
                info: Info) -> None:
        text = observation_text(observation)
        before, self.room = self.room, room_from(text, info, self.room)
        self.critic.record(action, before, self.room, reward)
        self.turns.append(Turn(action, text, float(reward)))
        if not (terminated or truncated):
            self.update_belief(action, text, float(reward))
            if self.pending is not None:
                self.criticize(self.pending, text, float(reward))
        self.pending, self.last_observation = None, text

    # -- world model (Algorithms 1 and 2) ----------------------------------------------------
    def update_belief(self, action: str, observation: str, reward: float) -> None:
        """``f``: the LLM folds the latest transition into the belief (kept when the call fails)."""
        prompt = self.prompts.render("davis_belief", goal=self.goal, belief=self.state, action=action,
                                     observation=compact(observation, 1200), reward=f"{reward:g}")
        answer = self._ask("davis_belief", prompt)
        if answer is None or not answer.strip():
            self.counts["llm_fallbacks"] += 1
            return
        self.state = compact(answer, 1500)

    def belief(self, recent: Trimmable | None = None) -> str:
        """The state estimate: the updated belief, then the recent trajectory (oldest first)."""
        recent = recent if recent is not None else self.recent_steps()
        lines = [f"Belief: {self.state}"] + recent.items
        return "\n".join(lines + [f"Current observation: {compact(self.last_observation, 1200)}"])

    def recent_steps(self) -> Trimmable:
        """The last ``history_steps`` steps of the belief (oldest trimmed first)."""
        return Trimmable("history", [f"> {t.action} -> {compact(t.observation, 300)} (reward {t.reward:g})"
                                     for t in self.turns[-self.config.history_steps:]])

    def predict(self, trajectory: list[Prediction], monologue: list[str]) -> Prediction | None:
        """Algorithm 2: one transition prediction, asking the graph up to ``max_questions`` times."""
        schema = answer_schema("davis_world_model")
        for asked in range(self.config.max_questions + 1):
            recent = self.recent_steps()
            inner = Trimmable("monologue", monologue, sep="\n", empty="(none)")

            def build(recent: Trimmable = recent, inner: Trimmable = inner, asked: int = asked) -> str:
                return self.prompts.render(
                    "davis_world_model", goal=self.goal, belief=self.belief(recent), executed=len(self.turns),
                    reflections="\n".join(self.reflections[-3:]) or "(none)", monologue=inner.text(),
                    trajectory=_numbered(trajectory) or "(none)",
                    predicted=len(trajectory), horizon=self.config.horizon,
                    questions_left=self.config.max_questions - asked)

            answer = self.llm.ask("davis_world_model", build, temperature=self.config.temperature,
                                  max_tokens=self.config.max_tokens, schema=schema, trim=[recent, inner])
            if answer is None:
                self.counts["llm_fallbacks"] += 1
                self.failure = self.llm.failure_cause()
                return None
            self.llm.read("davis_world_model", answer, schema)
            kind, value = parse_prediction(answer)
            if kind == "question" and asked < self.config.max_questions:
                self.counts["questions"] += 1
                found = self.memory.graph_qa(value)  # type: ignore[union-attr]
                monologue.append(f"Q: {value}\nA: {compact(found.answer, 800)}")
                continue
            if kind == "step":
                self.counts["predictions"] += 1
                return value
            self.counts["parse_failures"] += int(kind == "invalid")
            self.failure = "unparseable" if kind == "invalid" else self.failure
            return None
        return None

    def plan(self) -> list[Prediction]:
        """Algorithm 1: a predicted trajectory of up to ``horizon`` steps."""
        self.counts["plans"] += 1
        trajectory: list[Prediction] = []
        monologue: list[str] = []
        while len(trajectory) < self.config.horizon:
            step = self.predict(trajectory, monologue)
            if step is None:
                break
            trajectory.append(step)
        return trajectory

    def actor(self, trajectory: list[Prediction], commands: list[str]) -> list[Prediction]:
        """The actor: executable commands (with predicted outcomes) for the planned actions."""
        context = " ".join([self.goal, self.last_observation] + [p.action for p in trajectory])
        shown = Trimmable("actions", rank_commands(commands, context), drop="last", keep=MIN_ACTIONS,
                          order=commands, render=json.dumps)
        schema = answer_schema("davis_actor", commands)
        answer = self.llm.ask("davis_actor", lambda: self.prompts.render(
            "davis_actor", goal=self.goal, observation=compact(self.last_observation, 1200),
            trajectory=_numbered(trajectory), actions=json.dumps([p.action for p in trajectory]),
            commands=shown.text()), temperature=self.config.temperature, max_tokens=self.config.max_tokens,
            schema=schema, trim=[shown])
        rows = self.llm.read("davis_actor", answer, schema).get("commands")
        if not isinstance(rows, list):
            self.counts["llm_fallbacks" if answer is None else "parse_failures"] += 1
            return list(trajectory)  # no decomposition: the planned actions themselves
        return [Prediction(str(r.get("command", "")).strip(), str(r.get("predicted_observation", "")),
                           _number(r.get("predicted_reward"))) if isinstance(r, dict) else Prediction(str(r))
                for r in rows if (isinstance(r, dict) and r.get("command")) or isinstance(r, str)]

    def criticize(self, step: Prediction, actual: str, reward: float) -> None:
        """The critic: compares predicted and actual transitions; divergence -> reflection + re-plan."""
        self.counts["critic_calls"] += 1
        prompt = self.prompts.render("davis_critic", goal=self.goal, command=step.action,
                                     before=compact(self.last_observation, 800),
                                     predicted_observation=step.observation or "?",
                                     predicted_reward=f"{step.reward:g}", actual_observation=compact(actual, 800),
                                     actual_reward=f"{reward:g}")
        schema = answer_schema("davis_critic")
        answer = self.llm.ask("davis_critic", prompt, temperature=self.config.temperature,
                              max_tokens=self.config.max_tokens, schema=schema)
        value = self.llm.read("davis_critic", answer, schema).values
        if not isinstance(value.get("consistent"), bool):
            self.counts["llm_fallbacks" if answer is None else "parse_failures"] += 1
            return
        if not value["consistent"]:
            self.counts["divergences"] += 1
            self.reflections.append(f"After '{step.action}': {compact(str(value.get('reflection') or 'it diverged'))}")
            self.queue.clear()

    # -- Policy API ----------------------------------------------------------------------
    def act(self, observation: Any, info: Info) -> str:
        if self.memory is None:
            raise RuntimeError("DAVIS needs its MemoryGraphWrapper: run it through textmem_gym.evaluate "
                               "or wrap the env with policy.wrap_env(env)")
        self.last_observation, commands = observation_text(observation), admissible(info)
        self.counts["steps"] += 1
        for _ in range(2):
            if not self.queue:
                self.counts["replans"] += int(self.counts["plans"] > 0)
                self.failure = None
                trajectory = self.plan()
                self.queue = deque(self.actor(trajectory, commands) if trajectory else [])
            if self.queue:
                step = self.queue.popleft()
                command = executable(step.action, commands) if commands else step.action
                if command is None:  # admissible lists can be partial (ScienceWorld): the critic judges
                    self.counts["off_list_commands"] += 1
                    command = step.action
                self.pending = Prediction(command, step.observation, step.reward)
                return self.llm.model_action(command)
        return self.llm.fallback(self.failure or "unparseable",
                                 self.critic.best_untried(self.room, commands) or SAFE_COMMAND)

    def episode_stats(self) -> dict[str, Any]:
        stats = self.llm.episode_stats()
        stats.update(self.counts)
        stats["reflections"] = len(self.reflections)
        return stats


def _numbered(trajectory: Sequence[Prediction]) -> str:
    """``1. action -> observation (reward r)`` per predicted step."""
    return "\n".join(f"{i}. {p.action} -> {p.observation} (reward {p.reward:g})" for i, p in enumerate(trajectory, 1))
