"""Probe questions generated from the privileged facts and the trajectory, one generator per kind.

At a chosen agent decision (step ``s``), :func:`generate_questions` asks each generator of
:data:`GENERATORS` for its candidate questions and keeps at most ``per_kind`` of each kind, drawn
with a :class:`random.Random` seeded by the seed, the kind and the step (so the same replay gives
the same questions in any process). A question's text starts with its step (``At step 10: ...``).
Every question but ``abstention`` is about what the agent has seen by step ``s``:
a thing never named in an observation up to ``s`` is never asked about, and a fact counts only once
the text showed it, as the belief metric counts it: by the tracker the backend's text parser gives
(:class:`~textmem_gym.memory.ground_truth.ObservedTruth` for TextWorld's facts; ScienceWorld's counts a
thing's place once a description listed it or a sentence moved it there, never on arriving in a room
the text did not describe), in the names the text printed (:class:`NamesAsPrinted`: ``red apple``, not
the fact's ``apple``). Answers are strings scored by the QA scorer with MuSiQue's rule (the
best of the answer and its aliases).

Questions are well posed: one gold answer per question text. A name the true state holds (or has
held) in several places (ScienceWorld's air, water and sinks, Zork's two baskets) is never asked about,
nor is what is in or on a holder of such a name (:attr:`Snapshot.ambiguous`); names are said as
the game prints them, without a leading article (NetHack's ``a purple-red potion`` is asked as
``Where is the purple-red potion?``, :func:`bare`).

========== =========================================== ==================================================
kind       question                                    answer
========== =========================================== ==================================================
location   Where is the X?                             its holder now: a room, container, supporter or
                                                       ``inventory`` (aliases ``on the table``...)
contents   What is in / on the Y?                      the things there, sorted, comma-separated (asked
                                                       only when the agent has seen all of them)
path       How do I get from the A to the B?           the whole direction sequence of a shortest path in
                                                       the true map (``east, north``; every shortest path
                                                       is an alias); asked when the walked map holds one
actions    What did I do in the R?                     the commands sent there up to ``s``, moves left
                                                       out, first occurrence kept, in order
changes    What changed since step k?                  the seen facts that became true (``now: ...``) and
                                                       stopped being true (``no longer: ...``) since the
                                                       previous probe step ``k`` (containment and states)
recipe     What ingredients does the recipe need?      the cookbook's ingredients in its order, once the
                                                       agent has read it (Cooking games)
state-     Where was the X at step k, before it was    its holder at step ``k``: the last step before its
history    moved?                                      last move, when the agent had seen it there
counting   How many times did I enter the R / open     a number (aliases: the word): entries into R (a
           the Y?                                      step ending in R after one elsewhere; the start
                                                       does not count), or steps after which Y became open
abstention Where is the X? (X never named so far)      ``unknown`` (aliases ``i don't know``...): X is a
                                                       thing of the true state never named in an
                                                       observation; naming any place is wrong
long-      Where is the X? (X last named >= 200 steps  its holder, as ``location``: the thing was last
horizon    before)                                     named in an observation :data:`HORIZON` or more
                                                       steps before, and its place has not changed since
two-hop    What is in the container in the room <d>    the things in (on) the one container (supporter)
           of the R? / in the container in the R?      of that room, sorted, when all were seen
========== =========================================== ==================================================

The kinds read only the true state in the memory vocabulary (:func:`~textmem_gym.memory.ground_truth.map_facts`:
``is at``, ``is in``, ``is on``, ``is``, ``is <direction> of``), so a backend whose facts are mapped
there is probed the same way. A question's :attr:`ProbeQuestion.targets` say what answer recall looks
for (:mod:`textmem_gym.qa.probes.recall`): by default its answers; for answers listing several
things (contents, two-hop, recipe, actions) all of them. Its :attr:`ProbeQuestion.candidates` are
what first-mention accuracy reads: the gold answers, then the rivals a context could give instead
(``location``, ``long-horizon``, ``state-history``, ``abstention``: every holder the thing has had
so far and every place named so far; ``contents``, ``two-hop``: every thing that has been in or on
the holder so far); :attr:`ProbeQuestion.neutral` are the names the reading skips (the thing or
holder asked about, and the places that hold the gold holder).

Example:
    >>> snapshot = Snapshot(step=3, room="kitchen", truth={("knife", "is on", "table"), ("table", "is at", "kitchen")},
    ...                     seen={("knife", "is on", "table"), ("table", "is at", "kitchen")},
    ...                     text="-= kitchen =- you see a table. on the table is a knife.")
    >>> [q.question for q in location_questions(snapshot, snapshot)]
    ['At step 3: Where is the knife?', 'At step 3: Where is the table?']
    >>> location_questions(snapshot, snapshot)[0].answers
    ('table', 'on table', 'on the table')
    >>> location_questions(snapshot, snapshot)[0].candidates, location_questions(snapshot, snapshot)[0].neutral
    (('table', 'on table', 'on the table'), ('knife', 'kitchen'))
"""

