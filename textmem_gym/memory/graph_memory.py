"""The graph parts every memory architecture shares: :class:`GraphMemory`.

AriGraph, STMA and DAVIS are siblings built on this class (none subclasses another). It holds
the believed state that the wrapper, the macro actions and the exports read, and updates it
the same way for all of them:

- semantic memory: a :class:`~textmem_gym.memory.semantic.TripleStore` (triples with validity
  intervals: invalidated, never deleted) and a similarity index of the believed triples;
- episodic memory: an :class:`~textmem_gym.memory.retrieval.EpisodicMemory` vertex per step,
  linked to the triples extracted at that step;
- the believed map (:class:`~textmem_gym.memory.semantic.SpatialMap`): known locations, the
  current location, unexplored exits, routes and doors;
- exports: ``networkx`` graph, PNG picture, JSON (``to_json``/``save``/``load``).

One update: the step passes the memory hygiene (:class:`Hygiene`, below: a refused
command is not read, only counted; a triple naming an entity the game never printed is dropped);
the extractor reads the step; outdated triples are looked for among those incident
to the new triples' entities and invalidated; the new triples are added (spatial ones with their
inverse, marked inferred); an episodic vertex holds the observation and links every triple
extracted at that step. The step's own (not inferred) triples stay in :attr:`GraphMemory.step_triples`
for an architecture that records more (DAVIS's temporal KG).

The default :meth:`GraphMemory.retrieve` is the semantic retrieval of AriGraph's Algorithm 1
(semantic search, Algorithm 2, then episodic search, equation (1)); an architecture with its own
retrieval overrides it. Each architecture writes its own :meth:`render`.

Example:
    >>> from textmem_gym.memory.arigraph.memory import AriGraphMemory
    >>> memory = AriGraphMemory()
    >>> memory.update("-= Hall =-\\nYou see a chest. There is an exit to the north.", "", {})
    >>> memory.known_locations(), memory.unexplored_exits(), memory.step_triples
    (['hall'], {'hall': ['north']}, [('chest', 'is at', 'hall'), ('hall', 'has exit', 'north')])

**Memory hygiene**: what enters a memory comes from the game's text. Two rules, applied by
:class:`GraphMemory` to every step of every architecture (AriGraph, STMA, DAVIS) and every
extractor that reads text (``rules``, ``llm``; the privileged ``oracle`` reads facts and is left alone):

1. **A refused command teaches nothing.** An observation made only of the parser's refusals
   ("You can't see any such thing.", "That's not a verb I recognise.", ``I don't know the word
   "dragon".``, "No known action matches that input.") is not read at all: the memory keeps the
   step as an episode and counts the failure (:attr:`Hygiene.failures`, command per location),
   nothing else. A refusal followed by real text (a game that re-describes the room after
   "You can't go up from here!") has only the text after the refusal read.
2. **No entity the game never mentioned.** Each entity of an extracted triple must have been
   printed by the game in this episode (any observation so far, or the task text), as a phrase
   (``wooden door``; a plural ``s`` allowed), unless it is structural vocabulary (``inventory``,
   ``agent``, compass directions) or a name the backend's text parser builds from its text
   (NetHack's positions, :meth:`~textmem_gym.memory.extractors.base.TextParser.builds`). A phrase
   joining mentioned names with a preposition (``apple in fridge``, an action's object) counts as
   mentioned. Objects of value relations (``is`` open, ``needs to be`` sliced, ``says`` <text>) are
   values, not entities. Names the player typed (``examine dragon``) never pass on their own.

Refusals are recognised by their sentences (:data:`REFUSALS`, the usual parser messages of
Inform, Infocom and TextWorld games, ScienceWorld, TextWorld Express, the NetHack env and games
whose narrator speaks in character); the list is data, not a rule per game.

    >>> hygiene = Hygiene()
    >>> hygiene.read("-= Kitchen =-\\nYou see a table. A knife is on the table.", "look", {})
    '-= Kitchen =-\\nYou see a table. A knife is on the table.'
    >>> hygiene.read("You can't see any such thing.", "examine dragon", {}) is None
    True
    >>> hygiene.keep([("knife", "is on", "table"), ("dragon", "is at", "kitchen"), ("table", "is", "sturdy")])
    [('knife', 'is on', 'table'), ('table', 'is', 'sturdy')]
    >>> hygiene.failures, hygiene.dropped
    (1, 1)
"""

