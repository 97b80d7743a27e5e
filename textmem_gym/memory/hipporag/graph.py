"""HippoRAG 2's graph: phrase nodes and passage nodes, and Personalized PageRank over them.

Edges (undirected, weighted; a repeated edge adds its weight):

- **relation edges** between the subject and the object of every triple (weight 1 per triple);
- **context edges** between a passage and every phrase of its triples (weight 1);
- **synonym edges** between two phrases whose embeddings have cosine similarity at least
  ``threshold`` (0.8 in the paper), weighted by that similarity, among the ``synonym_k`` nearest
  phrases of a new phrase (the paper's k-NN over phrase embeddings, made incremental: a phrase is
  compared with the phrases already known when it first appears).

Node names are ``("phrase", text)`` and ``("passage", index)``.

Example:
    >>> graph = PhrasePassageGraph()
    >>> graph.add_passage(0, [("alice", "is the daughter of", "henrik")])
    >>> graph.add_passage(1, [("henrik", "grew up in", "trondheim")])
    >>> scores = graph.passage_scores({("phrase", "alice"): 1.0}, damping=0.5)
    >>> scores[0] > scores[1] > 0
    True
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

import networkx as nx

from textmem_gym.memory.retrieval import DenseIndex
from textmem_gym.memory.semantic import TripleKey

Node = tuple[str, object]


def phrase_node(phrase: str) -> Node:
    """The node of a phrase."""
    return ("phrase", phrase)


def passage_node(index: int) -> Node:
    """The node of passage ``index``."""
    return ("passage", index)


class PhrasePassageGraph:
    """The phrase–passage graph, built one passage at a time.

    Args:
        phrases: A dense index over phrase texts, for synonym edges (``None``: no synonym edges).
        threshold: Cosine similarity from which two phrases are synonyms.
        synonym_k: Nearest phrases looked at for a new phrase.

    Attributes:
        graph: The networkx graph.
        passages_of: Phrase -> indices of the passages it appears in.
    """

    def __init__(self, phrases: DenseIndex | None = None, *, threshold: float = 0.8, synonym_k: int = 32) -> None:
        self.phrases, self.threshold, self.synonym_k = phrases, threshold, synonym_k
        self.graph = nx.Graph()
        self.passages_of: dict[str, set[int]] = defaultdict(set)
        self._ids: dict[str, int] = {}
        self._names: list[str] = []

    def _connect(self, a: Node, b: Node, weight: float, *, synonym: bool = False) -> None:
        if a == b:
            return
        old = self.graph.get_edge_data(a, b, default={}).get("weight", 0.0)
        self.graph.add_edge(a, b, weight=old + weight)
        if synonym:
            self.graph.edges[a, b]["synonym"] = weight

    def _add_phrase(self, phrase: str) -> None:
        if phrase in self._ids:
            return
        self.graph.add_node(phrase_node(phrase))
        if self.phrases is not None:
            for other, similarity in self.phrases.search(phrase, self.synonym_k):
                if similarity >= self.threshold:
                    self._connect(phrase_node(phrase), phrase_node(self._names[other]), similarity, synonym=True)
            self.phrases.add(len(self._names), phrase)
        self._ids[phrase] = len(self._names)
        self._names.append(phrase)

    def add_passage(self, index: int, triples: Iterable[TripleKey]) -> None:
        """Adds passage ``index`` with the relation, context and synonym edges of its triples."""
        self.graph.add_node(passage_node(index))
        for subject, _, obj in triples:
            for phrase in (subject, obj):
                self._add_phrase(phrase)
                if index not in self.passages_of[phrase]:
                    self.passages_of[phrase].add(index)
                    self._connect(passage_node(index), phrase_node(phrase), 1.0)
            self._connect(phrase_node(subject), phrase_node(obj), 1.0)

    def synonyms(self) -> list[tuple[str, str, float]]:
        """Synonym edges found so far: ``(phrase, phrase, similarity)``."""
        return [(a[1], b[1], data["synonym"]) for a, b, data in self.graph.edges(data=True)
                if "synonym" in data]

    def passage_scores(self, seeds: dict[Node, float], *, damping: float = 0.5) -> dict[int, float]:
        """Personalized PageRank from ``seeds`` (node -> reset weight): passage index -> score.

        ``damping`` is the probability of following an edge (networkx's ``alpha``); the rest
        restarts at a seed. Seeds that are not nodes are ignored; with none left, every passage scores 0.
        """
        seeds = {node: weight for node, weight in seeds.items() if weight > 0 and node in self.graph}
        if not seeds:
            return {index: 0.0 for kind, index in self.graph.nodes if kind == "passage"}
        scores = nx.pagerank(self.graph, alpha=damping, personalization=seeds, weight="weight",
                             dangling=seeds, max_iter=200, tol=1e-8)
        return {node[1]: score for node, score in scores.items() if node[0] == "passage"}


__all__ = ["Node", "PhrasePassageGraph", "passage_node", "phrase_node"]