from __future__ import annotations

import random
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Protocol, runtime_checkable

from textmem_gym.loading import declared_names, load_object, lookup
from textmem_gym.memory.belief_metrics import AlignsNames
from textmem_gym.memory.ground_truth import ObservedTruth, Truth
from textmem_gym.memory.oracle.truth import direction_graph, recipe_ingredients, shortest_paths
from textmem_gym.memory.semantic import (
    AT,
    IN,
    INVENTORY,
    IS,
    LOCATION_RELATIONS,
    ON,
    TripleKey,
    relation_direction,
)
from textmem_gym.qa.data import QAExample
from textmem_gym.qa.probes.replay import Replay

#: The QA scorer rule probe answers are scored with (the best over the answer and its aliases).
SCORING_RULE = "musique"
#: Commands that move the player (left out of the ``actions`` answers).
_MOVES = re.compile(r"^(?:go\s+)?(?:north|south|east|west|up|down|northeast|northwest|southeast|southwest|[nsewud])$")
#: How a location relation is said before its holder.
_PREPOSITION = {AT: "in", IN: "in", ON: "on"}
#: Steps a ``long-horizon`` fact must have gone unmentioned before the question.
HORIZON = 200
#: The answers to an ``abstention`` question (the gold first).
UNKNOWN_ANSWERS = ("unknown", "i don't know", "i do not know", "not known", "i have not seen it")
#: A leading article of a name as the game prints it (``a purple-red potion``, ``the troll room``).
_ARTICLE = re.compile(r"^(?:a|an|the|some)\s+", re.IGNORECASE)
_NUMBERS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven",
            "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty")


@dataclass(frozen=True)
class ProbeQuestion:
    """One generated question.

    Attributes:
        id: Stable within a replay: kind and subject (``location:knife``, ``path:kitchen>garden``).
        kind: A key of :data:`GENERATORS`.
        step: The agent decision it is asked at.
        question: The text asked (with a hint of the answer's form).
        answers: The gold answer, then its aliases.
        args: What structural answers read (``thing``, ``holder``, ``relation``, ``start``, ``goal``...).
        parts: For an answer listing things, the things (answer recall wants all of them).
        candidates: What first-mention accuracy reads: the gold answers (:attr:`gold`) first, then the
            rivals a context could name instead (no rival: first mention is answer recall).
        neutral: Names the first-mention reading skips (the thing or holder asked about, the places
            holding the gold).
    """

    id: str
    kind: str
    step: int
    question: str
    answers: tuple[str, ...]
    args: dict[str, Any] = field(default_factory=dict)
    parts: tuple[str, ...] = ()
    candidates: tuple[str, ...] = ()
    neutral: tuple[str, ...] = ()

    @property
    def gold(self) -> tuple[str, ...]:
        """The right candidates: the things listed (:attr:`parts`) when given, else the answers and aliases."""
        return self.parts or self.answers

    @property
    def rivals(self) -> tuple[str, ...]:
        """The candidates that are not gold (compared as given; the reader also drops those that
        normalise like a gold one)."""
        gold = set(self.gold)
        return tuple(c for c in self.candidates if c not in gold)

    @property
    def targets(self) -> list[tuple[str, ...]]:
        """What answer recall looks for: all :attr:`parts` when given, else any one answer or alias."""
        return [self.parts] if self.parts else [(answer,) for answer in self.answers]

    @property
    def dataset(self) -> str:
        """The QA scorer rule (:data:`SCORING_RULE`): :func:`textmem_gym.qa.scoring.score` reads it."""
        return SCORING_RULE

    def as_example(self) -> QAExample:
        """The question as a :class:`~textmem_gym.qa.data.QAExample` (no paragraphs), for QA tools
        such as the stand-in reader."""
        return QAExample(f"{self.id}@{self.step}", SCORING_RULE, self.question, self.answers, (), (), 1, self.kind)


