"""AriGraph memory: invalidation with history, retrieval order, episodic scoring (eq. 1),
unexplored exits (Algorithm 3), routes, persistence and exports."""

from __future__ import annotations

import math

import pytest

from textmem_gym.memory import make_memory
from textmem_gym.memory.arigraph.memory import AriGraphMemory
from textmem_gym.memory.retrieval import BM25Index, EpisodicMemory, episodic_relevance

KITCHEN = ("-= Kitchen =-\nYou see a table. You see a knife and an apple on the table. "
           "There is a closed wooden door leading north. There is an exit to the east.")
HALL = "-= Hall =-\nYou see a chest. There is an open wooden door leading south. There is an exit to the west."


def walked_memory() -> AriGraphMemory:
    memory = AriGraphMemory()
    memory.update(KITCHEN, "", {})
    memory.update("You open wooden door.", "open wooden door", {})
    memory.update(HALL, "go north", {})
    return memory


def test_moving_an_item_invalidates_old_location_and_keeps_history():
    memory = AriGraphMemory()
    memory.update(KITCHEN, "", {})
    memory.update("You take the knife from the table.", "take knife from table", {})
    assert memory.stats["invalidated"] == 1 and memory.stats["added"] == 1
    memory.update("-= Hall =-\nYou see a chest.", "go north", {})
    memory.update("You drop the knife on the ground.", "drop knife", {})
    believed = memory.believed_triples()
    assert ("knife", "is at", "hall") in believed
    assert ("knife", "is on", "table") not in believed and ("knife", "is in", "inventory") not in believed
    history = [(t.relation, t.object, t.start, t.end) for t in memory.store.history("knife")]
    assert history == [("is on", "table", 0, 1), ("is in", "inventory", 1, 3), ("is at", "hall", 3, None)]
    assert ("knife", "is on", "table") in [t.as_tuple() for t in memory.store.believed_at(0)]


def test_doors_states_and_inferred_inverse_edges():
    memory = walked_memory()
    believed = set(memory.believed_triples())
    assert ("wooden door", "is", "open") in believed and ("wooden door", "is", "closed") not in believed
    forward = memory.store.triples[memory.store.find("hall", "is north of", "kitchen")]
    inverse = memory.store.triples[memory.store.find("kitchen", "is south of", "hall")]
    assert not forward.inferred and inverse.inferred



def test_a_walk_the_other_way_is_not_overwritten_by_an_inverse():
    """A one-way path (Karn's TARDIS): south from a cellar leads to the kitchen, whose north is the hall,
    walked before. The walk's inverse (the cellar north of the kitchen) must not replace what was walked."""
    memory = walked_memory()
    memory.update("-= Cellar =-\nYou see a barrel.", "go west", {})
    memory.update(KITCHEN, "go south", {})
    believed = set(memory.believed_triples())
    assert ("kitchen", "is south of", "cellar") in believed and ("hall", "is north of", "kitchen") in believed
    assert ("cellar", "is north of", "kitchen") not in believed
    assert memory.route("kitchen", "hall") == [("north", "hall")]


def test_unexplored_exits_and_route():
    memory = walked_memory()
    assert memory.location == "hall"
    assert memory.unexplored_exits() == {"hall": ["west"], "kitchen": ["east"]}
    assert memory.route("hall", "kitchen") == [("south", "kitchen")]
    assert memory.route("kitchen", "hall") == [("north", "hall")]
    assert memory.known_locations() == ["hall", "kitchen"]


def test_bm25_prefers_rarer_and_repeated_terms():
    index = BM25Index()
    for i, text in enumerate(["knife, is on, table", "apple, is on, table", "red apple, is in, fridge",
                              "apple, is in, apple basket"]):
        index.add(i, text)
    ranked = [item for item, _ in index.search("apple", 4)]
    assert ranked[0] == 3 and set(ranked) == {1, 2, 3}
    index.remove(3)
    assert [item for item, _ in index.search("apple", 4)][0] in (1, 2)
    assert index.search("fridge", 1)[0][0] == 2


def test_semantic_search_expands_through_vertices_within_depth():
    memory = AriGraphMemory(width=2)
    memory.update(KITCHEN, "", {})
    shallow = {t.as_tuple() for t in memory.semantic_search("knife", depth=1)}
    deep = {t.as_tuple() for t in memory.semantic_search("knife", depth=2)}
    assert shallow == {("knife", "is on", "table")}
    assert ("table", "is at", "kitchen") in deep and shallow < deep
    assert memory.semantic_search("knife", depth=0) == []


