"""Probe questions generated from the privileged facts and the trajectory, one generator per kind.

At a chosen agent decision (step ``s``), :func:`generate_questions` asks each generator of
:data:`GENERATORS` for its candidate questions and keeps at most ``per_kind`` of each kind, drawn
with a :class:`random.Random` seeded by the seed, the kind and the step (so the same replay gives
the same questions in any process). A question's text starts with its step (``At step 10: ...``).
Every question is about what the agent has seen by step ``s``:
a thing never named in an observation up to ``s`` is never asked about, and a fact counts only once
the agent observed it (:class:`~textmem_gym.memory.ground_truth.ObservedTruth`, the belief metric's
tracker of TextWorld's facts). Answers are strings scored by the QA scorer with MuSiQue's rule (the
best of the answer and its aliases).

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
========== =========================================== ==================================================

Example:
    >>> snapshot = Snapshot(step=3, room="kitchen", truth={("knife", "is on", "table"), ("table", "is at", "kitchen")},
    ...                     seen={("knife", "is on", "table"), ("table", "is at", "kitchen")},
    ...                     text="-= kitchen =- you see a table. on the table is a knife.")
    >>> [q.question for q in location_questions(snapshot, snapshot)]
    ['At step 3: Where is the knife?', 'At step 3: Where is the table?']
    >>> location_questions(snapshot, snapshot)[0].answers
    ('table', 'on table', 'on the table')
"""

from __future__ import annotations

