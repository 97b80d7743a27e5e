"""Each LLM policy's settings are one typed dataclass: what the registry checks, what Python and the
command line set, what results rows record (unchanged), with a docstring per field for the docs."""

from __future__ import annotations

import dataclasses
import inspect
import re

import pytest

from policies import POLICIES, make_policy
from policies.ariadne import AriadneConfig, AriadnePolicy
from policies.baselines import RAGConfig, SimulacraConfig
from policies.davis import DAVISConfig
from policies.llm_agent import AgentConfig, LLMPolicy
from policies.llm_config import LLMConfig
from policies.netplay import NetPlayConfig
from policies.saycan import SayCanConfig
from policies.shared_settings import HISTORY_STEPS, MAX_TOKENS
from policies.stma import STMAConfig
from textmem_gym.core.policy import BasePolicy, PolicyConfig, config_fields, policy_config_class
from textmem_gym.core.registry import factory_parameters
from textmem_gym.llm import LLMClient
from textmem_gym.loading import load_object

#: The policies that ask a model, by name.
LLM_POLICIES = sorted(name for name, target in POLICIES.items()
                      if isinstance(load_object(target), type) and issubclass(load_object(target), LLMPolicy))


def test_every_llm_policy_has_a_settings_dataclass_with_a_doc_per_field():
    assert {"ariadne", "react", "reflact", "stma", "davis", "adaplanner", "saycan", "rap", "netplay",
            "full-history", "summary", "rag", "simulacra", "reflexion"} <= set(LLM_POLICIES)
    for name in LLM_POLICIES:
        factory = load_object(POLICIES[name])
        settings = policy_config_class(factory)
        assert settings is not None and issubclass(settings, LLMConfig), name
        found = config_fields(factory)
        assert [f.name for f in found if not f.doc] == [], name
        # the registry's keywords: every field with its type (and under a renamed field's old name), then the
        # signature's own (config, client)
        parameters = factory_parameters(factory)
        assert parameters is not None and not parameters.open_ended
        types = {f.name: f.type for f in found}
        assert parameters.annotations == {**types, **{old: types[new] for old, new in settings.renamed.items()},
                                          "config": parameters.annotations["config"], "client": LLMClient | None}, name
        assert found[-1].name == "strict"  # the policy's own settings first, the shared ones last


def test_config_fields_lists_name_type_default_and_doc():
    found = {f.name: f for f in config_fields(AriadnePolicy)}
    assert list(found)[:3] == ["top_k", "extractor", "similarity"]
    top_k = found["top_k"]
    assert (top_k.type, top_k.default, top_k.doc) == (int, 2, "Episodic memories retrieved per step.")
    assert found["timeout"].type is float and found["cache_path"].default is None
    assert config_fields(AriadneConfig) == config_fields(AriadnePolicy)
    # a redefined field keeps its own default and doc
    assert next(f for f in config_fields(SimulacraConfig) if f.name == "scoring").default == "generative"
    assert "fallback agent" in next(f for f in config_fields(NetPlayConfig) if f.name == "seed").doc
    assert "affordance" not in {f.name for f in config_fields(SayCanConfig)}  # fixed: recorded, not set
    with pytest.raises(TypeError, match="has no PolicyConfig"):
        config_fields(load_object(POLICIES["explorer-nomemory"]))  # a factory function


def test_the_client_fields_are_the_llm_clients_keywords_with_its_defaults():
    keywords = {name: p.default for name, p in inspect.signature(LLMClient).parameters.items()
                if name not in ("model", "base_url", "api_key")}
    client_fields = {f.name: f.default for f in dataclasses.fields(LLMConfig) if f.metadata.get("client")}
    assert client_fields.keys() == keywords.keys()
    # None stands for the client's own default (structured_output: "auto")
    assert {k: v for k, v in client_fields.items() if v is not None} == {
        k: v for k, v in keywords.items() if client_fields[k] is not None}


