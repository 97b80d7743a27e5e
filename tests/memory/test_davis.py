"""DAVIS memory: the append-only temporal KG (time ordering, read-only world model, path +
k-hop expansion, entity types), transition extraction, graph QA with and without an LLM."""

from __future__ import annotations

import json

import pytest

from textmem_gym.llm import LLMClient, LocalOpenAIServer
from textmem_gym.memory import make_memory
from textmem_gym.memory.davis.extraction import DavisRulesExtractor, action_event
from textmem_gym.memory.davis.kg import LOCATION, OBJECT, PERSON, TemporalKG
from textmem_gym.memory.davis.memory import DAVISMemory
from textmem_gym.memory.semantic import TripleStore

ROOM = ("This room is called the kitchen. In it, you see:\n\tthe agent\n\ta substance called air\n"
        "\ta fridge (containing a substance called milk)\n\ta table. On the table is: a knife, a cup (containing nothing).\n"
        "You also see:\n\tA door to the hallway (that is open)\n\tA door to the outside (that is closed)")


def test_facts_are_appended_with_time_and_never_overwritten():
    kg = TemporalKG()
    kg.add("apple", "is in", "fridge", 1)
    kg.add("apple", "is in", "inventory", 4)
    kg.add("apple", "is in", "fridge", 1)  # the same fact at the same time is stored once
    kg.add("apple", "is in", "fridge", 7, episode="later")
    assert [(f.object, f.step, f.episode) for f in kg.facts] == [("fridge", 1, 0), ("inventory", 4, 0), ("fridge", 7, "later")]


def test_time_ordering_follows_episodes_then_steps():
    kg = TemporalKG()
    kg.add("b", "r", "c", 5, episode="train-1")
    kg.add("a", "r", "b", 2, episode="train-1")
    kg.add("a", "r", "c", 0, episode="now")
    kg.add("a", "r", "b", 9, episode="train-0")
    ordered = kg.order(kg.facts)
    assert [(f.episode, f.step) for f in ordered] == [("train-1", 2), ("train-1", 5), ("now", 0), ("train-0", 9)]


def test_expand_is_the_path_plus_the_k_hop_neighbourhood_in_time_order():
    kg = TemporalKG()
    for step, (s, o) in enumerate([("a", "b"), ("b", "c"), ("c", "d"), ("d", "e"), ("x", "a"), ("e", "f")]):
        kg.add(s, "next to", o, step)
    path = [(f.subject, f.object) for f in kg.expand(["a", "e"], hops=0)]
    assert path == [("a", "b"), ("b", "c"), ("c", "d"), ("d", "e")]
    around = [(f.subject, f.object) for f in kg.expand(["a", "e"], hops=1)]
    assert around == [("a", "b"), ("b", "c"), ("c", "d"), ("d", "e"), ("x", "a"), ("e", "f")]
    assert kg.expand(["missing"], hops=2) == []


def test_entity_types_and_read_only_world_model(tmp_path):
    kg = TemporalKG()
    kg.add("agent", "go to", "kitchen", 1, types={"agent": PERSON, "kitchen": LOCATION})
    kg.add("milk", "is in", "fridge", 1)
    assert kg.entities(PERSON) == ["agent"] and kg.entities(LOCATION) == ["kitchen"]
    assert kg.entities(OBJECT) == ["fridge", "milk"]
    with pytest.raises(ValueError, match="entity type"):
        kg.add("x", "r", "y", 2, types={"x": "animal"})
    kg.save(tmp_path / "wm.json")
    world = TemporalKG.load(tmp_path / "wm.json", read_only=True)
    assert [f.text() for f in world.facts] == [f.text() for f in kg.facts] and world.types == kg.types
    with pytest.raises(PermissionError):
        world.add("a", "b", "c", 3)
    assert world.to_networkx().nodes["kitchen"]["type"] == LOCATION


def test_scienceworld_text_is_extracted_with_types():
    extractor = DavisRulesExtractor()
    out = extractor.extract(ROOM, "look around", {}, TripleStore())
    assert out.location == "kitchen"
    for triple in [("fridge", "is in", "kitchen"), ("milk", "is in", "fridge"), ("knife", "is on", "table"),
                   ("cup", "is on", "table"), ("kitchen", "has door to", "outside"), ("door to outside", "is", "closed"),
                   ("agent", "look around", "itself")]:
        assert triple in out.triples, triple
    types = extractor.entity_types(out.triples)
    assert types["hallway"] == LOCATION and types["agent"] == PERSON and types["milk"] == OBJECT
    moved = extractor.extract("You move to the hallway.", "go to hallway", {}, TripleStore())
    assert moved.location == "hallway" and moved.triples == [("agent", "go to", "hallway")]
    assert action_event("move egg in inventory to orange box") == ("agent", "move", "egg in inventory to orange box")


