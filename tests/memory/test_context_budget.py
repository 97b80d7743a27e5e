"""A graph memory's ``context(question, budget)`` uses its budget: the question's facts first, the current
state before the past, one fact per line and each once, more lines for a larger budget (the smaller
context is the larger one's beginning), never more tokens than the budget. Each memory is fed a real
TextWorld episode through the wrapper: the walkthrough's first 16 steps take the green bell pepper from
the garden and the orange one from the fridge, then walk back to the backyard."""

from __future__ import annotations

import gymnasium as gym
import pytest

import textmem_gym  # noqa: F401  (registers the ids)
from textmem_gym.memory.budget import count_tokens
from textmem_gym.memory.graph_memory import GraphMemory
from textmem_gym.memory.semantic import inverse_spatial
from textmem_gym.wrappers import MemoryGraphWrapper

GAME = "TextMem/Cooking-v0"
STEPS = 16
BUDGETS = (16, 64, 256, 512, 2048)


@pytest.fixture(scope="module", params=["arigraph", "stma", "davis"])
def memory(request: pytest.FixtureRequest) -> GraphMemory:
    """The memory after the walkthrough's first steps, fed by the wrapper."""
    env = MemoryGraphWrapper(gym.make(GAME, privileged=["walkthrough"]), memory=request.param)
    try:
        _, info = env.reset(seed=0)
        for action in info["walkthrough"][:STEPS]:
            env.step(action)
        fed = env.get_wrapper_attr("memory")
    finally:
        env.close()
    assert isinstance(fed, GraphMemory)
    return fed


def test_a_larger_budget_gives_more_lines_that_begin_with_the_smaller_context_and_fit(memory):
    for question in ("Where is the fridge?", "How do I get from the kitchen to the garden?", "What is on the table?"):
        contexts = [memory.context(question, budget) for budget in BUDGETS]
        for budget, lines in zip(BUDGETS, contexts):
            assert sum(count_tokens(line) + 1 for line in lines) <= budget
        for small, large in zip(contexts, contexts[1:]):
            assert len(large) > len(small) > 0
            assert large[:len(small) - 1] == small[:-1] and large[len(small) - 1].startswith(small[-1])
    assert memory.context("Where is the fridge?", 0) == []


def test_the_question_comes_first(memory):
    assert memory.context("Where is the fridge?", 2048)[0] == "fridge, is at, kitchen"  # the agent is in the backyard
    contents = memory.context("What is on the table?", 2048)
    on_table = {t.text() for t in memory.store.active() if t.relation == "is on" and t.object == "table"}
    assert contents[0] == "table, is at, kitchen" and "knife, is on, table" in on_table <= set(contents[:len(on_table) + 3])
    route = ", ".join(direction for direction, _ in memory.route("kitchen", "garden"))
    assert memory.context("How do I get from the kitchen to the garden?", 64)[0].startswith(
        f"route from kitchen to garden: {route}")


def test_the_current_state_comes_before_the_past(memory):
    assert memory.location == "backyard" and ("green bell pepper", "is in", "inventory") in memory.believed_triples()
    lines = memory.context("Where is the green bell pepper?", 2048)
    now, then = "green bell pepper, is in, inventory", "green bell pepper, was at, garden (steps 7-8)"
    assert lines[0] == now and then in lines and lines.index(now) < lines.index(then)
    past = [i for i, line in enumerate(lines) if "(steps " in line]
    current = [i for i, line in enumerate(lines) if line in {t.text() for t in memory.store.active()}]
    assert past and current and max(current) < min(past)


def test_a_question_about_the_past_gets_the_facts_of_its_time_first(memory):
    lines = memory.context("At step 16: Where was the green bell pepper at step 7, before it was moved?", 256)
    assert lines[0] == "green bell pepper, was at, garden (steps 7-8)"


def test_one_fact_per_line_and_each_fact_once(memory):
    lines = memory.context("Where is the fridge?", 10_000)
    assert len(lines) == len(set(lines))
    believed = {t.text(): ", ".join(inverse_spatial(t.key) or ()) for t in memory.store.active()}
    assert all(text in lines or inverse in lines for text, inverse in believed.items())
    assert not any(text in lines and inverse in lines for text, inverse in believed.items())
    assert not any(sum(text in line for text in believed) > 1 for line in lines if not line.startswith("step "))
    past = [t for t in memory.triple_history() if t.end is not None]
    assert all(f"(steps {t.start}-{t.end})" in "\n".join(lines) for t in past)
