"""The AriGraph paper's memory baselines: Ariadne's planner and decision modules, other memory.

=================  ===========================================================================
``full-history``   every observation and action so far
``summary``        the last ``n_prev`` steps plus a running summary (appendix E summarization)
``rag``            the last ``n_prev`` steps plus ``k`` memories retrieved Generative-Agents
                   style (recency, LLM-rated importance, relevance to observation and plan)
``simulacra``      ``rag`` plus reflections over retrieved memories, stored back as memories
``reflexion``      ``rag`` plus reflections written after failed trials of the same game
``react``          no planner and no memory beyond the last ``n_prev`` steps
=================  ===========================================================================

Example:
    >>> [cls.name for cls in (FullHistoryPolicy, SummaryPolicy, RAGPolicy, SimulacraPolicy,
    ...                       ReflexionPolicy, ReActPolicy)]
    ['full-history', 'summary', 'rag', 'simulacra', 'reflexion', 'react']
"""

from __future__ import annotations

import re
from typing import Any, ClassVar

from policies.base import Info
from policies.llm_agent import LLMAgent, Section, Turn, compact
from policies.llm_calls import render_prompt
from policies.memory_stream import MemoryStream


class FullHistoryPolicy(LLMAgent):
    """Every observation and action so far in working memory."""

    name: ClassVar[str] = "full-history"
    history_label: ClassVar[str] = "History of all observations and actions"

    def history_turns(self) -> list[Turn]:
        return list(self.turns)


class ReActPolicy(LLMAgent):
    """ReAct without a planner: only the last ``n_prev`` steps."""

    name: ClassVar[str] = "react"
    uses_planner: ClassVar[bool] = False


class SummaryPolicy(LLMAgent):
    """The last ``n_prev`` steps plus a running summary rewritten after every step.

    Args:
        summary_temperature: Temperature of the summarization call.
    """

    name: ClassVar[str] = "summary"

    def __init__(self, *args: Any, summary_temperature: float = 0.0, **options: Any) -> None:
        self.summary_temperature = summary_temperature
        super().__init__(*args, **options)

    def memory_reset(self, observation: str, info: Info) -> None:
        self.summary = "none yet"

    def remember(self, turn: Turn, info: Info) -> None:
        sections = [("Main goal", self.goal),
                    (self.history_label.format(n=self.n_prev), self.render_history(self.history_turns())),
                    ("Your current observation", compact(turn.observation)), ("Your previous summary", self.summary)]
        answer = self.llm.ask("summary", render_prompt("summary", sections=self.render_sections(sections)),
                              temperature=self.summary_temperature, max_tokens=self.max_tokens)
        if answer is None or not answer.strip():
            self.counts["llm_fallbacks"] += 1
            return
        self.summary = compact(answer)

    def memory_sections(self, observation: str, info: Info) -> list[Section]:
        return [("Summary of the game so far", self.summary)]


class RAGPolicy(LLMAgent):
    """Generative-Agents retrieval over a memory stream of past steps.

    Args:
        k: Memories retrieved per step.
        decay: Recency decay per step.
    """

    name: ClassVar[str] = "rag"

    def __init__(self, *args: Any, k: int = 5, decay: float = 0.99, **options: Any) -> None:
        self.k, self.decay = k, decay
        super().__init__(*args, **options)

    def memory_reset(self, observation: str, info: Info) -> None:
        self.stream = MemoryStream(self.decay)
        if observation:  # the constructor resets with no observation: no LLM call then
            self._add_memory(compact(observation), "observation")

    def rate_importance(self, text: str) -> float:
        """The LLM's 1..10 importance rating (5 when the answer has no number)."""
        answer = self.llm.ask("importance", render_prompt("importance", goal=self.goal, memory=compact(text, 600)),
                              temperature=0.0, max_tokens=5)
        match = re.search(r"\d+", answer or "")
        if answer is None or match is None:
            self.counts["parse_failures" if answer is not None else "llm_fallbacks"] += 1
            return 5.0
        return float(min(max(int(match.group()), 1), 10))

    def _add_memory(self, text: str, kind: str) -> None:
        self.stream.add(text, step=len(self.turns), importance=self.rate_importance(text), kind=kind)

    def remember(self, turn: Turn, info: Info) -> None:
        self._add_memory(f"> {turn.action} -> {compact(turn.observation)}", "observation")

    def retrieved(self, observation: str) -> list[Any]:
        """The ``k`` memories for the observation and the plan, older than the recent history."""
        query = f"{observation} {self.plan if self.plan != '{}' else ''}"
        return self.stream.retrieve(query, step=len(self.turns), k=self.k,
                                    exclude_after=len(self.turns) - len(self.history_turns()) - 1)

    def memory_sections(self, observation: str, info: Info) -> list[Section]:
        found = self.retrieved(observation)
        text = "; ".join(f"[step {m.step}] {compact(m.text, self.observation_chars)}" for m in found) or "none"
        return [(f"Your {self.k} most relevant memories from the past for the current situation", text)]


