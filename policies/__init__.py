"""Agents behind one Policy API: heuristic, LLM and RL policies, found by name.

Example:
    >>> from policies import make_policy, POLICIES
    >>> "random" in POLICIES
    True
"""

from policies.base import BasePolicy, Info, Policy, check_policy
from policies.registry import DESCRIPTIONS, POLICIES, PREFIXED_POLICIES, make_policy, register_policy

__all__ = ["BasePolicy", "DESCRIPTIONS", "Info", "POLICIES", "PREFIXED_POLICIES", "Policy", "check_policy",
           "make_policy", "register_policy"]
