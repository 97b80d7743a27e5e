"""STMA memory: the deterministic parts (buffer, dynamic KG replacement, K-hop retrieval,
transitive inference) and the LLM steps through the local OpenAI-compatible server."""

from __future__ import annotations

import json

import pytest

from textmem_gym.llm import LLMClient, LocalOpenAIServer
from textmem_gym.memory import make_memory
from textmem_gym.memory.semantic import TripleStore
from textmem_gym.memory.stma.graph import (
    BM25EntityIndex,
    describe,
    graph_of,
    k_hop,
    retrieve_subgraph,
    transitive_directions,
)
from textmem_gym.memory.stma.memory import STMAMemory, parse_rdf
from textmem_gym.memory.stma.temporal import HistoryBuffer


def store_of(triples):
    store = TripleStore()
    for s, r, o in triples:
        store.add(s, r, o, 0)
    return store


def test_history_buffer_keeps_the_last_25_records_in_order():
    buffer = HistoryBuffer()
    for i in range(40):
        buffer.record(f"obs {i}", f"act {i}" if i else "")
    records = list(buffer)
    assert len(buffer) == 25 and records[0].observation == "obs 15" and records[-1].observation == "obs 39"
    assert records[0].action == "act 16" and records[-1].action == ""
    buffer.note_feedback("rejected: door closed")
    trajectory = buffer.trajectory()
    assert trajectory.count("Observation:") == 25 and trajectory.count("Action:") == 24
    assert trajectory.endswith("FeedBack:\nrejected: door closed")
    with pytest.raises(ValueError, match="history size"):
        HistoryBuffer(0)


def test_memory_buffer_length_follows_the_option():
    memory = make_memory("stma", history=3)
    for i in range(6):
        memory.update(f"You see thing {i}.", f"look {i}" if i else "", {})
    assert len(memory.buffer) == 3 and [r.observation for r in memory.buffer][0] == "You see thing 3."


def test_new_relations_replace_outdated_ones_and_history_is_kept():
    memory = STMAMemory()
    memory.update("-= Kitchen =-\nYou see a table. On the table you see a knife.", "", {})
    assert ("knife", "is on", "table") in memory.believed_triples()
    memory.update("You take the knife from the table.", "take knife from table", {})
    believed = memory.believed_triples()
    assert ("knife", "is in", "inventory") in believed and ("knife", "is on", "table") not in believed
    assert [(t.object, t.end is None) for t in memory.store.history("knife")] == [("table", False), ("inventory", True)]


def test_k_hop_retrieval_on_a_hand_made_graph():
    chain = [("a", "is west of", "b"), ("b", "is west of", "c"), ("c", "is west of", "d"), ("d", "is west of", "e"),
             ("apple", "is at", "a"), ("x", "is on", "y")]
    store = store_of(chain)
    graph = graph_of(store.active())
    assert k_hop(graph, ["a"], 0) == {"a"}
    assert k_hop(graph, ["a"], 2) == {"a", "b", "c", "apple"}
    assert k_hop(graph, ["e", "missing"], 1) == {"e", "d"}
    found = retrieve_subgraph(store.active(), "apple", top_n=1, k=3)
    assert {t.as_tuple() for t in found} == {("apple", "is at", "a"), ("a", "is west of", "b"),
                                             ("b", "is west of", "c")}
    assert {t.as_tuple() for t in retrieve_subgraph(store.active(), "apple", top_n=1, k=0)} == set()
    assert BM25EntityIndex(["red potato", "yellow potato", "knife"]).top("yellow potato", 2) == \
        ["yellow potato", "red potato"]
    assert BM25EntityIndex(["b knife", "a knife"]).top("knife", 2) == ["a knife", "b knife"]  # ties: name order


def test_transitive_direction_inference():
    triples = [("a", "is west of", "b"), ("b", "is west of", "c"), ("c", "is north of", "d")]
    assert transitive_directions(store_of(triples).active()) == [("a", "is west of", "c")]
    text = describe(store_of(triples).active())
    assert "The a is to the west of the b." in text and "It follows that: The a is to the west of the c." in text


def test_spatial_belief_is_the_retrieved_subgraph_and_render_has_both_beliefs():
    memory = STMAMemory(top_n=1, hops=1)
    memory.update("-= Hall =-\nYou see a chest. There is an exit to the north.", "", {"objective": "Find the key."})
    memory.update("-= Kitchen =-\nYou see a stove.", "go north", {})
    spatial = memory.spatial_belief("stove")
    assert "The stove is in the kitchen." in spatial and "chest" not in spatial
    rendered = memory.render("stove")
    assert rendered.startswith("Temporal belief:\nActive goal: Find the key.")
    assert "Movements: go north (hall -> kitchen)" in rendered and "Spatial belief:" in rendered


def test_recipe_is_recorded_in_detail():
    memory = STMAMemory()
    memory.update("-= Kitchen =-\nYou see a cookbook.", "", {})
    memory.update("Recipe #1\n\nIngredients:\n  red apple\n\nDirections:\n  slice the red apple\n  prepare meal",
                  "examine cookbook", {})
    for _ in range(30):
        memory.update("Nothing happens.", "wait", {})
    assert "slice the red apple prepare meal" in memory.temporal_belief


