"""Policy registry and the built-in policies."""

from __future__ import annotations

import math
import re

import pytest

from policies import (
    POLICIES,
    PREFIXED_POLICIES,
    BasePolicy,
    NotAPolicy,
    Policy,
    available_policies,
    make_policy,
)
from policies.explorer import ExplorerPolicy
from policies.simple import RandomConfig, RandomPolicy, WalkthroughPolicy
from textmem_gym.core.policy import PolicyAdapter
from textmem_gym.core.registry import (
    FactoryParameters,
    accepts_argument,
    check_policy_arguments,
    describe_factory,
    describe_target,
    factory_parameters,
)
from textmem_gym.loading import load_object


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


def test_module_factory_names_build_any_importable_policy():
    policy = make_policy("policies.simple:RandomPolicy", seed=2)
    assert isinstance(policy, RandomPolicy)
    assert make_policy("tests.policies.test_registry:_fixed", argument="wait").act("", {}) == "wait"
    with pytest.raises(ValueError, match="no module 'no_such_pkg_xyz.agents'; choose from .*'random'"):
        make_policy("no_such_pkg_xyz.agents:Agent")
    with pytest.raises(ValueError, match="'policies.simple' has no attribute 'Nope'"):
        make_policy("policies.simple:Nope")


def test_bad_constructor_arguments_name_the_bad_one_and_the_accepted_ones(monkeypatch):
    parameters = factory_parameters(ExplorerPolicy)  # its settings' fields, then its signature's ``config``
    assert parameters is not None
    accepted = list(parameters.annotations)
    assert "memory" in accepted and accepted[-1] == "config"
    with pytest.raises(ValueError, match=re.escape(f"policy 'explorer' does not accept 'memroy'; it accepts: {accepted}")):
        make_policy("explorer", memroy=False)
    monkeypatch.setitem(PREFIXED_POLICIES, "fixed", "tests.policies.test_registry:_fixed")
    with pytest.raises(ValueError, match="policy 'fixed:x' does not accept 'loud'"):
        make_policy("fixed:x", loud=True)
    with pytest.raises(ValueError, match="missing a required argument: 'argument'"):
        make_policy("tests.policies.test_registry:_fixed")


class _Plain(BasePolicy):
    """A policy without a settings dataclass: its settings are its keywords."""

    def __init__(self, seed: int | None = 0):
        self.rng_seed = seed

    def act(self, observation, info):
        return "look"


class _Open(_Plain):
    """Passes every argument on to _Plain."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)


def _anything(**kwargs):
    return RandomPolicy()


def _read(parameters: FactoryParameters | None) -> tuple[dict, bool]:
    assert parameters is not None
    return parameters.annotations, parameters.open_ended


def test_llm_policy_keywords_are_their_settings_fields_checked_up_front():
    # ariadne's keywords are AriadneConfig's fields (its own first, then the agent's and the client's)
    with pytest.raises(ValueError, match=r"policy 'ariadne' does not accept 'nosuchkey'; it accepts: \['top_k', "):
        make_policy("ariadne", nosuchkey=1)  # used to be a TypeError at the first LLM call
    check_policy_arguments("ariadne", {"top_k": 1, "strict": True, "timeout": 5.0})
    assert accepts_argument("ariadne", "strict") and accepts_argument("netplay", "cache")
    assert not accepts_argument("explorer", "strict")
    # so are a non-LLM policy's (its settings dataclass, then ``config``)
    assert _read(factory_parameters(RandomPolicy)) == ({"seed": int | None, "config": RandomConfig | None}, False)
    # any other factory is read from its own signature: a **kwargs there is open-ended (no walk up the MRO)
    assert _read(factory_parameters(_Plain)) == ({"seed": int | None}, False)
    assert _read(factory_parameters(_Open)) == ({}, True)
    assert factory_parameters(_anything).open_ended


def test_an_object_with_only_act_is_a_policy_and_the_rest_is_adapted():
    policy = make_policy("tests.policies.test_registry:_Silent")
    assert isinstance(policy, PolicyAdapter) and isinstance(policy.agent, _Silent)
    assert policy.name == "tests.policies.test_registry:_Silent"  # the spec names it in results
    assert (policy.privileged, policy.multi_trial, policy.episode_stats(), policy.policy_config()) == (
        frozenset(), False, {}, {})
    assert policy.act("You are in a room.", {}) == "look"
    policy.reset("obs", {})  # the hooks it lacks are no-ops
    assert policy.take_llm_calls() == [] and policy.action_source() is None
    # a BasePolicy subclass already has every hook: it is returned as it is
    assert type(make_policy("random")).__name__ == "RandomPolicy"


def test_an_object_without_act_is_one_type_error_line():
    with pytest.raises(NotAPolicy, match=r"^_Mute is not a policy: it has no act\(observation, info\) method$"):
        make_policy("tests.policies.test_registry:_Mute")
    assert issubclass(NotAPolicy, TypeError)


def test_errors_inside_a_policy_module_are_not_reported_as_unknown_names(tmp_path, monkeypatch):
    (tmp_path / "needs_dependency.py").write_text("import no_such_dependency_xyz\n")
    (tmp_path / "buggy_module.py").write_text("VALUE = None.missing\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(ImportError, match="no_such_dependency_xyz"):
        make_policy("needs_dependency:Agent")
    with pytest.raises(AttributeError, match="missing"):
        make_policy("buggy_module:Agent")


def test_a_built_in_description_is_its_factory_docstring_summary_read_without_importing_it():
    entries = available_policies()
    for name in ("random", "adaplanner", "explorer-nomemory"):
        assert entries[name].description == describe_factory(load_object(POLICIES[name])) != "", name
    assert describe_target("math:sqrt") == describe_factory(math.sqrt) != ""  # no Python source: imported


def test_available_policies_and_descriptions():
    entries = available_policies()
    assert list(entries)[:len(POLICIES)] == list(POLICIES)
    assert entries["reflact"].description.startswith("LLM: the Text Adventure Agent's ReflAct loop")
    assert describe_factory(_Fixed) == "Plays one fixed command."
    assert describe_factory(_fixed) == ""


class _Silent:
    def act(self, observation, info):
        return "look"


class _Mute:
    def reset(self, observation, info):
        pass


class _Fixed(BasePolicy):
    """Plays one fixed command.

    Used by the registry tests.
    """

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
