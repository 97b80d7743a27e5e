"""Memory overhead, measured side by side in one run (prints ratios; targets in brackets).

1. Step time of ``MemoryGraphWrapper(memory="arigraph", extractor="rules")`` (one retrieval
   per step: the belief text) vs the bare env on TextMem/Cooking-Hard-v0, same actions,
   interleaved repeats [target <= 1.25x].
2. Retrieval latency (``memory.retrieve``: semantic search depth 2 / width 5 + episodic
   search) on synthetic graphs of 1k, 10k and 100k triples [target latency(100k) <= 3 x
   latency(1k)].

Run: python benchmarks/memory_overhead.py [--repeats 3] [--queries 300]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from typing import Any

import gymnasium as gym

import textmem_gym  # noqa: F401
from textmem_gym.memory.arigraph.memory import AriGraphMemory
from textmem_gym.memory.extractors.base import Extraction, StructuralOutdated
from textmem_gym.wrappers import MemoryGraphWrapper

ENV_ID = "TextMem/Cooking-Hard-v0"


def actions_for(env_id: str, extra: int, seed: int) -> list[str]:
    """The walkthrough followed by ``extra`` random admissible commands (fixed by ``seed``)."""
    env = gym.make(env_id, privileged="walkthrough", max_episode_steps=10_000)
    _, info = env.reset(seed=0)
    rng, actions = random.Random(seed), []
    for _ in range(extra):  # explore first, then the walkthrough from wherever we are is not valid,
        action = rng.choice([c for c in info["admissible_commands"] if not c.startswith(("eat", "cook", "prepare"))])
        actions.append(action)
        *_, info = env.step(action)
    env.close()
    return actions


def time_episode(env: gym.Env, actions: list[str]) -> float:
    """Seconds per step for ``actions`` after a reset (reset not timed)."""
    env.reset(seed=0)
    start = time.perf_counter()
    for action in actions:
        env.step(action)
    return (time.perf_counter() - start) / len(actions)


def step_overhead(repeats: int) -> float:
    actions = actions_for(ENV_ID, 120, seed=1)
    bare = gym.make(ENV_ID, max_episode_steps=10_000)
    wrapped = MemoryGraphWrapper(gym.make(ENV_ID, max_episode_steps=10_000), memory="arigraph", extractor="rules")
    bare_times, wrapped_times = [], []
    time_episode(bare, actions[:10]), time_episode(wrapped, actions[:10])  # warm up
    for _ in range(repeats):
        bare_times.append(time_episode(bare, actions))
        wrapped_times.append(time_episode(wrapped, actions))
    memory = wrapped.get_wrapper_attr("memory")
    b, w = statistics.median(bare_times), statistics.median(wrapped_times)
    believed = len(memory.believed_triples())
    print(f"[step] {ENV_ID}, {len(actions)} steps x {repeats} repeats, {believed} believed triples")
    print(f"  bare env        {b * 1e3:8.3f} ms/step")
    print(f"  wrapped (rules) {w * 1e3:8.3f} ms/step (update + 1 retrieval + belief text)")
    print(f"  ratio           {w / b:8.3f}x   [target <= 1.25x]  {'OK' if w / b <= 1.25 else 'MISSED'}")
    bare.close(), wrapped.close()
    return w / b


class BatchExtractor(StructuralOutdated):
    """Feeds pre-built triples to the memory (synthetic graphs)."""

    def __init__(self) -> None:
        self.batch: list[tuple[str, str, str]] = []

    def reset(self) -> None:
        self.batch = []

    def extract(self, observation: str, action: str, info: dict[str, Any], store: Any) -> Extraction:
        return Extraction(triples=self.batch)


ADJECTIVES = "red green blue rusty shiny old new small large wooden iron golden silver broken dusty".split()
NOUNS = "key locker apple table chest book lamp note knife box door chair shelf coin map".split()
RELATIONS = ["is near", "opens", "belongs to", "is made of", "needs", "is part of", "is bigger than", "fits"]


def synthetic_graph(n_triples: int, seed: int = 0) -> tuple[AriGraphMemory, list[str]]:
    """A world-like graph: rooms on a grid with exits, objects located in rooms/furniture,
    random object relations; added 1000 triples per step as episodic observations whose text
    states them."""
    rng = random.Random(seed)
    extractor = BatchExtractor()
    memory = AriGraphMemory(extractor=extractor)
    n_rooms, n_things = max(n_triples // 40, 4), max(n_triples // 3, 10)
    rooms = [f"room {i}" for i in range(n_rooms)]
    things = [f"{rng.choice(ADJECTIVES)} {rng.choice(NOUNS)} {i}" for i in range(n_things)]
    triples: list[tuple[str, str, str]] = []
    for i in range(1, n_rooms):
        triples.append((rooms[i], "is east of", rooms[i - 1]))
    for thing in things:
        triples.append((thing, "is at", rng.choice(rooms)))
    while len(triples) < n_triples:
        a, b = rng.sample(things, 2)
        triples.append((a, rng.choice(RELATIONS), b))
    for start in range(0, n_triples, 1000):
        extractor.batch = triples[start:start + 1000]
        # the observation prints what it teaches (memory hygiene keeps only names the game printed)
        memory.update(" ".join(f"The {s} {r} the {o}." for s, r, o in extractor.batch), "look", {})
    return memory, things


def retrieval_scaling(sizes: list[int], queries: int) -> float:
    print(f"[retrieval] memory.retrieve(query): depth 2, width 5, 2 episodes; {queries} queries per size")
    latencies = {}
    for size in sizes:
        start = time.perf_counter()
        memory, things = synthetic_graph(size)
        build = time.perf_counter() - start
        rng = random.Random(1)
        picks = [rng.choice(things) for _ in range(queries)]
        texts = [p if i % 2 else f"where is the {p}?" for i, p in enumerate(picks)]
        memory.retrieve(texts[0])
        start = time.perf_counter()
        for text in texts:
            memory.retrieve(text)
        latencies[size] = (time.perf_counter() - start) / queries
        count = len(memory.believed_triples())
        print(f"  {count:>7} triples: {latencies[size] * 1e3:7.3f} ms/query (built in {build:5.1f} s)")
    ratio = latencies[sizes[-1]] / latencies[sizes[0]]
    print(f"  latency({sizes[-1] // 1000}k) / latency({sizes[0] // 1000}k) = {ratio:.2f}x   [target <= 3x]  "
          f"{'OK' if ratio <= 3 else 'MISSED'}")
    return ratio


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--queries", type=int, default=300)
    args = parser.parse_args()
    step_overhead(args.repeats)
    retrieval_scaling([1_000, 10_000, 100_000], args.queries)


if __name__ == "__main__":
    main()