from __future__ import annotations

import json
import re
from collections import Counter, deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from operator import attrgetter
from pathlib import Path
from typing import Any, cast

import networkx as nx

from textmem_gym.memory.base import UpdateStats
from textmem_gym.memory.context import EntityNames, GraphContext, episode_line
from textmem_gym.memory.export import draw_memory, memory_graph
from textmem_gym.memory.extractors import Extraction, Extractor, TextParser, make_extractor
from textmem_gym.memory.protocol import CountsFailures
from textmem_gym.memory.retrieval import BM25Index, Episode, EpisodicMemory, SimilarityIndex, make_index, one_line
from textmem_gym.memory.semantic import (
    DIRECTIONS,
    INVENTORY,
    IS,
    SpatialMap,
    Triple,
    TripleKey,
    TripleStore,
    inverse_spatial,
    normalize,
)

#: The ``format`` of a saved graph memory (every architecture's JSON export shares it).
FORMAT = "textmem-arigraph"


@dataclass
class Retrieval:
    """Result of the semantic retrieval (AriGraph's Algorithm 1).

    Attributes:
        triples: Retrieved semantic triples, in the order found.
        episodes: Retrieved episodic vertices with their equation (1) score, best first.
    """

    triples: list[Triple] = field(default_factory=list)
    episodes: list[tuple[Episode, float]] = field(default_factory=list)


def _check_counts(**counts: int) -> None:
    for label, value in counts.items():
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise ValueError(f"{label} must be a non-negative int, got {value!r}")


