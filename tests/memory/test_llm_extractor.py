"""The ``llm`` extractor against the real local OpenAI-compatible server (no key, no network):
prompts sent, answers parsed robustly, replacements applied, failures survived."""

from __future__ import annotations

import pytest

from textmem_gym.llm import LLMClient, LocalOpenAIServer
from textmem_gym.memory.arigraph.extraction import LLMExtractor
from textmem_gym.memory.arigraph.memory import AriGraphMemory
from textmem_gym.memory.arigraph.parse import canonical, parse_replacements, parse_triplets

pytestmark = pytest.mark.llm

KITCHEN = "-= Kitchen =-\nYou see a table. You see a knife on the table. There is an exit to the north."


def responder(messages):
    prompt = messages[-1]["content"]
    if "Replacing:" in prompt:
        return 'Sure! [["knife, is on, table" -> "knife, is in, inventory"], ["junk" -> "x"]]'
    if "You take the knife" in prompt:
        return "knife, is in, inventory"
    if "-= Hall =-" in prompt:
        return "```\n1. Hall, contains, chest\n2. you, are in, hall\n```"
    return 'Extracted triplets: "Kitchen, contains, table"; knife, is on, table; kitchen, has exit, north'


@pytest.fixture()
def server():
    with LocalOpenAIServer(responder=responder) as running:
        yield running


def test_paper_prompts_are_sent_and_answers_parsed(server):
    memory = AriGraphMemory(extractor="llm", extractor_options={
        "client": LLMClient(model="m", base_url=server.base_url)})
    memory.update(KITCHEN, "", {})
    assert set(memory.believed_triples()) == {("table", "is at", "kitchen"), ("knife", "is on", "table"),
                                              ("kitchen", "has exit", "north")}
    memory.update("You take the knife from the table.", "take knife from table", {})
    assert ("knife", "is in", "inventory") in memory.believed_triples()
    assert ("knife", "is on", "table") not in memory.believed_triples()
    prompts = [r["messages"][-1]["content"] for r in server.requests if "messages" in r]
    assert "Guidelines for Building the Knowledge Graph" in prompts[0] and KITCHEN in prompts[0]
    assert any("Existing triplets:" in p and '"knife, is on, table"' in p for p in prompts)
    memory.update("-= Hall =-\nYou see a chest.", "go north", {})
    assert ("chest", "is at", "hall") in memory.believed_triples()
    assert ("hall", "is north of", "kitchen") in memory.believed_triples(), "movement read from the header"
    assert not any(t[0] == "you" for t in memory.believed_triples())


def test_llm_failures_do_not_crash():
    with LocalOpenAIServer(faults=["500"] * 20) as failing:
        client = LLMClient(model="m", base_url=failing.base_url, max_retries=0)
        extractor = LLMExtractor(client=client)
        memory = AriGraphMemory(extractor=extractor)
        memory.update(KITCHEN, "", {})
    assert memory.believed_triples() == [] and extractor.failures == 1 and memory.location == "kitchen"


def test_programming_errors_propagate_instead_of_counting_as_llm_failures():
    extractor = LLMExtractor(client="gpt-4o")  # a model name where a client belongs: a bug, not an LLM failure
    with pytest.raises(AttributeError, match="context_window|chat"):
        extractor.extract(KITCHEN, "", {}, AriGraphMemory().store)
    assert extractor.failures == 0


def test_parsers_are_robust():
    assert parse_triplets("") == [] and parse_triplets("no triplets here") == []
    assert parse_triplets("a, b, c, d") == [("a", "b c", "d")]
    assert parse_triplets("none, is, here; key, is in, none") == []
    assert parse_replacements("[]") == [] and parse_replacements("Nothing to replace") == []
    assert parse_replacements("[[a, is in, b -> a, is in, c]]") == [(("a", "is in", "b"), ("a", "is in", "c"))]
    assert canonical(("fridge", "contains", "milk"), {"kitchen"}) == ("milk", "is in", "fridge")
    assert canonical(("kitchen", "contains", "milk"), {"kitchen"}) == ("milk", "is at", "kitchen")


def test_dense_retrieval_through_client_embeddings(server):
    client = LLMClient(model="m", base_url=server.base_url)
    memory = AriGraphMemory(similarity="openai", similarity_options={"client": client}, width=1)
    memory.update("-= Kitchen =-\nYou see a table. You see a knife on the table. The fridge contains an apple.", "", {})
    calls = server.calls
    found = memory.semantic_search("apple fridge", depth=1)
    assert [t.as_tuple() for t in found] == [("apple", "is in", "fridge")]
    memory.semantic_search("apple fridge", depth=1)
    assert server.calls == calls + 1, "triples are embedded once; a repeated query is cached by text"


def test_bad_replacement_mode():
    with pytest.raises(ValueError, match="replacement"):  # rejected before any client is built
        LLMExtractor(replacement="magic")
