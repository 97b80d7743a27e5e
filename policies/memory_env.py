"""Giving a policy the MemoryGraphWrapper it needs, and reading the wrapper's views.

Policies that use AriGraph memory define ``wrap_env(env)``; the runner applies it after any
user ``wrap``. :func:`ensure_memory_wrapper` wraps only when no MemoryGraphWrapper is in the
chain yet, so a user's own configured wrapper is kept.

Example:
    >>> import gymnasium as gym, textmem_gym
    >>> env = ensure_memory_wrapper(gym.make("TextMem/CookingRL-L1-v0"))
    >>> ensure_memory_wrapper(env) is env
    True
    >>> observation_text({"observation": "You see a fridge.", "belief": "..."})
    'You see a fridge.'
    >>> env.close()
"""

from __future__ import annotations

from typing import Any, TypeVar

import gymnasium as gym

from textmem_gym.core.policy import Info
from textmem_gym.wrappers import MemoryGraphWrapper, find_wrapper

_M = TypeVar("_M")


def find_memory_wrapper(env: gym.Env) -> MemoryGraphWrapper | None:
    """The first MemoryGraphWrapper in ``env``'s wrapper chain, if any."""
    return find_wrapper(env, MemoryGraphWrapper)


def ensure_memory_wrapper(env: gym.Env, **options: Any) -> gym.Env:
    """``env`` itself if it already has a MemoryGraphWrapper, else ``MemoryGraphWrapper(env, **options)``."""
    if find_memory_wrapper(env) is not None:
        return env
    return MemoryGraphWrapper(env, **options)


def adopt_memory(env: gym.Env, memory_class: type[_M], policy_name: str) -> _M | None:
    """The memory of ``env``'s MemoryGraphWrapper (``None`` when it has none).

    Raises:
        ValueError: If the wrapper holds another kind of memory than ``memory_class``.
    """
    existing = find_memory_wrapper(env)
    if existing is None:
        return None
    if not isinstance(existing.memory, memory_class):
        raise ValueError(f"{policy_name} needs a MemoryGraphWrapper with {memory_class.__name__}, the env has "
                         f"{type(existing.memory).__name__}: pass the env without a MemoryGraphWrapper")
    return existing.memory


def observation_text(observation: Any) -> str:
    """The raw game text of an observation (plain string or the wrapper's ``Dict``)."""
    if isinstance(observation, dict):
        return str(observation.get("observation", ""))
    return str(observation or "")


def admissible(info: Info) -> list[str]:
    """``info["admissible_commands"]`` as a list (empty when absent)."""
    return [str(c) for c in (info.get("admissible_commands") or [])]
