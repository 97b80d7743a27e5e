"""How much of each prompt any order of its sections could reuse: the bound of a prompt layout.

With the instructions first (both layouts), a prompt shares a prefix only with earlier prompts of its
own kind, and a layout only moves whole sections. A section whose text no earlier prompt of the kind
held ends any prefix a server can reuse, wherever it goes; so the share of a prompt's characters in
sections that an earlier prompt of its kind already held (the instructions, an unchanged goal, memory
or plan, a repeated observation...) bounds the reusable prefix share of *every* order of its sections
(``bound``). ``reused`` is what the layout reaches: the longest common prefix with an earlier prompt of
the kind, in characters.

Sections are read from the prompts of the working-memory policies (Ariadne and the AriGraph paper's
baselines: ``N. label: text``; ReflAct: ``LABEL: text``): the instructions up to the last ``####``,
then a section from each numbered or labelled line (with the lines that continue it) or blank line.

Each policy plays one episode per layout against the local test server with the rule-driven answerers
of ``benchmarks/prompt_cache.py`` (its ``SETUPS``); the table gives both shares per prompt kind at
steps 10, 50 and 150 and over the episode.

Run: python benchmarks/prompt_layout_bound.py [--steps 150] [--policies ariadne react] [--layouts paper cache]
"""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import gymnasium as gym

sys.path.insert(0, str(Path(__file__).resolve().parent))  # prompt_cache's set-ups
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # its answerers live with the tests

from prompt_cache import MARKS, SETUPS, policy_kwargs  # noqa: E402

from policies import make_policy  # noqa: E402
from policies.llm_agent import LLMPolicy  # noqa: E402
from textmem_gym.core.registry import accepts_argument  # noqa: E402
from textmem_gym.llm import LocalOpenAIServer  # noqa: E402
from textmem_gym.llm.prompts import common_prefix_length  # noqa: E402
from textmem_gym.runner import run_episode  # noqa: E402

#: The prompt kinds made of working-memory sections (the others are not measured here).
KINDS = ("plan", "action", "summary", "reflact", "reflact_reask")
#: A line that opens a working-memory section: ``3. Your current plan: ...`` or ``GOAL: ...``.
OPENS = re.compile(r"^(?:\d+\. |[A-Z][A-Z_]+: )")


def sections(prompt: str) -> list[str]:
    """The sections of a working-memory prompt, their numbers left out (see the module).

    Example:
        >>> sections("####\\nRules.\\n####\\n1. Goal: eat\\n2. History:\\n> look -> hall\\n\\nActions: [\\"look\\"]")
        ['####\\nRules.\\n####', 'Goal: eat', 'History:\\n> look -> hall', 'Actions: ["look"]']
    """
    head, marker, rest = prompt.rpartition("####\n")
    found = [head + marker.rstrip("\n")] if marker else []
    current: list[str] = []
    for line in (rest if marker else prompt).split("\n"):
        if (OPENS.match(line) or not line) and current:
            found.append("\n".join(current))
            current = []
        if line:
            current.append(re.sub(r"^\d+\. ", "", line))
    return found + (["\n".join(current)] if current else [])


@dataclass
class Kind:
    """The prompts of one kind seen so far, and per step: characters, reused, bound."""

    prompts: list[str] = field(default_factory=list)
    seen: set[str] = field(default_factory=set)
    steps: dict[int, list[int]] = field(default_factory=dict)

    def add(self, step: int, prompt: str) -> None:
        """Measures ``prompt`` (made at ``step``) against the earlier prompts of the kind, then keeps it."""
        reused = max((common_prefix_length(prompt, other) for other in self.prompts), default=0)
        own = sections(prompt)
        bound = sum(len(section) + 1 for section in own if section in self.seen)
        counts = self.steps.setdefault(step, [0, 0, 0])
        for index, value in enumerate((len(prompt), reused, min(bound, len(prompt)))):
            counts[index] += value
        self.prompts.append(prompt)
        self.seen.update(own)

    def shares(self, steps: list[int] | None = None) -> tuple[str, str]:
        """``(reused, bound)`` shares over ``steps`` (default: all)."""
        chosen = [self.steps[s] for s in (steps if steps is not None else self.steps) if s in self.steps]
        total, reused, bound = (sum(c[i] for c in chosen) for i in range(3))
        return (f"{reused / total:.2f}", f"{bound / total:.2f}") if total else ("-", "-")


def run(name: str, kwargs: dict[str, Any], steps: int) -> dict[str, Kind]:
    """One episode of policy ``name``: its prompts by kind, measured."""
    setup = SETUPS[name]
    kinds: dict[str, Kind] = {}

    def measure(step: int, calls: list[dict[str, Any]]) -> None:
        for call in calls:
            if call.get("model") is not None and call["kind"] in KINDS:
                kinds.setdefault(str(call["kind"]), Kind()).add(step, str(call["prompt"]))

    with LocalOpenAIServer(responder=setup.answerer(steps)) as server:
        options = {"model": "local", "base_url": server.base_url, **kwargs}
        if accepts_argument(name, "macro_counts_as_one_step"):
            options["macro_counts_as_one_step"] = True  # as benchmarks/prompt_cache.py: the same episodes
        policy = make_policy(name, **options)
        if not isinstance(policy, LLMPolicy):
            raise TypeError(f"{name!r} is not an LLM policy")
        limit: dict[str, Any] = {"max_episode_steps": steps} if setup.limited else {}
        env = policy.wrap_env(gym.make(setup.env_id, **limit))
        run_episode(env, policy, seed=0, on_step=lambda step, *_: measure(step, policy.take_llm_calls()))
        env.close()
        policy.close()
    return kinds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=150)
    parser.add_argument("--policies", nargs="+", default=["ariadne", "react", "reflact"], choices=list(SETUPS))
    parser.add_argument("--layouts", nargs="+", default=["paper", "cache"])
    args = parser.parse_args()
    marks = [m for m in MARKS if m <= args.steps]
    print("Reused prefix share / bound of any section order (characters), one episode each\n")
    print("| policy (layout) | kind | " + " | ".join(f"step {m}" for m in marks) + " | episode |")
    print("|---|---|" + "---|" * (len(marks) + 1))
    for name in args.policies:
        for layout in args.layouts:
            kinds = run(name, policy_kwargs(name, layout, {}), args.steps)
            for kind, measured in kinds.items():
                cells = [" / ".join(measured.shares([mark])) for mark in marks]
                print(f"| {name} ({layout}) | {kind} | " + " | ".join(cells) + f" | {' / '.join(measured.shares())} |",
                      flush=True)


if __name__ == "__main__":
    main()
