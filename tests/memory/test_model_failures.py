"""Failed model-made updates of AriGraph, DAVIS, STMA and HippoRAG, by cause, against the real local
OpenAI-compatible server: the ``failures`` part is offered only where a model is asked, and DAVIS's rule-made
stand-ins (and STMA's, and HippoRAG's unfiltered facts at query time) are flagged."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest

from textmem_gym.llm import LLMClient, LocalOpenAIServer
from textmem_gym.llm.testing.exchange import bag_of_words_vector
from textmem_gym.llm.testing.faults import Fault
from textmem_gym.memory.adoption import adopt
from textmem_gym.memory.arigraph.memory import AriGraphMemory
from textmem_gym.memory.davis.memory import DAVISMemory
from textmem_gym.memory.hipporag import HippoRAGMemory
from textmem_gym.memory.stma.memory import STMAMemory

pytestmark = pytest.mark.llm

KITCHEN = "-= Kitchen =-\nYou see a table. You see a knife on the table. There is an exit to the north."
SCIENCE_ROOM = "This room is called the kitchen. In it, you see:\n\tthe agent\n\ta fridge (containing milk)"
REFUSED = Fault("server_error", status=400)


def client(server: LocalOpenAIServer) -> LLMClient:
    return LLMClient(model="m", base_url=server.base_url, max_retries=0)


def toy_embed(texts: Sequence[str]) -> np.ndarray:
    """The test server's bag-of-words vectors: HippoRAG's embeddings without loading MiniLM."""
    return np.array([bag_of_words_vector(text, 64) for text in texts])


def test_memories_that_ask_no_model_do_not_count_failures() -> None:
    for memory in (AriGraphMemory(), DAVISMemory(), AriGraphMemory(extractor="oracle"),
                   HippoRAGMemory(embed=toy_embed)):
        adopted = adopt(memory)
        assert not adopted.offers("failures") and adopted.failed_updates() is None  # "-", not 0


def test_arigraph_counts_failed_updates_by_cause_across_episodes() -> None:
    answers: list[str | Fault] = ["knife, is on, table", "knife, is in, inventory", REFUSED, REFUSED, "Sorry, I see nothing to extract."]
    with LocalOpenAIServer(script=answers) as server:
        memory = AriGraphMemory(extractor="llm", extractor_options={"client": client(server)})
        adopted = adopt(memory)
        adopted.update(KITCHEN, "", {})
        adopted.update("You take the knife from the table.", "take knife", {})  # the outdated prompt refused
        assert set(memory.believed_triples()) == {("knife", "is on", "table"), ("knife", "is in", "inventory")}
        adopted.reset()  # a new episode keeps the count, as the tokens spent
        adopted.update(KITCHEN, "", {})  # refused: the header's room is still read, nothing else
        assert memory.believed_triples() == [] and memory.location == "kitchen"
        adopted.update("You see a knife on the table.", "look", {})  # garbled
    assert adopted.failed_updates() == {"LLMError": 2, "UnreadableAnswer": 1}


@pytest.mark.parametrize(("fallback", "cause", "stood_in"), [(True, "fallback:LLMError", True),
                                                             (False, "LLMError", False)])
def test_davis_flags_the_rules_standing_in_for_a_refused_call(fallback: bool, cause: str, stood_in: bool) -> None:
    with LocalOpenAIServer(script=[REFUSED, ""]) as server:
        memory = DAVISMemory(extractor="llm", client=client(server), rules_fallback=fallback)
        adopted = adopt(memory)
        adopted.update(SCIENCE_ROOM, "look around", {})
        believed = set(memory.believed_triples())
        adopted.update("You move to the hallway.", "go to hallway", {})  # a blank answer
    assert (("milk", "is in", "fridge") in believed) is stood_in  # a rule-made tuple, only as a fallback
    assert {("agent", "look around", "itself"), ("fridge", "is in", "kitchen")} <= believed  # the room: always
    assert adopted.failed_updates() == {cause: 1, cause.replace("LLMError", "EmptyAnswer"): 1}


def test_stma_counts_its_summarizer_and_relation_retriever_failures_once_per_update() -> None:
    hall = "-= Hall =-\nYou see a chest. There is an exit to the north."
    answers: list[str | Fault] = [REFUSED, '["chest", "is in", "hall"]',  # summary refused: the rules' stands in
                                  "I am in the hall.", REFUSED,  # relations refused: the rules' triples stand in
                                  "I am in the hall.", "no relations"]  # nothing read from the relations
    with LocalOpenAIServer(script=answers) as server:
        memory = STMAMemory(extractor="llm", client=client(server))
        adopted = adopt(memory)
        for action in ("", "look", "wait"):
            adopted.update(hall, action, {})
    assert adopted.failed_updates() == {"fallback:LLMError": 2, "UnreadableAnswer": 1}
    assert ("hall", "has exit", "north") in memory.believed_triples()  # only the rules read it: flagged above
    with LocalOpenAIServer() as server:
        only_aggregates = STMAMemory(client=client(server), summarizer="rules")  # no update asks the model
    assert adopt(only_aggregates).failed_updates() is None and adopt(STMAMemory()).failed_updates() is None


def test_hipporag_counts_refused_garbled_and_blank_openie_by_cause_and_flags_the_unfiltered_facts() -> None:
    answers: list[str | Fault] = ['{"triples": [["knife", "is on", "table"]]}', REFUSED,
                                  "The knife matters.",  # the recognition filter's answer: garbled
                                  "Sorry, I see nothing to extract.", "  ",
                                  '{"triples": []}']  # a passage stating no fact: not a failure
    with LocalOpenAIServer(script=answers) as server:
        memory = HippoRAGMemory(client=client(server), embed=toy_embed, structured=False)
        adopted = adopt(memory)
        adopted.update(KITCHEN, "look", {})
        adopted.update("You take the knife.", "take knife", {})  # refused: indexed with no fact
        assert memory.facts == [("knife", "is on", "table")] and len(memory.passages) == 2
        memory.context("Where is the knife?", 100)  # the filter's answer is garbled: every linked fact kept
        assert memory.linked == [("knife", "is on", "table")]
        adopted.reset()  # a new episode keeps the counts, as the tokens spent
        for observation in ("You see a knife on the table.", "You wait.", "Time passes."):
            adopted.update(observation, "wait", {})
        assert server.calls == len(answers) and memory.facts == []
    assert adopted.failed_updates() == {"LLMError": 1, "UnreadableAnswer": 1, "EmptyAnswer": 1}
    assert memory.filter_failures == {"fallback:UnreadableAnswer": 1}  # a query's failure, not an update's
