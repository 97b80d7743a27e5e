"""What the memories keep between steps (searches, the map, BM25 terms, episode groups, the hygiene's
scans, the temporal KG's order) gives the answers a fresh computation gives, step after step."""

from __future__ import annotations

import math
import random
from collections import Counter

import gymnasium as gym
import pytest

import textmem_gym  # noqa: F401  (registers ids)
from textmem_gym.memory import make_memory
from textmem_gym.memory.arigraph.memory import AriGraphMemory
from textmem_gym.memory.davis.kg import TemporalKG
from textmem_gym.memory.graph_memory import Hygiene
from textmem_gym.memory.retrieval import BM25Index, EpisodicMemory, episodic_relevance, tokenize
from textmem_gym.memory.semantic import TripleStore

GAME = "TextMem/Cooking-v0"


@pytest.fixture(scope="module")
def trajectory() -> list[tuple[str, str, dict]]:
    """(action, observation, info) of the walkthrough's first half then a seeded random walk."""
    env = gym.make(GAME, privileged=["walkthrough"], max_episode_steps=200)
    observation, info = env.reset(seed=0)
    steps = [("", observation, info)]
    rng = random.Random(3)
    plan = list(info["walkthrough"])[:6]
    for _ in range(60):
        action = plan.pop(0) if plan else rng.choice(sorted(info["admissible_commands"]))
        observation, _, terminated, truncated, info = env.step(action)
        steps.append((action, observation, info))
        if terminated or truncated:
            break
    env.close()
    return steps


def answers(memory, observation: str) -> tuple:
    """Everything a step may ask the memory."""
    return (memory.render(observation), memory.render(None), memory.known_locations(), memory.unexplored_exits(),
            memory.context("where is the knife?", 200))


@pytest.mark.parametrize("name", ["arigraph", "stma", "davis"])
def test_a_memory_asked_every_step_answers_as_one_asked_once(name, trajectory):
    asked, fresh = make_memory(name), make_memory(name)
    for number, (action, observation, info) in enumerate(trajectory):
        asked.update(observation, action, info)
        fresh.update(observation, action, info)
        now = answers(asked, observation)
        if number % 15 == 14:  # a memory that kept nothing from earlier questions
            assert now == answers(make_twin(name, trajectory[: number + 1]), observation)
    assert answers(fresh, trajectory[-1][1]) == answers(asked, trajectory[-1][1])


def make_twin(name: str, steps: list[tuple[str, str, dict]]):
    memory = make_memory(name)
    for action, observation, info in steps:
        memory.update(observation, action, info)
    return memory


def test_the_kept_map_is_the_map_room_by_room(trajectory):
    memory = AriGraphMemory()
    for action, observation, info in trajectory:
        memory.update(observation, action, info)
        spatial = memory.spatial
        per_room = {room: spatial.unexplored_exits(room) for room in memory.known_locations()}
        assert memory.unexplored_exits() == {room: exits for room, exits in per_room.items() if exits}
        assert memory.known_locations() == sorted(set(spatial.locations()) | {memory.location} - {None})


def test_revisions_move_when_the_believed_triples_change():
    store = TripleStore()
    assert store.add_key(("knife", "is on", "table"), 0) == (0, True)
    revision, map_revision = store.revision, store.map_revision
    assert store.add_key(("knife", "is on", "table"), 1) == (0, False) and store.revision == revision
    store.add("fridge", "is", "open", 1)
    assert store.revision == revision + 1 and store.map_revision == map_revision, "not a triple of the map"
    store.add("kitchen", "has exit", "north", 1)
    assert store.map_revision == map_revision + 1
    incident = store.incident("kitchen")
    store.invalidate(incident[0].id, 2)
    assert store.incident("kitchen") == [] and store.map_revision == map_revision + 2


