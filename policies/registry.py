"""Policies by name: one registry, lazily imported entries, ``prefix:argument`` factories.

Example:
    >>> from policies import make_policy
    >>> make_policy("random", seed=1).name
    'random'
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

from policies.base import Policy

#: name -> ``"module:factory"`` (imported on first use, so heavy policies cost nothing until used).
POLICIES: dict[str, str] = {
    "random": "policies.simple:RandomPolicy",
    "walkthrough": "policies.simple:WalkthroughPolicy",
    "explorer": "policies.explorer:ExplorerPolicy",
    "ariadne": "policies.ariadne:AriadnePolicy",
    "full-history": "policies.baselines:FullHistoryPolicy",
    "summary": "policies.baselines:SummaryPolicy",
    "rag": "policies.baselines:RAGPolicy",
    "simulacra": "policies.baselines:SimulacraPolicy",
    "reflexion": "policies.baselines:ReflexionPolicy",
    "react": "policies.baselines:ReActPolicy",
    "reflact": "policies.reflact:ReflActPolicy",
    "stma": "policies.stma:STMAPolicy",
    "davis": "policies.davis:DAVISPolicy",
}

#: prefix -> ``"module:factory"`` for names like ``rl:PATH`` (the factory gets the argument).
PREFIXED_POLICIES: dict[str, str] = {
    "rl": "baselines_rl.adapter:make_rl_policy",
}

#: One-line descriptions for ``textmem-gym list`` and docs.
DESCRIPTIONS: dict[str, str] = {
    "random": "uniform over the admissible commands (seeded)",
    "walkthrough": "PRIVILEGED ORACLE: replays the game's walkthrough (upper bound, not an agent)",
    "explorer": "no LLM: explores with MemoryGraphWrapper (go to unexplored exits, read, take, open), critic vetoes repeats",
    "ariadne": "LLM: AriGraph memory + planner + ReAct decisions with go to (AriGraph paper)",
    "full-history": "LLM baseline: planner + ReAct over the full history of observations and actions",
    "summary": "LLM baseline: planner + ReAct, last 5 steps + running summary",
    "rag": "LLM baseline: planner + ReAct, last 5 steps + 5 memories (recency, importance, relevance)",
    "simulacra": "LLM baseline: rag + reflections over retrieved memories (Generative Agents)",
    "reflexion": "LLM baseline: rag + reflections written after failed trials of the same game",
    "react": "LLM baseline: ReAct decisions over the last 5 steps, no planner, no memory",
    "reflact": "LLM: seed Jericho agent's ReflAct loop (reflection, objective, critic, loop guards, narrative)",
    "stma": "LLM: STMA spatio-temporal memory + planner-critic (multi-step plans checked before each action)",
    "davis": "LLM: DAVIS temporal-KG world model (predicts 5 steps, asks its graph) + actor-critic with reflection",
    "rl": "rl:PATH plays a model trained by baselines_rl (MaskablePPO / masked DQN .zip)",
}


def register_policy(name: str, factory: str, description: str = "") -> None:
    """Adds (or replaces) a named policy factory given as ``"module:callable"``."""
    POLICIES[name] = factory
    DESCRIPTIONS[name] = description


def _load(target: str) -> Callable[..., Policy]:
    module_name, attr = target.split(":")
    return getattr(importlib.import_module(module_name), attr)


def make_policy(name: str, **kwargs: Any) -> Policy:
    """Builds a policy by registry name (``"random"``) or prefixed spec (``"rl:model.zip"``).

    Args:
        name: A key of :data:`POLICIES`, or ``prefix:argument`` with a prefix in
            :data:`PREFIXED_POLICIES`.
        **kwargs: Passed to the policy's constructor.

    Raises:
        ValueError: Unknown name (the message lists the known ones).
    """
    if name in POLICIES:
        return _load(POLICIES[name])(**kwargs)
    prefix, sep, argument = name.partition(":")
    if sep and prefix in PREFIXED_POLICIES:
        return _load(PREFIXED_POLICIES[prefix])(argument, **kwargs)
    known = sorted(POLICIES) + [f"{p}:..." for p in sorted(PREFIXED_POLICIES)]
    raise ValueError(f"unknown policy {name!r}; known: {known}")