class GraphMemory:
    """Semantic triples with validity intervals, episodic vertices, the believed map and exports.

    Args:
        extractor: ``"rules"``, ``"llm"``, ``"oracle"`` or an extractor object.
        extractor_options: Arguments of the named extractor (e.g. ``ask`` or ``client`` for ``llm``).
        similarity: ``"bm25"`` (default), ``"sentence-transformers"``, ``"openai"`` or an index.
        similarity_options: Arguments of the named similarity (``model_path``, ``model``...).
        depth: Semantic search depth ``d``.
        width: Semantic search width ``w``.
        episodes: Number ``k`` of episodic vertices retrieved.
        max_episode_chars: Observation characters shown per retrieved episode.

    Attributes:
        name: The architecture's name in the entry-point group ``textmem_gym.memories``
            (:func:`~textmem_gym.memory.registry.available_memories`).
        version: Changes whenever the content changes (update, invalidation, reset, load), so
            a caller can keep what it derived from the memory until then.
        retrievals: How many times :meth:`retrieve` ran (since the memory was built).
        step_triples: The triples the last update read (not the inferred inverses), in order.
    """

    name = "graph"
    #: The ``failures`` part, set only over an extractor that asks a model (see :meth:`__init__`).
    failed_updates: Counter[str]

    @property
    def privileged(self) -> frozenset[str]:
        """The privileged ``info`` keys it reads (its ``privileged`` part): ``{"facts"}`` with an
        extractor that reads facts rather than text (the ``oracle``), else none."""
        return frozenset() if self.extractor.reads_text else frozenset({"facts"})

    def __init__(self, extractor: str | Extractor = "rules", *, extractor_options: dict[str, Any] | None = None,
                 similarity: str | SimilarityIndex = "bm25", similarity_options: dict[str, Any] | None = None,
                 depth: int = 2, width: int = 5, episodes: int = 2, max_episode_chars: int = 600):
        _check_counts(depth=depth, width=width, episodes=episodes)
        self.extractor = make_extractor(extractor, **(extractor_options or {}))
        self.extractor_name = extractor if isinstance(extractor, str) else type(extractor).__name__
        if isinstance(self.extractor, CountsFailures):  # detected once: an extractor that asks a model
            self.failed_updates = self.extractor.failed_updates  # the ``failures`` part, not offered otherwise
        self._similarity, self._similarity_options = similarity, dict(similarity_options or {})
        self.depth, self.width, self.episodes_k, self.max_episode_chars = depth, width, episodes, max_episode_chars
        self.version = self.retrievals = 0
        self.hygiene = Hygiene()
        self.reset()

    # -- lifecycle -----------------------------------------------------------------------
    def reset(self) -> None:
        """Empties the memory (new episode)."""
        self.store = TripleStore()
        self.episodic = EpisodicMemory()
        self.index = make_index(self._similarity, **self._similarity_options)
        self.step = -1
        self.location: str | None = None
        self.stats = UpdateStats(added=0, invalidated=0, believed=0, total=0, episodes=0)
        self.step_triples: list[TripleKey] = []
        self._new_caches()
        self._changed()
        self.extractor.reset()
        self.hygiene.reset()

    def _new_caches(self) -> None:
        """What is derived from the store: searches (kept per revision) and the map (per map revision)."""
        self._graph_cache = GraphCache(self.store)
        self._map_cache = GraphCache(self.store, revision=attrgetter("map_revision"))
        self._contexts: tuple[int, dict[str, GraphContext]] = (-1, {})
        self._episode_index: tuple[EpisodicMemory, BM25Index, list[Episode], list[int]] = (
            self.episodic, BM25Index(), [], [0])
        self._names: tuple[int, EntityNames] = (-1, EntityNames(()))

    def _changed(self) -> None:
        """Moves :attr:`version` on (what was derived from the believed graph is kept by
        :class:`GraphCache` until the graph itself changes)."""
        self.version += 1

    def use_parser(self, parser: TextParser | None) -> None:
        """Reads the game's text with ``parser`` from now on: the env backend's own reading
        (:attr:`~textmem_gym.envs.text_game.TextGameEnv.text_parser`), handed to the extractor;
        ``None``: the generic text-adventure reading."""
        self.extractor.use_parser(parser)
        self.hygiene.builds = None if parser is None else parser.builds

    def update(self, observation: str, action: str, info: dict[str, Any]) -> None:
        """Learns from one step: extraction, outdated-triple replacement, episodic vertex."""
        self.step += 1
        extraction = self._extract(observation, action, info)
        keys = ((normalize(s), normalize(r), normalize(o)) for s, r, o in extraction.triples)
        new: list[TripleKey] = list(dict.fromkeys(key for key in keys if key[0] and key[1] and key[2]))
        if self.extractor.reads_text:
            new = self.hygiene.keep(new)
        stated = set(new)
        inverses = (inverse_spatial(t) for t in new)
        inferred = [inv for inv in inverses
                    if inv is not None and inv not in stated and not self._walked_elsewhere(inv)]
        before = len(self.store.triples)
        invalidated = self._invalidate_outdated(new, inferred, extraction.outdated)
        ids = [self._add(t, inferred=False) for t in new]
        for t in inferred:
            self._add(t, inferred=True)
        if extraction.location:
            self.location = normalize(extraction.location)
        self.episodic.add(self.step, action, observation, ids, self.location)
        self.step_triples = new
        self.stats = UpdateStats(added=len(self.store.triples) - before, invalidated=invalidated,
                                 believed=len(self.store), total=len(self.store.triples), episodes=len(self.episodic))
        self._changed()

    def _walked_elsewhere(self, inverse: TripleKey) -> bool:
        """Whether a walk, not an inference, already led from ``inverse``'s room the other way to
        another room: the way back is one-way (Karn's TARDIS: ``west`` from the console room leads to
        the clearing, ``east`` from the clearing to the rocky trail), so the inverse is not believed."""
        end, relation, start = inverse
        return any(t.relation == relation and t.object == start and t.subject != end and not t.inferred
                   for t in self.store.incident(start))

    def _extract(self, observation: str, action: str, info: dict[str, Any]) -> Extraction:
        """The extractor's reading of the step, or nothing when the game refused the command."""
        if not self.extractor.reads_text:
            return self.extractor.extract(observation, action, info, self.store)
        readable = self.hygiene.read(observation, action, info, self.location)
        if readable is None:
            return Extraction(location=self.location)
        return self.extractor.extract(readable, action, info, self.store)

    def _invalidate_outdated(self, new: list[TripleKey], inferred: list[TripleKey],
                             stated: list[TripleKey]) -> int:
        """Invalidates the believed triples the new ones replace (asked of the extractor among
        those incident to their entities) and those the step showed false; returns how many."""
        entities = {e for s, _, o in new + inferred for e in (s, o)}
        incident = {t.id: t for e in entities for t in self.store.incident(e)}
        outdated = {t.id for t in self.extractor.outdated(list(incident.values()), new + inferred)}
        outdated |= {tid for key in stated if (tid := self.store.find(*key)) is not None}
        keep = set(new) | set(inferred)
        invalidated = 0
        for tid in sorted(outdated):
            if self.store.triples[tid].as_tuple() not in keep and self.store.invalidate(tid, self.step):
                self.index.remove(tid)
                invalidated += 1
        return invalidated

    def _add(self, triple: TripleKey, *, inferred: bool) -> int:
        tid, new = self.store.add_key(triple, self.step, inferred=inferred)
        if new:
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
        cache = self._graph_cache.get()
        key = ("semantic search", query, depth, width)
        if key not in cache:
            cache[key] = self._search(query, depth, width, cache)
        return list(cache[key])

    def _search(self, query: str, depth: int, width: int, cache: dict[Any, Any]) -> list[Triple]:
        """:meth:`semantic_search` itself; each hop's search is kept in ``cache`` (hops repeat
        across queries: the vertices met are the same few rooms and things)."""
        found: dict[int, Triple] = {}
        distance = {query: 0}
        queue = deque([query])
        while queue:
            current = queue.popleft()
            if distance[current] >= depth:
                continue
            hop = ("hop", current, width)
            if hop not in cache:
                candidates = [t.id for t in self.store.incident(current)]
                cache[hop] = [tid for tid, _ in self.index.search(current, width, candidates)]
            for tid in cache[hop]:
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

    # -- recall as text -------------------------------------------------------------------
    def render(self, query: str | list[str] | None = None) -> str:
        """The memory as prompt text, relevant to ``query`` when given: AriGraph's (location, unexplored
        exits, then the triples and episodes :meth:`retrieve` finds for ``query``, every believed triple
        when ``query`` is ``None``); an architecture with another rendering (STMA, DAVIS) writes its own."""
        return self.render_retrieval(None if query is None else self.retrieve(query))

    def render_retrieval(self, found: Retrieval | None) -> str:
        """:meth:`render` of a retrieval already made (every believed triple when ``found`` is ``None``).

        Example:
            >>> from textmem_gym.memory.arigraph.memory import AriGraphMemory
            >>> memory = AriGraphMemory()
            >>> memory.update("-= Hall =-\\nYou see a chest.", "", {})
            >>> print(memory.render_retrieval(None))
            Current location: hall
            Known facts: chest, is at, hall
        """
        lines = [f"Current location: {self.location or 'unknown'}"]
        unexplored = self.unexplored_exits()
        if unexplored:
            lines.append("Unexplored exits: " + "; ".join(f"{r}: {', '.join(d)}" for r, d in unexplored.items()))
        triples, episodes = (self.store.active(), []) if found is None else (found.triples, found.episodes)
        lines.append("Known facts: " + "; ".join(t.text() for t in triples))
        for episode, _ in episodes:
            text = one_line(episode.observation)[: self.max_episode_chars]
            lines.append(f"Memory of step {episode.step} (after '{episode.action}'): {text}")
        return "\n".join(lines)

    def context(self, question: str, budget: int) -> list[str]:
        """Lines for ``question`` within ``budget`` tokens, most relevant first, each said once
        (:mod:`~textmem_gym.memory.context`): routes between the places it names, the facts at the time
        it asks about, this architecture's retrieval (:meth:`context_retrieval`), the current state
        ranked by nearness to the question's entities and to the current location, the architecture's
        notes, the past with its validity steps, then the episodes. The ranking is kept per question
        until the memory changes (the probes ask each question at several budgets).

        Example:
            >>> from textmem_gym.memory.arigraph.memory import AriGraphMemory
            >>> memory = AriGraphMemory()
            >>> memory.update("-= Hall =-\\nYou see a chest.", "", {})
            >>> memory.context("where is the chest?", 64)
            ['chest, is at, hall', 'Current location: hall', 'step 0 in hall: -= Hall =- You see a chest.']
            >>> memory.context("where is the chest?", 7)
            ['chest, is at, hall']
        """
        if budget <= 0:
            return []
        version, contexts = self._contexts
        if version != self.version or len(contexts) > 256:
            contexts = {}
            self._contexts = (self.version, contexts)
        if question not in contexts:
            contexts[question] = GraphContext(self, question, lambda: self.context_retrieval(question),
                                              self._entity_names(), VALUE_RELATIONS)
        return contexts[question].lines(budget)

    def context_retrieval(self, question: str) -> tuple[list[Triple], list[str]]:
        """What this architecture retrieves for ``question`` in its :meth:`context`: believed triples
        (shown first, in this order, those about the question's entities first) and notes (lines
        shown after the current state). Here AriGraph's Algorithm 1: the semantic search's triples and
        the episodes of equation (1)."""
        found = GraphMemory.retrieve(self, question)
        return found.triples, [episode_line(e, self.max_episode_chars) for e, _ in found.episodes]

    def readable_episodes(self) -> list[Episode]:
        """The episodes whose observation is not only the parser's refusal (:func:`is_refusal`: a refused
        command teaches nothing, and its command may name what the game never printed), oldest first."""
        self._index_episodes()
        return list(self._episode_index[2])

    def search_episodes(self, query: str, k: int) -> list[Episode]:
        """The ``k`` :meth:`readable_episodes` whose place, action and observation best match ``query``
        (BM25), best first; the index reads the episodes added since the last search (none is read
        while nobody searches)."""
        self._index_episodes()
        _, index, readable, _ = self._episode_index
        return [readable[number] for number, score in index.search(query, k) if score > 0]

    def _index_episodes(self) -> None:
        """Brings the episode index up to the episodes added since it was last read."""
        episodic, index, readable, indexed = self._episode_index
        if episodic is not self.episodic:
            episodic, index, readable, indexed = self._episode_index = (self.episodic, BM25Index(), [], [0])
        episodes = episodic.episodes
        for episode in episodes[indexed[0]:]:
            if not is_refusal(episode.observation):
                index.add(len(readable), f"{episode.location or ''} {episode.action} {episode.observation}")
                readable.append(episode)
        indexed[0] = len(episodes)

    def _entity_names(self) -> EntityNames:
        """The names of every entity ever believed (not values), kept while no triple is added."""
        count, names = self._names
        if count != len(self.store.triples):
            entities = {t.subject for t in self.store}
            entities |= {t.object for t in self.store if t.relation not in VALUE_RELATIONS}
            names = EntityNames(entities - VOCABULARY | {INVENTORY})
            self._names = (len(self.store.triples), names)
        return names

    # -- views ---------------------------------------------------------------------------
    def believed_triples(self) -> list[TripleKey]:
        """Triples believed now, oldest first."""
        return [t.as_tuple() for t in self.store.active()]

    def triple_history(self) -> list[Triple]:
        """Every triple ever believed with its validity interval (``start``, ``end``), oldest first."""
        return list(self.store.triples)

    def episodes(self) -> list[Episode]:
        """The episodic vertices (one per update: action and observation), oldest first."""
        return list(self.episodic.episodes)

    @property
    def spatial(self) -> SpatialMap:
        """The believed map."""
        return SpatialMap(self.store)

    def known_locations(self) -> list[str]:
        """Rooms the memory knows (including the current one)."""
        cache = self._map_cache.get()
        if "locations" not in cache:
            cache["locations"] = self.spatial.locations()
        rooms: list[str] = cache["locations"]
        if not self.location or self.location in rooms:
            return list(rooms)
        return sorted([*rooms, self.location])

    def unexplored_exits(self) -> dict[str, list[str]]:
        """Algorithm 3 for every known room: exits whose destination is unknown."""
        cache = self._map_cache.get()
        if "unexplored" not in cache:
            cache["unexplored"] = self.spatial.all_unexplored_exits()
        return {room: list(dirs) for room, dirs in cache["unexplored"].items()}

    def route(self, start: str, goal: str) -> list[tuple[str, str]] | None:
        """Shortest known path from ``start`` to ``goal`` (see :class:`SpatialMap`)."""
        return self.spatial.route(start, goal)

    def door(self, room: str, direction: str) -> tuple[str, str | None] | None:
        """``(door, believed state)`` on the exit of ``room`` towards ``direction``, if any."""
        return self.spatial.door(room, direction)

    # -- exports -------------------------------------------------------------------------
    def to_networkx(self, *, history: bool = False, episodic: bool = False) -> nx.MultiDiGraph:
        """The semantic graph (invalidated edges too with ``history``; episodic vertices and
        edges with ``episodic``)."""
        return memory_graph(self, history=history, episodic=episodic)

    def draw(self, path: str | Path, **options: Any) -> Path:
        """Writes a PNG picture of the believed graph (matplotlib)."""
        return draw_memory(self, path, **options)

    def to_json(self) -> dict[str, Any]:
        """The whole memory as JSON-ready data."""
        return {"format": FORMAT, "version": 1, "step": self.step, "location": self.location,
                "config": {"depth": self.depth, "width": self.width, "episodes": self.episodes_k},
                "stats": dict(self.stats), "triples": self.store.to_json(),
                "episodes": self.episodic.to_json()}

    def save(self, path: str | Path) -> None:
        """Writes the memory as JSON (no pickle); parent directories are created."""
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        Path(path).write_text(json.dumps(self.to_json(), indent=1), encoding="utf-8")

    def load(self, path: str | Path) -> None:
        """Replaces the believed state and the episodic vertices by those of a memory written
        with :meth:`save` (same configuration)."""
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        if data.get("format") != FORMAT:
            raise ValueError(f"{path} is not a saved AriGraph memory")
        self.reset()
        self.store = TripleStore.from_json(data["triples"])
        self.episodic = EpisodicMemory.from_json(data["episodes"])
        for triple in self.store.active():
            self.index.add(triple.id, triple.text())
        self.step, self.location = data["step"], data["location"]
        self.hygiene.know(self.store.entities())
        self._new_caches()
        self._changed()
        self.stats = cast(UpdateStats, dict(data["stats"]))
        self.extractor.location = self.location


