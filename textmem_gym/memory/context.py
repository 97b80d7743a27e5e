"""What a graph memory returns for a question within a token budget: :class:`GraphContext`.

Every graph memory (AriGraph, STMA, DAVIS) answers ``context(question, budget)`` with the same
machinery: lines, most relevant first, each said once, until the budget is full. The order:

1. **routes**: the known route between the locations the question names, in the order named
   (``route from kitchen to garden: east, north (through corridor)``);
2. **the time asked about**: for a question about the past (``was``, ``were``, ``before``,
   ``previously``, ``earlier``, ``used to``), the facts of the question's entities believed at the
   earliest step it names (``At step 160: Where was the knife at step 83...`` asks about step 83),
   or, when it names no earlier step, their facts no longer believed, the most recent first;
3. **the architecture's retrieval** for the question (AriGraph: Algorithm 1; STMA: the ``K``-hop
   subgraph of its Algorithm 1; DAVIS: the subgraph around the two entities it chooses, newest
   first), one fact per line (``knife, is on, table``), the facts about the question's entities
   first (where they are first, then the newest);
4. **the current state**: the current location and its unexplored exits, then every other
   believed fact, nearest the question's entities first (hops in the believed graph), then nearest
   the current location, then newest; then the other rooms' unexplored exits;
5. **the architecture's notes** (AriGraph: the episodes it retrieved, equation (1); STMA: the
   temporal belief; DAVIS: facts of its temporal KG that are not believed triples: rewards, the
   world model's facts around the question);
6. **the past**: facts no longer believed, with the steps they were believed
   (``knife, was on, table (steps 3-10)``), nearest the question's entities first, most recent first;
7. **the episodes**: the step's action and observation (``step 12 in kitchen: > take knife | ...``),
   those naming a question entity (or spent in one) first, then the others, most recent first (a
   step the game refused is left out: it teaches nothing, and its command may name what the game
   never printed).

The question's entities are the believed graph's names it contains (the longest name at each
place; directions and values such as ``open`` are not entities). A spatial fact and its inverse
(``kitchen, is north of, hall`` and ``hall, is south of, kitchen``) are one fact: the first shown
stands for both. Lines are made lazily, as far as the budget asked needs; a memory keeps them per
question until its content changes, so the four budgets of a probe cost one ranking.

Example:
    >>> from textmem_gym.memory.arigraph.memory import AriGraphMemory
    >>> memory = AriGraphMemory()
    >>> memory.update("-= Kitchen =-\\nYou see a table. You see a knife on the table.", "", {})
    >>> memory.update("You take the knife from the table.", "take knife from table", {})
    >>> memory.update("-= Hall =-\\nYou see a chest.", "go north", {})
    >>> for line in memory.context("Where was the knife before?", 44):
    ...     print(line)
    knife, was on, table (steps 0-1)
    knife, is in, inventory
    Current location: hall
    chest, is at, hall
    hall, is north of, kitchen
    table, is at, kitchen
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Protocol

from textmem_gym.memory.budget import LINE_OVERHEAD, count_tokens, fit_budget
from textmem_gym.memory.retrieval import Episode, one_line, passage_text
from textmem_gym.memory.semantic import (
    DIRECTIONS,
    HAS_EXIT,
    LOCATION_RELATIONS,
    Triple,
    TripleKey,
    TripleStore,
    inverse_spatial,
)

#: Words saying a question asks about the past.
PAST_WORDS: tuple[str, ...] = ("was", "were", "before", "previously", "earlier", "used to")
_PAST = re.compile(r"\b(?:" + "|".join(PAST_WORDS) + r")\b", re.I)
_STEP = re.compile(r"\bstep\s+(\d+)\b", re.I)
_FAR = 1 << 20  # the distance of what is not connected
#: Episodes shown before the current state when the believed graph holds nothing about the question.
EARLY_EPISODES = 3


@dataclass(frozen=True)
class Focus:
    """What a question is about.

    Attributes:
        entities: The believed graph's names the question contains, in the order said.
        past: Whether it asks about the past.
        time: The step it asks about (``None``: now, or the past in general).
    """

    entities: tuple[str, ...] = ()
    past: bool = False
    time: int | None = None


def asked_time(question: str, now: int) -> tuple[bool, int | None]:
    """``(past, step)``: whether ``question`` asks about the past and the step it asks about (the
    earliest step it names, when earlier than ``now``).

    Example:
        >>> asked_time("At step 160: Where was the knife at step 83, before it was moved?", 160)
        (True, 83)
        >>> asked_time("At step 160: Where is the knife?", 160), asked_time("Where was it before?", 9)
        ((False, None), (True, None))
    """
    if not _PAST.search(question):
        return False, None
    steps = [int(n) for n in _STEP.findall(question)]
    return True, (min(steps) if steps and min(steps) < now else None)


class EntityNames:
    """Finds known entity names in a text: the longest name at each place, as whole words.

    Example:
        >>> EntityNames(["apple", "red apple", "fridge"]).find("Is the red apple in the Fridge?")
        ['red apple', 'fridge']
    """

    def __init__(self, names: Iterable[str]) -> None:
        ordered = sorted({n for n in names if len(n) > 1}, key=lambda n: (-len(n), n))
        self._pattern = (re.compile(r"(?<![\w-])(?:" + "|".join(map(re.escape, ordered)) + r")(?![\w-])")
                         if ordered else None)

    def find(self, text: str) -> list[str]:
        """The names in ``text``, once each, in the order found."""
        if self._pattern is None:
            return []
        return list(dict.fromkeys(m.group(0) for m in self._pattern.finditer(text.lower())))


class ContextSource(Protocol):
    """What :class:`GraphContext` reads of a graph memory (:class:`~textmem_gym.memory.graph_memory.GraphMemory`)."""

    store: TripleStore
    location: str | None
    step: int
    max_episode_chars: int

    def unexplored_exits(self) -> dict[str, list[str]]:
        """Room -> its exits whose destination is unknown."""

    def known_locations(self) -> list[str]:
        """The rooms the memory knows."""

    def route(self, start: str, goal: str) -> list[tuple[str, str]] | None:
        """The shortest known path, ``[(direction, room reached)]``."""

    def search_episodes(self, query: str, k: int) -> list[Episode]:
        """The ``k`` readable episodes whose text best matches ``query`` (BM25), best first."""

    def readable_episodes(self) -> list[Episode]:
        """The episodes whose observation is not only the parser's refusal, oldest first."""


