"""Agents behind one Policy API: heuristic, LLM and RL policies, found by name.

Example:
    >>> from policies import make_policy, POLICIES
    >>> "random" in POLICIES
    True
"""

from policies.base import BasePolicy, Info, Policy, check_policy
from policies.registry import (
    DESCRIPTIONS,
    ENTRY_POINT_GROUP,
    POLICIES,
    PREFIXED_POLICIES,
    PolicyEntry,
    available_policies,
    make_policy,
    register_policy,
)

__all__ = ["BasePolicy", "DESCRIPTIONS", "ENTRY_POINT_GROUP", "Info", "POLICIES", "PREFIXED_POLICIES", "Policy",
           "PolicyEntry", "available_policies", "check_policy", "make_policy", "register_policy"]