class GraphCache:
    """What is derived from the believed graph of ``store`` (semantic searches, the map), kept
    while the set of believed triples stays the same (:attr:`~textmem_gym.memory.semantic.TripleStore.revision`,
    or another of its revisions: ``map_revision`` for what only the map's triples make).

    Most steps of a game re-assert what the memory already believes (the same room described
    again): their map and searches are those of the step before.

    Args:
        store: The triple store the values are derived from.
        max_entries: The cache is emptied when it holds this many values (distinct queries).
        revision: The store's revision that says when the values are out of date (default: ``revision``).

    Example:
        >>> from textmem_gym.memory.semantic import TripleStore
        >>> store = TripleStore()
        >>> cache = GraphCache(store)
        >>> cache.get()["rooms"] = ["hall"]
        >>> "rooms" in cache.get()
        True
        >>> _ = store.add("chest", "is at", "hall", 0)
        >>> "rooms" in cache.get()
        False
    """

    def __init__(self, store: TripleStore, max_entries: int = 4096,
                 revision: Callable[[TripleStore], int] = attrgetter("revision")) -> None:
        self.store, self.max_entries, self.revision = store, max_entries, revision
        self._revision = revision(store)
        self._values: dict[Any, Any] = {}

    def get(self) -> dict[Any, Any]:
        """The values derived from the current believed graph (a dict to read and fill)."""
        revision = self.revision(self.store)
        if self._revision != revision or len(self._values) >= self.max_entries:
            self._revision = revision
            self._values = {}
        return self._values