def test_python_and_the_registry_set_the_same_settings():
    built = make_policy("ariadne", top_k=3, extractor="rules", timeout=5.0)
    direct = AriadnePolicy(AriadneConfig(top_k=3, extractor="rules", timeout=5.0))
    assert built.config == direct.config and built.policy_config() == direct.policy_config()
    assert (built.config.top_k, built.config.extractor) == (3, "rules")
    # a config plus fields: the fields win
    assert AriadnePolicy(AriadneConfig(top_k=3), top_k=4).config.top_k == 4
    assert make_policy("ariadne", config=AriadneConfig(history_steps=2)).config.history_steps == 2
    with pytest.raises(TypeError, match="expected a AriadneConfig, got AgentConfig"):
        AriadnePolicy(AgentConfig())
    with pytest.raises(TypeError, match=re.escape("AriadneConfig has no field 'top_kk'; its fields: [")):
        AriadnePolicy(top_kk=3)
    with pytest.raises(dataclasses.FrozenInstanceError):
        built.config.top_k = 5  # type: ignore[misc]


def test_the_settings_reach_the_llm_client():
    policy = make_policy("react", model="m", base_url="http://127.0.0.1:9/v1", timeout=5.0, max_retries=1,
                         structured_output="off", seed=7)
    client = policy.llm.client  # built on first use, no request made
    assert (client.model, client.timeout, client.seed, client.structured_output) == ("m", 5.0, 7, "off")
    assert client.retry_policy.max_retries == 1
    assert make_policy("react", model="m").llm.client.structured_output == "auto"  # unset: the client's default
    netplay = make_policy("netplay", model="m", seed=3)  # NetPlay's seed seeds its fallback agent, not the model
    assert netplay.llm.client.seed is None and netplay.fallback.config.seed == 3


def test_results_record_the_same_settings_as_before():
    assert make_policy("react", strict=1, structured_output="auto", seed=3, api_key="sk-x", timeout=9.0
                       ).policy_config() == {
        "n_prev": 5, "plan_temperature": 0.2, "action_temperature": 0.2, "max_tokens": 400, "observation_chars": 700,
        "prompt_style": "compact", "strict": True, "structured_output": "auto", "seed": 3}
    # Ariadne: a memory option's scalars are settings of their own; its similarity stands for the field
    assert AriadneConfig(memory_options={"similarity": "bm25", "depth": 3, "encoder": object()}).recorded() == {
        **AriadneConfig(similarity="bm25").recorded(), "depth": 3}
    # DAVIS, ReflAct, STMA, NetPlay never recorded the client's seed; a world model is recorded as its text
    assert "seed" not in DAVISConfig(seed=3).recorded() and "seed" not in STMAConfig(seed=3).recorded()
    assert DAVISConfig(world_model=None).recorded()["world_model"] is None
    assert SayCanConfig().recorded()["affordance"] == "admissible commands with SwiftSage's filters"
    assert "decay" not in RAGConfig(decay=0.5).recorded()
    assert "api_key" not in repr(AriadneConfig(api_key="sk-secret"))


def test_values_are_checked_where_the_settings_are_made():
    with pytest.raises(ValueError, match="history_steps must be >= 0"):
        AgentConfig(history_steps=-1)
    with pytest.raises(ValueError, match="scoring must be 'similarity' or 'generative'"):
        make_policy("rag", scoring="mixed")
    with pytest.raises(ValueError, match="not memory_options\\['entity_similarity'\\]"):
        STMAConfig(memory_options={"entity_similarity": "bm25"})
    with pytest.raises(ValueError, match="horizon must be a positive int"):
        DAVISConfig(horizon=0)


@dataclasses.dataclass(frozen=True, kw_only=True)
class _EchoConfig(PolicyConfig):
    word: str = "look"
    """What it says."""


