"""Ariadne (AriGraph paper, section 3): AriGraph long-term memory + planner + ReAct decisions.

Working memory each step: the goal, the current observation, the last ``history_steps`` observations
and actions, the semantic triples and top-``k`` episodic memories retrieved from AriGraph for
the observation and the plan, the plan, and (when the exploration check says the plan needs
exploring) the unexplored exits. Actions are the admissible commands plus ``go to X``.
On an env that carries out ``go to`` itself (the NetHack envs' skills), the wrapper's ``go to``
is off and the places AriGraph remembers on the current level become ``go to <thing> x<X> y<Y>``
commands: the memory replaces the part of the level the Room obs text hides.

Rendering is tight at equal information: triples are grouped by subject, an episodic memory
already shown in the recent history is replaced by the next best one, and the banner that
repeats the goal is not repeated in the history.

One retrieval per decision: the MemoryGraphWrapper this agent builds renders its ``belief``
from the agent's own retrieval (:meth:`AriadnePolicy.render_belief`), which the decision then
reuses while the memory is unchanged.

Example:
    >>> policy = AriadnePolicy()
    >>> (policy.name, policy.config.history_steps, policy.config.top_k)
    ('ariadne', 5, 2)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

import gymnasium as gym

from policies.llm_agent import AgentConfig, LLMAgent, Turn, compact
from policies.shared_settings import MACRO_COUNTS_AS_ONE_STEP
from textmem_gym.core.info import admissible
from textmem_gym.core.policy import RECORDED_SCALARS, Info
from textmem_gym.envs.text_game import TextGameEnv
from textmem_gym.llm import LLMClient
from textmem_gym.llm.prompts import SLOW, Section, Trimmable
from textmem_gym.memory import make_memory, memory_name
from textmem_gym.memory.arigraph.memory import AriGraphMemory, Retrieval
from textmem_gym.memory.semantic import Triple
from textmem_gym.wrappers.memory_graph import ensure_memory_wrapper, find_memory_wrapper

#: Completion limit of the ``llm`` extractor's calls (the paper's prompts answer with a triple list).
EXTRACTION_MAX_TOKENS = 512


def render_triples(triples: list[Triple]) -> str:
    """Triples grouped by subject: ``fridge: is at kitchen, is open; knife: is on table``."""
    grouped: dict[str, list[str]] = {}
    for t in triples:
        grouped.setdefault(t.subject, []).append(f"{t.relation} {t.object}")
    return "; ".join(f"{subject}: {', '.join(facts)}" for subject, facts in grouped.items()) or "nothing yet"


@dataclass(frozen=True, kw_only=True)
class AriadneConfig(AgentConfig):
    """Settings of :class:`AriadnePolicy` (the AriGraph paper's agent); the planner and decision
    settings are :class:`~policies.llm_agent.AgentConfig`'s."""

    top_k: int = 2
    """Episodic memories retrieved per step."""
    extractor: str = "llm"
    """AriGraph extractor: ``"llm"`` (the paper's appendix E triplet extraction and outdated-triplet
    replacement prompts, at temperature 0, through this policy's calls: fitted, counted and recorded
    as its own), ``"rules"`` (no LLM calls: the templated text of these games) or ``"oracle"``."""
    similarity: str = "auto"
    """Retrieval similarity: ``"auto"`` (the endpoint's embeddings when it serves them, else BM25;
    recorded as ``episode_stats()["similarity"]``), ``"bm25"``, ``"openai"`` or ``"sentence-transformers"``
    (give ``memory_options={"similarity_options": ...}``)."""
    memory_options: dict[str, Any] | None = field(default=None, metadata=RECORDED_SCALARS)
    """Further :class:`~textmem_gym.memory.arigraph.memory.AriGraphMemory` arguments (``depth``,
    ``width``...; a ``similarity`` there stands for the field above). Its text, number and boolean
    values are recorded as settings of their own."""
    episode_chars: int = 500
    """Characters shown of each episodic memory."""
    macro_counts_as_one_step: bool = MACRO_COUNTS_AS_ONE_STEP.field(False)

    def __post_init__(self) -> None:
        super().__post_init__()
        options = dict(self.memory_options or {})
        if "similarity" in options:
            object.__setattr__(self, "similarity", str(options.pop("similarity")))
            object.__setattr__(self, "memory_options", options)


class AriadnePolicy(LLMAgent):
    """LLM: AriGraph memory + planner + ReAct decisions with go to (AriGraph paper)

    The Ariadne agent.

    Args:
        config: Its settings (default: :class:`AriadneConfig`'s, the paper's).
        client: An existing :class:`~textmem_gym.llm.LLMClient` to use instead.
        **fields: Settings to change (fields of :class:`AriadneConfig`: ``top_k``, ``extractor``,
            ``model``...).
    """

    name: ClassVar[str] = "ariadne"
    config_class: ClassVar[type[AriadneConfig]] = AriadneConfig
    config: AriadneConfig

    def __init__(self, config: AriadneConfig | None = None, *, client: LLMClient | None = None,
                 **fields: Any) -> None:
        self.resolved_similarity: str | None = None
        self.memory: Any = None
        self.env_navigates = False
        self._retrieved: tuple[tuple[Any, ...], Retrieval] | None = None
        super().__init__(config, client=client, **fields)

    def wrap_env(self, env: gym.Env) -> gym.Env:
        """Adds the MemoryGraphWrapper holding this agent's AriGraph (or adopts an existing one)."""
        if self.resolved_similarity is None and find_memory_wrapper(env) is None:
            self.resolved_similarity = self.llm.similarity(self.config.similarity)  # probed outside the episode
        self.llm.start_early()  # an LLM extractor reads the first observation during env.reset
        existing = find_memory_wrapper(env)
        if existing is not None:
            if memory_name(existing.memory) != "arigraph":
                raise ValueError(f"Ariadne needs an AriGraph memory; the env's MemoryGraphWrapper holds "
                                 f"{type(existing.memory).__name__}")
            self.memory = existing.memory
            self.env_navigates = navigates(env)
            return env
        extractor_options = {"ask": self.extraction_ask} if self.config.extractor == "llm" else None
        options = dict(self.config.memory_options or {})
        if self.resolved_similarity is None:
            self.resolved_similarity = self.llm.similarity(self.config.similarity)
        if self.resolved_similarity == "openai":
            options.setdefault("similarity_options", {"client": self.llm.client})
        self.memory = make_memory("arigraph", extractor=self.config.extractor, extractor_options=extractor_options,
                                  episodes=self.config.top_k, similarity=self.resolved_similarity, **options)
        self.env_navigates = navigates(env)
        return ensure_memory_wrapper(env, memory=self.memory, goto=not self.env_navigates, belief=self.render_belief,
                                     macro_counts_as_one_step=self.config.macro_counts_as_one_step)

    def extraction_ask(self, kind: str, prompt: str | Callable[[], str], *,
                       trim: Sequence[Trimmable] = (), schema: Mapping[str, Any] | None = None) -> str | None:
        """The :class:`~textmem_gym.llm.calls.Ask` of the ``llm`` extractor: this policy's
        :meth:`~textmem_gym.llm.LLMCalls.ask` at temperature 0 with :data:`EXTRACTION_MAX_TOKENS`,
        so extraction calls are fitted to the context window (trims counted in ``context_trims``),
        counted by kind (``arigraph_triplets``, ``arigraph_outdated``) and recorded with the step
        whose observation they read (the calls made during ``env.step`` of decision ``t`` are in
        the trajectory record of step ``t`` and in ``take_step_estimate()`` taken after that step;
        those of ``env.reset`` in the reset record and step 1's estimate)."""
        return self.llm.ask(kind, prompt, temperature=0.0, max_tokens=EXTRACTION_MAX_TOKENS, trim=trim,
                            schema=schema)

    def act(self, observation: Any, info: Info) -> str:
        if self.env_navigates and self.memory is not None:
            from textmem_gym.memory.extractors.nethack import remembered_places

            places = remembered_places(self.memory.believed_triples(), self.memory.location)
            info = {**info, "admissible_commands": admissible(info) + places}
        return super().act(observation, info)

    def render_belief(self, memory: AriGraphMemory, observation: str) -> str:
        """The wrapper's ``belief``: the memory rendered from the retrieval this agent's next
        decision uses (kept, so the decision does not retrieve again)."""
        # An episode's first belief is rendered by env.reset, before reset() clears the plan.
        plan = "{}" if memory.step == 0 else self.plan
        return memory.render_retrieval(self._retrieve(memory, observation, plan))

    def _retrieve(self, memory: AriGraphMemory, observation: str, plan: str) -> Retrieval:
        """Algorithm 1 for the observation and the plan; reused while the memory is unchanged."""
        queries = [compact(observation, 400)] + ([compact(plan, 400)] if plan != "{}" else [])
        key = (memory, memory.version, queries)
        if self._retrieved is None or self._retrieved[0] != key:
            self._retrieved = (key, memory.retrieve(queries, episodes=self.config.top_k + self.config.history_steps))
        return self._retrieved[1]

    def memory_sections(self, observation: str, info: Info) -> list[Section]:
        if self.memory is None:
            raise RuntimeError("Ariadne needs its MemoryGraphWrapper: run it through textmem_gym.evaluate "
                               "or wrap the env with policy.wrap_env(env)")
        found = self._retrieve(self.memory, observation, self.plan)
        shown = {turn.observation for turn in self.history_turns()} | {observation}
        episodes = [e for e, _ in found.episodes if e.observation not in shown][: self.config.top_k]
        rendered = [f"[step {e.step}, after '{e.action}'] {compact(e.observation, self.config.episode_chars)}"
                    for e in episodes]
        # trim order: episodic memories (least relevant first), then triples (last subjects first)
        return [
            Section("Information from the memory module that can be relevant to current situation",
                    Trimmable("triples", render_triples(found.triples).split("; "), drop="last", empty="nothing yet"),
                    SLOW),
            Section(f"Your {self.config.top_k} most relevant episodic memories from the past for the current situation",
                    Trimmable("episodic_memories", rendered, drop="last"), SLOW),
        ]

    @staticmethod
    def trimmables(sections: list[Section]) -> list[Trimmable]:
        """History first, then episodic memories, then triples (the prompt shows triples first)."""
        found = LLMAgent.trimmables(sections)
        return sorted(found, key=lambda t: ("history", "episodic_memories", "triples").index(t.name)
                      if t.name in ("history", "episodic_memories", "triples") else 3)

    def exploration_section(self, info: Info) -> Section | None:
        exits = info.get("unexplored_exits") or {}
        if not exits or not self.plan_needs_exploration():
            return None
        return Section("Yet unexplored exits in the environment",
                       "; ".join(f"{room}: {', '.join(dirs)}" for room, dirs in exits.items()), SLOW)

    def remember(self, turn: Turn, info: Info) -> None:
        """AriGraph is updated by the wrapper on every primitive step."""

    def episode_stats(self) -> dict[str, Any]:
        stats = super().episode_stats()
        stats["similarity"] = self.resolved_similarity or self.config.similarity
        return stats


def navigates(env: gym.Env) -> bool:
    """Whether the game behind ``env`` takes ``go to <place>`` itself (NetHack's skills)."""
    unwrapped = env.unwrapped
    return isinstance(unwrapped, TextGameEnv) and bool(unwrapped.provides_goto)