# ---- memory hygiene ----

#: Sentences a game prints when it refused or did not understand a command (matched whole,
#: case-insensitive, after the sentence's closing punctuation is removed).
REFUSALS: tuple[str, ...] = (
    r"you can'?t see any(?:thing| such thing| \S.*? here)",
    r"you (?:can'?t|cannot|don'?t|do not) see (?:that|it|them|any such thing)(?: here)?",
    r"(?:that'?s|that is) not (?:a verb|something) (?:I|you) (?:recogni[sz]e|can \S.*)",
    r"I don'?t know the word .+",
    r"I (?:didn'?t|did not|don'?t|do not) understand(?: that| what you mean| your command)?(?: sentence)?",
    r"I only understood you as far as .+",
    r"you used the word .+ in a way that I don'?t understand",
    r"I beg your pardon",
    r"you can'?t go (?:that way|\S+(?: from)? here)",
    r"there is no way to go \S+(?: from here)?",
    r"no known action matches that input",
    r"unknown action:? .*",
    r"I'?m not sure what you mean",
    r"(?:those things|that|it|they) (?:aren'?t|isn'?t|are not|is not) here",
    r"what do you want to .+",
    r"you (?:aren'?t|are not|'re not) holding (?:that|it|them|the .+)",
    r"you (?:need|have) to be holding .+ first",
    r"you don'?t have (?:that|it|them|any such thing)",
    r"you seem to want to talk to someone, but I can'?t see whom",
    r"you can'?t use multiple objects with that verb",
    r"(?:it'?s|it is) not clear what you'?re referring to",
    r"\w+ not (?:see|know|understand)\b.*",
    r"skill '[^']*' \(0 keys\): stopped: .*",
)
#: Refusals that go on with help text (every sentence after them belongs to the refusal).
REFUSAL_MESSAGES: tuple[str, ...] = (
    r"'[^']*' is not an? \S+ command\b.*",
)
_REFUSAL = re.compile(r"^(?:" + "|".join(REFUSALS) + r")$", re.I)
_MESSAGE = re.compile(r"^(?:" + "|".join(REFUSAL_MESSAGES) + r")$", re.I | re.S)
_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
_CLOSING = re.compile(r"[\s.!?\"']+$")
#: Names every memory may use without the game printing them.
VOCABULARY: frozenset[str] = frozenset({INVENTORY, "agent", "you", "player", "me", "itself", "here", "i", "p",
                                        *DIRECTIONS})