@dataclass
class Snapshot:
    """What is true and what the agent has seen after one agent decision.

    Attributes:
        step: The agent decision (0: the reset).
        room: The player's room (true).
        truth: The true state in the memory vocabulary (:func:`~textmem_gym.memory.ground_truth.map_facts`).
        seen: Every true triple the agent has observed so far.
        text: Every observation so far, lower case (what "mentioned" is checked against).
        actions: ``(room, command)`` of every command sent so far.
        rooms: Rooms the agent has been in so far.
        recipe: The recipe's ingredients in order, when the agent has read it.
        said: This decision's observations, lower case.
        earlier: The snapshots of the decisions before, in order (``[]``: none kept).
        aligned: The truth tracker aligns names (:class:`~textmem_gym.memory.belief_metrics.AlignsNames`:
            Jericho's text prints ``table`` for the tree's ``kitchen table``), so a name is also ambiguous
            when it ends another one held elsewhere (:attr:`ambiguous_now`).
    """

    step: int
    room: str | None
    truth: set[TripleKey]
    seen: set[TripleKey]
    text: str = ""
    actions: list[tuple[str, str]] = field(default_factory=list)
    rooms: list[str] = field(default_factory=list)
    recipe: list[str] = field(default_factory=list)
    said: str = ""
    earlier: list[Snapshot] = field(default_factory=list, repr=False)
    aligned: bool = False

    @cached_property
    def ambiguous_now(self) -> frozenset[str]:
        """Names (:func:`bare`) the true state holds in more than one place now; with :attr:`aligned`,
        also a name whose words end another name held elsewhere (Zork's attic ``table`` and the
        ``kitchen table`` the text prints as ``the table``: the text gives both one name).

        Example:
            >>> truth = {("table", "is at", "attic"), ("kitchen table", "is at", "kitchen"), ("sword", "is at", "hall")}
            >>> Snapshot(1, "attic", truth, set()).ambiguous_now
            frozenset()
            >>> Snapshot(1, "attic", truth, set(), aligned=True).ambiguous_now
            frozenset({'table'})
        """
        held = [(bare(s), o) for s, r, o in self.truth if r in LOCATION_RELATIONS]
        counts = Counter(name for name, _ in held)
        names = {name for name, count in counts.items() if count > 1}
        if self.aligned:
            names |= {name for name, place in held for other, elsewhere in held
                      if other.endswith(" " + name) and elsewhere != place}
        return frozenset(names)

    @cached_property
    def ambiguous(self) -> frozenset[str]:
        """Names (:func:`bare`) the true state holds, or has held, in more than one place: never asked
        about (one of two book shelves lost from ScienceWorld's facts leaves a name the text and the
        memory still give to two things)."""
        names = set(self.ambiguous_now)
        for earlier in reversed(self.earlier):  # the nearest one already worked out ends the walk
            if "ambiguous" in vars(earlier):
                return frozenset(names | earlier.ambiguous)
            names |= earlier.ambiguous_now
        return frozenset(names)

    def unique(self, name: str) -> bool:
        """``name`` is held in one place at most (not :attr:`ambiguous`)."""
        return bare(name) not in self.ambiguous

    @cached_property
    def held(self) -> dict[tuple[str, str], set[str]]:
        """``(holder, relation) -> things`` in / on it in the true state (``is in``, ``is on``)."""
        held: dict[tuple[str, str], set[str]] = defaultdict(set)
        for thing, relation, holder in self.truth:
            if relation in (IN, ON):
                held[(holder, relation)].add(thing)
        return held

    def ancestors(self, place: str) -> list[str]:
        """The places holding ``place`` in the true state, transitively (a table's room; every room
        holding one of several tables)."""
        found: list[str] = []
        todo = [place]
        while todo:
            current = todo.pop()
            for holder in sorted(o for s, r, o in self.truth if s == current and r in LOCATION_RELATIONS):
                if holder not in found and holder != place:
                    found.append(holder)
                    todo.append(holder)
        return found

    @cached_property
    def named_places(self) -> tuple[str, ...]:
        """Every room and holder of the true state named in an observation so far (``inventory`` too)."""
        return tuple(p for p in _places(self.truth) if self.mentioned(p))

    def mentioned(self, name: str) -> bool:
        """``name`` appears in an observation so far (``inventory`` always counts)."""
        return name == INVENTORY or _names(name, self.text)

    def said_now(self, name: str) -> bool:
        """``name`` appears in this decision's observations."""
        return _names(name, self.said)

    @cached_property
    def holders(self) -> dict[str, tuple[str, str]]:
        """Thing -> ``(location relation, holder)`` in the true state."""
        return {s: (r, o) for s, r, o in sorted(self.truth) if r in LOCATION_RELATIONS}

    @property
    def chain(self) -> list[Snapshot]:
        """:attr:`earlier`, then this snapshot."""
        return [*self.earlier, self]

    @property
    def observed(self) -> set[TripleKey]:
        """The true triples now that the agent has seen."""
        return self.truth & self.seen


