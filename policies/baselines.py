"""The AriGraph paper's memory baselines: Ariadne's planner and decision modules, other memory.

=================  ===========================================================================
``full-history``   every observation and action so far
``summary``        the last ``history_steps`` steps plus a running summary (appendix E summarization)
``rag``            the last ``history_steps`` steps plus the top ``k`` past steps by similarity to the
                   current observation and plan (the paper's RAG; ``scoring="generative"`` uses
                   Simulacra's recency + importance + relevance instead)
``simulacra``      Generative-Agents retrieval (recency, LLM-rated importance, relevance) plus
                   reflections over retrieved memories, stored back as memories
``reflexion``      ``rag`` plus reflections written after failed trials of the same game (keyed
                   by env id + game seed, so they never leak between instances)
``react``          no planner and no memory beyond the last ``history_steps`` steps
=================  ===========================================================================

Similarity (``similarity="auto"``, the default): the endpoint's embeddings when it serves them
(one probe call per policy), else BM25; ``episode_stats()["similarity"]`` records which.

Example:
    >>> [cls.name for cls in (FullHistoryPolicy, SummaryPolicy, RAGPolicy, SimulacraPolicy,
    ...                       ReflexionPolicy, ReActPolicy)]
    ['full-history', 'summary', 'rag', 'simulacra', 'reflexion', 'react']
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from policies.llm_agent import AgentConfig, LLMAgent, Turn, answer_schema, compact
from policies.memory_stream import MemoryStream
from textmem_gym.core.policy import UNRECORDED, Info
from textmem_gym.llm import LLMClient
from textmem_gym.llm.prompts import FIXED, SLOW, STEP, Section, Trimmable

#: Scorings of :class:`RAGPolicy`'s memory stream.
SCORINGS = ("similarity", "generative")
#: Similarities of :class:`RAGPolicy`'s memory stream (``auto``: ``openai`` when the endpoint embeds, else ``bm25``).
SIMILARITIES = ("auto", "bm25", "openai")


class FullHistoryPolicy(LLMAgent):
    """LLM baseline: planner + ReAct over the full history of observations and actions

    Every observation and action so far in working memory."""

    name: ClassVar[str] = "full-history"
    history_label: ClassVar[str] = "History of all observations and actions"

    def history_turns(self) -> list[Turn]:
        return list(self.turns)


class ReActPolicy(LLMAgent):
    """LLM baseline: ReAct decisions over the last 5 steps, no planner, no memory

    ReAct without a planner: only the last ``history_steps`` steps."""

    name: ClassVar[str] = "react"
    uses_planner: ClassVar[bool] = False


@dataclass(frozen=True, kw_only=True)
class SummaryConfig(AgentConfig):
    """Settings of :class:`SummaryPolicy`."""

    summary_temperature: float = field(default=0.0, metadata=UNRECORDED)
    """Temperature of the summarization call (not recorded in results rows)."""


class SummaryPolicy(LLMAgent):
    """LLM baseline: planner + ReAct, last 5 steps + running summary

    The last ``history_steps`` steps plus a running summary rewritten after every step.

    Args:
        config: Its settings (default: :class:`SummaryConfig`'s).
        client: An existing :class:`~textmem_gym.llm.LLMClient` to use instead.
        **fields: Settings to change (fields of :class:`SummaryConfig`).
    """

    name: ClassVar[str] = "summary"
    config_class: ClassVar[type[SummaryConfig]] = SummaryConfig
    config: SummaryConfig

    def __init__(self, config: SummaryConfig | None = None, *, client: LLMClient | None = None,
                 **fields: Any) -> None:
        super().__init__(config, client=client, **fields)

    def memory_reset(self, observation: str, info: Info) -> None:
        self.summary = "none yet"

    def remember(self, turn: Turn, info: Info) -> None:
        history = self.render_history(self.history_turns())
        sections = [Section("Main goal", self.goal, FIXED),
                    Section(self.history_label.format(n=self.config.history_steps), history, STEP),
                    Section("Your current observation", compact(turn.observation), STEP),
                    Section("Your previous summary", self.summary, SLOW)]
        answer = self.llm.ask("summary", lambda: self.prompts.render("summary",
                                                                     sections=self.render_sections(sections)),
                              temperature=self.config.summary_temperature, max_tokens=self.config.max_tokens,
                              trim=self.trimmables(sections))
        if answer is None or not answer.strip():
            self.counts["llm_fallbacks"] += 1
            return
        self.summary = compact(answer)

    def memory_sections(self, observation: str, info: Info) -> list[Section]:
        return [Section("Summary of the game so far", self.summary, SLOW)]


@dataclass(frozen=True, kw_only=True)
class RAGConfig(AgentConfig):
    """Settings of :class:`RAGPolicy` (the AriGraph paper's RAG baseline)."""

    k: int = 5
    """Memories retrieved per step."""
    scoring: str = "similarity"
    """``"similarity"`` (the paper's RAG: top ``k`` by similarity to the current observation and plan)
    or ``"generative"`` (Generative Agents: recency ``decay ** age`` + LLM-rated importance + relevance;
    one importance call per memory)."""
    similarity: str = "auto"
    """``"auto"`` (the endpoint's embeddings when served, else BM25), ``"bm25"`` or ``"openai"`` (the
    endpoint's embeddings)."""
    decay: float = field(default=0.99, metadata=UNRECORDED)
    """Recency decay per step (``scoring="generative"``; not recorded in results rows)."""

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.scoring not in SCORINGS:
            raise ValueError(f"scoring must be 'similarity' or 'generative', got {self.scoring!r}")
        if self.similarity not in SIMILARITIES:
            raise ValueError(f"similarity must be 'auto', 'bm25' or 'openai', got {self.similarity!r}")


class RAGPolicy(LLMAgent):
    """LLM baseline: planner + ReAct, last 5 steps + 5 memories (recency, importance, relevance)

    Retrieval-augmented memory over a stream of past steps.

    Args:
        config: Its settings (default: :class:`RAGConfig`'s; a subclass takes its own ``config_class``).
        client: An existing :class:`~textmem_gym.llm.LLMClient` to use instead.
        **fields: Settings to change (fields of the ``config_class``: ``k``, ``scoring``...).
    """

    name: ClassVar[str] = "rag"
    config_class: ClassVar[type[RAGConfig]] = RAGConfig
    config: RAGConfig

    def __init__(self, config: RAGConfig | None = None, *, client: LLMClient | None = None, **fields: Any) -> None:
        self._resolved_similarity: str | None = None
        super().__init__(config, client=client, **fields)

    def wrap_env(self, env: Any) -> Any:
        """Decides the similarity (``auto``: probes the endpoint's embeddings) before the episode."""
        self.resolved_similarity()
        return super().wrap_env(env)

    def resolved_similarity(self) -> str:
        """``openai`` when the endpoint serves embeddings (probed once when ``similarity="auto"``), else ``bm25``."""
        if self._resolved_similarity is None:
            self._resolved_similarity = self.llm.similarity(self.config.similarity)
        return self._resolved_similarity

    def memory_reset(self, observation: str, info: Info) -> None:
        if not observation:  # the constructor resets with no observation: no LLM call then
            self.stream = MemoryStream(self.config.decay)
            return
        options = {"client": self.llm.client} if self.resolved_similarity() == "openai" else {}
        weights = (1.0, 1.0, 1.0) if self.config.scoring == "generative" else (0.0, 0.0, 1.0)
        self.stream = MemoryStream(self.config.decay, weights, similarity=self.resolved_similarity(), **options)
        self._add_memory(compact(observation), "observation")

    def rate_importance(self, text: str) -> float:
        """The LLM's 1..10 importance rating (5 when the answer has no number; 5 without a call
        when ``scoring="similarity"``, which does not use it)."""
        if self.config.scoring != "generative":
            return 5.0
        schema = answer_schema("importance")
        prompt = self.prompts.render("importance", goal=self.goal, memory=compact(text, 600))
        answer = self.llm.ask("importance", prompt, temperature=0.0, max_tokens=10, schema=schema)
        rating = self.llm.read("importance", answer, schema).get("rating")
        if answer is None or rating is None:
            self.counts["parse_failures" if answer is not None else "llm_fallbacks"] += 1
            return 5.0
        return float(min(max(int(rating), 1), 10))

    def _add_memory(self, text: str, kind: str) -> None:
        self.stream.add(text, step=len(self.turns), importance=self.rate_importance(text), kind=kind)

    def remember(self, turn: Turn, info: Info) -> None:
        self._add_memory(f"> {turn.action} -> {compact(turn.observation)}", "observation")

    def retrieved(self, observation: str) -> list[Any]:
        """The ``k`` memories for the observation and the plan, older than the recent history."""
        query = f"{observation} {self.plan if self.plan != '{}' else ''}"
        return self.stream.retrieve(query, step=len(self.turns), k=self.config.k,
                                    exclude_after=len(self.turns) - len(self.history_turns()) - 1,
                                    by_relevance=self.config.scoring == "similarity")

    def memory_sections(self, observation: str, info: Info) -> list[Section]:
        found = self.retrieved(observation)
        items = [f"[step {m.step}] {compact(m.text, self.config.observation_chars)}" for m in found]
        return [Section(f"Your {self.config.k} most relevant memories from the past for the current situation",
                        Trimmable("memories", items, drop="last"), SLOW)]

    def episode_stats(self) -> dict[str, Any]:
        stats = super().episode_stats()
        stats["similarity"] = self._resolved_similarity or self.config.similarity
        return stats


@dataclass(frozen=True, kw_only=True)
class SimulacraConfig(RAGConfig):
    """Settings of :class:`SimulacraPolicy` (Generative Agents' memory: scoring ``"generative"``)."""

    scoring: str = "generative"
    """``"generative"`` (Generative Agents: recency + LLM-rated importance + relevance) or ``"similarity"``."""
    reflect_every: int = 10
    """Steps between reflections."""
    reflections_shown: int = 3
    """Latest reflections shown in every prompt."""


class SimulacraPolicy(RAGPolicy):
    """LLM baseline: rag + reflections over retrieved memories (Generative Agents)

    RAG plus reflections: every ``reflect_every`` steps the LLM infers insights from retrieved
    memories; they join the stream as important memories and are always shown.

    Args:
        config: Its settings (default: :class:`SimulacraConfig`'s).
        client: An existing :class:`~textmem_gym.llm.LLMClient` to use instead.
        **fields: Settings to change (fields of :class:`SimulacraConfig`).
    """

    name: ClassVar[str] = "simulacra"
    config_class: ClassVar[type[SimulacraConfig]] = SimulacraConfig
    config: SimulacraConfig

    def __init__(self, config: SimulacraConfig | None = None, *, client: LLMClient | None = None,
                 **fields: Any) -> None:
        super().__init__(config, client=client, **fields)

    def memory_reset(self, observation: str, info: Info) -> None:
        super().memory_reset(observation, info)
        self.reflections: list[str] = []

    def remember(self, turn: Turn, info: Info) -> None:
        super().remember(turn, info)
        if len(self.turns) % self.config.reflect_every == 0:
            self.reflect(turn.observation)

    def reflect(self, observation: str) -> None:
        """Writes reflections over the memories retrieved for the current situation."""
        found = self.stream.retrieve(f"{self.goal} {observation}", step=len(self.turns), k=self.config.k * 2)
        memories = "\n".join(f"{i}. {compact(m.text, 400)}" for i, m in enumerate(found, 1))
        prompt = self.prompts.render("simulacra_reflection", goal=self.goal, memories=memories)
        answer = self.llm.ask("reflection", prompt, temperature=0.2, max_tokens=self.config.max_tokens)
        if answer is None:
            self.counts["llm_fallbacks"] += 1
            return
        for line in (compact(x) for x in answer.splitlines() if x.strip()):
            self.reflections.append(line)
            self.stream.add(line, step=len(self.turns), importance=8.0, kind="reflection")

    def memory_sections(self, observation: str, info: Info) -> list[Section]:
        shown = "; ".join(self.reflections[-self.config.reflections_shown:]) or "none yet"
        return super().memory_sections(observation, info) + [Section("Your reflections on past memories", shown, SLOW)]


@dataclass(frozen=True, kw_only=True)
class ReflexionConfig(RAGConfig):
    """Settings of :class:`ReflexionPolicy`."""

    max_reflections: int = 3
    """Reflections of earlier trials shown (the latest)."""
    trajectory_steps: int = 20
    """Last steps of a failed trial shown to the reflection prompt."""


class ReflexionPolicy(RAGPolicy):
    """LLM baseline: rag + reflections written after failed trials of the same game

    RAG memory plus Reflexion (Shinn et al., 2023) over trials of the same game.

    After an episode that is not won, :meth:`end_episode` asks the LLM for a reflection on the
    trajectory; later trials of the same game (same env id and game seed, read from the env in
    :meth:`wrap_env`; the goal text when the policy plays an env it did not wrap) read the last
    ``max_reflections``.

    Args:
        config: Its settings (default: :class:`ReflexionConfig`'s).
        client: An existing :class:`~textmem_gym.llm.LLMClient` to use instead.
        **fields: Settings to change (fields of :class:`ReflexionConfig`).
    """

    name: ClassVar[str] = "reflexion"
    multi_trial: ClassVar[bool] = True
    config_class: ClassVar[type[ReflexionConfig]] = ReflexionConfig
    config: ReflexionConfig

    def __init__(self, config: ReflexionConfig | None = None, *, client: LLMClient | None = None,
                 **fields: Any) -> None:
        self.trial_reflections: dict[str, list[str]] = {}
        self.game_key: str | None = None
        super().__init__(config, client=client, **fields)

    def wrap_env(self, env: Any) -> Any:
        """Keys this game's reflections by env id + game seed."""
        spec = getattr(env, "spec", None)
        kwargs = dict(getattr(spec, "kwargs", None) or {})
        game_seed = kwargs.get("game_seed", kwargs.get("default_game_seed"))
        self.game_key = f"{getattr(spec, 'id', type(env.unwrapped).__name__)}|game_seed={game_seed}"
        return super().wrap_env(env)

    @property
    def key(self) -> str:
        """The key of this game's reflections (env id + game seed; the goal text if unknown)."""
        return self.game_key or self.goal

    def memory_reset(self, observation: str, info: Info) -> None:
        super().memory_reset(observation, info)
        self.reflections_read = min(len(self.trial_reflections.get(self.key, [])), self.config.max_reflections)

    def memory_sections(self, observation: str, info: Info) -> list[Section]:
        previous = self.trial_reflections.get(self.key, [])[-self.config.max_reflections:]
        text = " | ".join(f"Trial {i}: {r}" for i, r in enumerate(previous, 1)) or "none (first trial)"
        reflections = Section("Your reflections from previous trials", text, FIXED)  # fixed for the episode
        return super().memory_sections(observation, info) + [reflections]

    def end_episode(self, info: Info) -> None:
        if info.get("won") or not self.turns:
            return
        outcome = (f"{'lost' if info.get('lost') else 'not finished'}, score {info.get('score', 0)} "
                   f"of {info.get('max_score', '?')} after {len(self.turns)} steps")
        trajectory = "\n".join(f"> {t.action} -> {compact(t.observation, 300)}"
                               for t in self.turns[-self.config.trajectory_steps:])
        previous = "; ".join(self.trial_reflections.get(self.key, [])[-self.config.max_reflections:]) or "none"
        answer = self.llm.ask("trial_reflection", self.prompts.render("reflexion", goal=self.goal, outcome=outcome,
                                                                      previous=previous, trajectory=trajectory),
                              temperature=0.2, max_tokens=self.config.max_tokens)
        if answer is None or not answer.strip():
            self.counts["llm_fallbacks"] += 1
            return
        self.trial_reflections.setdefault(self.key, []).append(compact(answer))

    def episode_stats(self) -> dict[str, Any]:
        stats = super().episode_stats()
        stats["reflections_read"] = self.reflections_read
        stats["reflections_written"] = len(self.trial_reflections.get(self.key, []))
        return stats