#: Relations whose object is a value (a state, a property, a text), not an entity.
VALUE_RELATIONS: frozenset[str] = frozenset({IS, "needs to be", "says", "is said to be", "increased score by"})
_JOINERS = re.compile(r"\s+(?:in|into|on|onto|from|with|to|at|of|under|inside|using)\s+(?:the\s+|a\s+|an\s+)?")
_ARTICLE = re.compile(r"^(?:the|a|an|some)\s+")


@lru_cache(maxsize=4096)
def refusal_sentences(observation: str) -> tuple[int, str]:
    """``(refused sentences at the start, the text after them)`` (kept per text: games repeat themselves).

    Example:
        >>> refusal_sentences("You can't go up from here! << Outside >> You are outside.")
        (1, '<< Outside >> You are outside.')
        >>> refusal_sentences('I don\\'t know the word "dragon".')
        (1, '')
    """
    text = observation.strip()
    if _MESSAGE.match(text):
        return 1, ""
    count = 0
    while text:
        parts = _SENTENCE.split(text, maxsplit=1)
        if not _REFUSAL.match(_CLOSING.sub("", parts[0].strip())):
            break
        count += 1
        text = parts[1].strip() if len(parts) > 1 else ""
    return count, text


def is_refusal(observation: str) -> bool:
    """Whether ``observation`` is nothing but the parser's refusal.

    Example:
        >>> is_refusal("That's not a verb I recognise."), is_refusal("Taken.")
        (True, False)
    """
    count, rest = refusal_sentences(observation)
    return count > 0 and not rest