def bare(name: str) -> str:
    """A name without its leading article, as a question says it after ``the``.

    Example:
        >>> bare("a purple-red potion"), bare("the troll room"), bare("table")
        ('purple-red potion', 'troll room', 'table')
    """
    return _ARTICLE.sub("", name)


def _names(name: str, text: str) -> bool:
    return re.search(rf"(?<![\w-]){re.escape(name.lower())}(?![\w-])", text) is not None


@dataclass
class Timeline:
    """The snapshots of a replay, by agent decision."""

    snapshots: list[Snapshot]

    def at(self, step: int) -> Snapshot:
        """The snapshot after decision ``step``."""
        return self.snapshots[step]


@runtime_checkable
class NamesAsPrinted(Protocol):
    """A truth tracker whose text names things otherwise than its facts do (ScienceWorld prints the fact
    ``apple`` as ``red apple``, and lists a table's contents ``On the table is:``): the state a question
    reads is said the way the text said it, as the memories believe it and as the tracker counts it seen."""

    def as_printed(self, truth: set[TripleKey]) -> set[TripleKey]:
        """``truth`` (the facts mapped) in the names and relations the text has printed so far."""


def _state(reader: Truth, facts: Sequence[Any], printed: NamesAsPrinted | None) -> tuple[set[TripleKey], str | None]:
    """The true state after a step in the tracker's vocabulary (in the names the text printed when
    ``printed``, the tracker as :class:`NamesAsPrinted`, is given), and the player's room."""
    state, room = reader.map_facts(facts)
    return (printed.as_printed(state) if printed is not None else state), room


def build_timeline(replay: Replay, truth: Truth | None = None) -> Timeline:
    """One :class:`Snapshot` per agent decision of ``replay``; ``truth`` is the tracker the backend's
    text parser gives (``None``: TextWorld's predicates, :class:`~textmem_gym.memory.ground_truth.ObservedTruth`).

    What the agent has seen is what that tracker counts as shown by the text (ScienceWorld's: a thing's
    place once a description listed it, not on arriving in a room the text did not describe), as belief
    accuracy counts it: a question is asked only about a fact the game printed.
    """
    reader = truth if truth is not None else ObservedTruth()
    reader.reset()
    aligned = isinstance(reader, AlignsNames)
    printed = reader if isinstance(reader, NamesAsPrinted) else None  # detected once, as ``aligned`` is
    snapshots: list[Snapshot] = []
    text: list[str] = []
    actions: list[tuple[str, str]] = []
    rooms: list[str] = []
    room: str | None = None
    recipe: list[str] = []
    said: list[str] = []
    for step in replay.steps:
        if step.command:
            actions.append((room or "", step.command))
        reader.step(step.facts, step.command, step.observation)
        state, room = _state(reader, step.facts, printed)
        text.append(step.observation.lower())
        said.append(step.observation.lower())
        if room and room not in rooms:
            rooms.append(room)
        if not recipe and "ingredients" in step.observation.lower():
            recipe = recipe_ingredients(step.facts)
        if step.last:
            snapshots.append(Snapshot(step.decision, room, state, set(reader.seen), "\n".join(text), list(actions),
                                      list(rooms), list(recipe), "\n".join(said), list(snapshots), aligned))
            said = []
    return Timeline(snapshots)


# -- generators ----------------------------------------------------------------------------------


def ask(snapshot: Snapshot, ident: str, text: str, answers: Sequence[str], args: dict[str, Any] | None = None,
        parts: Sequence[str] = (), rivals: Sequence[str] = (), neutral: Sequence[str] = ()) -> ProbeQuestion:
    """A question asked after ``snapshot``'s step (its text says when: ``At step 10: ...``); its kind
    is the id's prefix. Its candidates are its gold answers (``parts``, else ``answers``), then
    ``rivals``.

    Example:
        >>> ask(Snapshot(10, None, set(), set()), "recipe", "What does the recipe need?", ["salt"]).question
        'At step 10: What does the recipe need?'
    """
    candidates = tuple(dict.fromkeys([*(parts or answers), *rivals]))
    return ProbeQuestion(ident, ident.split(":", 1)[0], snapshot.step, f"At step {snapshot.step}: {text}",
                         tuple(answers), dict(args or {}), tuple(parts), candidates, tuple(dict.fromkeys(neutral)))


#: ``(snapshot, previous) -> candidate questions``: ``previous`` is the snapshot of the previous probe step
#: (the reset's for the first).
Generator = Callable[[Snapshot, Snapshot], list[ProbeQuestion]]


def _rooms(truth: set[TripleKey]) -> set[str]:
    return {x for s, r, o in truth if relation_direction(r) for x in (s, o)} | {o for _, r, o in truth if r == AT}


