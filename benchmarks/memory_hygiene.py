"""Memory hygiene side by side: what noisy command streams leave in each memory, hygiene on vs off.

Every memory (``arigraph`` and ``stma`` with the rules extractor, ``davis``) reads random walks
on AriGraph-style games where every other command is typed as a person or an LLM would (typos,
nonsense, absent things, other phrasings: ``tests/memory/noisy.py``'s stream, which also judges
each triple the memory ever believed). The same stream is read twice (actions never depend on
the memory): with the hygiene on (the hygiene of :mod:`textmem_gym.memory.graph_memory`, the default) and switched
off (a pass-through that reads every observation whole and keeps every triple, while counting
what the hygiene would have rejected). Printed per game and memory:

- ``unclean``: share of the triples ever believed that the judge finds are read from a refused
  command or name an entity the game never printed, off -> on;
- what the hygiene rejects (summed over seeds): refused steps it does not read, and the triples
  it would drop for naming never-printed entities (counted with it off: on, a refused step is
  not read at all, so little is left to drop);
- belief accuracy (``BeliefAccuracy`` after every step, as ``MemoryGraphWrapper`` scores it,
  micro-averaged, ``overall``): precision, recall and the share of believed triples that are
  ``unverifiable`` (relations no fact can check), off -> on.

Jericho games need their ROM (``TEXTMEM_ROMS_DIR`` or a download); a game whose ROM is not found
is skipped with a note.

    TEXTMEM_ROMS_DIR=/path/to/roms python benchmarks/memory_hygiene.py [--seeds 5] [--steps 40]
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the noisy stream and its judge live with the tests

import textmem_gym  # noqa: E402,F401
from tests.memory.noisy import Judged, noisy_episode  # noqa: E402
from textmem_gym.envs.jericho.roms import RomNotFoundError  # noqa: E402
from textmem_gym.memory import make_memory  # noqa: E402
from textmem_gym.memory.belief_metrics import BeliefAccuracy, Counts  # noqa: E402
from textmem_gym.memory.graph_memory import (
    GraphMemory,  # noqa: E402
    Hygiene,  # noqa: E402
)
from textmem_gym.memory.semantic import TripleKey  # noqa: E402

GAMES = ("TextMem/TreasureHunt-v0", "TextMem/Cooking-v0", "TextMem/Cleaning-v0", "TextMem/Jericho-Zork1-v0")
MEMORIES = ("arigraph", "stma", "davis")


class HygieneOff(Hygiene):
    """The hygiene switched off: every observation is read whole and every triple kept, but what
    the hygiene would have rejected is still counted (``failures``, ``dropped``)."""

    def read(self, observation: str, action: str, info: dict[str, Any], location: str | None = None) -> str:
        super().read(observation, action, info, location)
        return observation

    def keep(self, triples: Iterable[TripleKey]) -> list[TripleKey]:
        triples = list(triples)
        super().keep(triples)
        return triples


class Scored:
    """A memory whose beliefs are scored after every update, as ``MemoryGraphWrapper`` does
    (facts of the step, the action and the text seen); everything else goes to the memory."""

    def __init__(self, memory: Any) -> None:
        self.memory = memory
        self.accuracy = BeliefAccuracy()

    def use_parser(self, parser: Any) -> None:
        self.memory.use_parser(parser)
        self.accuracy = BeliefAccuracy(None if parser is None else parser.observed_truth())

    def update(self, observation: str, action: str, info: dict[str, Any]) -> None:
        self.memory.update(observation, action, info)
        if info.get("facts") is not None:
            self.accuracy.step(info["facts"], action, self.memory.believed_triples(), observation)

    def context(self, question: str, budget: int) -> list[str]:
        return list(self.memory.context(question, budget))

    def __getattr__(self, name: str) -> Any:  # the optional parts: those of the memory
        return getattr(self.memory, name)


@dataclass
class Side:
    """One setting (hygiene on or off) of one game and memory, summed over seeds."""

    judged: Judged = field(default_factory=Judged)
    belief: Counts = field(default_factory=Counts)
    refused_steps: int = 0
    dropped: int = 0

    def add(self, judged: Judged, accuracy: BeliefAccuracy, hygiene: Hygiene) -> None:
        self.judged += judged
        self.belief += accuracy.totals["overall"]
        self.refused_steps += hygiene.failures
        self.dropped += hygiene.dropped

    def numbers(self) -> dict[str, float]:
        """Unclean share, precision, recall and unverifiable share."""
        return {"unclean": self.judged.share, "precision": self.belief.precision, "recall": self.belief.recall,
                "unverifiable": self.belief.unverifiable / max(self.belief.believed, 1)}


def measure(env_id: str, memory_name: str, seeds: int, steps: int) -> dict[str, Side]:
    """``{"off": ..., "on": ...}`` for the same noisy streams (seeds ``0..seeds-1``)."""
    sides = {"off": Side(), "on": Side()}
    for seed in range(seeds):
        for setting, side in sides.items():
            memory = make_memory(memory_name)
            assert isinstance(memory, GraphMemory), f"{memory_name} has no hygiene to switch off"
            if setting == "off":
                memory.hygiene = HygieneOff()
            scored = Scored(memory)
            judged = noisy_episode(env_id, scored, steps=steps, seed=seed)  # type: ignore[arg-type]
            side.add(judged, scored.accuracy, memory.hygiene)
    return sides


def row(env_id: str, memory_name: str, sides: dict[str, Side]) -> str:
    """One table row: off -> on for each number (precision and recall ``n/a`` when the facts
    gave no checkable truth: nothing true was observed, every checked belief is a false positive)."""
    off, on = sides["off"], sides["on"]
    before, after = off.numbers(), on.numbers()
    pair = {name: f"{before[name]:.3f} -> {after[name]:.3f}" for name in before}
    if off.belief.tp + off.belief.fn == 0 and on.belief.tp + on.belief.fn == 0:
        pair["precision"] = pair["recall"] = "n/a"
    return (f"| {env_id.removeprefix('TextMem/')} | {memory_name} | {pair['unclean']} "
            f"({off.judged.unclean} -> {on.judged.unclean} of {off.judged.triples} -> {on.judged.triples}) | "
            f"{on.refused_steps} | {off.dropped} | {pair['precision']} | {pair['recall']} | "
            f"{pair['unverifiable']} ({off.belief.unverifiable} -> {on.belief.unverifiable}) |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=5, help="noisy streams per game (seeds 0..N-1)")
    parser.add_argument("--steps", type=int, default=40, help="commands per stream (every other one typed)")
    parser.add_argument("--games", nargs="+", default=list(GAMES))
    parser.add_argument("--memories", nargs="+", default=list(MEMORIES))
    args = parser.parse_args()
    start = time.perf_counter()
    print(f"{args.seeds} streams x {args.steps} commands per game; every other command typed.\n")
    print("| game | memory | unclean share off -> on (unclean of all triples) | refused steps not read "
          "| triples off keeps that on drops | precision off -> on | recall off -> on "
          "| unverifiable share off -> on (count over steps) |")
    print("|---|---|---|---|---|---|---|---|")
    for env_id in args.games:
        for memory_name in args.memories:
            try:
                sides = measure(env_id, memory_name, args.seeds, args.steps)
            except RomNotFoundError as error:
                print(f"| {env_id} | (skipped: {error}) |")
                break
            print(row(env_id, memory_name, sides), flush=True)
    print(f"\n{time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
