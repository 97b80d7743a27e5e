"""The probe kinds that look-up alone cannot answer (state history, counting, abstention, long horizon,
two hops), on small timelines built by hand, with their structural answers and their scoring."""

from __future__ import annotations

from typing import Any

import pytest

from textmem_gym.memory.adoption import adopt, parser_for
from textmem_gym.memory.oracle.memory import OracleMemory
from textmem_gym.memory.semantic import Triple, TripleKey
from textmem_gym.qa.bench.run import probe_steps
from textmem_gym.qa.bench.trajectories import load_trajectories, replay_trajectory
from textmem_gym.qa.probes.answering import structural_answer
from textmem_gym.qa.probes.questions import (
    GENERATORS,
    HORIZON,
    ProbeQuestion,
    Snapshot,
    Timeline,
    abstention_questions,
    build_timeline,
    counting_questions,
    generate_questions,
    location_questions,
    long_horizon_questions,
    question_generators,
    state_history_questions,
    two_hop_questions,
)
from textmem_gym.qa.scoring import score

MAP = {("hall", "is north of", "kitchen"), ("kitchen", "is south of", "hall")}
FIXED = MAP | {("fridge", "is at", "kitchen"), ("apple", "is in", "fridge"), ("table", "is at", "hall"),
               ("lamp", "is on", "table"), ("key", "is at", "hall")}
KNIFE_ON_TABLE, KNIFE_CARRIED = ("knife", "is on", "table"), ("knife", "is in", "inventory")
OPEN, CLOSED = ("fridge", "is", "open"), ("fridge", "is", "closed")

# (room, extra true triples, what the step said, true triples newly seen)
STEPS: list[tuple[str, set[TripleKey], str, set[TripleKey]]] = [
    ("kitchen", {KNIFE_ON_TABLE, CLOSED}, "-= kitchen =- you see a closed fridge.",
     {("fridge", "is at", "kitchen"), CLOSED}),
    ("kitchen", {KNIFE_ON_TABLE, OPEN}, "you open the fridge, revealing an apple.", {("apple", "is in", "fridge"), OPEN}),
    ("hall", {KNIFE_ON_TABLE, OPEN}, "-= hall =- you see a table. on the table are a knife and a lamp.",
     MAP | {("table", "is at", "hall"), KNIFE_ON_TABLE, ("lamp", "is on", "table")}),
    ("hall", {KNIFE_CARRIED, OPEN}, "you take the knife from the table.", {KNIFE_CARRIED}),
    ("kitchen", {KNIFE_CARRIED, OPEN}, "-= kitchen =- an open fridge.", set()),
    ("kitchen", {KNIFE_CARRIED, CLOSED}, "you close the fridge.", {CLOSED}),
    ("kitchen", {KNIFE_CARRIED, OPEN}, "you open the fridge.", set()),
    ("hall", {KNIFE_CARRIED, OPEN}, "-= hall =- you see a table.", set()),
]


def timeline(steps: list[tuple[str, set[TripleKey], str, set[TripleKey]]] = STEPS,
             numbers: list[int] | None = None) -> Timeline:
    """Snapshots of ``steps`` (numbered 0, 1, ... unless ``numbers``), each knowing the ones before."""
    snapshots: list[Snapshot] = []
    seen: set[TripleKey] = set()
    text, rooms = "", []
    for i, (room, extra, said, newly) in enumerate(steps):
        seen |= newly
        text += "\n" + said
        rooms += [room] if room not in rooms else []
        snapshots.append(Snapshot((numbers or list(range(len(steps))))[i], room, FIXED | extra, set(seen), text,
                                  rooms=list(rooms), said=said, earlier=list(snapshots)))
    return Timeline(snapshots)


def by_id(questions: list[Any]) -> dict[str, Any]:
    return {q.id: q for q in questions}


class Beliefs:
    """A memory offering believed triples and their history (``beliefs`` and ``history`` parts)."""

    def __init__(self, history: list[Triple]) -> None:
        self.history = history

    def update(self, observation: str, action: str, info: dict[str, Any]) -> None:
        return None

    def context(self, question: str, budget: int) -> list[str]:
        return []

    def believed_triples(self) -> list[TripleKey]:
        return [(t.subject, t.relation, t.object) for t in self.history if t.end is None]

    def triple_history(self) -> list[Triple]:
        return self.history


class BeliefsOnly(Beliefs):
    """Believed triples without their history."""

    triple_history = None  # type: ignore[assignment]