def location_answers(relation: str, holder: str) -> tuple[str, ...]:
    """A holder and the ways of saying it (``table``, ``on table``, ``on the table``).

    Example:
        >>> location_answers("is in", "inventory")
        ('inventory', 'in inventory', 'in my inventory', 'carried', 'i am carrying it')
    """
    if holder == INVENTORY:
        return (INVENTORY, "in inventory", "in my inventory", "carried", "i am carrying it")
    word = _PREPOSITION[relation]
    return tuple(dict.fromkeys((holder, f"{word} {bare(holder)}", f"{word} the {bare(holder)}")))


def _holders_so_far(snapshot: Snapshot, thing: str) -> list[str]:
    """Every holder ``thing`` has had in the true state up to ``snapshot``, first held first."""
    return list(dict.fromkeys(s.holders[thing][1] for s in snapshot.chain if thing in s.holders))


def where_candidates(snapshot: Snapshot, thing: str, holder: str | None, at: Snapshot | None = None) \
        -> tuple[list[str], list[str]]:
    """The rivals and neutral names of a ``Where is/was the X?`` question whose gold is ``holder``
    (``None``: not known) as the state stood at ``at`` (default ``snapshot``): rivals are every holder
    the thing has had so far and every place named so far; neutral are the thing and the places
    holding the gold (naming the gold's room is no other answer).

    Example:
        >>> now = Snapshot(4, "hall", {("knife", "is in", "inventory"), ("table", "is at", "hall")},
        ...                {("table", "is at", "hall")}, "-= hall =- a table. a knife.")
        >>> before = Snapshot(2, "hall", {("knife", "is on", "table"), ("table", "is at", "hall")}, set())
        >>> now.earlier = [before]
        >>> where_candidates(now, "knife", "inventory")
        (['table', 'hall'], ['knife'])
        >>> where_candidates(now, "knife", "table", at=before)
        (['inventory'], ['knife', 'hall'])
    """
    neutral = [thing, *((at or snapshot).ancestors(holder) if holder else [])]
    places = [*_holders_so_far(snapshot, thing), *snapshot.named_places]
    rivals = [p for p in dict.fromkeys(places) if p != holder and p not in neutral]
    return rivals, neutral


def location_questions(snapshot: Snapshot, previous: Snapshot) -> list[ProbeQuestion]:
    """``Where is the X?`` for each thing whose true place the agent has seen (a thing held in one place)."""
    rooms = _rooms(snapshot.truth)
    found = []
    for thing, relation, holder in sorted(snapshot.observed):
        if relation in LOCATION_RELATIONS and thing not in rooms and snapshot.unique(thing) \
                and snapshot.mentioned(thing) and snapshot.mentioned(holder):
            rivals, neutral = where_candidates(snapshot, thing, holder)
            found.append(ask(snapshot, f"location:{thing}", f"Where is the {bare(thing)}?",
                             location_answers(relation, holder), {"thing": thing}, rivals=rivals, neutral=neutral))
    return found


def contents_questions(snapshot: Snapshot, previous: Snapshot) -> list[ProbeQuestion]:
    """``What is in / on the Y?`` for containers and supporters (held in one place) whose whole true
    content was seen; rivals: the things that were in / on it before."""
    found = []
    for (holder, relation), things in sorted(snapshot.held.items()):
        if holder == INVENTORY or not snapshot.unique(holder):
            continue
        seen = {t for t in things if (t, relation, holder) in snapshot.seen and snapshot.mentioned(t)}
        if seen == things and snapshot.mentioned(holder):
            word = _PREPOSITION[relation]
            answer = ", ".join(sorted(things))
            found.append(ask(snapshot, f"contents:{holder}",
                             f"What is {word} the {bare(holder)}? (list the things, separated by commas)",
                             (answer,), {"holder": holder, "relation": relation}, tuple(sorted(things)),
                             rivals=_held_before(snapshot, holder, relation), neutral=[holder]))
    return found


def _held_before(snapshot: Snapshot, holder: str, relation: str) -> list[str]:
    """The things that were in / on ``holder`` at some step up to ``snapshot`` and are no longer."""
    now = snapshot.held.get((holder, relation), set())
    return [t for s in snapshot.chain for t in sorted(s.held.get((holder, relation), ())) if t not in now]