def test_memory_records_steps_rewards_and_keeps_history():
    memory = make_memory("davis")
    memory.update(ROOM, "", {"score": 0})
    memory.update("You move the milk to the inventory.", "pick up milk", {"score": 10})
    facts = [(f.subject, f.relation, f.object, f.step) for f in memory.kg.facts]
    assert ("milk", "is in", "fridge", 0) in facts and ("milk", "is in", "inventory", 1) in facts
    assert ("pick up milk", "increased score by", "10", 1) in facts
    assert ("milk", "is in", "inventory") in memory.believed_triples()
    assert ("milk", "is in", "fridge") not in memory.believed_triples()  # believed state moved on, the KG kept it
    assert memory.location == "kitchen" and "Recent events:" in memory.render("milk")
    memory.reset()
    assert len(memory.kg) == 0


def test_graph_qa_with_the_llm_answers_from_the_time_ordered_subgraph():
    world = TemporalKG()
    world.add("agent", "go to", "outside", 3, episode="train-0", types={"outside": LOCATION, "agent": PERSON})
    world.add("frog", "is in", "outside", 4, episode="train-0")
    world.add("agent", "focus on", "frog", 5, episode="train-0")
    prompts = []

    def answer(messages):
        prompt = messages[-1]["content"]
        prompts.append(prompt)
        if "choose the entity types" in prompt:
            return json.dumps({"types": ["location", "object"], "entities": ["outside", "frog"]})
        return "Go outside and focus on the frog."

    with LocalOpenAIServer(responder=answer) as server:
        client = LLMClient(model="m", base_url=server.base_url, timeout=2, max_retries=0)
        memory = DAVISMemory(client=client, world_model=world)
        found = memory.graph_qa("Where is a living thing?")
    assert found.entities == ["outside", "frog"] and found.types == ["location", "object"]
    assert found.answer == "Go outside and focus on the frog."
    sequence = prompts[1].split("Time-ordered facts:\n")[1]
    assert sequence.index("t=3] agent, go to, outside") < sequence.index("t=4] frog, is in, outside") < \
        sequence.index("t=5] agent, focus on, frog")
    assert "location: outside" in prompts[0] and world.read_only


@pytest.mark.java
@pytest.mark.slow
def test_world_model_from_gold_trajectories_of_training_variations():
    from textmem_gym.envs.scienceworld.gold import gold_trajectories
    from textmem_gym.memory.davis.world_model import build_world_model

    kg = build_world_model("find-living-thing", variations=2, cache=False, gold=gold_trajectories)
    assert kg.read_only and {f.episode for f in kg.facts} == {"train-0", "train-1"}
    assert any(f.relation == "focus on" for f in kg.facts)
    assert any(f.relation == "increased score by" and f.object == "50" for f in kg.facts)
    assert "outside" in kg.entities(LOCATION) and "agent" in kg.entities(PERSON)
    with pytest.raises(ValueError, match="variations"):
        build_world_model("find-living-thing", variations=0, gold=gold_trajectories)


def test_llm_extractor_resolves_coreferences_and_types_entities():
    prompts = []

    def answer(messages):
        prompts.append(messages[-1]["content"])
        return ('The agent opened the fridge; the milk is in the fridge.\n```\n'
                '[["agent", "opened", "fridge", "person", "object"], ["milk", "is in", "fridge", "object", "object"],'
                ' ["fridge", "stands in", "kitchen", "object", "location"]]\n```')

    with LocalOpenAIServer(responder=answer) as server:
        client = LLMClient(model="m", base_url=server.base_url, timeout=2, max_retries=0)
        memory = DAVISMemory("llm", client=client)
        memory.update(ROOM, "", {})
        memory.update("You open the fridge. It contains milk.", "open fridge", {})
    facts = {(f.subject, f.relation, f.object, f.step) for f in memory.kg.facts}
    assert {("agent", "opened", "fridge", 1), ("milk", "is in", "fridge", 1), ("agent", "open", "fridge", 1)} <= facts
    assert memory.kg.types["kitchen"] == LOCATION and memory.kg.types["agent"] == PERSON
    assert "Resolve coreferences" in prompts[1] and "Observation before: This room is called the kitchen" in prompts[1]
    assert "Action: open fridge" in prompts[1]


def test_the_path_between_two_entities_does_not_depend_on_the_order_the_graph_was_built_in():
    """Ties between shortest paths are broken by name, so two processes (whose set iteration differs
    with the hash seed) retrieve the same facts."""
    import networkx as nx

    from textmem_gym.memory.davis.kg import first_shortest_path

    edges = [("hall", "kitchen"), ("hall", "cellar"), ("kitchen", "garden"), ("cellar", "garden"), ("garden", "shed")]
    forward, backward = nx.Graph(edges), nx.Graph(list(reversed(edges)))
    assert nx.shortest_path(forward, "hall", "shed") != nx.shortest_path(backward, "hall", "shed")
    assert first_shortest_path(forward, "hall", "shed") == first_shortest_path(backward, "hall", "shed") \
        == ["hall", "cellar", "garden", "shed"]
    assert first_shortest_path(forward, "hall", "attic") == []
