"""Generative-Agents retrieval of the RAG baselines and the explorer's reading of directions."""

from __future__ import annotations

from policies.instructions import Directions, read_tool_rules
from policies.memory_stream import MemoryStream, min_max


def test_min_max_normalizes_each_score():
    assert min_max([2.0, 4.0, 3.0]) == [0.0, 1.0, 0.5]
    assert min_max([5.0, 5.0]) == [1.0, 1.0]


def test_retrieval_weighs_recency_importance_and_relevance():
    stream = MemoryStream(decay=0.99)
    stream.add("The recipe needs a red onion.", step=0, importance=9)
    stream.add("You walk into an empty corridor.", step=1, importance=1)
    stream.add("You see a sofa.", step=2, importance=2)
    best = stream.retrieve("red onion", step=3, k=1)
    assert [m.text for m in best] == ["The recipe needs a red onion."]
    assert best[0].last_access == 3  # retrieval refreshes recency
    only_old = stream.retrieve("sofa", step=3, k=5, exclude_after=1)
    assert [m.step for m in only_old] == [0, 1]
    assert MemoryStream(weights=(1.0, 0.0, 0.0)).retrieve("x", step=0, k=2) == []
    recent = MemoryStream(weights=(1.0, 0.0, 0.0))
    for step in range(3):
        recent.add(f"memory {step}", step=step, importance=5)
    assert [m.step for m in recent.retrieve("unrelated", step=10, k=1)] == [2]


def test_directions_need_the_right_tool_and_the_finale_waits_until_ready():
    assert read_tool_rules("grill food only with the BBQ, fry food only with the stove.") == \
        {"grill": "bbq", "fry": "stove"}
    d = Directions()
    d.read("Directions:\n  dice the carrot\n  grill the carrot\n  prepare meal",
           "Rules: grill food only with the BBQ.")
    assert d.command_for(["cook carrot with stove", "look"]) is None
    assert d.command_for(["cook carrot with BBQ", "dice carrot with knife"]) == "dice carrot with knife"
    d.done("dice carrot with knife")
    assert d.tools_needed() == [("carrot", "bbq")] and not d.needs_knife()
    d.done("cook carrot with BBQ")
    assert d.active and d.command_for(["prepare meal"], ready=False) is None
    assert d.command_for(["prepare meal"]) == "prepare meal"
    d.done("prepare meal")
    assert d.command_for(["eat meal"]) == "eat meal"