class _Echo(BasePolicy):
    """A user's policy (no LLM) with a settings dataclass."""

    config_class = _EchoConfig
    config: _EchoConfig

    def __init__(self, config: _EchoConfig | None = None, **fields: object) -> None:
        self.config = _EchoConfig.resolve(config, **fields)

    def act(self, observation: object, info: object) -> str:
        return self.config.word


def test_any_policy_can_take_a_settings_dataclass():
    parameters = factory_parameters(_Echo)
    assert parameters is not None and not parameters.open_ended
    assert parameters.annotations == {"word": str, "config": _EchoConfig | None}
    assert [(f.name, f.doc) for f in config_fields(_Echo)] == [("word", "What it says.")]
    policy = make_policy("tests.policies.test_configs:_Echo", word="wait")
    assert policy.act("", {}) == "wait" and policy.policy_config() == {"word": "wait"}
    with pytest.raises(ValueError, match=re.escape("does not accept 'wrod'; it accepts: ['word', 'config']")):
        make_policy("tests.policies.test_configs:_Echo", wrod="wait")


def test_every_built_in_policy_takes_a_typed_config_and_keeps_no_copy_of_it():
    """random, walkthrough, explorer, netplay-heuristic and the LLM policies: settings in ``config`` only
    (``explorer-nomemory`` is a factory of the explorer with its config)."""
    for name, target in POLICIES.items():
        policy = make_policy(name)
        settings = policy_config_class(type(policy))
        assert settings is not None and isinstance(policy.config, settings), name
        fields = {f.name for f in dataclasses.fields(settings)}
        copies = [key for key in fields & set(vars(policy)) if vars(policy)[key] == getattr(policy.config, key)]
        assert copies == [], f"{name} copies settings onto itself"
        assert policy.policy_config() == policy.config.recorded() or target.endswith("explorer_without_memory"), name


def test_a_shared_setting_is_written_once_and_recorded_under_its_old_key_when_renamed():
    davis = {f.name: f for f in config_fields(DAVISConfig)}
    assert davis["history_steps"].doc == HISTORY_STEPS.doc == {f.name: f for f in config_fields(SayCanConfig)}[
        "history_steps"].doc
    assert davis["max_tokens"].doc == MAX_TOKENS.doc and davis["max_tokens"].default == 800
    assert {f.name: f for f in config_fields(NetPlayConfig)}["max_tokens"].default == 200  # each paper's default
    # DAVIS and ReflAct called it ``history``: rows keep that key, so their resume keys are unchanged
    recorded = make_policy("davis", history_steps=4).policy_config()
    assert recorded["history"] == 4 and "history_steps" not in recorded
    assert make_policy("reflact", history_steps=3).policy_config()["history"] == 3
    with pytest.raises(ValueError, match="does not accept 'history'"):
        make_policy("davis", history=4)


@pytest.mark.parametrize(("name", "old", "new", "value"), [
    ("ariadne", "n_prev", "history_steps", 3), ("react", "n_prev", "history_steps", 2),
    ("rap", "n_prev", "history_steps", 4), ("rap", "similarity", "trajectory_similarity", "embeddings")])
def test_a_renamed_setting_takes_its_old_keyword_and_rows_record_it_under_the_old_key(name, old, new, value):
    """One name per idea: ``n_prev`` is ``history_steps`` and RAP's ``similarity`` is ``trajectory_similarity``;
    the old keyword still works (with a FutureWarning) and results rows keep the old key (same resume keys)."""
    with pytest.warns(FutureWarning, match=f"'{old}' is now called '{new}'"):
        old_way = make_policy(name, model="m", **{old: value})
    new_way = make_policy(name, model="m", **{new: value})
    assert getattr(old_way.config, new) == getattr(new_way.config, new) == value
    assert old_way.policy_config() == new_way.policy_config() and new_way.policy_config()[old] == value
    assert new not in new_way.policy_config()
    with pytest.raises(TypeError, match=f"'{old}' is the old name of '{new}'"):
        make_policy(name, model="m", **{old: value, new: value})
