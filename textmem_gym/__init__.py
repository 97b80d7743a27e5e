"""textmem_gym: Gymnasium text-game environments and memory architectures for LLM and RL agents.

Importing the package registers every ``TextMem/*`` environment id.

Example:
    >>> import gymnasium as gym
    >>> import textmem_gym
    >>> "TextMem/Cooking-Hard-v0" in gym.registry
    True
"""

from __future__ import annotations

__version__ = "0.1.0"

from textmem_gym.envs import registration as _registration  # noqa: F401  (registers ids)