def test_parse_rdf_maps_the_papers_relations():
    answer = ('```\n[\n["bathroom", "is at north of", "corridor"],\n["kitchen", "contains", "fridge"],\n'
              '["table", "holds", "knife"]\n]\n```')
    assert parse_rdf(answer, {"kitchen"}) == [("bathroom", "is north of", "corridor"), ("fridge", "is at", "kitchen"),
                                             ("knife", "is on", "table")]


def test_llm_steps_use_the_appendix_prompts_and_fall_back_when_the_llm_fails():
    prompts: list[str] = []

    def answer(messages):
        prompt = messages[-1]["content"]
        prompts.append(prompt)
        if "summarize the robots history" in prompt:
            return "The robot went north to the kitchen."
        if "extracting only the spatial relationships" in prompt:
            return '```\n[["stove", "is at", "kitchen"], ["table", "holds", "knife"]]\n```'
        return "The stove stands in the kitchen; the knife lies on the table."

    with LocalOpenAIServer(responder=answer) as server:
        client = LLMClient(model="m", base_url=server.base_url, timeout=2, max_retries=0)
        memory = make_memory("stma", extractor="llm", extractor_options={"client": client})
        memory.update("-= Hall =-\nThere is an exit to the north.", "", {})
        memory.update("-= Kitchen =-\nYou see a stove and a table. On the table is a knife.", "go north", {})
        assert memory.temporal_belief == "The robot went north to the kitchen."
        assert ("knife", "is on", "table") in memory.believed_triples()
        assert ("kitchen", "is north of", "hall") in memory.believed_triples()
        assert memory.spatial_belief("stove").startswith("The stove stands")
        assert any("Paragraph:\nThe robot went north" in p for p in prompts)
        assert any('["stove", "is at", "kitchen"]' in p for p in prompts if "spatial reasoning" in p)
    memory.update("You see nothing.", "look", {})  # server gone: deterministic fallbacks
    assert memory.temporal_belief.startswith("Active goal:") and memory.llm_failures >= 1


def test_programming_errors_in_llm_steps_propagate():
    memory = STMAMemory(client="gpt-4o")  # a model name where a client belongs: a bug, not an LLM failure
    with pytest.raises(AttributeError, match="'str' object has no attribute"):
        memory.update("-= Hall =-\nThere is an exit to the north.", "", {})
    assert memory.llm_failures == 0

    def broken(kind, prompt, *, trim=()):
        return prompt.missing_method()

    with pytest.raises(AttributeError, match="missing_method"):
        STMAMemory(llm=broken).update("-= Hall =-\nThere is an exit to the north.", "", {})


def test_bad_options_are_rejected():
    with pytest.raises(ValueError, match="summarizer"):
        STMAMemory(summarizer="llm")
    with pytest.raises(ValueError, match="top_n"):
        STMAMemory(top_n=-1)
    with pytest.raises(ValueError, match="extractor='llm'"):
        STMAMemory(extractor="llm")


def test_wrapper_uses_stma_memory_and_saves_it(tmp_path):
    import gymnasium as gym

    import textmem_gym  # noqa: F401
    from textmem_gym.wrappers import MemoryGraphWrapper

    env = MemoryGraphWrapper(gym.make("TextMem/Cooking-v0"), memory="stma")
    obs, info = env.reset(seed=0)
    obs, *_ = env.step("go south")
    memory = env.get_wrapper_attr("memory")
    assert isinstance(memory, STMAMemory) and obs["belief"].startswith("Temporal belief:")
    assert "go south" in memory.temporal_belief and info["location"]
    memory.save(tmp_path / "m.json")
    data = json.loads((tmp_path / "m.json").read_text())
    assert data["stma"]["buffer"][0]["action"] == "go south"
    env.close()


@pytest.mark.parametrize("similarity", ["bm25", "embeddings"])
def test_entity_similarity_drives_algorithm_1(similarity):
    with LocalOpenAIServer() as server:
        client = LLMClient(model="m", base_url=server.base_url, timeout=2, max_retries=0)
        memory = STMAMemory(entity_similarity=similarity, client=client, summarizer="rules",
                            aggregator="rules", top_n=1, hops=1)
        memory.update("-= Kitchen =-\nYou see a stove. You see a fridge.", "", {})
        found = memory.retrieve("where is the stove")
        again = memory.retrieve("where is the stove")
    assert [t.as_tuple() for t in found] == [t.as_tuple() for t in again] == [("stove", "is at", "kitchen")]
    if similarity == "embeddings":  # each text embedded once
        assert sorted(memory._vectors) == ["fridge", "kitchen", "stove", "where is the stove"]
        assert memory.embedding_calls == 1
    else:
        assert memory._vectors == {} and memory.embedding_calls == 0 and server.calls == 0
    with pytest.raises(ValueError, match="entity_similarity"):
        STMAMemory(entity_similarity="embeddings")
    with pytest.raises(ValueError, match="entity_similarity"):
        STMAMemory(entity_similarity="tfidf")