def past_relation(relation: str) -> str:
    """``relation`` said of the past (``is`` -> ``was``, ``are`` -> ``were``, ``has`` -> ``had``; others
    as they are: the validity steps beside it say when).

    Example:
        >>> past_relation("is on"), past_relation("is"), past_relation("has exit"), past_relation("requires")
        ('was on', 'was', 'had exit', 'requires')
    """
    for now, then in (("is", "was"), ("are", "were"), ("has", "had")):
        if relation == now or relation.startswith(now + " "):
            return then + relation[len(now):]
    return relation


def fact_line(triple: Triple) -> str:
    """One fact as a line: ``s, r, o`` while believed; ``s, was r, o (steps a-b)`` once it is not.

    Example:
        >>> fact_line(Triple(0, "knife", "is on", "table", 3, 10))
        'knife, was on, table (steps 3-10)'
        >>> fact_line(Triple(1, "knife", "is in", "inventory", 10))
        'knife, is in, inventory'
    """
    if triple.end is None:
        return triple.text()
    return f"{triple.subject}, {past_relation(triple.relation)}, {triple.object} (steps {triple.start}-{triple.end})"


def episode_line(episode: Episode, chars: int) -> str:
    """One episode as a line: its step, where it happened, the action and the observation (cut to ``chars``).

    Example:
        >>> episode_line(Episode(4, "take knife", "You take the knife.", [], "kitchen"), 600)
        'step 4 in kitchen: > take knife | You take the knife.'
    """
    where = f" in {episode.location}" if episode.location else ""
    return f"step {episode.step}{where}: {passage_text(one_line(episode.observation)[:chars], episode.action)}"