def test_episodic_scoring_hand_computed():
    episodic = EpisodicMemory()
    episodic.add(0, "", "four facts", [1, 2, 3, 4])
    episodic.add(1, "look", "two facts", [1, 5])
    episodic.add(2, "take", "one fact", [1])
    episodic.add(3, "look", "eight facts", list(range(10, 18)))
    # step 0: n=2 of N=4 -> 2/4*log2(4) = 1.0; step 1: 1/2*log2(2) = 0.5; step 2: N=1 -> 0
    # step 3: n=3 of N=8 -> 3/8*3 = 1.125
    scored = [(e.step, s) for e, s in episodic.search([1, 2, 10, 11, 12], k=4)]
    assert scored == [(3, 1.125), (0, 1.0), (1, 0.5)]
    assert episodic_relevance(1, 1) == 0.0 and episodic_relevance(0, 0) == 0.0
    assert math.isclose(episodic_relevance(1, 3), math.log2(3) / 3)
    assert [e.step for e, _ in episodic.search([1, 2, 10, 11, 12], k=1)] == [3]


def test_retrieve_returns_triples_and_episodes_and_render():
    memory = walked_memory()
    found = memory.retrieve(["chest", "knife"])
    texts = [t.text() for t in found.triples]
    assert "chest, is at, hall" in texts and "knife, is on, table" in texts
    assert [e.step for e, _ in found.episodes][0] in (0, 2)
    text = memory.render("chest")
    assert "Current location: hall" in text and "chest, is at, hall" in text and "Unexplored exits" in text
    assert "knife, is on, table" in memory.render(None)


def test_version_moves_with_every_change_and_retrievals_are_counted():
    memory = walked_memory()
    seen = [memory.version]
    before = memory.retrievals
    assert memory.render("chest") == memory.render_retrieval(memory.retrieve("chest"))
    assert memory.render(None) == memory.render_retrieval(None) and memory.retrievals == before + 2
    assert memory.version == seen[-1], "reading does not change the memory"
    memory.update("You take the knife from the table.", "take knife", {})
    seen.append(memory.version)
    assert memory.invalidate("chest", "is at", "hall")
    seen.append(memory.version)
    memory.reset()
    seen.append(memory.version)
    assert seen == sorted(set(seen))


def test_save_load_round_trip(tmp_path):
    memory = walked_memory()
    memory.update("You take the knife from the table.", "take knife", {})
    path = tmp_path / "memory.json"
    memory.save(path)
    assert path.read_text().startswith("{")
    restored = make_memory("arigraph")
    restored.load(path)
    assert restored.believed_triples() == memory.believed_triples()
    assert [(t.start, t.end) for t in restored.store.history("knife")] == \
        [(t.start, t.end) for t in memory.store.history("knife")]
    assert [t.text() for t in restored.retrieve("knife").triples] == \
        [t.text() for t in memory.retrieve("knife").triples]
    assert restored.location == "hall" and len(restored.episodic) == len(memory.episodic)
    restored.update("You drop the knife on the ground.", "drop knife", {})
    assert ("knife", "is at", "hall") in restored.believed_triples()
    (tmp_path / "bad.json").write_text('{"format": "other"}')
    with pytest.raises(ValueError, match="not a saved AriGraph"):
        restored.load(tmp_path / "bad.json")


def test_networkx_and_png(tmp_path):
    memory = walked_memory()
    memory.update("You take the knife from the table.", "take knife", {})
    graph = memory.to_networkx()
    assert graph.has_edge("knife", "inventory") and not graph.has_edge("knife", "table")
    history = memory.to_networkx(history=True, episodic=True)
    assert history.has_edge("knife", "table")
    assert history.nodes["step 0"]["kind"] == "episode" and history.has_edge("step 0", "table")
    png = memory.draw(tmp_path / "graph.png")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_bad_arguments_are_named():
    with pytest.raises(ValueError, match="depth"):
        AriGraphMemory(depth=-1)
    with pytest.raises(ValueError, match="unknown extractor"):
        AriGraphMemory(extractor="magic")
    with pytest.raises(ValueError, match="unknown memory"):
        make_memory("nope")
    with pytest.raises(ValueError, match="unknown similarity"):
        AriGraphMemory(similarity="nope")
