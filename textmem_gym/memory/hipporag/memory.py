"""HippoRAG 2 as a memory: Personalized PageRank over a graph of phrases and passages.

Written from the paper (Gutiérrez, Shu, Qi, Zhou, Su, 2025, "From RAG to Memory: Non-Parametric
Continual Learning for Large Language Models") and its repository (OSU-NLP-Group/HippoRAG), whose
package pins torch 2.5 and vLLM and cannot be installed beside ours.

**Indexing** (each :meth:`HippoRAGMemory.update` is one passage: a game step's action and
observation, or one QA paragraph):

1. OpenIE reads the passage's triples (:mod:`.openie`): with an LLM endpoint (``model=`` /
   ``client=``) through ``prompts/openie.txt`` and its JSON schema; with no model (the default)
   through the project's rules extractor and a proper-name reader.
2. The graph (:mod:`.graph`, networkx) gains the passage node, the triples' phrase nodes, relation
   edges subject–object, context edges passage–phrase, and synonym edges between phrases whose
   embeddings are at least ``synonym_threshold`` (0.8) similar.
3. The passage and its new triples ("facts") are embedded (the shipped MiniLM model by default).

**Retrieval** for a question:

1. Query-to-triple linking: facts ranked by dense similarity to the question (min-max normalised
   over all facts), the top ``link_top_k`` (5) kept; with an endpoint, the recognition-memory
   filter (``prompts/recognition.txt``) keeps those the model judges useful (``recognition=True``).
2. Seeds: each linked fact's subject and object weighted by the fact's score divided by the
   number of passages the phrase appears in, the top ``link_top_k`` phrases by mean fact score
   kept; every passage node weighted by its min-max normalised dense score times
   ``passage_node_weight`` (0.05).
3. Personalized PageRank (``networkx.pagerank``, damping 0.5) from the seeds; passages ranked by
   their score. With no fact linked (an empty graph, or the filter kept none), passages are ranked
   by dense similarity alone, as HippoRAG 2 does.

:meth:`HippoRAGMemory.context` returns the ranked passages fit to the token budget;
:meth:`HippoRAGMemory.sources` their update indices; :meth:`HippoRAGMemory.build_tokens` the
tokens OpenIE spent (recognition calls are query cost, in :attr:`HippoRAGMemory.query_usage`).

**Failures.** Built with a model, the memory offers the ``failures`` part
(:attr:`HippoRAGMemory.failed_updates`, memory-bench's ``failed`` column): an update whose OpenIE call
gave no triple it meant to give is counted once, by cause (``LLMError``, ``EmptyAnswer``,
``UnreadableAnswer``); nothing stands in for the model (the passage is indexed with no fact). Without
a model it asks none, cannot fail so, and does not offer the part (``-``, not 0). A recognition call
without a usable answer is a query's failure, not an update's: the unfiltered facts stand in for the
model's choice, counted as ``fallback:<cause>`` in :attr:`HippoRAGMemory.filter_failures`.

Example (the toy bag-of-words embeddings of the test server stand in for the MiniLM model):
    >>> from textmem_gym.llm.testing.exchange import bag_of_words_vector
    >>> toy = lambda texts: np.array([bag_of_words_vector(text, 64) for text in texts])
    >>> memory = HippoRAGMemory(embed=toy, link_top_k=1)
    >>> for paragraph in ["Alice Marlow is the daughter of Henrik Olsen.", "Henrik Olsen grew up in Trondheim.",
    ...                   "Oslo is a city of Norway."]:
    ...     memory.update(paragraph, "", {})
    >>> question = "Which city is home to the parent of Alice Marlow?"
    >>> memory.sources(question, 2), memory.linked
    ([0, 1], [('alice marlow', 'is the daughter of', 'henrik olsen')])
    >>> memory.context(question, 20)
    ['Alice Marlow is the daughter of Henrik Olsen.', 'Henrik Olsen grew up in ']
"""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Any

import numpy as np