import random
import re
from collections import defaultdict, deque
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from textmem_gym.envs.privileged import FactTriple
from textmem_gym.loading import lookup
from textmem_gym.memory.ground_truth import ObservedTruth, map_facts
from textmem_gym.memory.semantic import (
    AT,
    IN,
    INVENTORY,
    IS,
    LOCATION_RELATIONS,
    ON,
    TripleKey,
    normalize,
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
    """

    id: str
    kind: str
    step: int
    question: str
    answers: tuple[str, ...]
    args: dict[str, Any] = field(default_factory=dict)

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
    """

    step: int
    room: str | None
    truth: set[TripleKey]
    seen: set[TripleKey]
    text: str = ""
    actions: list[tuple[str, str]] = field(default_factory=list)
    rooms: list[str] = field(default_factory=list)
    recipe: list[str] = field(default_factory=list)

    def mentioned(self, name: str) -> bool:
        """``name`` appears in an observation so far (``inventory`` always counts)."""
        return name == INVENTORY or re.search(rf"(?<![\w-]){re.escape(name.lower())}(?![\w-])", self.text) is not None

    @property
    def observed(self) -> set[TripleKey]:
        """The true triples now that the agent has seen."""
        return self.truth & self.seen


@dataclass
class Timeline:
    """The snapshots of a replay, by agent decision."""

    snapshots: list[Snapshot]

    def at(self, step: int) -> Snapshot:
        """The snapshot after decision ``step``."""
        return self.snapshots[step]


def recipe_ingredients(facts: Iterable[FactTriple]) -> list[str]:
    """The recipe's ingredients in its order (TextWorld's ``(x, base, ingredient_i)`` and
    ``(ingredient_i, in, RECIPE)`` facts), ``[]`` when the game has no recipe.

    Example:
        >>> recipe_ingredients([("ingredient_1", "in", "RECIPE"), ("ingredient_0", "in", "RECIPE"),
        ...                     ("egg", "base", "ingredient_1"), ("salt", "base", "ingredient_0")])
        ['salt', 'egg']
    """
    facts = list(facts)
    slots = {s for s, r, o in facts if r == "in" and o == "RECIPE"}
    base = {o: normalize(s) for s, r, o in facts if r == "base" and o in slots}
    return [base[slot] for slot in sorted(base, key=lambda slot: int(re.sub(r"\D", "", slot) or 0))]


def build_timeline(replay: Replay) -> Timeline:
    """One :class:`Snapshot` per agent decision of ``replay``."""
    tracker, snapshots = ObservedTruth(), []
    text: list[str] = []
    actions: list[tuple[str, str]] = []
    rooms: list[str] = []
    room: str | None = None
    recipe: list[str] = []
    for step in replay.steps:
        if step.command:
            actions.append((room or "", step.command))
        truth, room = map_facts(step.facts)
        tracker.step(step.facts, step.command, step.observation)
        text.append(step.observation.lower())
        if room and room not in rooms:
            rooms.append(room)
        if not recipe and "ingredients" in step.observation.lower():
            recipe = recipe_ingredients(step.facts)
        if step.last:
            snapshots.append(Snapshot(step.decision, room, truth, set(tracker.seen), "\n".join(text), list(actions),
                                      list(rooms), list(recipe)))
    return Timeline(snapshots)


# -- generators ----------------------------------------------------------------------------------


def ask(snapshot: Snapshot, ident: str, text: str, answers: Sequence[str], args: dict[str, Any] | None = None) \
        -> ProbeQuestion:
    """A question asked after ``snapshot``'s step (its text says when: ``At step 10: ...``); its kind
    is the id's prefix.

    Example:
        >>> ask(Snapshot(10, None, set(), set()), "recipe", "What does the recipe need?", ["salt"]).question
        'At step 10: What does the recipe need?'
    """
    return ProbeQuestion(ident, ident.split(":", 1)[0], snapshot.step, f"At step {snapshot.step}: {text}",
                         tuple(answers), dict(args or {}))

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
    return (holder, f"{word} {holder}", f"{word} the {holder}")


def location_questions(snapshot: Snapshot, previous: Snapshot) -> list[ProbeQuestion]:
    """``Where is the X?`` for each thing whose true place the agent has seen."""
    rooms = _rooms(snapshot.truth)
    found = []
    for thing, relation, holder in sorted(snapshot.observed):
        if relation in LOCATION_RELATIONS and thing not in rooms and snapshot.mentioned(thing) \
                and snapshot.mentioned(holder):
            found.append(ask(snapshot, f"location:{thing}", f"Where is the {thing}?",
                             location_answers(relation, holder), {"thing": thing}))
    return found


def contents_questions(snapshot: Snapshot, previous: Snapshot) -> list[ProbeQuestion]:
    """``What is in / on the Y?`` for containers and supporters whose whole true content was seen."""
    held: dict[tuple[str, str], set[str]] = defaultdict(set)
    for thing, relation, holder in snapshot.truth:
        if relation in (IN, ON) and holder != INVENTORY:
            held[(holder, relation)].add(thing)
    found = []
    for (holder, relation), things in sorted(held.items()):
        seen = {t for t in things if (t, relation, holder) in snapshot.seen and snapshot.mentioned(t)}
        if seen == things and snapshot.mentioned(holder):
            word = _PREPOSITION[relation]
            answer = ", ".join(sorted(things))
            found.append(ask(snapshot, f"contents:{holder}",
                             f"What is {word} the {holder}? (list the things, separated by commas)",
                             (answer,), {"holder": holder, "relation": relation}))
    return found


def direction_graph(triples: Iterable[TripleKey]) -> dict[str, dict[str, str]]:
    """Room -> direction -> room, from ``(a, is <d> of, b)`` triples (go ``d`` from ``b`` to reach ``a``)."""
    graph: dict[str, dict[str, str]] = defaultdict(dict)
    for a, relation, b in triples:
        direction = relation_direction(relation)
        if direction:
            graph[b][direction] = a
    return graph


def shortest_paths(graph: dict[str, dict[str, str]], start: str, goal: str, limit: int = 8) -> list[list[str]]:
    """Every shortest direction sequence from ``start`` to ``goal`` (sorted; at most ``limit``).

    Example:
        >>> shortest_paths({"a": {"east": "b", "south": "c"}, "b": {"south": "d"}, "c": {"east": "d"}}, "a", "d")
        [['east', 'south'], ['south', 'east']]
    """
    paths: list[list[str]] = []
    queue: deque[tuple[str, list[str]]] = deque([(start, [])])
    best: dict[str, int] = {start: 0}
    while queue:
        room, path = queue.popleft()
        if paths and len(path) >= len(paths[0]):
            break
        for direction, nxt in sorted(graph.get(room, {}).items()):
            if nxt == goal:
                paths.append([*path, direction])
            elif best.get(nxt, len(path) + 1) >= len(path) + 1:
                best[nxt] = len(path) + 1
                queue.append((nxt, [*path, direction]))
    return sorted(paths)[:limit]


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
                                 f"How do I get from the {start} to the {goal}? (answer with the "
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
                f"What did I do in the {room}? (list my actions there, in order, separated by commas)",
                (", ".join(commands),), {"room": room})
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
                tuple(dict.fromkeys(answers)), {})]


#: Question kind -> its generator (see :data:`Generator`).
GENERATORS: dict[str, Generator] = {
    "location": location_questions,
    "contents": contents_questions,
    "path": path_questions,
    "actions": action_questions,
    "changes": change_questions,
    "recipe": recipe_questions,
}


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
    chosen = [(k, lookup("question kind", k, GENERATORS)) for k in (kinds or GENERATORS)]
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


__all__ = ["GENERATORS", "SCORING_RULE", "ProbeQuestion", "Snapshot", "Timeline", "action_questions",
           "build_timeline", "change_questions", "direction_graph", "contents_questions", "generate_questions",
           "location_answers", "location_questions", "path_questions", "recipe_ingredients", "recipe_questions",
           "shortest_paths"]
