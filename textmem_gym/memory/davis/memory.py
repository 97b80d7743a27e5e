"""DAVIS memory: the temporal knowledge graph of the current episode, an optional read-only
world model (a temporal KG built from golden trajectories, see
:mod:`~textmem_gym.memory.davis.world_model`) and graph QA over both (section 3.4).

Each update adds the transition's tuples with their step (nothing is overwritten; a reward
becomes ``(action, increased score by, N)``). For the wrapper's views (location, routes,
``go to``) the memory also keeps the believed state in the shared graph parts
(:class:`~textmem_gym.memory.graph_memory.GraphMemory`: outdated facts invalidated with their
validity interval; :meth:`~DAVISMemory.retrieve` is their semantic retrieval). Graph QA: choose
the relevant entity types and two entities (LLM, or cosine similarity without one), expand the
subgraph around them (path + ``hops``-hop), order the edges by time, and let the LLM answer from
that sequence (without an LLM the answer is the sequence itself).

LLM calls go through an :class:`~textmem_gym.llm.calls.Ask` (``llm=``: a policy's, so they are
fitted, counted and recorded as its own; or ``client=``: a :class:`~textmem_gym.llm.calls.ClientAsk`).
What each prompt may lose to fit the context window (the instructions and the question never):

* ``davis_extract``: the end of the observation before the action (see
  :mod:`~textmem_gym.memory.davis.extraction`);
* ``davis_qa_select``: candidate entities (section ``entities``): those sharing no word with the
  question first, from the end of the listing (locations, then objects, then persons; within a
  type, the last names first), then those sharing words, fewest shared first;
* ``davis_qa``: the time-ordered facts (section ``facts``), the oldest first.

Example:
    >>> memory = DAVISMemory()
    >>> memory.update("This room is called the kitchen. In it, you see:\\n\\tthe agent\\n\\ta fridge", "", {})
    >>> memory.update("You move to the hallway.", "go to hallway", {})
    >>> [f.text() for f in memory.kg.facts]
    ['[ep now, t=0] fridge, is in, kitchen', '[ep now, t=1] agent, go to, hallway']
    >>> found = memory.graph_qa("where is the fridge")
    >>> found.entities, found.types, found.answer
    (['fridge'], ['location'], '[ep now, t=0] fridge, is in, kitchen')
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import networkx as nx

from textmem_gym.llm import parse_json_object
from textmem_gym.llm.calls import Ask, ClientAsk, completion_limit
from textmem_gym.llm.prompts import PromptFolder, Trimmable
from textmem_gym.memory.davis.extraction import DavisLLMExtractor, DavisRulesExtractor
from textmem_gym.memory.davis.kg import ENTITY_TYPES, Fact, TemporalKG
from textmem_gym.memory.entities import EntityIndex
from textmem_gym.memory.extractors import Extractor
from textmem_gym.memory.graph_memory import GraphMemory
from textmem_gym.memory.semantic import Triple, TripleKey

#: This package's prompt templates (``prompts/*.txt``).
PROMPTS = PromptFolder(__package__)

CURRENT = "now"
#: Candidate entities listed per type in the QA selection prompt.
MAX_LISTED = 150
#: Extractor names DAVIS builds itself (their calls go through the memory's ``ask``).
DAVIS_EXTRACTORS = ("llm", "rules")
_TYPE_WORDS = {"location": ("where", "room", "place", "location", "go"), "person": ("who", "whom", "agent")}


@dataclass
class QAResult:
    """One graph-QA exchange: the chosen types and entities, the time-ordered facts and the answer."""

    question: str
    types: list[str] = field(default_factory=list)
    entities: list[str] = field(default_factory=list)
    facts: list[Fact] = field(default_factory=list)
    answer: str = ""


class DAVISMemory(GraphMemory):
    """The DAVIS temporal-KG memory (a sibling of AriGraph and STMA over the shared graph parts).

    Args:
        extractor: ``"rules"`` (deterministic, ScienceWorld and TextWorld text), ``"llm"``
            (transition summary with coreference resolution by the LLM) or an extractor.
        llm: The :class:`~textmem_gym.llm.calls.Ask` of extraction and QA; or ``client`` (an
            LLMClient, asked through a :class:`~textmem_gym.llm.calls.ClientAsk`).
        world_model: A :class:`TemporalKG` or a path to one (made read-only).
        hops: Neighbourhood size of the QA expansion.
        max_facts: Facts given to the QA answer (the latest ones when more were retrieved).
        rules_fallback: With ``extractor="llm"``: the rules' tuples stand in for an update whose call
            gave no answer (the port's behaviour, the default), counted as ``fallback:<cause>`` in
            :attr:`failed_updates`; ``False``: such an update keeps the rules' room and movement only.
        max_tokens: Completion limit of every call (extraction and QA) through the
            :class:`~textmem_gym.llm.calls.ClientAsk` built over ``client``
            (:data:`~textmem_gym.llm.calls.ASK_MAX_TOKENS`, the port's 1,024, by default); the prompts are
            fitted to the client's context window less this. A given ``llm`` sets its own: giving both is an error.

    Raises:
        ValueError: ``extractor="llm"`` without an LLM, ``max_tokens`` with ``llm``, a ``max_tokens`` that is not
            a positive int, or ``extractor_options`` other than ``client`` with ``"llm"`` or ``"rules"`` (DAVIS's
            own extractors take none): one line each.

    Attributes:
        failed_updates: Only with an extractor that asks a model (``llm``): its failed updates by cause
            (:attr:`~textmem_gym.memory.davis.extraction.DavisLLMExtractor.failed_updates`: ``LLMError``,
            ``EmptyAnswer``, ``UnreadableAnswer``, and ``fallback:<cause>`` where the rules' tuples stood in),
            the ``failures`` part, in memory-bench's ``failed`` column. A ``rules`` memory asks no model and
            does not offer the part: its column says ``-`` (not counted), not 0.
    """

    name = "davis"

    def __init__(self, extractor: str | Extractor = "rules", *, extractor_options: dict[str, Any] | None = None,
                 llm: Ask | None = None, client: Any = None, world_model: TemporalKG | str | Path | None = None,
                 hops: int = 1, max_facts: int = 60, rules_fallback: bool = True, max_tokens: int | None = None):
        if llm is None and client is None and extractor_options and "client" in extractor_options:
            client = extractor_options["client"]
        self.max_tokens = completion_limit(max_tokens, llm)
        self.ask: Ask | None = llm or (ClientAsk(client, self.max_tokens) if client is not None else None)
        if extractor in DAVIS_EXTRACTORS and extractor_options and extractor_options.keys() - {"client"}:
            raise ValueError(f"DAVIS's {extractor!r} extractor takes no extractor_options but client, got "
                             f"{sorted(extractor_options.keys() - {'client'})} (max_tokens is the memory's own option)")
        if isinstance(world_model, (str, Path)):
            world_model = TemporalKG.load(world_model, read_only=True)
        if world_model is not None:
            world_model.read_only = True
        self.world_model, self.hops, self.max_facts = world_model, hops, max_facts
        if extractor == "llm":
            if self.ask is None:
                raise ValueError("extractor='llm' needs an LLM: pass llm=... or client=...")
            extractor = DavisLLMExtractor(self.ask, fallback=rules_fallback)
        elif extractor == "rules":
            extractor = DavisRulesExtractor()
        super().__init__(extractor, extractor_options=None if not isinstance(extractor, str) else extractor_options,
                         episodes=0)

    def reset(self) -> None:
        """Starts a new episode (the world model is kept)."""
        super().reset()
        self.kg, self.episode_label = TemporalKG(), CURRENT
        self._entities: tuple[list[tuple[TemporalKG, int]], EntityIndex] | None = None
        self.score: float | None = None
        self.qa_log: list[QAResult] = []

    def update(self, observation: str, action: str, info: dict[str, Any]) -> None:
        """Adds the transition's tuples (with this step) and updates the believed state."""
        super().update(observation, action, info)
        self.record(self.kg, self.step_triples, action, info, self.episode_label)

    def record(self, kg: TemporalKG, triples: list[TripleKey], action: str, info: dict[str, Any],
               episode: Any) -> None:
        """Adds ``triples`` (and a reward fact) to ``kg`` at the current step."""
        types = self.extractor.entity_types(triples)
        for s, r, o in triples:
            kg.add(s, r, o, self.step, episode=episode, types={e: types[e] for e in (s, o) if e in types})
        score = info.get("score")
        if isinstance(score, (int, float)):
            if self.score is not None and score > self.score and action:
                kg.add(action, "increased score by", str(score - self.score), self.step, episode=episode)
            self.score = score

    # -- graph QA ------------------------------------------------------------------------
    def graphs(self) -> list[TemporalKG]:
        """The world model (if any) and the current episode's graph."""
        return [g for g in (self.world_model, self.kg) if g is not None]

    def _entity_index(self) -> EntityIndex:
        """The similarity index of every entity of :meth:`graphs` (:func:`_rule_entities`' index), kept
        while no graph gains an entity (the graphs only grow: their entity count says when)."""
        key = [(graph, len(graph.types)) for graph in self.graphs()]
        if self._entities is None or self._entities[0] != key:
            names = {e for graph in self.graphs() for e, kind in graph.types.items() if kind in ENTITY_TYPES}
            self._entities = (key, EntityIndex(names))
        return self._entities[1]

    def _typed_entities(self) -> dict[str, list[str]]:
        return {kind: sorted({e for g in self.graphs() for e in g.entities(kind)}) for kind in ENTITY_TYPES}

    def _select(self, question: str) -> tuple[list[str], list[str]]:
        typed = self._typed_entities()
        if self.ask is not None:
            listed = {kind: names[:MAX_LISTED] for kind, names in typed.items()}
            candidates = Trimmable("entities", entity_priority(question, listed), drop="last",
                                   render=lambda kept: entity_listing(listed, kept))
            answer = self.ask("davis_qa_select", lambda: PROMPTS.render("qa_select", question=question,
                                                                        entities=candidates.text()),
                              trim=[candidates])
            parsed = parse_json_object(answer or "")
            if isinstance(parsed.value, dict):
                known = {e for names in typed.values() for e in names}
                entities = [str(e).lower() for e in parsed.value.get("entities") or [] if str(e).lower() in known]
                types = [t for t in parsed.value.get("types") or [] if t in typed]
                if entities:
                    return types, entities[:2]
        words = set(question.lower().split())
        types = [k for k, cue in _TYPE_WORDS.items() if words & set(cue)] or list(ENTITY_TYPES)
        return types, _rule_entities(question, typed)

    def graph_qa(self, question: str) -> QAResult:
        """Answers ``question`` from the time-ordered subgraph around two chosen entities."""
        types, entities = self._select(question)
        around = (g.expand(entities, self.hops, latest=self.max_facts) for g in self.graphs())
        facts = [f for found in around for f in found][-self.max_facts:]
        result = QAResult(question, types, entities, facts)
        sequence = "\n".join(f.text() for f in facts) or "(no facts)"
        if self.ask is not None:
            shown = Trimmable("facts", [f.text() for f in facts], drop="first", sep="\n", empty="(no facts)")
            answer = self.ask("davis_qa", lambda: PROMPTS.render("qa_answer", question=question, facts=shown.text(),
                                                                 entities=", ".join(entities)), trim=[shown])
            result.answer = (answer or "").strip()
        result.answer = result.answer or sequence
        self.qa_log.append(result)
        return result

    def context_retrieval(self, question: str) -> tuple[list[Triple], list[str]]:
        """DAVIS's part of :meth:`context`: the believed triples of the subgraph around the two
        entities chosen for ``question`` (section 3.4, without an LLM: the most similar names), the
        newest first; as notes, the subgraph's facts that are not believed triples (rewards, the
        world model's facts), the newest first."""
        entities = self._entity_index().top(question, 2)
        facts = [f for g in self.graphs() for f in g.expand(entities, self.hops, latest=self.max_facts)]
        believed: dict[int, Triple] = {}
        notes: list[str] = []
        for fact in sorted(facts, key=lambda f: (f.episode == self.episode_label, f.step, f.id), reverse=True):
            tid = self.store.find(fact.subject, fact.relation, fact.object) if fact.episode == self.episode_label \
                else None
            if tid is not None:
                believed.setdefault(tid, self.store.triples[tid])
            elif fact.episode != self.episode_label or fact.relation == "increased score by":
                notes.append(fact.text())
        return list(believed.values()), notes

    # -- views ---------------------------------------------------------------------------
    def render(self, query: str | list[str] | None = None) -> str:
        """Recent events of this episode, then (for ``query``) the time-ordered facts around it."""
        recent = self.kg.latest(15)
        lines = [f"Current location: {self.location or 'unknown'}",
                 "Recent events: " + ("; ".join(f.text() for f in recent) or "none")]
        if query is not None:
            text = query if isinstance(query, str) else " ".join(query)
            entities = self._entity_index().top(text, 2)
            facts = [f for g in self.graphs() for f in g.expand(entities, self.hops, latest=20)][-20:]
            lines.append(f"Facts around {', '.join(entities) or 'nothing'}: " + "; ".join(f.text() for f in facts))
        return "\n".join(lines)

    def to_networkx(self, *, history: bool = False, episodic: bool = False) -> nx.MultiDiGraph:
        """The current episode's temporal KG (edges carry ``relation``, ``step``, ``episode``):
        it holds every fact with its time, so ``history`` changes nothing; it has no episodic
        vertices, so ``episodic`` adds none."""
        return self.kg.to_networkx()

    def to_json(self) -> dict[str, Any]:
        """The believed state (the shared graph export) plus the episode's temporal KG."""
        data = super().to_json()
        data["davis"] = {"kg": self.kg.to_json(), "world_model_facts": len(self.world_model or [])}
        return data


def entity_priority(question: str, listed: dict[str, list[str]]) -> list[str]:
    """The candidates of the QA selection prompt as ``"type: name"`` items, most worth keeping
    first: more words shared with ``question`` first, then the listing order.

    Example:
        >>> entity_priority("where is the red door", {"object": ["cup", "red door"], "location": ["hall"]})
        ['object: red door', 'object: cup', 'location: hall']
    """
    words = set(question.lower().split())
    items = [(kind, name) for kind, names in listed.items() for name in names]
    ranked = sorted(enumerate(items), key=lambda pair: (-len(words & set(pair[1][1].split())), pair[0]))
    return [f"{kind}: {name}" for _, (kind, name) in ranked]


def entity_listing(listed: dict[str, list[str]], kept: list[str]) -> str:
    """One line per type of the candidates still in ``kept`` (items of :func:`entity_priority`).

    Example:
        >>> entity_listing({"object": ["cup", "red door"], "location": ["hall"]}, ["object: red door"])
        'object: red door\\nlocation: '
    """
    keep = set(kept)
    return "\n".join(f"{kind}: {', '.join(n for n in names if f'{kind}: {n}' in keep)}"
                     for kind, names in listed.items())


def _rule_entities(text: str, typed: dict[str, list[str]]) -> list[str]:
    """The two known entities most similar to ``text`` (no LLM)."""
    return EntityIndex({e for names in typed.values() for e in names}).top(text, 2)
