"""STMA memory (section 4): temporal memory (history buffer + summarizer) and spatial memory
(relation retriever, dynamic KG, Algorithm 1 retrieval, relation aggregator).

Each update: the step joins the history buffer (last ``history`` records); the summarizer
turns the buffer into the temporal belief (:mod:`~textmem_gym.memory.stma.temporal`); the
relation retriever adds the latest spatial triples to the dynamic KG, where a new relation
replaces the outdated one filling the same slot (one location per thing, one neighbour per
direction...). Replaced edges are invalidated, not deleted (the triple store keeps their
validity interval). The spatial belief for a query is the Algorithm 1 subgraph (top ``top_n``
entities by similarity to the query, ``hops``-hop expansion) rendered by the relation
aggregator. Entity similarity: BM25 over entity names (``entity_similarity="bm25"``, the
default) or cosine similarity of embeddings (``"embeddings"``: the paper's, from ``embed`` or
the client's endpoint); ties go to name order.

LLM steps (appendix D prompts) run when ``llm`` (an :class:`~textmem_gym.llm.calls.Ask`) or
``client`` (wrapped in a :class:`~textmem_gym.llm.calls.ClientAsk`) is given: summarizer and
aggregator by default, the relation retriever with ``extractor="llm"`` (it reads the temporal
belief; movements and the current room are still read from the game's room headers, so routes
keep working). Without an LLM, or when a call fails, the deterministic parts stand in: the rule
summary, the ``rules`` extractor, and the aggregator's sentences with transitive direction
inference. Where an update asks a model (the LLM summarizer or relation retriever), its failures are
counted by cause in :attr:`STMAMemory.failed_updates` (the ``failures`` part, memory-bench's ``failed``
column): ``fallback:LLMError`` / ``fallback:EmptyAnswer`` where the rules stood in for a call without an
answer, ``EmptyAnswer`` / ``UnreadableAnswer`` where the relation retriever's answer held no relation.

Context budget: each LLM call passes its growing parts as :class:`~textmem_gym.llm.prompts.Trimmable`
sections, which lose items in this order until the prompt fits the model's context window:

- summarizer: ``trajectory``, the oldest buffer records first (never the latest record: the
  current observation and its feedback);
- relation retriever: ``temporal_belief``, the oldest sentences of the paragraph first, then
  ``entities``, the names not met in the current step first (the least recently updated first);
- relation aggregator: ``relations``, the least relevant retrieved triples first (most hops from
  a seed entity, then the lower-ranked seed, then the older triple; the oldest first when the
  whole graph is described).

The instructions (the prompt templates), the goal and the current observation are never
trimmed; a prompt from which nothing was trimmed is the untrimmed prompt, byte for byte.

Example:
    >>> memory = STMAMemory()
    >>> memory.update("-= Hall =-\\nYou see a chest. There is an exit to the north.", "", {})
    >>> memory.update("-= Kitchen =-\\nYou see a stove.", "go north", {})
    >>> [t for t in memory.believed_triples() if t[1] == "is north of"]
    [('kitchen', 'is north of', 'hall')]
    >>> print(memory.spatial_belief("stove"))  # doctest: +NORMALIZE_WHITESPACE
    The chest is in the hall. The hall has an exit to the north. The kitchen is to the north of
    the hall. The stove is in the kitchen. The hall is to the south of the kitchen.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from textmem_gym.llm.calls import Ask, ClientAsk, completion_limit
from textmem_gym.llm.prompts import PromptFolder, Trimmable, text_pieces
from textmem_gym.memory.extractors import BaseExtractor, Extraction, Extractor, TextParser, make_extractor
from textmem_gym.memory.extractors.base import (
    EMPTY_ANSWER,
    FALLBACK,
    NO_ANSWER,
    UNREADABLE_ANSWER,
    FailedUpdates,
    answer_failure,
)
from textmem_gym.memory.graph_memory import GraphMemory
from textmem_gym.memory.retrieval import client_embedder
from textmem_gym.memory.semantic import Triple, TripleKey, TripleStore, canonical, normalize
from textmem_gym.memory.stma.graph import BM25EntityIndex, EmbeddingEntityIndex, describe, graph_of, rank_around
from textmem_gym.memory.stma.temporal import HistoryBuffer, RuleSummarizer

#: This package's prompt templates (``prompts/*.txt``).
PROMPTS = PromptFolder(__package__)

#: Entity similarities of Algorithm 1.
ENTITY_SIMILARITIES = ("bm25", "embeddings")
_TRIPLE = re.compile(r'\[\s*"([^"\]]+)"\s*,\s*"([^"\]]+)"\s*,\s*"([^"\]]+)"\s*\]')


def paragraph_section(name: str, text: str, empty: str = "") -> Trimmable:
    """``text`` as a section losing its first (oldest) sentence or line first
    (:func:`~textmem_gym.llm.prompts.text_pieces`); shown as ``text`` itself while nothing is
    dropped (then without leading whitespace, or as ``empty`` once every piece is dropped).

    Example:
        >>> belief = paragraph_section("temporal_belief", "I went north. I took the knife.")
        >>> belief.text(), belief.drop_one(), belief.text()
        ('I went north. I took the knife.', 16, 'I took the knife.')
    """
    pieces = text_pieces(text)
    return Trimmable(name, pieces, render=lambda kept: "".join(kept) if len(kept) == len(pieces)
                     else "".join(kept).lstrip() or empty)


def parse_rdf(answer: str, rooms: set[str]) -> list[TripleKey]:
    """Triples of a relation-retriever answer (``["a", "rel", "b"]`` items), in the memory's
    vocabulary: ``is at north of`` -> ``is north of``; ``holds``/``contains`` turned around."""
    found: list[TripleKey] = []
    for s, r, o in _TRIPLE.findall(answer or ""):
        s, r, o = normalize(s), normalize(r), normalize(o)
        r = re.sub(r"^is at (north|south|east|west|northeast|northwest|southeast|southwest) of$", r"is \1 of", r)
        if r in ("holds", "supports"):
            triple: TripleKey = (o, "is on", s)
        else:
            triple = canonical((s, r, o), rooms)
        if triple not in found and all(triple):
            found.append(triple)
    return found


class BeliefRelationRetriever(BaseExtractor):
    """The ``llm`` relation retriever: appendix D.2 over the temporal belief, plus the rules
    extractor's room and movement triples. Replacement is structural (slot conflicts).

    A call without an answer lets the rules' triples stand in (``fallback:LLMError`` in
    :attr:`failed_updates`); an answer holding no relation keeps the rules' spatial triples only
    (``EmptyAnswer``, ``UnreadableAnswer``).

    Args:
        ask: The :class:`~textmem_gym.llm.calls.Ask` of the call.
        belief: The temporal belief of the moment.
        failed: Where failed updates are counted (the memory's, which also counts its summarizer's).

    Attributes:
        failures: Calls that gave no answer.
        failed_updates: Failed updates by cause.
    """

    def __init__(self, ask: Ask, belief: Callable[[], str], failed: FailedUpdates | None = None):
        self.ask, self.belief = ask, belief
        self.rules = make_extractor("rules")
        self.failures = 0
        self.failed_updates = FailedUpdates() if failed is None else failed

    def reset(self) -> None:
        self.rules.reset()

    def use_parser(self, parser: TextParser | None) -> None:
        """The rules part reads the game's text with the backend's ``parser``."""
        super().use_parser(parser)
        self.rules.use_parser(parser)

    def extract(self, observation: str, action: str, info: dict[str, Any], store: TripleStore) -> Extraction:
        out = self.rules.extract(observation, action, info, store)
        current = {e for t in out.triples for e in (t[0], t[2])}
        latest = {e: max((t.id for t in store.incident(e)), default=-1) for e in set(store.entities()) - current}
        older = sorted(latest, key=lambda e: (latest[e], e))  # the least recently updated first
        belief = paragraph_section("temporal_belief", self.belief())
        entities = Trimmable("entities", older + sorted(current), keep=len(current),
                             render=lambda kept: json.dumps(sorted(kept)))

        def build() -> str:
            return PROMPTS.render("relation_retriever", paragraph=belief.text(), entities=entities.text())

        answer = self.ask("stma_relations", build, trim=[belief, entities])
        if answer is None:
            self.failures += 1
            self.failed_updates.fail(FALLBACK + NO_ANSWER)
            return out
        rooms = {t.object for t in store.active() if t.relation == "is at"} | set(filter(None, [out.location]))
        spatial = [t for t in out.triples if t[1].startswith("is ") and t[1].endswith(" of")]
        found = parse_rdf(answer, rooms)
        if not found:
            self.failed_updates.fail(answer_failure(answer) or UNREADABLE_ANSWER)
        out.triples = list(dict.fromkeys(spatial + found))
        return out


class STMAMemory(GraphMemory):
    """The STMA spatio-temporal memory (a sibling of AriGraph over the shared
    :class:`~textmem_gym.memory.graph_memory.GraphMemory`: its dynamic KG is the shared triple
    store; its retrieval and rendering are its own).

    Args:
        extractor: Relation retriever: ``"rules"`` (deterministic, from each observation),
            ``"llm"`` (appendix D.2 over the temporal belief), ``"oracle"`` or an extractor.
        extractor_options: Arguments of a named extractor.
        llm: The :class:`~textmem_gym.llm.calls.Ask` of the LLM steps (a policy passes its own,
            so calls are fitted to the context window and accounted per kind).
        client: An ``LLMClient`` to build ``llm`` from (a :class:`~textmem_gym.llm.calls.ClientAsk`,
            when ``llm`` is not given).
        summarizer: ``"llm"`` or ``"rules"``; default ``"llm"`` when an LLM is given.
        aggregator: ``"llm"`` or ``"rules"``; default ``"llm"`` when an LLM is given.
        history: Records in the history buffer (25).
        top_n: Entities kept by the semantic filtering of Algorithm 1 (8).
        hops: ``K`` of the relational expansion (3).
        entity_similarity: ``"bm25"`` (BM25 over entity names, no model) or ``"embeddings"``
            (the paper: entity embeddings, from ``embed`` or ``client.embed``).
        embed: ``texts -> vectors`` for ``"embeddings"``.
        max_tokens: Completion limit of every call through the :class:`~textmem_gym.llm.calls.ClientAsk`
            built over ``client`` (:data:`~textmem_gym.llm.calls.ASK_MAX_TOKENS`, 1,024, by default); a given
            ``llm`` sets its own: giving both is an error.

    Attributes:
        embedding_calls: Calls of ``embed`` this episode (each text is embedded once).
        failed_updates: Only where an update asks a model (the LLM summarizer or relation retriever):
            failed updates by cause, the ``failures`` part (see the module docstring); kept across
            episodes. Without one the part is not offered: memory-bench's column says ``-``, not 0.
    """

    name = "stma"

    def __init__(self, extractor: str | Extractor = "rules", *, extractor_options: dict[str, Any] | None = None,
                 llm: Ask | None = None, client: Any = None, summarizer: str | None = None,
                 aggregator: str | None = None, history: int = 25, top_n: int = 8, hops: int = 3,
                 entity_similarity: str = "bm25", embed: Callable[[list[str]], Any] | None = None,
                 max_tokens: int | None = None):
        if llm is None and client is None and isinstance(extractor_options, dict) and "client" in extractor_options:
            client = extractor_options["client"]
        self.max_tokens = completion_limit(max_tokens, llm)
        self.ask: Ask | None = llm or (ClientAsk(client, self.max_tokens) if client is not None else None)
        default = "llm" if self.ask is not None else "rules"
        self.summarizer_mode, self.aggregator_mode = summarizer or default, aggregator or default
        for label, mode in (("summarizer", self.summarizer_mode), ("aggregator", self.aggregator_mode)):
            if mode not in ("llm", "rules"):
                raise ValueError(f"{label} must be 'llm' or 'rules', got {mode!r}")
            if mode == "llm" and self.ask is None:
                raise ValueError(f"{label}='llm' needs an LLM: pass llm=... or client=...")
        for label, value in (("top_n", top_n), ("hops", hops)):
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise ValueError(f"{label} must be a non-negative int, got {value!r}")
        if entity_similarity not in ENTITY_SIMILARITIES:
            raise ValueError(f"entity_similarity must be one of {ENTITY_SIMILARITIES}, got {entity_similarity!r}")
        if entity_similarity == "embeddings" and embed is None:
            if client is None:
                raise ValueError("entity_similarity='embeddings' needs embed=... or client=...")
            embed = client_embedder(client)
        self._embed = embed if entity_similarity == "embeddings" else None
        self._vectors: dict[str, Any] = {}
        self.entity_similarity = entity_similarity
        self.buffer = HistoryBuffer(history)
        self.top_n, self.hops = top_n, hops
        self.rule_summarizer = RuleSummarizer()
        self._failed = FailedUpdates()
        if extractor == "llm":
            if self.ask is None:
                raise ValueError("extractor='llm' needs an LLM: pass llm=... or client=...")
            extractor = BeliefRelationRetriever(self.ask, lambda: self.temporal_belief, self._failed)
            extractor_options = None
        elif isinstance(extractor, str) and extractor_options and "client" in extractor_options:
            extractor_options = {k: v for k, v in extractor_options.items() if k != "client"} or None
        super().__init__(extractor, extractor_options=extractor_options, episodes=0)
        self.extractor_name = "llm" if isinstance(self.extractor, BeliefRelationRetriever) else self.extractor_name
        if self.summarizer_mode == "llm" or self.extractor_name == "llm":  # an update asks a model
            self.failed_updates = self._failed

    def reset(self) -> None:
        """Empties the buffer, the beliefs and the KG (new episode)."""
        super().reset()
        self.buffer = HistoryBuffer(self.buffer.size)
        self.rule_summarizer.reset()
        self.goal, self.temporal_belief = "", ""
        self.llm_failures = self.embedding_calls = 0
        self._spatial: dict[str, str] = {}

    def update(self, observation: str, action: str, info: dict[str, Any]) -> None:
        """Algorithm 2 lines 4-7: record, summarize, extract, update the dynamic KG."""
        self._failed.begin()
        if info.get("objective"):
            self.goal = " ".join(str(info["objective"]).split())
        self.buffer.record(observation, action)
        self.rule_summarizer.observe(observation, action)
        self.temporal_belief = self.summarize()
        super().update(observation, action, info)
        self._spatial = {}

    def note_feedback(self, feedback: str) -> None:
        """Records the critic's feedback on the latest step (shown to the summarizer)."""
        self.buffer.note_feedback(feedback)

    # -- LLM steps with deterministic fallbacks ---------------------------------------------
    def _llm(self, kind: str, prompt: Callable[[], str], trim: Sequence[Trimmable], *,
             update: bool = False) -> str | None:
        """The stripped answer; ``None`` (counted; in :attr:`failed_updates` as ``fallback:<cause>`` when
        ``update``: the rules stand in for the model in this update) when the call gave none or a blank one."""
        answer = self.ask(kind, prompt, trim=trim) if self.ask is not None else None
        if answer is None or not answer.strip():
            self.llm_failures += 1
            if update:
                self._failed.fail(FALLBACK + (answer_failure(answer) or EMPTY_ANSWER))
            return None
        return answer.strip()

    def summarize(self) -> str:
        """The temporal belief of the current buffer (equation 4)."""
        rules = self.rule_summarizer.summary(self.buffer, self.goal)
        if self.summarizer_mode == "rules":
            return rules
        records = Trimmable("trajectory", self.buffer.record_texts(), keep=1, sep="\n", empty="")

        def build() -> str:
            return PROMPTS.render("summarizer", goal=self.goal or "unknown", trajectory=records.text())

        return self._llm("stma_summary", build, [records], update=True) or rules

    def _embed_counted(self, texts: Sequence[str]) -> Any:
        assert self._embed is not None
        self.embedding_calls += 1
        return self._embed(list(texts))

    def _entity_index(self, names: Iterable[str]) -> BM25EntityIndex | EmbeddingEntityIndex:
        if self._embed is None:
            return BM25EntityIndex(names)
        return EmbeddingEntityIndex(names, self._embed_counted, self._vectors)

    def rank(self, query: str | list[str]) -> list[Triple]:
        """Algorithm 1 on the believed KG, most relevant first (``query`` lists are joined). The KG's
        graph and entity index, and the ranking around each set of seed entities, are kept until the
        believed triples change."""
        text = query if isinstance(query, str) else " ".join(query)
        cache = self._graph_cache.get()
        if "stma graph" not in cache:
            triples = self.store.active()
            graph = graph_of(triples)
            cache["stma graph"] = (triples, graph, self._entity_index(graph.nodes) if triples else None)
        triples, graph, index = cache["stma graph"]
        if index is None:
            return []
        seeds = tuple(index.top(text, self.top_n))
        if ("stma rank", seeds, self.hops) not in cache:
            cache["stma rank", seeds, self.hops] = rank_around(triples, graph, seeds, self.hops)
        return list(cache["stma rank", seeds, self.hops])

    def retrieve(self, query: str | list[str], **_: Any) -> list[Triple]:  # type: ignore[override]
        """Algorithm 1 on the believed KG, oldest first (``query`` lists are joined)."""
        return sorted(self.rank(query), key=lambda t: t.id)

    def spatial_belief(self, query: str | list[str] | None = None) -> str:
        """The relation aggregator over the retrieved subgraph (every triple when ``query`` is
        ``None``); computed once per step and query."""
        key = json.dumps(query)
        if key not in self._spatial:
            ranked = self.store.active()[::-1] if query is None else self.rank(query)  # best first
            triples = sorted(ranked, key=lambda t: t.id)
            text = self._describe(triples)
            if self.aggregator_mode == "llm" and triples:
                line = {t.id: json.dumps(list(t.as_tuple())) for t in triples}
                relations = Trimmable("relations", [line[t.id] for t in ranked], drop="last",
                                      order=[line[t.id] for t in triples],  # oldest first, as shown
                                      render=lambda kept: "[\n" + ",\n".join(kept) + "\n]")

                def build() -> str:
                    return PROMPTS.render("relation_aggregator", triples=relations.text())

                text = self._llm("stma_aggregate", build, [relations]) or text
            self._spatial[key] = text
        return self._spatial[key]

    def _describe(self, triples: list[Triple]) -> str:
        """:func:`~textmem_gym.memory.stma.graph.describe`, kept until the believed triples change."""
        cache = self._graph_cache.get()
        key = ("stma describe", tuple(t.id for t in triples))
        if key not in cache:
            cache[key] = describe(triples)
        return str(cache[key])

    def context_retrieval(self, question: str) -> tuple[list[Triple], list[str]]:
        """STMA's part of :meth:`context`: the Algorithm 1 subgraph for ``question`` (most relevant
        first), and the temporal belief as a note."""
        notes = [f"Temporal belief: {' '.join(self.temporal_belief.split())}"] if self.temporal_belief else []
        return self.rank(question), notes

    def render(self, query: str | list[str] | None = None) -> str:
        """Temporal belief, then spatial belief (for ``query``)."""
        return (f"Temporal belief:\n{self.temporal_belief or 'nothing yet'}\n\n"
                f"Spatial belief:\n{self.spatial_belief(query)}")

    def to_json(self) -> dict[str, Any]:
        """The shared graph export (the dynamic KG) plus the buffer and the temporal belief."""
        data = super().to_json()
        data["stma"] = {"goal": self.goal, "temporal_belief": self.temporal_belief,
                        "buffer": [r.__dict__ for r in self.buffer]}
        return data
