"""Failed model-made updates of AriGraph, DAVIS and STMA, by cause, against the real local OpenAI-compatible
server: the ``failures`` part is offered only where a model is asked, and DAVIS's rule-made stand-ins
(and STMA's) are flagged."""

from __future__ import annotations

import pytest

from textmem_gym.llm import LLMClient, LocalOpenAIServer
from textmem_gym.llm.testing.faults import Fault
from textmem_gym.memory.adoption import adopt
from textmem_gym.memory.arigraph.memory import AriGraphMemory
from textmem_gym.memory.davis.memory import DAVISMemory
from textmem_gym.memory.stma.memory import STMAMemory

pytestmark = pytest.mark.llm

KITCHEN = "-= Kitchen =-\nYou see a table. You see a knife on the table. There is an exit to the north."
SCIENCE_ROOM = "This room is called the kitchen. In it, you see:\n\tthe agent\n\ta fridge (containing milk)"
REFUSED = Fault("server_error", status=400)


def client(server: LocalOpenAIServer) -> LLMClient:
    return LLMClient(model="m", base_url=server.base_url, max_retries=0)


def test_memories_that_ask_no_model_do_not_count_failures() -> None:
    for memory in (AriGraphMemory(), DAVISMemory(), AriGraphMemory(extractor="oracle")):
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
