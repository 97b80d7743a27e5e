"""Noisy command streams and an independent judge of what entered a memory.

Half the commands are what a person or an LLM types rather than the admissible list: typos of
admissible commands, nonsense, things that are not there (``examine dragon``), and other phrasings
(``look at the <thing>``). The memory reads every step as a wrapper would; the judge then checks
each triple the memory ever believed (its whole history):

- *refusal*: first believed at a step whose typed command (a typo, nonsense or an absent thing;
  not another phrasing of an admissible command, which the game may understand) changed nothing
  (same privileged facts and score) and whose observation names none of the triple's entities
  (structural ones left out: ``agent``, directions, positions);
- *never mentioned*: one of its entities (the subject; the object too unless the relation's object
  is a value) is not a substring of any text the game printed so far (refused steps left out;
  names joined by a preposition, an action's object in DAVIS's events, count when each part is).

The judge shares no code with the hygiene of :mod:`textmem_gym.memory.graph_memory` (plain substrings, no refusal list).
``benchmarks/memory_hygiene.py`` prints the shares for every backend.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import gymnasium as gym

from textmem_gym.memory import make_memory
from textmem_gym.wrappers.memory_graph import text_parser

ABSENT = ("dragon", "golden sword", "wizard", "bible", "spaceship", "unicorn horn")
VERBS = ("examine", "take", "open", "eat", "read", "put {} in", "talk to", "look at the")
_VALUES = {"is", "needs to be", "says", "is said to be"}
_STRUCTURAL = {"inventory", "agent", "you", "player", "itself", "here", "north", "south", "east", "west",
               "northeast", "northwest", "southeast", "southwest", "up", "down"}
_POSITION = re.compile(r"^(?:level \d+ x\d+ y\d+|dungeon level \d+)$")


def typed_command(rng: random.Random, admissible: list[str], kind: int) -> str:
    """A command a person might type that is (usually) not admissible: ``kind`` 0 a typo, 1
    nonsense, 2 a thing that is not there, 3 another phrasing of an admissible command."""
    base = rng.choice(admissible) if admissible else "look"
    if kind == 0 and len(base) > 3:  # a typo
        i = rng.randrange(1, len(base) - 1)
        return base[:i] + base[i + 1:]
    if kind == 1:  # nonsense
        return rng.choice(["xyzzy", "asdf qwer", "frobnicate the lamp", "hello?", "go nowhere"])
    if kind == 2:  # something that is not there
        verb, thing = rng.choice(VERBS), rng.choice(ABSENT)
        return f"{verb.format(thing)} {rng.choice(ABSENT)}" if "{}" in verb else f"{verb} {thing}"
    words = base.split(maxsplit=1)  # another phrasing of a real command
    return f"look at the {words[1]}" if len(words) == 2 else f"examine {base}"


@dataclass
class Judged:
    """What the judge found in one memory's history."""

    triples: int = 0
    refusal: list[tuple[str, str, str]] = field(default_factory=list)
    never_mentioned: list[tuple[str, str, str]] = field(default_factory=list)
    refused_steps: int = 0
    typed_steps: int = 0
    played_steps: int = 0

    @property
    def unclean(self) -> int:
        """Triples that are a refusal or name something never mentioned (each counted once)."""
        return len(set(self.refusal) | set(self.never_mentioned))

    @property
    def share(self) -> float:
        """Unclean share of every triple the memory believed at some step."""
        return self.unclean / self.triples if self.triples else 0.0

    def __iadd__(self, other: Judged) -> Judged:
        self.triples += other.triples
        self.refusal += other.refusal
        self.never_mentioned += other.never_mentioned
        self.refused_steps += other.refused_steps
        self.typed_steps += other.typed_steps
        self.played_steps += other.played_steps
        return self


_JOIN = re.compile(r" (?:in|into|on|from|with|to|at) (?:the )?")


def _structural(name: str) -> bool:
    return name in _STRUCTURAL or bool(_POSITION.match(name))


