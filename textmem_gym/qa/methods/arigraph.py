"""AriGraph QA (AriGraph paper, section "Multi-hop Q&A", Table 2): the same
:class:`~textmem_gym.memory.arigraph.memory.AriGraphMemory` the games use, fed paragraphs instead of
observations.

For each question, as the paper's QA script does:

1. **Build.** Each paragraph is one memory update: the ``llm`` extractor's triplet prompt (kind
   ``arigraph_triplets``) gives its triples, and the paragraph becomes an episodic vertex linked to
   them. A paragraph is not a step in time, so nothing it says outdates another paragraph's facts
   (the script's outdated-triplet call is switched off: :class:`ParagraphReader`), and each
   paragraph is read on its own (no example triples from the previous one).
2. **Key items.** The LLM lists the question's entities with a relevance of 1 to 3 (kind
   ``qa_key_items``); the relevance is the depth of the semantic search from that entity.
3. **Retrieve.** Algorithm 1: semantic search (Algorithm 2, ``width`` triples per hop) from
   every key item, then the ``episodes`` best episodic vertices (equation (1)) for the union.
4. **Answer.** The paper's chain-of-thought prompt with a direct answer (kind ``qa_answer``),
   over the retrieved facts and texts; to fit the context window the texts lose the lowest-scored
   first, then the facts the last found first.

Building tokens (extraction) and answering tokens (key items and answer) are reported apart
(:class:`~textmem_gym.qa.api.Tokens`): the paper's cost argument compares them with full context.

Example:
    >>> import json
    >>> from textmem_gym.llm import LocalOpenAIServer
    >>> def reply(messages):
    ...     prompt = messages[-1]["content"]
    ...     if "Guidelines for Building the Knowledge Graph" in prompt:  # asked for structured triplets
    ...         paragraph = prompt.split("Observation:")[-1]
    ...         s, r, o = ("lighthouse", "stands on", "vellmar island") if "Vellmar" in paragraph else \\
    ...             ("orsk", "is", "town")
    ...         return json.dumps({"triplets": [{"subject": s, "relation": r, "object": o}]})
    ...     if "relevance score" in prompt:
    ...         return '{"entities": [{"entity": "Vellmar Island", "relevance": 1}]}'
    ...     return '{"chain_of_thought": "the facts say so", "direct_answer": "lighthouse"}'
    >>> with LocalOpenAIServer(reply) as server:
    ...     method = AriGraphQA(model="m", base_url=server.base_url)
    ...     docs = ["Vellmar Island has a lighthouse.", "Orsk is a town."]
    ...     answer = method.answer("What is on Vellmar Island?", docs)
    >>> answer.text, answer.calls_by_kind["arigraph_triplets"], answer.detail["facts"]
    ('lighthouse', 2, ['lighthouse, stands on, vellmar island'])
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from textmem_gym.llm import Trimmable
from textmem_gym.memory.arigraph.extraction import KIND_OUTDATED, KIND_TRIPLETS, LLMExtractor
from textmem_gym.memory.arigraph.memory import AriGraphMemory, Retrieval
from textmem_gym.memory.extractors import BaseExtractor, Extraction
from textmem_gym.memory.semantic import Triple, TripleKey, TripleStore, normalize
from textmem_gym.qa.data import Paragraph
from textmem_gym.qa.methods.base import PROMPTS, Final, LLMQAMethod, paragraph_text, texts_section

#: Prompt kind of the key-item extraction.
KIND_ITEMS = "qa_key_items"
#: Depth of the semantic search from an item the model gave no usable relevance for.
DEFAULT_RELEVANCE = 2


class ParagraphReader(BaseExtractor):
    """An extractor for documents: each paragraph read on its own by ``reader``, nothing outdated.

    Args:
        reader: The extractor reading one paragraph (the ``llm`` extractor); it is reset before
            each paragraph, so no paragraph's triples are shown as examples for the next.
    """

    def __init__(self, reader: Any) -> None:
        self.reader = reader

    def reset(self) -> None:
        """Resets the reader."""
        self.reader.reset()

    def extract(self, observation: str, action: str, info: dict[str, Any], store: TripleStore) -> Extraction:
        """The reader's triples of one paragraph."""
        self.reader.reset()
        extraction: Extraction = self.reader.extract(observation, action, info, store)
        return extraction

    def outdated(self, existing: Sequence[Triple], new: Sequence[TripleKey]) -> list[Triple]:
        """Nothing: paragraphs are not steps in time."""
        return []