HISTORY = [Triple(0, "knife", "is on", "table", start=2, end=3), Triple(1, "knife", "is in", "inventory", start=3),
           Triple(2, "fridge", "is", "open", start=1, end=5), Triple(3, "fridge", "is", "open", start=6),
           Triple(4, "apple", "is in", "fridge", start=1)]
CLOCK = {i: i for i in range(len(STEPS))}


def test_the_new_kinds_are_generators():
    assert {"state-history", "counting", "abstention", "long-horizon", "two-hop"} <= set(GENERATORS)


def test_state_history_asks_where_a_moved_thing_was_before_its_last_move():
    now = timeline().at(7)
    questions = by_id(state_history_questions(now, now))
    assert list(questions) == ["state-history:knife"]  # the fridge's state changed, but only things move
    knife = questions["state-history:knife"]
    assert knife.question == "At step 7: Where was the knife at step 2, before it was moved?"
    assert knife.answers[0] == "table" and knife.args == {"thing": "knife", "at": 2}
    assert state_history_questions(timeline().at(2), timeline().at(2)) == []  # not moved yet
    assert structural_answer(adopt(Beliefs(HISTORY)), knife, CLOCK) == "table"
    assert structural_answer(adopt(BeliefsOnly(HISTORY)), knife, CLOCK) is None  # history not offered


def test_state_history_is_not_asked_when_the_old_place_was_never_seen():
    unseen = [(room, extra, said, newly - {KNIFE_ON_TABLE}) for room, extra, said, newly in STEPS]
    now = timeline(unseen).at(7)
    assert state_history_questions(now, now) == []


def test_counting_counts_entries_and_openings():
    now = timeline().at(7)
    questions = by_id(counting_questions(now, now))
    assert {i: q.answers for i, q in questions.items()} == {
        "counting:enter:hall": ("2", "two"), "counting:enter:kitchen": ("1", "one"),
        "counting:open:fridge": ("2", "two")}  # the start in the kitchen is no entry
    assert questions["counting:enter:hall"].question == \
        "At step 7: How many times did I enter the hall? (answer with a number)"
    assert structural_answer(adopt(Beliefs(HISTORY)), questions["counting:open:fridge"], CLOCK) == "2"
    assert structural_answer(adopt(Beliefs(HISTORY)), questions["counting:enter:hall"], CLOCK) is None  # no part offers it
    early = by_id(counting_questions(timeline().at(3), timeline().at(3)))
    assert early["counting:open:fridge"].answers[0] == "1" and "counting:enter:kitchen" not in early


def test_abstention_asks_about_things_never_named_and_only_unknown_is_right():
    now = timeline().at(7)
    questions = by_id(abstention_questions(now, now))
    assert list(questions) == ["abstention:key"]
    key = questions["abstention:key"]
    assert key.question == "At step 7: Where is the key?" and key.answers[0] == "unknown"
    assert set(key.args["places"]) == {"kitchen", "hall", "fridge", "table", "inventory"}
    assert score("unknown", key)["em"] == score("I don't know.", key)["em"] == 1.0
    assert score("hall", key)["em"] == score("in the hall", key)["em"] == 0.0
    assert structural_answer(adopt(Beliefs(HISTORY)), key, CLOCK) == "unknown"
    oracle = OracleMemory()
    oracle.update("", "", {"facts": [("P", "at", "hall"), ("key", "at", "hall")]})
    assert score(structural_answer(adopt(oracle), key, CLOCK) or "", key)["em"] == 0.0  # naming a place is wrong


def test_long_horizon_asks_about_facts_unnamed_for_horizon_steps_and_unchanged():
    steps = [STEPS[0], STEPS[1], ("kitchen", {KNIFE_ON_TABLE, OPEN}, "you wait.", set())]
    assert HORIZON == 200
    late = timeline(steps, [0, 1, 1 + HORIZON]).at(2)
    questions = by_id(long_horizon_questions(late, late))
    assert list(questions) == ["long-horizon:apple", "long-horizon:fridge"]  # both last named at step 1
    apple = questions["long-horizon:apple"]
    assert apple.question == f"At step {1 + HORIZON}: Where is the apple?" and apple.answers[0] == "fridge"
    assert apple.args["said_at"] == 1
    assert long_horizon_questions(*[timeline(steps, [0, 1, HORIZON]).at(2)] * 2) == []  # 199 steps: too recent
    oracle = OracleMemory()
    oracle.update("", "", {"facts": [("apple", "in", "fridge")]})
    assert structural_answer(adopt(oracle), apple, CLOCK) == "fridge"