def hop_distances(store: TripleStore, sources: Sequence[str], values: frozenset[str]) -> dict[str, int]:
    """Hops from ``sources`` to every entity of the believed graph that can be reached, along
    believed triples in either direction (not through the objects of ``values`` relations: a state
    such as ``open`` joins nothing)."""
    distance = {source: 0 for source in sources}
    queue = deque(sources)
    while queue:
        vertex = queue.popleft()
        for triple in store.incident(vertex):
            if triple.relation in values:
                continue
            for other in (triple.subject, triple.object):
                if other not in distance:
                    distance[other] = distance[vertex] + 1
                    queue.append(other)
    return distance


class GraphContext:
    """The lines of one memory's context for one question (see the module docstring), made as far as
    a budget needs.

    Args:
        memory: The graph memory (its state must not change while this object is used).
        question: The question.
        retrieval: Makes the architecture's retrieval for the question: believed triples (its order)
            and its notes (lines shown after the current state); called once, when first needed.
        names: The entity names of the memory (:class:`EntityNames`).
        values: Relations whose object is a value, not an entity.
    """

    def __init__(self, memory: ContextSource, question: str,
                 retrieval: Callable[[], tuple[Sequence[Triple], Sequence[str]]], names: EntityNames,
                 values: frozenset[str]) -> None:
        self.memory, self.question, self.values = memory, question, values | {HAS_EXIT}
        past, time = asked_time(question, memory.step)
        self.focus = Focus(tuple(n for n in names.find(question) if n not in DIRECTIONS), past, time)
        self._retrieval = retrieval
        self._shown: set[tuple[TripleKey, int | None]] = set()
        self._lines: list[str] = []
        self._said: set[str] = set()
        self._tokens = 0
        self._source: Iterator[str] = self._all_lines()
        self._near: dict[str, int] | None = None
        self._around: dict[str, int] | None = None

    def lines(self, budget: int) -> list[str]:
        """The context within ``budget`` tokens (:func:`~textmem_gym.memory.budget.fit_budget`)."""
        while self._tokens <= budget:
            line = next(self._source, None)
            if line is None:
                break
            if line and line not in self._said:
                self._said.add(line)
                self._lines.append(line)
                self._tokens += count_tokens(line) + LINE_OVERHEAD
        return fit_budget(self._lines, budget)

    # -- ranking -------------------------------------------------------------------------
    def near(self) -> dict[str, int]:
        """Hops from the question's entities."""
        if self._near is None:
            self._near = hop_distances(self.memory.store, self.focus.entities, self.values)
        return self._near

    def around(self) -> dict[str, int]:
        """Hops from the current location."""
        if self._around is None:
            location = self.memory.location
            self._around = hop_distances(self.memory.store, [location] if location else [], self.values)
        return self._around

    def _distance(self, hops: dict[str, int], triple: Triple) -> int:
        subject = hops.get(triple.subject, _FAR)
        return subject if triple.relation in self.values else min(subject, hops.get(triple.object, _FAR))

    def _about(self, triple: Triple) -> int:
        """0: the triple's subject is a question entity; 1: its object is; 2: neither."""
        entities = self.focus.entities
        return 0 if triple.subject in entities else 1 if triple.object in entities else 2

    # -- sections ------------------------------------------------------------------------
    def _all_lines(self) -> Iterator[str]:
        yield from self._routes()
        yield from self._facts(self._asked())
        retrieved, notes = self._retrieval()
        if not self.focus.entities:  # the graph names nothing of the question: what was seen of it first
            yield from self._matching_episodes(EARLY_EPISODES)
        yield from self._facts(sorted((t for t in retrieved if self._about(t) == 0),
                                      key=lambda t: (t.relation not in LOCATION_RELATIONS, t.inferred, -t.id)))
        yield from self._facts(sorted((t for t in retrieved if self._about(t)),
                                      key=lambda t: (self._about(t), t.inferred)))
        yield from self._state()
        yield from notes
        store = self.memory.store
        near = self.near()
        past = (t for t in store if t.end is not None)
        yield from self._facts(sorted(past, key=lambda t: (self._distance(near, t), -(t.end or 0), t.inferred, -t.id)))
        yield from self._episodes()

    def _facts(self, triples: Iterable[Triple]) -> Iterator[str]:
        for triple in triples:
            key = (triple.key, triple.end)
            if key in self._shown:
                continue
            self._shown.add(key)
            inverse = inverse_spatial(triple.key)
            if inverse is not None:
                self._shown.add((inverse, triple.end))
            yield fact_line(triple)

    def _routes(self) -> Iterator[str]:
        rooms = set(self.memory.known_locations())
        named = [e for e in self.focus.entities if e in rooms]
        for start, goal in zip(named, named[1:]):
            path = self.memory.route(start, goal)
            if path:
                through = [room for _, room in path[:-1]]
                way = f" (through {', '.join(through)})" if through else ""
                yield f"route from {start} to {goal}: {', '.join(d for d, _ in path)}{way}"

    def _asked(self) -> list[Triple]:
        """The question entities' facts at the time asked about (section 2)."""
        focus = self.focus
        if not focus.past:
            return []
        store, found = self.memory.store, []
        for entity in focus.entities:
            history = store.history(entity)
            if focus.time is None:
                chosen = sorted((t for t in history if t.end is not None), key=lambda t: (-(t.end or 0), -t.id))
            else:
                time = focus.time
                chosen = [t for t in history if t.start <= time and (t.end is None or time < t.end)]
                chosen.sort(key=lambda t: (t.subject != entity, t.relation not in LOCATION_RELATIONS, -t.id))
            found += chosen
        return found

    def _state(self) -> Iterator[str]:
        """The current location, its unexplored exits, the believed facts ranked, the other exits (section 4)."""
        location = self.memory.location
        unexplored = self.memory.unexplored_exits()
        yield f"Current location: {location or 'unknown'}"
        if location in unexplored:
            yield f"Unexplored exits of {location}: {', '.join(unexplored[location])}"
        near, around = self.near(), self.around()
        believed = self.memory.store.active()
        yield from self._facts(sorted(believed, key=lambda t: (self._distance(near, t), self._distance(around, t),
                                                               t.inferred, -t.id)))
        for room, directions in unexplored.items():
            if room != location:
                yield f"Unexplored exits of {room}: {', '.join(directions)}"

    def _matching_episodes(self, k: int) -> Iterator[str]:
        """The ``k`` episodes whose text best matches the question (BM25), best first."""
        chars = self.memory.max_episode_chars
        for episode in self.memory.search_episodes(_STEP.sub(" ", self.question), k):
            yield episode_line(episode, chars)

    def _episodes(self) -> Iterator[str]:
        """The episodes naming (or spent in) a question entity, most recent first; then those matching
        the question's words, best first; then the others, most recent first (section 7)."""
        episodes = self.memory.readable_episodes()
        entities = set(self.focus.entities)
        names = EntityNames(entities)
        chars = self.memory.max_episode_chars

        def about(episode: Episode) -> bool:
            return episode.location in entities or bool(names.find(episode.action + "\n" + episode.observation))

        for episode in reversed(episodes):
            if entities and about(episode):
                yield episode_line(episode, chars)
        yield from self._matching_episodes(len(episodes))
        for episode in reversed(episodes):
            yield episode_line(episode, chars)


__all__ = ["EARLY_EPISODES", "PAST_WORDS", "ContextSource", "EntityNames", "Focus", "GraphContext", "asked_time",
           "episode_line", "fact_line", "hop_distances", "past_relation"]