from textmem_gym.llm.answers import parse_json_object
from textmem_gym.llm.calls import ClientAsk
from textmem_gym.memory.budget import fit_budget
from textmem_gym.memory.embeddings import CachedEmbedder
from textmem_gym.memory.extractors.base import FALLBACK, UNREADABLE_ANSWER, answer_failure
from textmem_gym.memory.hipporag.graph import Node, PhrasePassageGraph, passage_node, phrase_node
from textmem_gym.memory.hipporag.openie import PROMPTS, LLMOpenIE, OpenIE, RulesOpenIE
from textmem_gym.memory.protocol import CountsFailures
from textmem_gym.memory.retrieval import DenseIndex, Embedder, passage_text
from textmem_gym.memory.semantic import TripleKey, normalize

#: The prompt kind of the recognition-memory filter (accounting key).
KIND_RECOGNITION = "hipporag_recognition"


def min_max(scores: dict[int, float]) -> dict[int, float]:
    """Scores rescaled to [0, 1] (all 1.0 when they are equal).

    Example:
        >>> min_max({0: 0.2, 1: 0.6, 2: 0.4})
        {0: 0.0, 1: 1.0, 2: 0.5}
    """
    if not scores:
        return {}
    low, high = min(scores.values()), max(scores.values())
    if high - low < 1e-12:
        return {item: 1.0 for item in scores}
    return {item: round((value - low) / (high - low), 12) for item, value in scores.items()}


def fact_text(fact: TripleKey) -> str:
    """A triple as the text that is embedded: ``"subject relation object"``."""
    return " ".join(fact)


def recognized_rows(answer: str | None) -> list[Any] | str:
    """The ``facts`` rows of a recognition answer, else the cause of the failure (``LLMError``,
    ``EmptyAnswer``, ``UnreadableAnswer``).

    Example:
        >>> recognized_rows('{"facts": [["knife", "is on", "table"]]}'), recognized_rows("  ")
        ([['knife', 'is on', 'table']], 'EmptyAnswer')
        >>> recognized_rows('{"facts": "all of them"}'), recognized_rows(None)
        ('UnreadableAnswer', 'LLMError')
    """
    cause = answer_failure(answer)
    if answer is None or cause is not None:
        return cause or UNREADABLE_ANSWER
    parsed = parse_json_object(answer, required=["facts"]).value
    rows = parsed["facts"] if parsed is not None else None
    return rows if isinstance(rows, list) else UNREADABLE_ANSWER