def _mentioned(name: str, text: str) -> bool:
    """Printed (article dropped), structural, or names joined by a preposition that all were
    (an action's object in DAVIS's events: ``knife from table``)."""
    name = re.sub(r"^(?:the|a|an|some) ", "", name)
    parts = _JOIN.split(name)
    return _structural(name) or name in text or (len(parts) > 1 and all(_mentioned(p, text) for p in parts))


def _from_refusal(names: tuple[str, ...], reply: str) -> bool:
    """A triple read from a refused step: it names something, and the reply names none of it."""
    named = [n for n in names if not _structural(n)]
    return bool(named) and not any(_mentioned(n, reply) for n in named)


def noisy_episode(env_id: str, memory_name: str = "arigraph", steps: int = 40, seed: int = 0,
                  memory_options: dict[str, Any] | None = None, env_kwargs: dict[str, Any] | None = None) -> Judged:
    """Plays ``steps`` commands (every other one typed, see :func:`typed_command`) in ``env_id``
    with privileged facts, feeds ``memory_name`` each step, and judges its triple history."""
    return noisy_episodes(env_id, [memory_name], steps, seed, memory_options, env_kwargs)[memory_name]


def noisy_episodes(env_id: str, memory_names: Sequence[str], steps: int = 40, seed: int = 0,
                   memory_options: dict[str, Any] | None = None,
                   env_kwargs: dict[str, Any] | None = None) -> dict[str, Judged]:
    """:func:`noisy_episode` for several memories fed by one episode: the commands depend on the seed and
    the game alone, never on a memory, so each memory is judged as if it had played the episode alone,
    for the cost of one env (a JVM for ScienceWorld)."""
    env = gym.make(env_id, privileged=True, **(env_kwargs or {}))
    memories = {name: make_memory(name, **(memory_options or {})) for name in memory_names}
    for memory in memories.values():
        memory.use_parser(text_parser(env))
    rng = random.Random(seed)
    played = typed_steps = 0
    try:
        observation, info = env.reset(seed=seed)
        for memory in memories.values():
            memory.update(observation, "", info)
        texts = [str(info.get("objective") or "").lower(), observation.lower()]
        refused: dict[int, str] = {}
        for step in range(1, steps + 1):
            admissible = list(info.get("admissible_commands") or [])
            typed = step % 2 == 0 or not admissible
            kind = rng.randrange(4)
            action = typed_command(rng, admissible, kind) if typed else rng.choice(admissible)
            before = (sorted(map(tuple, info.get("facts") or [])), info.get("score"))
            observation, _, terminated, truncated, info = env.step(action)
            for memory in memories.values():
                memory.update(observation, action, info)
            played += 1
            if typed:
                typed_steps += 1
                unchanged = (sorted(map(tuple, info.get("facts") or [])), info.get("score")) == before
                if unchanged and kind != 3:  # another phrasing may be understood: not judged a refusal
                    refused[step] = observation.lower()
            texts.append(observation.lower())
            if terminated or truncated:
                break
    finally:
        env.close()
    return {name: _judge(memory, texts, refused, Judged(refused_steps=len(refused), typed_steps=typed_steps,
                                                         played_steps=played))
            for name, memory in memories.items()}


def _judge(memory: Any, texts: list[str], refused: dict[int, str], judged: Judged) -> Judged:
    """Judges every triple ``memory`` ever believed (see the module docstring) into ``judged``."""
    for triple in memory.triple_history():
        if triple.inferred:
            continue
        key = triple.as_tuple()
        judged.triples += 1
        entities = (triple.subject,) if triple.relation in _VALUES else (triple.subject, triple.object)
        if triple.start in refused and _from_refusal(entities, refused[triple.start]):
            judged.refusal.append(key)
        said = "\n".join(t for i, t in enumerate(texts[: triple.start + 2]) if i - 1 not in refused)
        if not all(_mentioned(e, said) for e in entities):
            judged.never_mentioned.append(key)
    return judged