def path_questions(snapshot: Snapshot, previous: Snapshot) -> list[ProbeQuestion]:
    """``How do I get from the A to the B?`` for rooms visited, when the walked map holds a shortest path."""
    walked, true_map = direction_graph(snapshot.observed), direction_graph(snapshot.truth)
    found = []
    for start in snapshot.rooms:
        for goal in snapshot.rooms:
            if start == goal:
                continue
            known, true = shortest_paths(walked, start, goal), shortest_paths(true_map, start, goal)
            if known and true and len(known[0]) == len(true[0]):
                answers = [", ".join(known[0])] + [", ".join(p) for p in true if p != known[0]]
                found.append(ask(snapshot, f"path:{start}>{goal}",
                                 f"How do I get from the {bare(start)} to the {bare(goal)}? (answer with the "
                                 "directions to go, in order, separated by commas)",
                                 tuple(answers), {"start": start, "goal": goal}))
    return found


def action_questions(snapshot: Snapshot, previous: Snapshot) -> list[ProbeQuestion]:
    """``What did I do in the R?`` for rooms where commands other than moves were sent."""
    done: dict[str, list[str]] = defaultdict(list)
    for room, command in snapshot.actions:
        command = " ".join(command.lower().split())
        if room and not _MOVES.match(command) and command not in done[room]:
            done[room].append(command)
    return [ask(snapshot, f"actions:{room}",
                f"What did I do in the {bare(room)}? (list my actions there, in order, separated by commas)",
                (", ".join(commands),), {"room": room}, tuple(commands))
            for room, commands in sorted(done.items()) if commands]


def _sentence(triple: TripleKey) -> str:
    return " ".join(triple)


def change_questions(snapshot: Snapshot, before: Snapshot) -> list[ProbeQuestion]:
    """``What changed since step k?`` (``k``: the previous probe step; none when nothing seen changed)."""
    def scored(triples: set[TripleKey]) -> set[TripleKey]:
        return {t for t in triples & snapshot.seen if t[1] in LOCATION_RELATIONS or t[1] == IS}

    added, removed = scored(snapshot.truth - before.truth), scored(before.truth - snapshot.truth)
    if not added and not removed:
        return []
    parts = ([f"now: {', '.join(_sentence(t) for t in sorted(added))}"] if added else []) + \
            ([f"no longer: {', '.join(_sentence(t) for t in sorted(removed))}"] if removed else [])
    return [ask(snapshot, f"changes:{before.step}",
                f"What changed since step {before.step}? (list the facts that became true and those that "
                "stopped being true)", ("; ".join(parts),), {"since": before.step})]


def recipe_questions(snapshot: Snapshot, previous: Snapshot) -> list[ProbeQuestion]:
    """``What ingredients does the recipe need?`` once the agent has read the recipe."""
    if not snapshot.recipe or not all(snapshot.mentioned(i) for i in snapshot.recipe):
        return []
    answers = (", ".join(snapshot.recipe), ", ".join(sorted(snapshot.recipe)))
    return [ask(snapshot, "recipe",
                "What ingredients does the recipe need? (list them, separated by commas)",
                tuple(dict.fromkeys(answers)), {}, tuple(snapshot.recipe))]


def _location_question(snapshot: Snapshot, kind: str, thing: str, args: dict[str, Any] | None = None) \
        -> ProbeQuestion:
    relation, holder = snapshot.holders[thing]
    rivals, neutral = where_candidates(snapshot, thing, holder)
    return ask(snapshot, f"{kind}:{thing}", f"Where is the {bare(thing)}?", location_answers(relation, holder),
               {"thing": thing, **(args or {})}, rivals=rivals, neutral=neutral)


def state_history_questions(snapshot: Snapshot, previous: Snapshot) -> list[ProbeQuestion]:
    """``Where was the X at step k, before it was moved?`` for things whose holder changed since ``k``
    (the last step before the last move), when the agent had seen it there by ``k``."""
    found = []
    for thing, now in snapshot.holders.items():
        if not snapshot.unique(thing):
            continue
        past = next((s for s in reversed(snapshot.earlier) if s.holders.get(thing, now) != now), None)
        if past is None or thing in _rooms(snapshot.truth) or not past.unique(thing):
            continue
        relation, holder = past.holders[thing]
        if (thing, relation, holder) in past.seen and past.mentioned(thing) and past.mentioned(holder):
            rivals, neutral = where_candidates(snapshot, thing, holder, at=past)
            found.append(ask(snapshot, f"state-history:{thing}",
                             f"Where was the {bare(thing)} at step {past.step}, before it was moved?",
                             location_answers(relation, holder), {"thing": thing, "at": past.step},
                             rivals=rivals, neutral=neutral))
    return found


def number_answers(count: int) -> tuple[str, ...]:
    """A count and its word (to twenty).

    Example:
        >>> number_answers(3), number_answers(42)
        (('3', 'three'), ('42',))
    """
    return (str(count), _NUMBERS[count]) if count < len(_NUMBERS) else (str(count),)


