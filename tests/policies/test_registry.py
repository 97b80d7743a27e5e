"""Policy registry and the built-in policies."""

from __future__ import annotations

import pytest

from policies import POLICIES, PREFIXED_POLICIES, BasePolicy, Policy, make_policy, register_policy
from policies.simple import RandomPolicy, WalkthroughPolicy


def test_every_registered_policy_implements_the_protocol():
    for name in POLICIES:
        assert isinstance(make_policy(name), Policy), name


def test_unknown_names_list_the_known_ones():
    with pytest.raises(ValueError, match="random"):
        make_policy("gpt-agent-9000")
    with pytest.raises(ValueError, match="unknown policy"):
        make_policy("nope:thing")


def test_register_and_prefixed_factories(monkeypatch):
    monkeypatch.setitem(POLICIES, "seeded-random", "policies.simple:RandomPolicy")
    assert isinstance(make_policy("seeded-random", seed=3), RandomPolicy)
    monkeypatch.setitem(PREFIXED_POLICIES, "fixed", "tests.policies.test_registry:_fixed")
    assert make_policy("fixed:go north").act("", {}) == "go north"
    register_policy("tmp-walk", "policies.simple:WalkthroughPolicy", "test entry")
    try:
        assert isinstance(make_policy("tmp-walk"), WalkthroughPolicy)
    finally:
        POLICIES.pop("tmp-walk")


class _Fixed(BasePolicy):
    name = "fixed"

    def __init__(self, command: str):
        self.command = command

    def act(self, observation, info):
        return self.command


def _fixed(argument: str) -> _Fixed:
    return _Fixed(argument)


def test_random_policy_is_seeded_and_uniform_over_admissible():
    info = {"admissible_commands": [f"cmd {i}" for i in range(10)]}
    first = RandomPolicy(seed=1)
    second = RandomPolicy(seed=99)
    second.seed(1)
    picks = [first.act("", info) for _ in range(200)]
    assert picks == [second.act("", info) for _ in range(200)]
    assert set(picks) == set(info["admissible_commands"])
    assert RandomPolicy().act("", {"admissible_commands": []}) == "look"


def test_walkthrough_policy_is_a_labelled_privileged_oracle():
    assert WalkthroughPolicy.privileged == frozenset({"walkthrough"})
    with pytest.raises(ValueError, match="privileged=True"):
        WalkthroughPolicy().reset("", {"admissible_commands": []})
