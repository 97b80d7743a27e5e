"""First-mention accuracy at a token budget: the reader (overlapping names, a stale answer before the
gold, nothing named, aliases, names inside the question's own subject, the budget cut, answers listing
things), the candidates the probe questions carry (built from a hand-made timeline), and QA's
candidates read from a real memory method."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from textmem_gym.memory.budget import fit_budget
from textmem_gym.memory.history.memory import FullHistoryMemory
from textmem_gym.qa.data import Paragraph, QAExample
from textmem_gym.qa.methods.memory import MemoryQA
from textmem_gym.qa.probes.questions import (
    UNKNOWN_ANSWERS,
    ProbeQuestion,
    Snapshot,
    abstention_questions,
    contents_questions,
    location_answers,
    location_questions,
    state_history_questions,
)
from textmem_gym.qa.probes.recall import first_mentioned, probe_first_mention, recalled
from textmem_gym.qa.recall import BUDGETS, mentioned_first, mentions
from textmem_gym.qa.run import qa_candidates, question_row, summarize_qa

FILLER = "x" * 1200  # 300 approximate tokens: what follows lies beyond a 256-token budget


def where(thing: str, holder: str, rivals: tuple[str, ...], neutral: tuple[str, ...] = ()) -> ProbeQuestion:
    answers = location_answers("is on", holder)
    return ProbeQuestion(f"location:{thing}", "location", 9, f"Where is the {thing}?", answers, {"thing": thing},
                         candidates=(*answers, *rivals), neutral=(thing, *neutral))


def test_longest_name_wins_where_names_overlap():
    potion = where("potion", "altar", ("red potion", "purple-red potion"))
    assert mentions(["a purple-red potion"], ["red potion", "purple-red potion"]) == ["purplered potion"]
    assert mentioned_first(["a purple-red potion lies on the altar"], ["altar"], ["red potion"], 256)
    assert not mentioned_first(["the red potion is on the altar"], ["altar"], ["red potion"], 256)
    table = where("knife", "kitchen table", ("kitchen",))
    assert first_mentioned(["the knife is on the kitchen table"], table, 256)  # not read as "kitchen"
    assert not first_mentioned(["the kitchen: a knife on the kitchen table"], table, 256)
    assert potion.rivals == ("red potion", "purple-red potion")


def test_a_stale_holder_named_before_the_gold_is_wrong_though_recalled():
    knife = where("knife", "fridge", ("table",))
    stale_first = ["the knife was on the table", "the knife is on the fridge"]
    assert recalled(stale_first, knife, 256) and not first_mentioned(stale_first, knife, 256)
    assert first_mentioned(stale_first[::-1], knife, 256)
    assert first_mentioned(["Table? no: the knife is ON THE FRIDGE."[13:]], knife, 256)  # case, punctuation


def test_nothing_named_is_wrong_except_for_abstention():
    knife = where("knife", "fridge", ("table",))
    assert not first_mentioned([], knife, 256) and not first_mentioned(["you wait"], knife, 256)
    key = ProbeQuestion("abstention:key", "abstention", 9, "Where is the key?", UNKNOWN_ANSWERS, {"thing": "key"},
                        candidates=(*UNKNOWN_ANSWERS, "hall", "table"), neutral=("key",))
    assert first_mentioned([], key, 256) and first_mentioned(["the key? never seen"], key, 256)
    assert first_mentioned(["you are in the hall"], key, 256)  # a place, but on no line about the key
    assert not first_mentioned(["the key is in the hall"], key, 256)  # the never-seen key put somewhere
    assert first_mentioned(["key: unknown; the hall?", "you are in the hall"], key, 256)  # "unknown" comes first
    assert first_mentioned([FILLER, "the key is on the table"], key, 256)  # the invented line is cut


def test_aliases_count_as_the_gold_and_parts_of_words_do_not():
    knife = where("knife", "table", ("fridge",))
    assert first_mentioned(["it lies on the table; the fridge is empty"], knife, 256)  # "on the table"
    carried = ProbeQuestion("location:key", "location", 9, "Where is the key?", location_answers("is in", "inventory"),
                            {"thing": "key"}, candidates=(*location_answers("is in", "inventory"), "hall"),
                            neutral=("key",))
    assert first_mentioned(["I am carrying it", "hall"], carried, 256)  # an alias of "inventory"
    assert not first_mentioned(["a tablecloth; the fridge"], knife, 256)  # "table" only inside a word


def test_a_rival_inside_the_question_subject_is_skipped():
    knife = where("kitchen knife", "table", ("kitchen",))
    line = ["the kitchen knife is on the table"]
    assert first_mentioned(line, knife, 256)
    assert not mentioned_first(line, ["table"], ["kitchen"], 256)  # without the neutral subject it would count
    assert mentioned_first(["kitchen: table"], ["table"], ["kitchen"], 256, neutral=["kitchen"])  # a neutral place
    assert mentioned_first(["table"], ["table"], ["table"], 256)  # a rival that is the gold is gold


def test_the_budget_cuts_before_the_reading():
    knife = where("knife", "fridge", ("table",))
    lines = ["the knife is on the fridge", FILLER, "the knife was on the table"]
    assert probe_first_mention(knife, lines, (8, 256)) == {"8": True, "256": True}
    late = [FILLER, "the knife is on the fridge"]
    assert probe_first_mention(knife, late, (256, 512)) == {"256": False, "512": True}
    assert len(fit_budget(late, 256)) == 1  # the gold line is beyond 256 tokens: nothing named


def test_an_answer_listing_things_needs_every_thing_before_any_rival():
    fridge = ProbeQuestion("contents:fridge", "contents", 9, "What is in the fridge?", ("apple, milk",),
                           {"holder": "fridge", "relation": "is in"}, ("apple", "milk"),
                           candidates=("apple", "milk", "carrot"), neutral=("fridge",))
    assert first_mentioned(["fridge: apple, milk", "carrot: taken from the fridge"], fridge, 256)
    assert not first_mentioned(["fridge: apple, carrot, milk"], fridge, 256)
    assert not first_mentioned(["fridge: apple"], fridge, 256)  # one thing missing


def test_without_rivals_first_mention_is_answer_recall():
    recipe = ProbeQuestion("recipe", "recipe", 9, "What does the recipe need?", ("salt, egg",), {}, ("salt", "egg"),
                           candidates=("salt", "egg"))
    for lines in (["salt and egg"], ["egg"], []):
        assert first_mentioned(lines, recipe, 256) == recalled(lines, recipe, 256)
    count = ProbeQuestion("counting:open:box", "counting", 9, "?", ("1", "one"),
                          {"event": "open", "target": "box", "count": 1}, candidates=("1", "one"))
    assert first_mentioned(["> open box: opened"], count, 256) and not first_mentioned(["box"], count, 256)


# -- the candidates probe questions carry ---------------------------------------------------------

BEFORE = Snapshot(2, "hall", {("knife", "is on", "table"), ("table", "is at", "hall"), ("fridge", "is at", "kitchen"),
                              ("apple", "is in", "fridge"), ("carrot", "is in", "fridge"), ("key", "is at", "cellar")},
                  {("knife", "is on", "table"), ("table", "is at", "hall"), ("apple", "is in", "fridge"),
                   ("carrot", "is in", "fridge")},
                  "-= hall =- a table, a knife. -= kitchen =- a fridge: an apple, a carrot.")
NOW = Snapshot(5, "kitchen", {("knife", "is in", "inventory"), ("table", "is at", "hall"),
                              ("fridge", "is at", "kitchen"), ("apple", "is in", "fridge"),
                              ("carrot", "is in", "inventory"), ("key", "is at", "cellar")},
               BEFORE.seen | {("knife", "is in", "inventory"), ("carrot", "is in", "inventory")},
               BEFORE.text + " you take the knife. you take the carrot.", earlier=[BEFORE])


def test_where_questions_carry_every_holder_so_far_and_every_place_named():
    knife = {q.id: q for q in location_questions(NOW, NOW)}["location:knife"]
    assert knife.gold == location_answers("is in", "inventory")
    assert knife.rivals == ("table", "fridge", "hall", "kitchen")  # held on the table; places named so far
    assert "cellar" not in knife.candidates  # never named
    assert first_mentioned(["knife: in inventory (taken from the table)"], knife, 256)
    assert not first_mentioned(["the table in the hall holds a knife", "knife: carried"], knife, 256)
    history = {q.id: q for q in state_history_questions(NOW, NOW)}["state-history:knife"]  # on the table at step 2
    assert history.gold[0] == "table" and "inventory" in history.rivals and "hall" in history.neutral
    assert first_mentioned(["hall: the knife on the table", "now carried"], history, 256)  # its room is neutral
    assert not first_mentioned(["the knife is in your inventory", "it was on the table"], history, 256)
    key = abstention_questions(NOW, NOW)[0]
    assert key.id == "abstention:key" and key.neutral == ("key",) and {"hall", "kitchen"} <= set(key.rivals)
    assert first_mentioned(["no key was seen"], key, 256) and not first_mentioned(["a key in the hall"], key, 256)


def test_contents_questions_carry_what_was_in_the_holder_before():
    fridge = {q.id: q for q in contents_questions(NOW, NOW)}["contents:fridge"]
    assert fridge.gold == ("apple",) and fridge.rivals == ("carrot",) and fridge.neutral == ("fridge",)
    assert not first_mentioned(["fridge: carrot, apple"], fridge, 256)
    assert first_mentioned(["fridge: apple", "inventory: carrot"], fridge, 256)


# -- QA ---------------------------------------------------------------------------------------------


class Scripted:
    """A memory whose context is given (it ignores its budget: the reading cuts it)."""

    def __init__(self, lines: list[str]) -> None:
        self.lines = lines

    def update(self, observation: str, action: str, info: dict[str, Any]) -> None:
        return None

    def context(self, question: str, budget: int) -> list[str]:
        return list(self.lines)


def bridge(answers: tuple[str, ...] = ("Orsk Glassworks", "Orsk & Sons"),
           question: str = "Who built Vellmar Lighthouse?") -> QAExample:
    paragraphs = (Paragraph("Vellmar Lighthouse", "Built by Orsk Glassworks.", (), True),
                  Paragraph("Orsk Glassworks", "A firm of Orsk.", (), True),
                  Paragraph("Tallow Bay", "Built on calm water.", (), False),
                  Paragraph("Orsk", "A town.", (), False))
    return QAExample("q1", "musique", question, answers, paragraphs, (), 2, "2hop")


def test_qa_candidates_are_the_gold_against_the_paragraph_titles():
    gold, rivals, neutral = qa_candidates(bridge()) or ([], [], [])
    assert gold == ["Orsk Glassworks", "Orsk & Sons"] and rivals == ["Tallow Bay", "Orsk"]
    assert neutral == ["Vellmar Lighthouse"]  # named by the question: its subject
    assert qa_candidates(bridge(("yes",))) is None  # no span to name
    assert qa_candidates(bridge(("Tallow Bay",), "Which is older, Orsk or Tallow Bay?")) is None  # a comparison


@pytest.mark.parametrize(("lines", "expected"), [
    (["Vellmar Lighthouse was built by Orsk Glassworks of Orsk."], True),  # the longer name first, then its town
    (["Orsk is a town.", "Orsk Glassworks built it."], False),  # a rival before the gold
    (["Tallow Bay", FILLER, "Orsk & Sons"], False),  # the rival inside 256 tokens, the alias beyond
    (["Vellmar Lighthouse stands."], False),  # only the question's subject: nothing answers
])
def test_qa_rows_report_first_mention_beside_answer_recall(lines, expected):
    row = question_row(bridge(), MemoryQA(memory=Scripted(lines)), answer=False)
    assert set(row["first_mention"]) == set(row["answer_recall"]) == {str(b) for b in BUDGETS}
    assert row["first_mention"]["256"] is expected
    assert not row["first_mention"]["256"] or row["answer_recall"]["256"]  # right first implies recalled
    summary = summarize_qa([row])[0]
    assert summary["first_mention"][256] == (100.0 if expected else 0.0)


def test_qa_first_mention_from_a_real_memory_fed_the_paragraphs():
    row = question_row(bridge(), MemoryQA(memory=FullHistoryMemory()), answer=False)
    assert row["answer_recall"]["2048"] and set(row["first_mention"]) == {str(b) for b in BUDGETS}
    assert row["first_mention"]["2048"] is False  # the newest paragraph first: "step 3: Orsk: A town."
    example = bridge()
    reordered = dataclasses.replace(example, paragraphs=example.paragraphs[:2][::-1] + example.paragraphs[2:])
    assert question_row(reordered, MemoryQA(memory=FullHistoryMemory()), answer=False)["first_mention"]["2048"] \
        is False  # still the town first
    newest_gold = dataclasses.replace(example, paragraphs=example.paragraphs[2:] + example.paragraphs[:2])
    assert question_row(newest_gold, MemoryQA(memory=FullHistoryMemory()), answer=False)["first_mention"]["2048"]
    assert question_row(bridge(("no",)), MemoryQA(memory=FullHistoryMemory()), answer=False)["first_mention"] is None
