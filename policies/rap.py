"""RAP (Kagaya et al., 2024): retrieval-augmented planning with a memory of past trajectories.

The memory holds task trajectories (task, plan, ``(action, observation)`` steps). As in RAP's
code, retrieval scores each stored trajectory by the similarity of its task and plan to the
current ones plus the best similarity of one of its steps to the current *retrieval key*, and shows
the ``k`` best trajectories as in-context examples: each as its task and plan and the
``window`` steps on either side of its best-matching step. The loop:

1. at the first step, the model writes a short plan from the plans of the ``k`` trajectories of the
   most similar tasks;
2. each step, the model sees the retrieved examples, the task, its plan, the recent history, the
   observation and the admissible commands, and answers a thought, the next action and the
   retrieval key of the next step (RAP asks for the key in a separate call after each ``think``;
   here it comes with the action, one call per step).

DAVIS gave RAP a memory of five gold trajectories of other variations of the task (Table 7): on a
ScienceWorld env this policy's memory is the gold paths of ``memory_variations`` training
variations (:func:`~policies.gold_examples.gold_examples`), never the variation being played (left
out when it is a training variation, and refused again at retrieval). A gold path has no written
plan: its plan is its first actions. Similarity: cosine over word counts (RAP used sentence
embeddings; ``trajectory_similarity="embeddings"`` uses the endpoint's embeddings instead).

Every env action is counted as for the other LLM policies (``exact``/``completed`` model actions,
``invalid_mapped``/``invalid_defaulted``, ``unparseable``, ``llm_error``, ``context_overflow``);
``episode_stats()["retrieved"]`` counts the trajectories shown, by label.

Example:
    >>> memory = TrajectoryMemory()
    >>> memory.add("boil water", "heat the water", [("go to kitchen", "You are in the kitchen."),
    ...                                             ("activate stove", "The stove is on.")], label="train-0")
    True
    >>> memory.add("melt ice", "heat the ice", [("go to kitchen", "You are in the kitchen.")], label="train-1")
    True
    >>> [(r.label, r.step) for r in memory.retrieve("boil the water", "", "turn the stove on", k=1)]
    [('train-0', 1)]
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, ClassVar

import gymnasium as gym

from policies.critic import CriticTurns, HeuristicCritic, room_from
from policies.gold_examples import gold_examples, played_variation
from policies.llm_agent import (
    INVALID_COUNTERS,
    SAFE_COMMAND,
    LLMPolicy,
    answer_schema,
    compact,
    group_commands,
    resolve_action,
)
from policies.llm_config import LLMConfig
from policies.shared_settings import HISTORY_STEPS, MAX_TOKENS, OBSERVATION_CHARS, TEMPERATURE
from textmem_gym.core.info import admissible, observation_text, step_info
from textmem_gym.core.policy import Info
from textmem_gym.llm import LLMClient
from textmem_gym.llm.prompts import FIXED, MAX_ENUM, MIN_ACTIONS, SLOW, Trimmable, rank_commands

#: Actions of a gold path used as its plan (gold paths have no written plan).
GOLD_PLAN_ACTIONS = 12
#: ``texts -> vectors`` (the endpoint's embeddings).
Embed = Callable[[Sequence[str]], list[list[float]]]


def word_vector(text: str) -> Counter[str]:
    """Lower-cased word counts."""
    return Counter(re.findall(r"[a-z0-9]+", text.lower()))


def cosine(a: Any, b: Any) -> float:
    """Cosine similarity of two word-count :class:`~collections.Counter` s or two float vectors."""
    if isinstance(a, Counter):
        dot = float(sum(count * b.get(word, 0) for word, count in a.items()))
        norms = math.sqrt(sum(v * v for v in a.values())) * math.sqrt(sum(v * v for v in b.values()))
    else:
        dot = float(sum(x * y for x, y in zip(a, b)))
        norms = math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b))
    return dot / norms if norms else 0.0


@dataclass
class Trajectory:
    """One stored trajectory: its label, task, plan and ``(action, observation)`` steps."""

    label: str
    task: str
    plan: str
    steps: list[tuple[str, str]]
    vectors: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Retrieved:
    """A retrieved trajectory: its label, total score, best-matching step and the shown excerpt."""

    label: str
    score: float
    step: int
    text: str


class TrajectoryMemory:
    """RAP's memory: trajectories retrieved by task, plan and step similarity.

    Args:
        embed: ``texts -> vectors`` (the endpoint's embeddings); ``None``: cosine over word counts.
        excluded: Labels never stored nor retrieved (the variation being played).
    """

    def __init__(self, embed: Embed | None = None, excluded: Sequence[str] = ()) -> None:
        self.embed, self.excluded = embed, set(excluded)
        self.trajectories: list[Trajectory] = []

    def __len__(self) -> int:
        return len(self.trajectories)

    def _vectors(self, texts: Sequence[str]) -> list[Any]:
        return list(self.embed(list(texts))) if self.embed is not None else [word_vector(t) for t in texts]

    def add(self, task: str, plan: str, steps: list[tuple[str, str]], label: str) -> bool:
        """Stores a trajectory (not when its label is excluded); True when stored."""
        if label in self.excluded:
            return False
        task_vector, plan_vector, *step_vectors = self._vectors([task, plan] + [f"{a} {o}" for a, o in steps])
        self.trajectories.append(Trajectory(label, task, plan, steps, {"task": task_vector, "plan": plan_vector,
                                                                      "steps": step_vectors}))
        return True

    def retrieve(self, task: str, plan: str, key: str, k: int = 2, window: int = 3) -> list[Retrieved]:
        """The ``k`` best trajectories for the task, plan and retrieval ``key``, each with the
        ``window`` steps either side of its step most similar to ``key``."""
        task_vector, plan_vector, key_vector = self._vectors([task, plan or task, key or task])
        found = []
        for trajectory in self.trajectories:
            if trajectory.label in self.excluded:
                continue
            steps = [cosine(key_vector, v) for v in trajectory.vectors["steps"]] or [0.0]
            best = max(range(len(steps)), key=steps.__getitem__)
            score = (cosine(task_vector, trajectory.vectors["task"]) + (cosine(plan_vector, trajectory.vectors["plan"])
                     if plan else 0.0) + steps[best])
            found.append((score, best, trajectory))
        found.sort(key=lambda item: -item[0])
        return [Retrieved(t.label, round(score, 4), best, self.excerpt(t, best, window))
                for score, best, t in found[:k]]

    @staticmethod
    def excerpt(trajectory: Trajectory, step: int, window: int, chars: int = 300) -> str:
        """The trajectory as an example: task, plan and the steps around ``step``."""
        part = trajectory.steps[max(0, step - window):step + window + 1]
        lines = [f"> {a}\n{compact(o, chars)}" for a, o in part]
        return f"Task: {trajectory.task}\nPlan: {trajectory.plan}\n" + "\n".join(lines)

    def by_task(self, task: str, k: int) -> list[Trajectory]:
        """The ``k`` trajectories of the most similar tasks (for the plan)."""
        vector = self._vectors([task])[0]
        ranked = sorted(self.trajectories, key=lambda t: -cosine(vector, t.vectors["task"]))
        return [t for t in ranked if t.label not in self.excluded][:k]


@dataclass(frozen=True, kw_only=True)
class RAPConfig(LLMConfig):
    """Settings of :class:`RAPPolicy`.

    Two settings were renamed (one name for one idea): ``history_steps`` was ``n_prev`` and
    ``trajectory_similarity`` was ``similarity`` (which names the memory's retrieval similarity elsewhere).
    The old keywords are still taken (a ``FutureWarning``) and rows record both under their old keys, so
    their resume keys are unchanged.
    """

    renamed: ClassVar[Mapping[str, str]] = MappingProxyType({"n_prev": "history_steps",
                                                             "similarity": "trajectory_similarity"})

    memory_variations: int = 5
    """Gold trajectories of other training variations in the memory (ScienceWorld)."""
    k: int = 2
    """Trajectories retrieved per step (and shown for the plan)."""
    window: int = 3
    """Steps shown either side of a retrieved trajectory's best-matching step."""
    trajectory_similarity: str = field(default="words", metadata={"recorded_as": "similarity"})
    """How trajectories and steps are compared: ``"words"`` (cosine over word counts) or ``"embeddings"``
    (the endpoint's)."""
    history_steps: int = HISTORY_STEPS.field(5, recorded_as="n_prev")
    temperature: float = TEMPERATURE.field(0.0)
    max_tokens: int = MAX_TOKENS.field(300)
    observation_chars: int = OBSERVATION_CHARS.field(400)

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.trajectory_similarity not in ("words", "embeddings"):
            raise ValueError("trajectory_similarity must be 'words' or 'embeddings', "
                             f"got {self.trajectory_similarity!r}")
        if self.memory_variations < 0 or self.k < 1 or self.window < 0 or self.history_steps < 0:
            raise ValueError("need memory_variations >= 0, k >= 1, window >= 0 and history_steps >= 0")


class RAPPolicy(CriticTurns, LLMPolicy):
    """LLM baseline: RAP, retrieval-augmented planning over stored trajectories (ScienceWorld: gold paths of 5 training
    variations)

    RAP: a plan from retrieved plans, then actions with retrieved trajectory excerpts as examples.

    Args:
        config: Its settings (default: :class:`RAPConfig`'s).
        client: An existing :class:`~textmem_gym.llm.LLMClient` to use instead.
        **fields: Settings to change (fields of :class:`RAPConfig`: ``k``, ``window``, ``model``...).
    """

    name: ClassVar[str] = "rap"
    prompt_changes: ClassVar[Mapping[str, str]] = MappingProxyType({"task": FIXED, "plan": FIXED, "examples": SLOW})
    config_class: ClassVar[type[RAPConfig]] = RAPConfig
    config: RAPConfig

    def __init__(self, config: RAPConfig | None = None, *, client: LLMClient | None = None, **fields: Any) -> None:
        super().__init__(config, client=client, **fields)
        self.memory = TrajectoryMemory()
        self.critic = HeuristicCritic()
        self.reset("", step_info({}))

    def wrap_env(self, env: gym.Env) -> gym.Env:
        """Fills the memory: the gold paths of other training variations of a ScienceWorld task."""
        played = played_variation(env)
        excluded = [f"{played[1]}-{played[2]}"] if played is not None else []
        embed = self._embed() if self.config.trajectory_similarity == "embeddings" else None
        self.memory = TrajectoryMemory(embed, excluded)
        for path in gold_examples(env, self.config.memory_variations):
            self.add_trajectory(path)
        return env

    def _embed(self) -> Embed:
        return lambda texts: self.llm.client.embed(texts)

    def add_trajectory(self, path: Any) -> bool:
        """Stores a gold path (``label``, ``objective``, ``steps`` of ``(action, observation, score)``)."""
        steps = [(str(a), str(o)) for a, o, *_ in path.steps]
        plan = "; ".join(a for a, _ in steps[:GOLD_PLAN_ACTIONS])
        return self.memory.add(compact(path.objective), plan, steps, path.label)

    # -- episode -----------------------------------------------------------------------------
    def reset(self, observation: Any, info: Info) -> None:
        self.llm.begin_episode()
        self.critic.reset()
        first = observation_text(observation)
        self.goal = compact(info.get("objective") or first)
        self.room = room_from(first, info)
        self.turns: list[tuple[str, str]] = []
        self.plan = ""
        self.key = ""
        self.retrieved: Counter[str] = Counter()
        self.counts = {"steps": 0, "plan_calls": 0, "llm_fallbacks": 0, "parse_failures": 0,
                       "invalid_actions_mapped": 0, "invalid_actions_defaulted": 0}

    def episode_stats(self) -> dict[str, Any]:
        stats = self.llm.episode_stats()
        stats.update(self.counts)
        stats.update(memory_trajectories=len(self.memory), memory_labels=[t.label for t in self.memory.trajectories],
                     retrieved=dict(self.retrieved))
        return stats

    # -- the loop ----------------------------------------------------------------------------
    def make_plan(self, observation: str) -> None:
        """RAP's planning: a short plan from the plans of the trajectories of the most similar tasks."""
        self.counts["plan_calls"] += 1
        examples = "\n".join(f"Task: {t.task}\nPlan: {t.plan}" for t in self.memory.by_task(self.goal, self.config.k))
        schema = answer_schema("rap_plan")
        prompt = self.prompts.render("rap_plan", examples=examples or "(none)", task=self.goal,
                                     observation=compact(observation, self.config.observation_chars))
        answer = self.llm.ask("rap_plan", prompt,
                              temperature=self.config.temperature, max_tokens=self.config.max_tokens, schema=schema)
        plan = self.llm.read("rap_plan", answer, schema).get("plan") if answer is not None else None
        self.plan = compact(str(plan), 400) if plan else ""

    def act(self, observation: Any, info: Info) -> str:
        self.counts["steps"] += 1
        text, commands = observation_text(observation), admissible(info)
        if self.counts["steps"] == 1:
            self.make_plan(text)
        found = self.memory.retrieve(self.goal, self.plan, self.key or text, k=self.config.k, window=self.config.window)
        self.retrieved.update(r.label for r in found)
        examples = Trimmable("examples", [r.text for r in found], drop="last",
                             render=lambda kept: "\n\n".join(kept) or "(none)")
        history = Trimmable("history", [f"> {a} -> {compact(o, self.config.observation_chars)}"
                                        for a, o in self.turns[-self.config.history_steps:]],
                            render=lambda kept: "\n" + "\n".join(kept) if kept else "none yet")
        context = " ".join([self.goal, self.plan, text, self.key])
        ranked = rank_commands(commands, context)
        shown = Trimmable("actions", ranked, drop="last", keep=MIN_ACTIONS, order=commands, render=group_commands)
        # the action enum: every command where the endpoint takes them all, else the best-ranked it can take
        # (ScienceWorld offers 400+; without an enum a small model answers free text)
        schema = answer_schema("rap_action", ranked[:MAX_ENUM])
        answer = self.llm.ask("rap_action", lambda: self.prompts.render(
            "rap_action", examples=examples.text(), task=self.goal, plan=self.plan or "(none)", history=history.text(),
            observation=compact(text, self.config.observation_chars * 2), actions=shown.text()),
            temperature=self.config.temperature, max_tokens=self.config.max_tokens, schema=schema,
            trim=[history, examples, shown])
        default = self.critic.best_untried(self.room, commands) or SAFE_COMMAND
        if answer is None:
            self.counts["llm_fallbacks"] += 1
            return self.llm.fallback(self.llm.failure_cause(), default)
        parsed = self.llm.read("rap_action", answer, schema, need=("action",))
        key = parsed.get("retrieval_key")
        self.key = compact(str(key), 200) if key else ""
        proposed = parsed.get("action")
        if proposed is None:
            self.counts["parse_failures"] += 1
            return self.llm.fallback("unparseable", default, answer[:200])
        if not commands:
            return self.llm.model_action(str(proposed))
        action, how = resolve_action(str(proposed), commands)
        if how in INVALID_COUNTERS:
            self.counts[INVALID_COUNTERS[how]] += 1
            return self.llm.fallback(f"invalid_{'mapped' if how == 'mapped' else 'defaulted'}", action, str(proposed))
        return self.llm.model_action(action)


__all__ = ["RAPPolicy", "Retrieved", "Trajectory", "TrajectoryMemory", "cosine", "word_vector"]