def test_long_horizon_skips_a_thing_that_moved_since_it_was_named():
    steps = [STEPS[2], ("kitchen", {KNIFE_CARRIED, OPEN}, "you wait.", {KNIFE_CARRIED}),
             ("kitchen", {KNIFE_ON_TABLE, OPEN}, "you wait.", set())]
    late = timeline(steps, [0, 1, 300]).at(2)
    assert "long-horizon:knife" not in by_id(long_horizon_questions(late, late))


def test_two_hop_asks_through_the_room_and_through_a_direction():
    now = timeline().at(7)
    questions = by_id(two_hop_questions(now, now))
    assert {i: (q.question, q.answers, q.parts) for i, q in questions.items()} == {
        "two-hop:hall:is on": ("At step 7: What is on the supporter in the hall? (list the things, separated by "
                               "commas)", ("lamp",), ("lamp",)),
        "two-hop:north:kitchen:is on": ("At step 7: What is on the supporter in the room north of the kitchen? "
                                        "(list the things, separated by commas)", ("lamp",), ("lamp",)),
        "two-hop:kitchen:is in": ("At step 7: What is in the container in the kitchen? (list the things, separated "
                                  "by commas)", ("apple",), ("apple",)),
        "two-hop:south:hall:is in": ("At step 7: What is in the container in the room south of the hall? (list the "
                                     "things, separated by commas)", ("apple",), ("apple",))}
    assert "two-hop:kitchen:is in" not in by_id(two_hop_questions(timeline().at(0), timeline().at(0)))  # unseen
    oracle = OracleMemory()
    oracle.update("", "", {"facts": [("hall", "north_of", "kitchen"), ("kitchen", "south_of", "hall"),
                                     ("table", "at", "hall"), ("lamp", "on", "table"),
                                     ("fridge", "at", "kitchen"), ("apple", "in", "fridge")]})
    assert {i: structural_answer(adopt(oracle), q, CLOCK) for i, q in questions.items()} == {
        "two-hop:hall:is on": "lamp", "two-hop:north:kitchen:is on": "lamp", "two-hop:kitchen:is in": "apple",
        "two-hop:south:hall:is in": "apple"}


def test_two_hop_needs_one_container_in_the_room():
    crowded = [(room, extra | {("box", "is at", "kitchen"), ("box", "is", "closed")}, said, newly)
               for room, extra, said, newly in STEPS]
    now = timeline(crowded).at(7)
    assert not [q for q in two_hop_questions(now, now) if q.args["room"] == "kitchen"]


@pytest.mark.parametrize("kind", ["state-history", "counting", "abstention", "long-horizon", "two-hop"])
def test_generate_questions_draws_each_new_kind_deterministically(kind):
    first = generate_questions(timeline(), [3, 7], kinds=[kind], per_kind=1, seed=4)
    assert first == generate_questions(timeline(), [3, 7], kinds=[kind], per_kind=1, seed=4)
    assert all(q.kind == kind for q in first) and len([q for q in first if q.step == 7]) <= 1
    if kind != "long-horizon":  # the hand timeline is 7 steps long
        assert [q for q in first if q.step == 7]


def test_a_name_held_in_several_places_is_never_asked_about():
    two_tables = [(room, extra | {("table", "is at", "kitchen")}, said, newly) for room, extra, said, newly in STEPS]
    now = timeline(two_tables).at(7)
    assert now.ambiguous == {"table"} and not now.unique("the table")
    asked = {q.id for kind in ("location", "contents", "abstention", "two-hop") for q in GENERATORS[kind](now, now)}
    assert "location:table" not in asked and "contents:table" not in asked and "two-hop:hall:is on" not in asked
    assert "location:lamp" in asked  # on one of the tables: "table" is still one answer text


def test_names_are_said_without_their_article():
    named = [("the troll room", {("a purple-red potion", "is at", "the troll room")},
              "-= the troll room =- a purple-red potion lies here.", {("a purple-red potion", "is at", "the troll room")})]
    snapshots: list[Snapshot] = []
    for i, (room, truth, said, seen) in enumerate(named):
        snapshots.append(Snapshot(i, room, truth, seen, said, rooms=[room], said=said))
    potion = location_questions(snapshots[0], snapshots[0])[0]
    assert potion.question == "At step 0: Where is the purple-red potion?"
    assert potion.answers == ("the troll room", "in troll room", "in the troll room")
    assert potion.args["thing"] == "a purple-red potion"  # structural answers read the name as believed


