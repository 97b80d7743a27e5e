"""Writing your own policy: subclass BasePolicy, write ``act``, and use it by "module:Factory" name.

``CuriousPolicy`` needs no LLM. It asks for a MemoryGraphWrapper in ``wrap_env``, so each ``info``
carries the memory's map (``location``, ``unexplored_exits``) and the observation its belief text.
Each step it takes or opens something it has not tried here yet, else walks through an exit the map
has not explored (``go to`` another room when the exits here are done), else tries any command not
yet tried here.

Run: python examples/custom_policy.py
The same policy on the command line (from the repository root, so that ``examples`` is importable):
    textmem-gym eval TextMem/Cooking-v0 --policy examples.custom_policy:CuriousPolicy --max-steps 30
"""

from __future__ import annotations

import random
from typing import Any

import gymnasium as gym

from policies import BasePolicy
from textmem_gym.wrappers import MemoryGraphWrapper

EAGER_VERBS = ("take", "open", "read")


class CuriousPolicy(BasePolicy):
    """Tries what is new where it stands, then walks to unexplored exits (no LLM, AriGraph map)."""

    name = "curious"

    def __init__(self, seed: int | None = 0) -> None:
        self.rng = random.Random(seed)
        self.tried: set[tuple[str, str]] = set()  # (location, command)

    def seed(self, seed: int | None) -> None:
        self.rng.seed(seed)

    def wrap_env(self, env: gym.Env) -> gym.Env:
        return MemoryGraphWrapper(env, memory="arigraph", extractor="rules")

    def reset(self, observation: Any, info: dict[str, Any]) -> None:
        self.tried.clear()

    def act(self, observation: Any, info: dict[str, Any]) -> str:
        here = info.get("location") or "?"
        new = [c for c in info["admissible_commands"] if (here, c) not in self.tried]
        eager = [c for c in new if c.split()[0] in EAGER_VERBS]
        exits = info.get("unexplored_exits", {})
        if eager:
            command = eager[0]
        elif exits.get(here):
            command = f"go {exits[here][0]}"
        elif exits:
            command = f"go to {next(iter(exits))}"
        else:
            command = self.rng.choice(new or info["admissible_commands"] or ["look"])
        self.tried.add((here, command))
        return command


def main() -> None:
    import textmem_gym  # noqa: F401  (registers the TextMem ids)
    from policies import make_policy
    from textmem_gym.runner import EvalConfig, evaluate

    # "module:Factory" works wherever a policy name does (also `textmem-gym eval --policy ...`).
    policy = make_policy("custom_policy:CuriousPolicy", seed=0)
    for result in evaluate("TextMem/Cooking-v0", policy, EvalConfig(episodes=2, max_steps=40)):
        print(f"{result['policy']}: seed {result['seed']} score {result['score']}/{result['max_score']} "
              f"in {result['steps']} decisions ({result['primitive_steps']} primitive moves)")


if __name__ == "__main__":
    main()
