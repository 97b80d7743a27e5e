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
from textmem_gym.envs.instances import instance_seeds, make_instances
from textmem_gym.envs.registration import ENV_IDS
from textmem_gym.results import ResultsFile, format_table, summarize
from textmem_gym.runner import EvalConfig, evaluate, run_episode

__all__ = ["ENV_IDS", "EvalConfig", "ResultsFile", "evaluate", "format_table", "instance_seeds", "make_instances",
           "run_episode", "summarize"]
