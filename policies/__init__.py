"""Agents behind one Policy API: heuristic, LLM and RL policies, found by name.

The Policy API and the registry live in the library core (:mod:`textmem_gym.core.policy`,
:mod:`textmem_gym.core.registry`); this package holds the policies and re-exports both.

Example:
    >>> from policies import make_policy, POLICIES
    >>> "random" in POLICIES
    True
"""

from textmem_gym.core.policy import (
    BasePolicy,
    ConfiguredPolicy,
    FullPolicy,
    Info,
    NotAPolicy,
    Policy,
    PolicyConfig,
    adapt_policy,
    check_policy,
    config_fields,
)
from textmem_gym.core.registry import (
    ENTRY_POINT_GROUP,
    POLICIES,
    PREFIXED_POLICIES,
    PolicyEntry,
    available_policies,
    make_policy,
)

__all__ = ["BasePolicy", "ConfiguredPolicy", "ENTRY_POINT_GROUP", "FullPolicy", "Info", "NotAPolicy", "POLICIES",
           "PREFIXED_POLICIES", "Policy", "PolicyConfig", "PolicyEntry", "adapt_policy", "available_policies",
           "check_policy", "config_fields", "make_policy"]
