"""AriGraph memory on a cooking game: belief text, "go to" macro, belief accuracy, exports.

Run: python examples/memory_wrapper.py [output_dir]
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import gymnasium as gym

import textmem_gym  # noqa: F401  (registers the TextMem ids)
from textmem_gym.wrappers import MemoryGraphWrapper


def main(output_dir: Path) -> None:
    # privileged=True only so that the example can print belief accuracy against ground truth.
    env = MemoryGraphWrapper(gym.make("TextMem/Cooking-v0", privileged=True), memory="arigraph", extractor="rules")
    observation, info = env.reset(seed=0)
    for action in ["go south", "examine cookbook", "go east", "go east", "go north"]:
        observation, reward, terminated, truncated, info = env.step(action)
    print("location:", info["location"])
    print("known locations:", ", ".join(info["known_locations"]))
    print("unexplored exits:", info["unexplored_exits"])

    observation, reward, terminated, truncated, info = env.step("go to kitchen")
    print("macro:", " > ".join(info["macro"]["actions"]))
    print("steps:", info["steps"])
    print("belief:\n" + observation["belief"])

    memory = env.get_wrapper_attr("memory")
    print("believed triples:", len(memory.believed_triples()))
    print("belief precision/recall:", {name: (round(score["precision"], 3), round(score["recall"], 3))
                                        for name, score in env.belief_accuracy.summary().items()})
    memory.save(output_dir / "memory.json")
    memory.draw(output_dir / "memory.png")
    print("saved:", output_dir / "memory.json", output_dir / "memory.png")
    env.close()


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path(tempfile.mkdtemp(prefix="textmem-memory-")))
