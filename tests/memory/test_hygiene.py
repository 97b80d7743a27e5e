"""Memory hygiene: refused commands and names the game never printed stay out of every memory
and extractor, on real games of every backend played with noisy command streams (half the commands
typed as a person or an LLM would: typos, nonsense, absent things, other phrasings)."""

from __future__ import annotations

import shutil

import pytest

from tests.memory.noisy import Judged, noisy_episodes
from textmem_gym.llm import LLMClient, LocalOpenAIServer
from textmem_gym.memory import BeliefAccuracy, make_memory
from textmem_gym.memory.graph_memory import Hygiene, is_refusal

KITCHEN = "-= Kitchen =-\nYou see a table. You see a knife on the table. There is an exit to the north."
MEMORIES = ("arigraph", "stma", "davis")


#: Games whose text the rules extractor cannot read (Lost Pig's caveman narration): nothing to learn.
UNREAD = {("TextMem/Jericho-Lostpig-v0", "arigraph"), ("TextMem/Jericho-Lostpig-v0", "stma")}


def _judge(env_id: str, memories: tuple[str, ...], seeds: int = 2, steps: int = 40) -> None:
    """Each memory judged on the same noisy episodes (one env per seed feeds them all)."""
    for seed in range(seeds):
        for memory, judged in noisy_episodes(env_id, memories, steps=steps, seed=seed).items():
            _assert_clean(env_id, memory, judged)


def _assert_clean(env_id: str, memory: str, judged: Judged) -> None:
    # half the commands played were typed (a random admissible command can end the game early:
    # ScienceWorld's "focus on" the wrong thing), and some of them were refused
    assert judged.typed_steps >= judged.played_steps // 2 and judged.refused_steps > 0, "the stream was noisy"
    assert judged.played_steps >= 10, "the stream was long enough to judge"
    assert judged.triples > 0 or (env_id, memory) in UNREAD, "the memory learned from the admissible half"
    assert judged.refusal == [], f"{env_id} {memory}: triples from refused commands {judged.refusal}"
    assert judged.never_mentioned == [], f"{env_id} {memory}: never-mentioned names {judged.never_mentioned}"


@pytest.mark.parametrize("memory", MEMORIES)
@pytest.mark.parametrize("env_id", ["TextMem/Cooking-v0", "TextMem/Cleaning-v0"])
def test_textworld_noisy_stream_leaves_no_refusal_or_unmentioned_triple(env_id, memory):
    _judge(env_id, (memory,))


@pytest.mark.parametrize("memory", MEMORIES)
@pytest.mark.parametrize("env_id", [
    "TextMem/Jericho-Zork1-v0",
    pytest.param("TextMem/Jericho-Lostpig-v0", marks=pytest.mark.exhaustive),  # ~2 min per memory: long variant
])
def test_jericho_noisy_stream_leaves_no_refusal_or_unmentioned_triple(env_id, memory):
    _judge(env_id, (memory,))


@pytest.mark.parametrize("memory", MEMORIES)
def test_nethack_noisy_stream_leaves_no_refusal_or_unmentioned_triple(memory):
    _judge("TextMem/NetHack-RoomObs-v0", (memory,), seeds=1)


@pytest.mark.java
@pytest.mark.skipif(shutil.which("java") is None, reason="needs Java")
@pytest.mark.parametrize("env_id", [
    "TextMem/ScienceWorld-Boil-v0",
    "TextMem/TWX-CookingWorld-v0"])
def test_java_backends_noisy_stream_leaves_no_refusal_or_unmentioned_triple(env_id):
    _judge(env_id, MEMORIES, seeds=1, steps=30)  # one JVM for the three memories


def test_refusals_of_several_parsers_are_read_as_refusals_and_real_text_is_not():
    for text in ("You can't see any such thing.", "That's not a verb I recognise.", 'I don\'t know the word "dragon".',
                 "No known action matches that input.", "Unknown action: I'm not sure what you mean.",
                 "Grunk not see that there.", "What do you want to read in?",
                 "'xyzzy' is not a NetHack command. Use a direction ('north', 'far east') or a letter."):
        assert is_refusal(text), text
    for text in ("Taken.", "You open the fridge. The fridge contains some milk.", KITCHEN, "Nothing happens."):
        assert not is_refusal(text), text


def test_refused_command_changes_nothing_but_its_failure_is_recorded():
    for name in MEMORIES:
        memory = make_memory(name)
        memory.update(KITCHEN, "", {})
        before = memory.believed_triples()
        memory.update("You can't see any such thing.", "examine cookbook", {})
        memory.update('I don\'t know the word "dragon".', "take dragon", {})
        assert memory.believed_triples() == before, name
        assert memory.hygiene.failed == {"kitchen": ["examine cookbook", "take dragon"]}
        assert len(memory.episodes()) == 3, "the steps stay in the episodic record"


def test_typed_names_are_not_entities_but_printed_ones_are():
    hygiene = Hygiene()
    hygiene.read("You see a closed wooden door and some carrots.", "look", {"objective": "Find the golden key."})
    kept = hygiene.keep([("wooden door", "is", "closed"), ("carrot", "is at", "hall"), ("golden key", "is in", "box"),
                         ("dragon", "is at", "hall"), ("agent", "put", "carrot into wooden door")])
    assert [t[0] for t in kept] == ["wooden door", "agent"] and hygiene.dropped == 3


@pytest.mark.llm
def test_llm_extractors_drop_hallucinated_names_and_skip_refused_steps():
    def responder(messages):
        prompt = messages[-1]["content"]
        if "temporal knowledge graph" in prompt:
            return '["dragon", "is in", "kitchen", "object", "location"], ["knife", "is on", "table", "object", "object"]'
        if "Guidelines for Building the Knowledge Graph" in prompt:
            return "dragon, is in, kitchen; knife, is on, table"
        return '["dragon", "is in", "kitchen"], ["knife", "is on", "table"]'

    with LocalOpenAIServer(responder=responder) as server:
        client = LLMClient(model="m", base_url=server.base_url)
        for name, options in (("arigraph", {"extractor": "llm", "extractor_options": {"client": client}}),
                              ("stma", {"extractor": "llm", "client": client}),
                              ("davis", {"extractor": "llm", "client": client})):
            memory = make_memory(name, **options)
            memory.update(KITCHEN, "", {})
            assert ("knife", "is on", "table") in memory.believed_triples(), name
            calls = len(server.requests)
            memory.update("You can't see any such thing.", "examine dragon", {})
            assert not any("dragon" in e for t in memory.believed_triples() for e in t), name
            if name == "arigraph":
                assert len(server.requests) == calls, "a refused step is not sent to the extractor"


def test_belief_accuracy_counts_every_believed_triple():
    metric = BeliefAccuracy()
    facts = [("P", "at", "hall"), ("chest", "at", "hall")]
    believed = [("chest", "is at", "hall"), ("note", "says", "hello"), ("recipe", "requires", "apple")]
    score = metric.step(facts, "", believed)
    assert score["overall"].precision == 1.0 and score["overall"].unverifiable == 2
    summary = metric.summary()["overall"]
    assert summary["believed"] == 3 and summary["unverifiable"] == 2
    assert metric.unverifiable_relations == {"says": 1, "requires": 1}