def reference_bm25(documents: dict[int, str], query: str, k1: float = 1.2, b: float = 0.75) -> dict[int, float]:
    """BM25 as its formula reads (every document, every shared token: the index's limits never hit here)."""
    tokens = {i: Counter(tokenize(text)) for i, text in documents.items()}
    average = sum(sum(c.values()) for c in tokens.values()) / len(tokens)
    scores: dict[int, float] = {}
    for token in sorted(set(tokenize(query)), key=lambda t: (sum(t in c for c in tokens.values()), t)):
        df = sum(token in c for c in tokens.values())
        if not df:
            continue
        idf = math.log(1.0 + (len(tokens) - df + 0.5) / (df + 0.5))
        for i, counts in tokens.items():
            if token in counts:
                tf, norm = counts[token], k1 * (1 - b + b * sum(counts.values()) / average)
                scores[i] = scores.get(i, 0.0) + idf * tf * (k1 + 1) / (tf + norm)
    return scores


def test_bm25_changes_applied_when_read_give_the_formula():
    rng = random.Random(0)
    words = ["knife", "table", "apple", "fridge", "kitchen", "red", "door", "key", "chest", "hall"]
    index, documents = BM25Index(), dict[int, str]()
    for step in range(120):
        item = rng.randrange(30)
        if item in documents and rng.random() < 0.4:
            index.remove(item)
            del documents[item]
        else:
            documents[item] = " ".join(rng.choices(words, k=rng.randint(1, 4)))
            index.add(item, documents[item])
        if step % 7 == 0 and documents:
            query = " ".join(rng.choices(words, k=3))
            assert index.scores(query) == pytest.approx(reference_bm25(documents, query), abs=0, rel=1e-12)
            assert len(index) == len(documents)


def test_grouped_episodic_search_is_the_search_over_every_episode():
    rng = random.Random(1)
    memory = EpisodicMemory()
    edges = [sorted(rng.sample(range(12), rng.randint(0, 5))) for _ in range(8)]
    for step in range(200):  # few distinct edges, many repeats: as a game re-describes its rooms
        memory.add(step, "look", f"observation {step}", rng.choice(edges))
    for _ in range(30):
        query, k = rng.sample(range(12), rng.randint(1, 6)), rng.randint(1, 5)
        scored = [(i, episodic_relevance(len(set(e.triples) & set(query)), len(e.triples)))
                  for i, e in enumerate(memory.episodes)]
        best = sorted((s for s in scored if s[1] > 0), key=lambda s: (s[1], s[0]), reverse=True)[:k]
        assert [(e.step, score) for e, score in memory.search(query, k)] == [(memory.episodes[i].step, s) for i, s in best]


def test_hygiene_reading_new_text_only_knows_what_a_fresh_reading_knows():
    texts = ["-= Kitchen =-\nYou see a table.", "You take the red apple.", "A small brass key lies here.",
             "You can't see any such thing.", "The chests are closed."]
    names = ["table", "red apple", "brass key", "apple", "chest", "dragon", "small brass key", "sword"]
    hygiene = Hygiene()
    for number, text in enumerate(texts):
        hygiene.read(text, "look", {})
        fresh = Hygiene()
        for earlier in texts[: number + 1]:
            fresh.read(earlier, "look", {})
        assert [hygiene.mentioned(n) for n in names] == [fresh.mentioned(n) for n in names]
    assert not hygiene.mentioned("dragon") and hygiene.mentioned("chest")


def test_temporal_kg_latest_facts_without_sorting_them_all():
    rng = random.Random(2)
    for in_order in (True, False):
        kg = TemporalKG()
        for step in range(150):
            episode = rng.choice(["a", "b"]) if not in_order else "now"
            kg.add(rng.choice("xyz"), rng.choice(["is in", "is on"]), rng.choice("uvw"), step if in_order else
                   rng.randrange(40), episode=episode)
        assert kg.latest(15) == kg.order(kg.facts)[-15:] and kg.latest(0) == []
        for entities in (["x"], ["x", "w"], ["u", "z"]):
            assert kg.expand(entities, 1, latest=20) == kg.expand(entities, 1)[-20:]