class SimulacraPolicy(RAGPolicy):
    """RAG plus reflections: every ``reflect_every`` steps the LLM infers insights from retrieved
    memories; they join the stream as important memories and are always shown."""

    name: ClassVar[str] = "simulacra"

    def __init__(self, *args: Any, reflect_every: int = 10, reflections_shown: int = 3, **options: Any) -> None:
        self.reflect_every, self.reflections_shown = reflect_every, reflections_shown
        super().__init__(*args, **options)

    def memory_reset(self, observation: str, info: Info) -> None:
        super().memory_reset(observation, info)
        self.reflections: list[str] = []

    def remember(self, turn: Turn, info: Info) -> None:
        super().remember(turn, info)
        if len(self.turns) % self.reflect_every == 0:
            self.reflect(turn.observation)

    def reflect(self, observation: str) -> None:
        """Writes reflections over the memories retrieved for the current situation."""
        found = self.stream.retrieve(f"{self.goal} {observation}", step=len(self.turns), k=self.k * 2)
        memories = "\n".join(f"{i}. {compact(m.text, 400)}" for i, m in enumerate(found, 1))
        answer = self.llm.ask("reflection", render_prompt("simulacra_reflection", goal=self.goal, memories=memories),
                              temperature=0.2, max_tokens=self.max_tokens)
        if answer is None:
            self.counts["llm_fallbacks"] += 1
            return
        for line in (compact(x) for x in answer.splitlines() if x.strip()):
            self.reflections.append(line)
            self.stream.add(line, step=len(self.turns), importance=8.0, kind="reflection")

    def memory_sections(self, observation: str, info: Info) -> list[Section]:
        shown = "; ".join(self.reflections[-self.reflections_shown:]) or "none yet"
        return super().memory_sections(observation, info) + [("Your reflections on past memories", shown)]


class ReflexionPolicy(RAGPolicy):
    """RAG memory plus Reflexion (Shinn et al., 2023) over trials of the same game.

    After an episode that is not won, :meth:`end_episode` asks the LLM for a reflection on the
    trajectory; later trials of the same game (same goal text) read the last ``max_reflections``.
    """

    name: ClassVar[str] = "reflexion"
    multi_trial: ClassVar[bool] = True

    def __init__(self, *args: Any, max_reflections: int = 3, trajectory_steps: int = 20, **options: Any) -> None:
        self.max_reflections, self.trajectory_steps = max_reflections, trajectory_steps
        self.trial_reflections: dict[str, list[str]] = {}
        super().__init__(*args, **options)

    def memory_reset(self, observation: str, info: Info) -> None:
        super().memory_reset(observation, info)
        self.reflections_read = min(len(self.trial_reflections.get(self.goal, [])), self.max_reflections)

    def memory_sections(self, observation: str, info: Info) -> list[Section]:
        previous = self.trial_reflections.get(self.goal, [])[-self.max_reflections:]
        text = " | ".join(f"Trial {i}: {r}" for i, r in enumerate(previous, 1)) or "none (first trial)"
        return super().memory_sections(observation, info) + [("Your reflections from previous trials", text)]

    def end_episode(self, info: Info) -> None:
        if info.get("won") or not self.turns:
            return
        outcome = (f"{'lost' if info.get('lost') else 'not finished'}, score {info.get('score', 0)} "
                   f"of {info.get('max_score', '?')} after {len(self.turns)} steps")
        trajectory = "\n".join(f"> {t.action} -> {compact(t.observation, 300)}"
                               for t in self.turns[-self.trajectory_steps:])
        previous = "; ".join(self.trial_reflections.get(self.goal, [])[-self.max_reflections:]) or "none"
        answer = self.llm.ask("trial_reflection", render_prompt("reflexion", goal=self.goal, outcome=outcome,
                                                                previous=previous, trajectory=trajectory),
                              temperature=0.2, max_tokens=self.max_tokens)
        if answer is None or not answer.strip():
            self.counts["llm_fallbacks"] += 1
            return
        self.trial_reflections.setdefault(self.goal, []).append(compact(answer))

    def episode_stats(self) -> dict[str, Any]:
        stats = super().episode_stats()
        stats["reflections_read"] = self.reflections_read
        stats["reflections_written"] = len(self.trial_reflections.get(self.goal, []))
        return stats