def counting_questions(snapshot: Snapshot, previous: Snapshot) -> list[ProbeQuestion]:
    """``How many times did I enter the R?`` for rooms entered at least once (a step ending there after
    one elsewhere), ``How many times did I open the Y?`` for things that became open at least once."""
    entered, opened = Counter[str](), Counter[str]()
    chain = snapshot.chain
    for before, after in zip(chain, chain[1:]):
        if after.room and before.room and after.room != before.room:
            entered[after.room] += 1
        opened.update(s for s, r, o in after.truth - before.truth if r == IS and o == "open")
    found = [ask(snapshot, f"counting:enter:{room}",
                 f"How many times did I enter the {bare(room)}? (answer with a number)",
                 number_answers(n), {"event": "enter", "target": room, "count": n})
             for room, n in sorted(entered.items())]
    return found + [ask(snapshot, f"counting:open:{thing}",
                        f"How many times did I open the {bare(thing)}? (answer with a number)", number_answers(n),
                        {"event": "open", "target": thing, "count": n})
                    for thing, n in sorted(opened.items()) if snapshot.mentioned(thing) and snapshot.unique(thing)]


def _places(truth: set[TripleKey]) -> list[str]:
    return sorted(_rooms(truth) | {o for _, r, o in truth if r in LOCATION_RELATIONS})


def abstention_questions(snapshot: Snapshot, previous: Snapshot) -> list[ProbeQuestion]:
    """``Where is the X?`` for things of the true state (held in one place) never named in an observation
    so far: the answer is ``unknown``; ``places`` (every room and holder of the game) are what answer
    recall looks for; the rivals of first mention are its holders so far and the places named so far."""
    rooms, places = _rooms(snapshot.truth), _places(snapshot.truth)
    found = []
    for thing in snapshot.holders:
        if thing not in rooms and snapshot.unique(thing) and not snapshot.mentioned(thing):
            rivals, neutral = where_candidates(snapshot, thing, None)
            found.append(ask(snapshot, f"abstention:{thing}", f"Where is the {bare(thing)}?", UNKNOWN_ANSWERS,
                             {"thing": thing, "places": places}, rivals=rivals, neutral=neutral))
    return found


def _last_said(snapshot: Snapshot, name: str) -> Snapshot | None:
    return next((s for s in reversed(snapshot.chain) if s.said_now(name)), None)


def long_horizon_questions(snapshot: Snapshot, previous: Snapshot) -> list[ProbeQuestion]:
    """``Where is the X?`` for seen things last named :data:`HORIZON` or more steps before, whose place
    has not changed since."""
    rooms, found = _rooms(snapshot.truth), []
    for thing, now in snapshot.holders.items():
        if thing in rooms or (thing, *now) not in snapshot.observed:
            continue
        last = _last_said(snapshot, thing)
        if last is None or snapshot.step - last.step < HORIZON:
            continue
        chain = snapshot.chain
        if all(s.holders.get(thing) == now for s in chain[chain.index(last):]) and (thing, *now) in last.seen:
            found.append(_location_question(snapshot, "long-horizon", thing, {"said_at": last.step}))
    return found


def _single_holders(snapshot: Snapshot) -> dict[tuple[str, str], str]:
    """``(room, relation) -> holder`` for rooms holding exactly one container (``is in``) or supporter (``is on``)."""
    holding = {(o, r) for _, r, o in snapshot.truth if r in (IN, ON)}
    states = {s for s, r, o in snapshot.truth if r == IS and o in ("open", "closed", "locked")}
    by_room: dict[tuple[str, str], list[str]] = defaultdict(list)
    for thing, (relation, room) in snapshot.holders.items():
        if relation != AT:
            continue
        for kind in (IN, ON):
            if (thing, kind) in holding or (kind == IN and thing in states):
                by_room[(room, kind)].append(thing)
    return {key: things[0] for key, things in by_room.items() if len(things) == 1}


def _held(snapshot: Snapshot, holder: str, relation: str) -> list[str] | None:
    """The things in / on ``holder`` when all were seen there (``None``: none, or not all seen)."""
    things = sorted(s for s, r, o in snapshot.truth if r == relation and o == holder)
    seen = all((t, relation, holder) in snapshot.seen and snapshot.mentioned(t) for t in things)
    return things if things and seen and snapshot.mentioned(holder) and snapshot.unique(holder) else None


