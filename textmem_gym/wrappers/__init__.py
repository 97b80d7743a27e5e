"""Wrappers over TextMem envs: :class:`MemoryGraphWrapper` (memory belief + ``go to`` macros).

Example:
    >>> from textmem_gym.wrappers import MemoryGraphWrapper
    >>> MemoryGraphWrapper.__name__
    'MemoryGraphWrapper'
"""

from __future__ import annotations

from textmem_gym.wrappers.macro import MacroResult, parse_goto, plan_route, run_goto
from textmem_gym.wrappers.memory_graph import MemoryGraphWrapper, find_time_limit

__all__ = ["MacroResult", "MemoryGraphWrapper", "find_time_limit", "parse_goto", "plan_route", "run_goto"]
