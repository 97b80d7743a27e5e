"""AriGraph memory: semantic triples with validity intervals plus episodic vertices and edges.

Updating (section 2): the extractor reads the step; outdated triples are looked for among
those incident to the new triples' entities and invalidated (never deleted); the new triples
are added (spatial ones with their inverse, marked inferred); an episodic vertex holds the
observation and its episodic edge links every triple extracted at that step.
Retrieval (Algorithm 1): semantic search (Algorithm 2, BFS of depth ``depth`` taking the
``width`` most similar triples per hop) then episodic search (equation (1), top ``episodes``).

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

import json
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import networkx as nx

from textmem_gym.memory.base import UpdateStats
from textmem_gym.memory.episodic import Episode, EpisodicMemory
from textmem_gym.memory.export import draw_memory, memory_graph
from textmem_gym.memory.extractors import Extractor, make_extractor
from textmem_gym.memory.retrieval import SimilarityIndex, make_index
from textmem_gym.memory.spatial import SpatialMap, inverse_spatial
from textmem_gym.memory.triples import Triple, TripleKey, TripleStore, normalize

FORMAT = "textmem-arigraph"


@dataclass
class Retrieval:
    """Result of Algorithm 1.

    Attributes:
        triples: Retrieved semantic triples, in the order found.
        episodes: Retrieved episodic vertices with their equation (1) score, best first.
    """

    triples: list[Triple] = field(default_factory=list)
    episodes: list[tuple[Episode, float]] = field(default_factory=list)


class AriGraphMemory:
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
        for label, value in (("depth", depth), ("width", width), ("episodes", episodes)):
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise ValueError(f"{label} must be a non-negative int, got {value!r}")
        self.extractor = make_extractor(extractor, **(extractor_options or {}))
        self.extractor_name = extractor if isinstance(extractor, str) else type(extractor).__name__
        self._similarity, self._similarity_options = similarity, dict(similarity_options or {})
        self.depth, self.width, self.episodes_k, self.max_episode_chars = depth, width, episodes, max_episode_chars
        self.version = self.retrievals = 0
        self.reset()

    # -- lifecycle -----------------------------------------------------------------------
    def reset(self) -> None:
        """Empties the memory (new episode)."""
        self.store = TripleStore()
        self.episodic = EpisodicMemory()
        self.index = make_index(self._similarity, **self._similarity_options)
        self.step = -1
        self.location: str | None = None
        self.stats = UpdateStats()
        self._changed()
        self.extractor.reset()

    def _changed(self) -> None:
        """Forgets what was derived from the content, and moves :attr:`version` on."""
        self._derived: dict[str, Any] = {}
        self.version += 1

    def update(self, observation: str, action: str, info: dict[str, Any]) -> None:
        """Learns from one step: extraction, outdated-triple replacement, episodic vertex."""
        self.step += 1
        extraction = self.extractor.extract(observation, action, info, self.store)
        named = (t for t in extraction.triples if all(str(x).strip() for x in t))
        new: list[TripleKey] = list(dict.fromkeys((normalize(s), normalize(r), normalize(o)) for s, r, o in named))
        inverses = (inverse_spatial(t) for t in new)
        inferred = [inv for inv in inverses if inv is not None and inv not in new]
        entities = {e for s, _, o in new + inferred for e in (s, o)}
        incident = {t.id: t for e in entities for t in self.store.incident(e)}
        outdated = {t.id for t in self.extractor.outdated(list(incident.values()), new + inferred)}
        outdated |= {tid for key in extraction.outdated if (tid := self.store.find(*key)) is not None}
        keep = set(new) | set(inferred)
        invalidated = 0
        for tid in sorted(outdated):
            if self.store.triples[tid].as_tuple() not in keep and self.store.invalidate(tid, self.step):
                self.index.remove(tid)
                invalidated += 1
        before = len(self.store.triples)
        ids = [self._add(t, inferred=False) for t in new]
        for t in inferred:
            self._add(t, inferred=True)
        self.episodic.add(self.step, action, observation, ids)
        if extraction.location:
            self.location = normalize(extraction.location)
        self.stats = UpdateStats(len(self.store.triples) - before, invalidated, len(self.store),
                                 len(self.store.triples), len(self.episodic))
        self._changed()

    def _add(self, triple: TripleKey, *, inferred: bool) -> int:
        existed = self.store.find(*triple)
        tid = self.store.add(*triple, step=self.step, inferred=inferred)
        if existed is None:
            self.index.add(tid, self.store.triples[tid].text())
        return tid

    def invalidate(self, subject: str, relation: str, obj: str) -> bool:
        """Stops believing a triple now (e.g. a route the game refused); returns whether it
        was believed."""
        tid = self.store.find(subject, relation, obj)
        if tid is None or not self.store.invalidate(tid, max(self.step, 0)):
            return False
        self.index.remove(tid)
        self._changed()
        return True

    # -- retrieval -----------------------------------------------------------------------
    def semantic_search(self, query: str, depth: int | None = None, width: int | None = None) -> list[Triple]:
        """Algorithm 2: BFS from ``query``; each hop keeps the ``width`` most similar triples
        (a vertex query also scores the triples incident to that vertex)."""
        depth = self.depth if depth is None else depth
        width = self.width if width is None else width
        found: dict[int, Triple] = {}
        distance = {query: 0}
        queue = deque([query])
        while queue:
            current = queue.popleft()
            if distance[current] >= depth:
                continue
            candidates = [t.id for t in self.store.incident(current)]
            for tid, _ in self.index.search(current, width, candidates):
                triple = self.store.triples[tid]
                found.setdefault(tid, triple)
                for vertex in (triple.subject, triple.object):
                    if vertex not in distance:
                        distance[vertex] = distance[current] + 1
                        queue.append(vertex)
        return list(found.values())

    def retrieve(self, query: str | list[str], *, depth: int | None = None, width: int | None = None,
                 episodes: int | None = None) -> Retrieval:
        """Algorithm 1: semantic search for each query, then episodic search on the union."""
        self.retrievals += 1
        queries = [query] if isinstance(query, str) else list(query)
        triples: dict[int, Triple] = {}
        for q in queries:
            for t in self.semantic_search(q, depth, width):
                triples.setdefault(t.id, t)
        k = self.episodes_k if episodes is None else episodes
        return Retrieval(list(triples.values()), self.episodic.search(triples, k))

    # -- views ---------------------------------------------------------------------------
    def believed_triples(self) -> list[TripleKey]:
        """Triples believed now, oldest first."""
        return [t.as_tuple() for t in self.store.active()]

    @property
    def spatial(self) -> SpatialMap:
        """The believed map."""
        return SpatialMap(self.store)

    def known_locations(self) -> list[str]:
        """Rooms the memory knows (including the current one)."""
        if "locations" not in self._derived:
            rooms = set(self.spatial.locations())
            if self.location:
                rooms.add(self.location)
            self._derived["locations"] = sorted(rooms)
        return list(self._derived["locations"])

    def unexplored_exits(self) -> dict[str, list[str]]:
        """Algorithm 3 for every known room: exits whose destination is unknown."""
        if "unexplored" not in self._derived:
            exits = {room: self.spatial.unexplored_exits(room) for room in self.known_locations()}
            self._derived["unexplored"] = {room: dirs for room, dirs in exits.items() if dirs}
        return {room: list(dirs) for room, dirs in self._derived["unexplored"].items()}

    def route(self, start: str, goal: str) -> list[tuple[str, str]] | None:
        """Shortest known path from ``start`` to ``goal`` (see :class:`SpatialMap`)."""
        return self.spatial.route(start, goal)

    def door(self, room: str, direction: str) -> tuple[str, str | None] | None:
        """``(door, believed state)`` on the exit of ``room`` towards ``direction``, if any."""
        return self.spatial.door(room, direction)

    def render(self, query: str | list[str] | None = None) -> str:
        """Prompt text: location, unexplored exits, then the retrieved triples and episodes
        for ``query`` (every believed triple when ``query`` is ``None``)."""
        return self.render_retrieval(None if query is None else self.retrieve(query))

    def render_retrieval(self, found: Retrieval | None) -> str:
        """:meth:`render` of a retrieval already made (every believed triple when ``found`` is ``None``)."""
        lines = [f"Current location: {self.location or 'unknown'}"]
        unexplored = self.unexplored_exits()
        if unexplored:
            lines.append("Unexplored exits: " + "; ".join(f"{r}: {', '.join(d)}" for r, d in unexplored.items()))
        triples, episodes = (self.store.active(), []) if found is None else (found.triples, found.episodes)
        lines.append("Known facts: " + "; ".join(t.text() for t in triples))
        for episode, _ in episodes:
            text = " ".join(episode.observation.split())[: self.max_episode_chars]
            lines.append(f"Memory of step {episode.step} (after '{episode.action}'): {text}")
        return "\n".join(lines)

    def to_networkx(self, *, history: bool = False, episodic: bool = False) -> nx.MultiDiGraph:
        """The semantic graph (invalidated edges too with ``history``; episodic vertices and
        edges with ``episodic``)."""
        return memory_graph(self, history=history, episodic=episodic)

    def draw(self, path: str | Path, **options: Any) -> Path:
        """Writes a PNG picture of the believed graph (matplotlib)."""
        return draw_memory(self, path, **options)

    # -- persistence ---------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        """The whole memory as JSON-ready data."""
        return {"format": FORMAT, "version": 1, "step": self.step, "location": self.location,
                "config": {"depth": self.depth, "width": self.width, "episodes": self.episodes_k},
                "stats": self.stats.as_dict(), "triples": self.store.to_json(),
                "episodes": self.episodic.to_json()}

    def save(self, path: str | Path) -> None:
        """Writes the memory as JSON (no pickle); parent directories are created."""
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        Path(path).write_text(json.dumps(self.to_json(), indent=1), encoding="utf-8")

    def load(self, path: str | Path) -> None:
        """Replaces the content by a memory written with :meth:`save` (same configuration)."""
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        if data.get("format") != FORMAT:
            raise ValueError(f"{path} is not a saved AriGraph memory")
        self.reset()
        self.store = TripleStore.from_json(data["triples"])
        self.episodic = EpisodicMemory.from_json(data["episodes"])
        for triple in self.store.active():
            self.index.add(triple.id, triple.text())
        self.step, self.location = data["step"], data["location"]
        self._changed()
        self.stats = UpdateStats(**data["stats"])
        if hasattr(self.extractor, "location"):
            self.extractor.location = self.location