def merge(found: Sequence[Retrieval], episodes: int) -> Retrieval:
    """The union of several retrievals: triples in the order found, the ``episodes`` best-scored
    episodic vertices (each at its best score).

    Example:
        >>> merge([Retrieval(), Retrieval()], 2)
        Retrieval(triples=[], episodes=[])
    """
    triples: dict[int, Triple] = {}
    scores: dict[int, Any] = {}
    for retrieval in found:
        for triple in retrieval.triples:
            triples.setdefault(triple.id, triple)
        for episode, score in retrieval.episodes:
            if episode.step not in scores or scores[episode.step][1] < score:
                scores[episode.step] = (episode, score)
    best = sorted(scores.values(), key=lambda pair: (-pair[1], pair[0].step))[:episodes]
    return Retrieval(list(triples.values()), best)


class AriGraphQA(LLMQAMethod):
    """AriGraph QA: paragraphs into an :class:`AriGraphMemory`, key items, graph plus episodic retrieval.

    Args:
        width: Triples kept per hop of the semantic search (the script's ``topk=6``).
        episodes: Episodic vertices retrieved (the script's ``topk_episodic=2``).
        similarity: The memory's triple similarity (``bm25``, or ``openai``: served embeddings).
        **options: Passed to :class:`~textmem_gym.qa.methods.base.LLMQAMethod`.
    """

    name = "arigraph"
    build_kinds = frozenset({KIND_TRIPLETS, KIND_OUTDATED})

    def __init__(self, *args: Any, width: int = 6, episodes: int = 2, similarity: str = "bm25",
                 **options: Any) -> None:
        super().__init__(*args, **options)
        similarity_options = {"client": self.llm.client} if similarity == "openai" else {}
        reader = ParagraphReader(LLMExtractor(ask=self.llm.ask, replacement="structural", structured=True))
        self.memory = AriGraphMemory(reader, similarity=similarity, similarity_options=similarity_options,
                                     width=width, episodes=episodes)
        self.episodes = episodes
        self.config.update(width=width, episodes=episodes, similarity=similarity)

    def build(self, paragraphs: Sequence[Paragraph]) -> None:
        """A fresh memory holding ``paragraphs`` (one update, one episodic vertex each)."""
        self.memory.reset()
        for paragraph in paragraphs:
            self.memory.update(paragraph_text(paragraph), "", {})

    def key_items(self, question: str) -> dict[str, int]:
        """The question's key entities -> relevance 1..3 (the depth searched from each); empty
        when the model named none (the call failed or its answer could not be read)."""
        schema = PROMPTS.schema("key_items")
        raw = self.llm.ask(KIND_ITEMS, PROMPTS.render("key_items", question=question), max_tokens=self.max_tokens,
                           schema=schema)
        parsed = self.llm.read(KIND_ITEMS, raw, schema) if raw is not None else None
        items: dict[str, int] = {}
        for entry in (parsed.get("entities") or []) if parsed is not None else []:
            name, relevance = _item(entry)
            if name:
                items.setdefault(name, relevance)
        return items

    def retrieve(self, items: dict[str, int]) -> Retrieval:
        """Algorithm 1 from each item at its depth (items of one depth searched together)."""
        depths = sorted(set(items.values()))
        found = [self.memory.retrieve([i for i, d in items.items() if d == depth], depth=depth,
                                      episodes=self.episodes) for depth in depths]
        return merge(found, self.episodes)

    def respond(self, question: str, paragraphs: tuple[Paragraph, ...]) -> Final:
        """Build, key items, retrieve, answer."""
        self.build(paragraphs)
        items = self.key_items(question)
        stand_in = not items
        found = self.retrieve(items or {normalize(question): 1})  # no key items: search from the question, counted
        facts = Trimmable("facts", [t.text() for t in found.triples], drop="last", empty="none")
        texts = texts_section("texts", [e.observation for e, _ in found.episodes])
        final = self.final_answer("answer_graph", question, [texts, facts])
        final.detail.update(items=items, key_items_fallback=stand_in, facts=[t.text() for t in found.triples],
                            episodes=[e.step for e, _ in found.episodes], triples=len(self.memory.believed_triples()))
        return final


def _item(entry: Any) -> tuple[str, int]:
    """``(entity, relevance)`` of one listed item (a ``{"entity", "relevance"}`` object or a bare name)."""
    if isinstance(entry, dict):
        name = str(entry.get("entity") or entry.get("name") or "").strip()
        relevance = entry.get("relevance")
    else:
        name, relevance = str(entry).strip(), None
    depth = int(relevance) if isinstance(relevance, int | float) and not isinstance(relevance, bool) else 0
    return normalize(name), depth if 1 <= depth <= 3 else DEFAULT_RELEVANCE


__all__ = ["KIND_ITEMS", "AriGraphQA", "ParagraphReader", "merge"]