#: Shipped bench trajectories checked for well-posed questions: the short ones, and two long ones (a
#: Jericho game with two baskets and rooms named "the ...", NetHack's "a ..." items).
WELL_POSED = [pytest.param("textworld-cooking-short"), pytest.param("jericho-zork1-short"),
              pytest.param("nethack-room-short"), pytest.param("jericho-zork1-long"),
              pytest.param("nethack-level-long", marks=pytest.mark.slow),
              pytest.param("twx-coin-short", marks=pytest.mark.java),
              pytest.param("scienceworld-boil-short", marks=[pytest.mark.java, pytest.mark.slow])]


@pytest.mark.parametrize("name", WELL_POSED)
def test_every_question_of_a_shipped_trajectory_has_one_gold_answer_and_no_doubled_article(name):
    trajectory = load_trajectories([name])[0]
    parser = parser_for(trajectory.env_id)  # the backend's facts are read by its parser's tracker
    timeline_ = build_timeline(replay_trajectory(trajectory), parser.observed_truth() if parser else None)
    steps = sorted({len(trajectory.commands) if s == "end" else int(s) for s in probe_steps(len(trajectory.commands))})
    questions = generate_questions(timeline_, steps, per_kind=10 ** 6)  # every candidate question, not a draw
    assert questions
    answers: dict[tuple[int, str], set[tuple[str, ...]]] = {}
    for question in questions:
        answers.setdefault((question.step, question.question), set()).add(question.answers)
        lowered = question.question.lower()
        assert not any(doubled in lowered for doubled in ("the a ", "the an ", "the the ")), question.question
        assert set(question.gold) <= set(question.candidates)  # first mention reads the gold
    assert {text: golds for text, golds in answers.items() if len(golds) > 1} == {}
    if name == "scienceworld-boil-short":  # air and sinks are in every room: never asked where
        assert not [q for q in questions if q.question.endswith(("Where is the air?", "Where is the sink?"))]
    if name == "nethack-level-long":
        assert any(q.question.endswith("Where is the purple-red potion?") for q in questions)


def test_the_question_generators_are_read_when_asked_never_bound_at_import():
    import textmem_gym.qa.probes as probes
    from textmem_gym.qa.probes import run

    assert "GENERATORS" not in vars(probes) and "GENERATORS" not in vars(run)  # a package installed later is seen
    assert list(probes.GENERATORS) == list(question_generators())
    assert "location" in probes.GENERATORS


def test_a_name_once_held_in_two_places_stays_unasked_when_one_is_lost_from_the_facts():
    before = Snapshot(1, "hall", {("shelf", "is at", "hall"), ("shelf", "is in", "box"), ("box", "is at", "hall")},
                      set(), "a shelf. a box.")
    now = Snapshot(2, "hall", {("shelf", "is in", "box"), ("box", "is at", "hall")},
                   {("shelf", "is in", "box"), ("box", "is at", "hall")}, "-= hall =- a box. a shelf in the box.",
                   earlier=[before])
    assert now.ambiguous_now == frozenset() and now.ambiguous == {"shelf"}
    assert [q.id for q in location_questions(now, before)] == ["location:box"]


def test_structural_answers_read_a_thing_the_game_printed_longer_under_its_believed_name():
    # Jericho's questions say the object tree's "sword"; the game printed (and the memory believes) "elvish sword"
    history = [Triple(0, "elvish sword", "is on", "altar", start=1, end=4), Triple(1, "elvish sword", "is in",
                                                                                   "inventory", start=4)]
    where = ProbeQuestion("location:sword", "location", 7, "Where is the sword?", ("inventory",), {"thing": "sword"})
    before = ProbeQuestion("state-history:sword", "state-history", 7, "?", ("altar",), {"thing": "sword", "at": 2})
    assert structural_answer(adopt(Beliefs(history)), where, CLOCK) == "inventory"
    assert structural_answer(adopt(Beliefs(history)), before, CLOCK) == "altar"
    two = history + [Triple(2, "rusty sword", "is on", "floor", start=5)]  # two look-alikes: none is the sword
    assert structural_answer(adopt(Beliefs(two)), where, CLOCK) == ""