class HippoRAGMemory:
    """HippoRAG 2 (see the module docstring).

    Args:
        client: An :class:`~textmem_gym.llm.LLMClient` for OpenIE and the recognition filter.
        model, base_url, api_key: Build such a client when ``client`` is not given and ``model`` is;
            with neither, no model is used (rules OpenIE, no filter).
        embed: ``texts -> (n, dim)`` embeddings; by default the shipped MiniLM model (cached by text, a
            passage's texts embedded in one batch).
        link_top_k: Facts linked to the question, and phrases seeded (5 in the paper).
        passage_node_weight: Weight factor of the passage seeds (0.05).
        damping: PageRank damping, the probability of following an edge (0.5).
        synonym_threshold: Cosine similarity from which phrases get a synonym edge (0.8).
        synonym_k: Nearest phrases looked at for a new phrase's synonym edges.
        recognition: Filter linked facts with the model (only when a model is given).
        structured: Send the prompts' JSON schemas as structured-output requests.
        max_tokens: Completion limit per call.

    Attributes:
        passages: The text of every update (index = update number).
        facts: Every distinct triple read, in order (index = fact id).
        linked: The facts linked to the last question retrieved (after the filter).
        query_usage: Prompt and completion tokens spent by the recognition filter.
        failed_updates: Only with a model: the updates whose OpenIE call gave no triple it meant to give,
            by cause (:attr:`~textmem_gym.memory.hipporag.openie.LLMOpenIE.failed_updates`: ``LLMError``,
            ``EmptyAnswer``, ``UnreadableAnswer``), kept across episodes like the tokens: the ``failures``
            part, in memory-bench's ``failed`` column. Without a model the memory asks none and does not
            offer the part: its column says ``-`` (not counted), not 0.
        filter_failures: Recognition calls with no usable answer, kept across episodes like
            :attr:`query_usage`: the unfiltered facts stood in, counted as ``fallback:<cause>``
            (``fallback:LLMError``, ``fallback:EmptyAnswer``, ``fallback:UnreadableAnswer``).
    """

    name = "hipporag"
    failed_updates: Counter[str]

    def __init__(self, *, client: Any = None, model: str | None = None, base_url: str | None = None,
                 api_key: str | None = None, embed: Embedder | None = None, link_top_k: int = 5,
                 passage_node_weight: float = 0.05, damping: float = 0.5, synonym_threshold: float = 0.8,
                 synonym_k: int = 32, recognition: bool = True, structured: bool = True,
                 max_tokens: int = 512) -> None:
        if client is None and model is not None:
            from textmem_gym.llm import LLMClient

            client = LLMClient(model=model, base_url=base_url, api_key=api_key)
            self._owns_client = True
        else:
            self._owns_client = False
        if embed is None:
            from textmem_gym.memory.embeddings import minilm_embedder

            embed = minilm_embedder()
        self.client, self.embed = client, CachedEmbedder(embed)
        self.ask = ClientAsk(client, max_tokens) if client is not None else None
        self.link_top_k, self.passage_node_weight, self.damping = link_top_k, passage_node_weight, damping
        self.synonym_threshold, self.synonym_k = synonym_threshold, synonym_k
        self.recognition = recognition and client is not None
        self.structured = structured
        self.reader: OpenIE = LLMOpenIE(self.ask, structured=structured) if self.ask else RulesOpenIE()
        if isinstance(self.reader, CountsFailures):  # detected once: the reader asks a model
            self.failed_updates = self.reader.failed_updates
        self._build = {"prompt_tokens": 0, "completion_tokens": 0}
        self.query_usage = {"prompt_tokens": 0, "completion_tokens": 0}
        self.filter_failures: Counter[str] = Counter()
        self.reset()

    # -- building -----------------------------------------------------------------------------
    def reset(self) -> None:
        """Forgets every passage, fact and phrase (the tokens spent and the failures counted are kept)."""
        self.passages: list[str] = []
        self.facts: list[TripleKey] = []
        self._fact_ids: dict[TripleKey, int] = {}
        self.linked: list[TripleKey] = []
        self.passage_index = DenseIndex(self.embed)
        self.fact_index = DenseIndex(self.embed)
        self.graph = PhrasePassageGraph(DenseIndex(self.embed), threshold=self.synonym_threshold,
                                        synonym_k=self.synonym_k)
        self.reader.reset()

    def _usage(self) -> tuple[int, int]:
        usage = self.client.usage
        return int(usage.prompt_tokens), int(usage.completion_tokens)

    def _spent(self, before: tuple[int, int], into: dict[str, int]) -> None:
        prompt, completion = self._usage()
        into["prompt_tokens"] += prompt - before[0]
        into["completion_tokens"] += completion - before[1]

    def update(self, observation: str, action: str, info: dict[str, Any]) -> None:
        """Indexes the step (or paragraph): OpenIE, graph edges, passage and fact embeddings. A failed
        OpenIE call is counted in :attr:`failed_updates`; the passage is still indexed, with no fact."""
        index = len(self.passages)
        text = passage_text(observation, action)
        before = self._usage() if self.client is not None else None
        triples = [t for t in self.reader.read(observation, action) if t[0] and t[2] and t[0] != t[2]]
        if before is not None:
            self._spent(before, self._build)
        # one model call for the passage, its facts and its phrases
        self.embed.prefetch([text] + [fact_text(t) for t in triples] + [p for s, _, o in triples for p in (s, o)])
        self.passages.append(text)
        self.passage_index.add(index, text)
        self.graph.add_passage(index, triples)
        for fact in triples:
            if fact not in self._fact_ids:
                self._fact_ids[fact] = len(self.facts)
                self.fact_index.add(len(self.facts), fact_text(fact))
                self.facts.append(fact)

    def build_tokens(self) -> dict[str, int]:
        """Prompt and completion tokens OpenIE spent (zeros without a model)."""
        return dict(self._build)

    # -- retrieval ----------------------------------------------------------------------------
    def link(self, question: str) -> list[tuple[TripleKey, float]]:
        """The facts linked to ``question`` with their normalised scores, best first (before the filter)."""
        if not self.facts:
            return []
        scores = min_max(dict(self.fact_index.search(question, len(self.facts))))
        best = sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))[:self.link_top_k]
        return [(self.facts[fid], score) for fid, score in best]

    def recognize(self, question: str, linked: list[tuple[TripleKey, float]]) -> list[tuple[TripleKey, float]]:
        """The recognition-memory filter: the linked facts the model keeps, in its order; all of them, the
        failure counted as ``fallback:<cause>`` in :attr:`filter_failures`, when the answer is unusable."""
        if not self.recognition or not linked or self.ask is None:
            return linked
        candidates = "\n".join(f"{list(fact)}" for fact, _ in linked)
        before = self._usage()
        answer = self.ask(KIND_RECOGNITION, PROMPTS.render("recognition", question=question, facts=candidates,
                                                            max_facts=self.link_top_k),
                          schema=PROMPTS.schema("recognition") if self.structured else None)
        self._spent(before, self.query_usage)
        rows = recognized_rows(answer)
        if not isinstance(rows, list):
            self.filter_failures[FALLBACK + rows] += 1
            return linked
        return self._kept(rows, linked)

    @staticmethod
    def _kept(rows: list[Any], linked: list[tuple[TripleKey, float]]) -> list[tuple[TripleKey, float]]:
        """The linked facts named by the model's ``rows``, in its order, with their scores."""
        score_of = dict(linked)
        kept: list[tuple[TripleKey, float]] = []
        for row in rows:
            if isinstance(row, list) and len(row) == 3 and all(isinstance(part, str) for part in row):
                fact = (normalize(row[0]), normalize(row[1]), normalize(row[2]))
                if fact in score_of and all(fact != k for k, _ in kept):
                    kept.append((fact, score_of[fact]))
        return kept

    def seeds(self, linked: list[tuple[TripleKey, float]], dense: dict[int, float]) -> dict[Node, float]:
        """Reset weights of Personalized PageRank: linked phrases and dense-weighted passages."""
        weights: dict[str, float] = {}
        mean: dict[str, list[float]] = defaultdict(list)
        for (subject, _, obj), score in linked:
            for phrase in (subject, obj):
                weights[phrase] = max(weights.get(phrase, 0.0), score / max(len(self.graph.passages_of[phrase]), 1))
                mean[phrase].append(score)
        top = sorted(mean, key=lambda phrase: (-float(np.mean(mean[phrase])), phrase))[:self.link_top_k]
        seeds: dict[Node, float] = {phrase_node(phrase): weights[phrase] for phrase in top}
        for index, score in min_max(dense).items():
            seeds[passage_node(index)] = score * self.passage_node_weight
        return seeds

    def retrieve(self, question: str) -> list[tuple[int, float]]:
        """Every passage ``(index, score)``, best first (ties: earlier first)."""
        if not self.passages:
            return []
        dense = dict(self.passage_index.search(question, len(self.passages)))
        linked = self.recognize(question, self.link(question))
        self.linked = [fact for fact, _ in linked]
        scores = self.graph.passage_scores(self.seeds(linked, dense), damping=self.damping) if linked else dense
        return sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))

    def sources(self, question: str, k: int) -> list[int]:
        """Update indices of the ``k`` passages ranked best for ``question``, best first."""
        return [index for index, _ in self.retrieve(question)[:max(k, 0)]]

    def context(self, question: str, budget: int) -> list[str]:
        """The passages ranked by Personalized PageRank, most relevant first, within ``budget`` tokens."""
        if budget <= 0:
            return []
        return fit_budget([self.passages[index] for index, _ in self.retrieve(question)], budget)

    def close(self) -> None:
        """Closes the client the memory built (a given client is left open)."""
        if self._owns_client and self.client is not None:
            self.client.close()


__all__ = ["KIND_RECOGNITION", "HippoRAGMemory", "fact_text", "min_max", "recognized_rows"]