def two_hop_questions(snapshot: Snapshot, previous: Snapshot) -> list[ProbeQuestion]:
    """``What is in the container in the R?`` and ``... in the room <d> of the R0?`` for visited rooms with
    one container (supporter) whose whole content was seen."""
    found = []
    walked = direction_graph(snapshot.observed)
    for (room, relation), holder in sorted(_single_holders(snapshot).items()):
        things = _held(snapshot, holder, relation)
        if things is None or room not in snapshot.rooms:
            continue
        word, noun = _PREPOSITION[relation], "container" if relation == IN else "supporter"
        args = {"room": room, "relation": relation}
        form = "(list the things, separated by commas)"
        rivals, neutral = _held_before(snapshot, holder, relation), [holder, room]
        found.append(ask(snapshot, f"two-hop:{room}:{relation}",
                         f"What is {word} the {noun} in the {bare(room)}? {form}", (", ".join(things),), args, things,
                         rivals, neutral))
        for start, exits in sorted(walked.items()):
            for direction, reached in sorted(exits.items()):
                if reached == room:
                    found.append(ask(snapshot, f"two-hop:{direction}:{start}:{relation}",
                                     f"What is {word} the {noun} in the room {direction} of the {bare(start)}? {form}",
                                     (", ".join(things),), {**args, "start": start, "direction": direction}, things,
                                     rivals, [*neutral, start]))
    return found


#: The entry-point group of the question kinds: kind -> ``"module:function"`` of its generator (see
#: :data:`Generator`); the library declares its own in its ``setup.cfg``, as another package does.
ENTRY_POINT_GROUP = "textmem_gym.question_generators"


def question_generators() -> dict[str, Generator]:
    """Every question kind -> its generator, in the order questions are asked (and tabled): the library's
    in the order this module defines them, then those other packages declare.

    Example:
        >>> list(question_generators())[:3]
        ['location', 'contents', 'path']
    """
    declared = declared_names("question kind", ENTRY_POINT_GROUP)
    loaded: dict[str, Generator] = {kind: load_object(entry.target) for kind, entry in declared.items()}
    own = sorted((kind for kind in loaded if declared[kind].built_in), key=lambda kind: _defined_at(loaded[kind]))
    return {**{kind: loaded[kind] for kind in own}, **loaded}


def _defined_at(generator: Generator) -> int:
    """The line of this module that defines ``generator`` (setuptools writes entry points sorted by name)."""
    return int(generator.__code__.co_firstlineno)


def __getattr__(name: str) -> Any:
    """``GENERATORS``: :func:`question_generators`, read when asked for (a package installed since is seen)."""
    if name == "GENERATORS":
        return question_generators()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def generate_questions(timeline: Timeline, steps: Sequence[int], *, kinds: Sequence[str] | None = None,
                       per_kind: int = 5, seed: int = 0) -> list[ProbeQuestion]:
    """The questions asked at each of ``steps`` (agent decisions), in step then kind order.

    ``changes`` questions look back to the previous step of ``steps`` (the first looks back to step 0).

    Args:
        timeline: The replay's snapshots (:func:`build_timeline`).
        steps: Agent decisions to ask at (each within the episode).
        kinds: Question kinds (default: every kind of :data:`GENERATORS`).
        per_kind: Most questions of one kind at one step (drawn at random, seeded).
        seed: The draw's seed.

    Raises:
        ValueError: An unknown kind (lists the kinds), or a step outside the episode.
    """
    generators = question_generators()
    chosen = [(k, lookup("question kind", k, generators)) for k in (kinds or generators)]
    last = len(timeline.snapshots) - 1
    questions: list[ProbeQuestion] = []
    previous = 0
    for step in steps:
        if not 0 <= step <= last:
            raise ValueError(f"probe step {step} is outside the episode (steps 0..{last})")
        snapshot, before = timeline.at(step), timeline.at(previous)
        for kind, generate in chosen:
            questions += _draw(generate(snapshot, before), per_kind, f"{seed}:{kind}:{step}")
        previous = step
    return questions


def _draw(candidates: list[ProbeQuestion], per_kind: int, seed: str) -> list[ProbeQuestion]:
    if len(candidates) <= per_kind:
        return candidates
    picked = set(random.Random(seed).sample(range(len(candidates)), per_kind))
    return [q for i, q in enumerate(candidates) if i in picked]


__all__ = ["ENTRY_POINT_GROUP", "HORIZON", "SCORING_RULE", "UNKNOWN_ANSWERS", "NamesAsPrinted", "ProbeQuestion",
           "Snapshot", "Timeline", "abstention_questions", "action_questions", "bare", "build_timeline",
           "change_questions", "contents_questions", "counting_questions", "direction_graph", "generate_questions",
           "location_answers", "location_questions", "long_horizon_questions", "number_answers", "path_questions",
           "question_generators", "recipe_ingredients", "recipe_questions", "shortest_paths", "state_history_questions",
           "two_hop_questions", "where_candidates"]
