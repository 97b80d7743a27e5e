"""AriGraph memory: semantic triples with validity intervals plus episodic vertices and edges.

AriGraph is the shared graph memory (:class:`~textmem_gym.memory.graph_memory.GraphMemory`) as
the paper uses it. Updating (section 2): the extractor reads the step; outdated triples are
looked for among those incident to the new triples' entities and invalidated (never deleted);
the new triples are added (spatial ones with their inverse, marked inferred); an episodic vertex
holds the observation and its episodic edge links every triple extracted at that step.
Retrieval (Algorithm 1): semantic search (Algorithm 2, BFS of depth ``depth`` taking the
``width`` most similar triples per hop) then episodic search (equation (1), top ``episodes``).
Rendering (:meth:`~textmem_gym.memory.graph_memory.GraphMemory.render`, the shared graph memory's):
location, unexplored exits, the retrieved triples, then the retrieved episodes.

Example:
    >>> memory = AriGraphMemory()
    >>> memory.reset()
    >>> memory.update("-= Kitchen =-\\nYou see a table. You see a knife on the table.", "", {})
    >>> memory.update("You take the knife from the table.", "take knife from table", {})
    >>> memory.believed_triples()
    [('table', 'is at', 'kitchen'), ('knife', 'is in', 'inventory')]
    >>> [(t.object, t.start, t.end) for t in memory.store.history("knife")]
    [('table', 0, 1), ('inventory', 1, None)]
    >>> [t.text() for t in memory.retrieve("knife").triples][:1]
    ['knife, is in, inventory']
"""

from __future__ import annotations

from typing import Any

from textmem_gym.memory.extractors import Extractor
from textmem_gym.memory.graph_memory import FORMAT, GraphMemory, Retrieval
from textmem_gym.memory.retrieval import SimilarityIndex

__all__ = ["FORMAT", "AriGraphMemory", "Retrieval"]


class AriGraphMemory(GraphMemory):
    """The AriGraph world model.

    Args:
        extractor: ``"rules"``, ``"llm"``, ``"oracle"`` or an extractor object.
        extractor_options: Arguments of the named extractor (e.g. ``ask`` or ``client`` for ``llm``).
        similarity: ``"bm25"`` (default), ``"sentence-transformers"``, ``"openai"`` or an index.
        similarity_options: Arguments of the named similarity (``model_path``, ``model``...).
        depth: Semantic search depth ``d``.
        width: Semantic search width ``w``.
        episodes: Number ``k`` of episodic vertices retrieved.
        max_episode_chars: Observation characters shown per retrieved episode in :meth:`render`.

    Attributes:
        version: Changes whenever the content changes (update, invalidation, reset, load), so
            a caller can keep what it derived from the memory until then.
        retrievals: How many times :meth:`retrieve` ran (since the memory was built).
        failed_updates: Only with an extractor that asks a model (``llm``): its failed updates by cause
            (:attr:`~textmem_gym.memory.arigraph.extraction.LLMExtractor.failed_updates`), the ``failures``
            part, in memory-bench's ``failed`` column. A ``rules`` or ``oracle`` memory asks no model and
            cannot fail so: it does not offer the part, and its column says ``-`` (not counted), not 0.

    Example:
        >>> memory = AriGraphMemory(depth=1, width=3)
        >>> memory.reset()
        >>> memory.update("-= Hall =-\\nYou see a chest. There is an exit to the north.", "", {})
        >>> memory.unexplored_exits()
        {'hall': ['north']}
    """

    name = "arigraph"

    def __init__(self, extractor: str | Extractor = "rules", *, extractor_options: dict[str, Any] | None = None,
                 similarity: str | SimilarityIndex = "bm25", similarity_options: dict[str, Any] | None = None,
                 depth: int = 2, width: int = 5, episodes: int = 2, max_episode_chars: int = 600):
        super().__init__(extractor, extractor_options=extractor_options, similarity=similarity,
                         similarity_options=similarity_options, depth=depth, width=width, episodes=episodes,
                         max_episode_chars=max_episode_chars)