class Hygiene:
    """Keeps refusals and never-mentioned names out of a memory (see the module docstring).

    Args:
        builds: Names the backend's text parser builds from its text (``name -> bool``;
            default: none).

    Attributes:
        failures: Steps whose observation was a refusal (this episode).
        failed: Location -> commands the game refused there (this episode), in order.
        dropped: Triples dropped for naming an entity the game never mentioned (this episode).
    """

    def __init__(self, builds: Callable[[str], bool] | None = None) -> None:
        self.builds = builds
        self.reset()

    def reset(self) -> None:
        """New episode: forgets the text seen and the counts."""
        self._text: list[str] = []
        self._mentioned: set[str] = set(VOCABULARY)
        self._printed_names: set[str] = set()
        self._kept: set[TripleKey] = set()  # triples kept this episode (every name mentioned)
        self._scanned: dict[str, int] = {}  # name not printed -> texts already searched for it
        self.failures = self.dropped = 0
        self.failed: dict[str, list[str]] = {}

    def read(self, observation: str, action: str, info: dict[str, Any], location: str | None = None) -> str | None:
        """The part of ``observation`` an extractor may read (``None``: a refusal, nothing to
        read; the failure is counted at ``location``); the text joins what the game said."""
        objective = info.get("objective")
        if objective and not self._text:
            self._text.append(_flat(str(objective)))
        count, rest = refusal_sentences(observation)
        if count and not rest:
            self.failures += 1
            self.failed.setdefault(location or "", []).append(action)
            return None
        self._text.append(_flat(rest))
        return observation if not count else rest

    def know(self, names: Iterable[str]) -> None:
        """Accepts ``names`` as mentioned (the entities of a memory loaded from a file)."""
        self._mentioned.update(normalize(n) for n in names)

    def mentioned(self, name: str) -> bool:
        """Whether the game printed ``name`` (or it is vocabulary, or the parser builds it)."""
        name = normalize(name)
        if name in self._mentioned:
            return True
        found = self._printed(name) or bool(self.builds and self.builds(name)) or self._joined(name)
        if found:
            self._mentioned.add(name)
        return found

    def _printed(self, name: str) -> bool:
        """Whether the game printed ``name``; each text is searched once per name (a name found
        stays found, one not found is looked for in the newer texts only)."""
        bare = _ARTICLE.sub("", name)
        if not bare:
            return False
        if bare in self._printed_names:
            return True
        pattern = _name_pattern(bare)
        texts = self._text
        if any(pattern.search(texts[i]) for i in range(len(texts) - 1, self._scanned.get(bare, 0) - 1, -1)):
            self._printed_names.add(bare)
            self._scanned.pop(bare, None)
            return True
        self._scanned[bare] = len(texts)
        return False

    def _joined(self, name: str) -> bool:
        parts = [p for p in _JOINERS.split(name) if p]
        return len(parts) > 1 and all(self._printed(p) or p in self._mentioned for p in parts)

    def keep(self, triples: Iterable[TripleKey]) -> list[TripleKey]:
        """The triples whose entities the game mentioned; the others are counted in :attr:`dropped`."""
        kept = []
        for subject, relation, obj in triples:
            if (subject, relation, obj) in self._kept:  # its names were mentioned: they stay mentioned
                kept.append((subject, relation, obj))
                continue
            entities = (subject,) if normalize(relation) in VALUE_RELATIONS else (subject, obj)
            if all(self.mentioned(e) for e in entities):
                kept.append((subject, relation, obj))
                self._kept.add((subject, relation, obj))
            else:
                self.dropped += 1
        return kept


@lru_cache(maxsize=4096)
def _name_pattern(name: str) -> re.Pattern[str]:
    """``name`` as a whole phrase of a text, a plural ``s`` allowed (kept per name)."""
    return re.compile(rf"(?<![\w-]){re.escape(name)}(?:e?s)?(?![\w-])")


@lru_cache(maxsize=4096)
def _flat(text: str) -> str:
    """Lower case, spaces collapsed within each line (a name never spans two lines)."""
    return "\n".join(" ".join(line.split()) for line in text.lower().splitlines())
