"""Answer recall at a token budget, with no model: the budget cut, aliases, answers in several parts,
and the probe kinds whose recall is defined apart (counting, abstention)."""

from __future__ import annotations

from textmem_gym.memory.budget import approx_tokens, fit_budget
from textmem_gym.memory.history.memory import FullHistoryMemory
from textmem_gym.qa.probes.questions import ProbeQuestion, location_answers
from textmem_gym.qa.probes.recall import probe_recall, recalled
from textmem_gym.qa.recall import BUDGETS, answer_recalled, recall_at_budgets

KNIFE = ProbeQuestion("location:knife", "location", 3, "Where is the knife?", location_answers("is on", "table"),
                      {"thing": "knife"})


def test_an_answer_inside_the_budget_is_recalled_and_one_cut_off_is_not():
    lines = ["x" * 36, "the knife is on the table"]  # 9 + 1 tokens, then 7 + 1
    assert approx_tokens(lines[0]) == 9
    assert recalled(lines, KNIFE, 18)
    assert not recalled(lines, KNIFE, 17)  # "the knife is on the tabl": the last word cut by the budget
    assert fit_budget(lines, 17)[-1] == "the knife is on the tabl"
    assert not recalled(lines, KNIFE, 10)  # the second line is dropped whole


def test_aliases_and_normalisation_count_but_parts_of_words_do_not():
    assert recalled(["You put the knife ON THE TABLE."], KNIFE, 256)
    assert not recalled(["a timetable lies here"], KNIFE, 256)  # "table" only inside a word
    carried = ProbeQuestion("location:key", "location", 1, "Where is the key?", location_answers("is in", "inventory"))
    assert recalled(["You are carrying it: a key."], carried, 256) is False
    assert recalled(["I am carrying it."], carried, 256)  # an alias


def test_an_answer_in_several_parts_needs_every_part_within_the_budget():
    contents = ProbeQuestion("contents:fridge", "contents", 5, "What is in the fridge?", ("apple, milk",),
                             {"holder": "fridge", "relation": "is in"}, ("apple", "milk"))
    assert contents.targets == [("apple", "milk")]
    assert recalled(["milk, is in, fridge", "apple, is in, fridge"], contents, 256)
    assert not recalled(["milk, is in, fridge", "apple, is in, fridge"], contents, 6)  # only the milk fits
    assert not recalled(["apple, is in, fridge"], contents, 256)


def test_recall_at_every_budget_from_a_real_memory_that_keeps_the_newest_steps():
    memory = FullHistoryMemory()
    memory.update("You see a knife on the table.", "", {})
    for i in range(300):
        memory.update(f"You wait. Nothing happens at all, again and again ({i}).", "wait", {})
    found = {str(b): recalled(memory.context(KNIFE.question, b), KNIFE, b) for b in BUDGETS}
    assert found == {"256": False, "512": False, "1024": False, "2048": False}  # step 0 lies beyond 2,048 tokens
    assert recalled(memory.context(KNIFE.question, 10 ** 6), KNIFE, 10 ** 6)


def test_counting_is_recalled_when_enough_lines_mention_the_event():
    opened = ProbeQuestion("counting:open:fridge", "counting", 9, "How many times did I open the fridge?", ("2", "two"),
                           {"event": "open", "target": "fridge", "count": 2})
    lines = ["step 4: > open fridge: You open the fridge.", "step 2: > open fridge: You open the fridge."]
    assert probe_recall(opened, lines) == {str(b): True for b in BUDGETS}
    assert not recalled(lines[:1], opened, 256)  # one event seen, two happened: "2" in the text does not count
    assert not recalled(lines, opened, 14)  # the second line cut
    entered = ProbeQuestion("counting:enter:hall", "counting", 9, "?", ("1", "one"),
                            {"event": "enter", "target": "hall", "count": 1})
    assert recalled(["-= Hall =-"], entered, 256) and not recalled(["-= Kitchen =-"], entered, 256)


def test_abstention_is_recalled_unless_a_line_puts_the_unseen_thing_somewhere():
    key = ProbeQuestion("abstention:key", "abstention", 7, "Where is the key?", ("unknown",),
                        {"thing": "key", "places": ["hall", "kitchen", "table", "inventory"]})
    assert recalled([], key, 256)  # nothing recalled: nothing invented
    assert recalled(["you are in the hall", "a table"], key, 256)  # places, but not with the key
    assert recalled(["the key? no key here"], key, 256)  # the key named with no place
    assert not recalled(["key, is on, table"], key, 256)
    assert recalled(["x" * 36, "key, is on, table"], key, 10)  # the invented line is beyond the budget


def test_the_shared_reader_of_targets_and_budgets():
    assert answer_recalled(["the Fridge"], [("fridge",), ("counter",)], 256)
    assert recall_at_budgets(["y" * 1200, "the fridge"], [("fridge",)], (256, 512)) == {256: False, 512: True}
