"""DAVIS through the full pipeline on ScienceWorld (world model from 5 training variations'
gold trajectories, graph QA, actor, critic with one divergence and re-plan) with the
rule-driven walkthrough answerer; fault injection on a TextWorld game (no world model)."""

from __future__ import annotations

import pytest

from policies import make_policy
from policies.davis import Prediction, parse_prediction
from tests.policies.paper_answerers import DAVISAnswerer
from textmem_gym.core.errors import PolicyNotReady
from textmem_gym.llm import Fault, LocalOpenAIServer
from textmem_gym.runner import EvalConfig, evaluate

SCIENCEWORLD = "TextMem/ScienceWorld-FindLivingThing-v0"
FAST = {"timeout": 0.3, "max_retries": 1, "backoff_base": 0.001, "backoff_max": 0.01}


@pytest.mark.java
@pytest.mark.slow
def test_davis_finishes_find_living_thing_through_the_full_pipeline():
    answerer = DAVISAnswerer(SCIENCEWORLD)
    with LocalOpenAIServer(responder=answerer) as server:
        policy = make_policy("davis", model="local-test", base_url=server.base_url, structured_output="off")
        result = evaluate(SCIENCEWORLD, policy)[0]
        memory = policy.memory
        policy.close()
    stats = result["policy_stats"]
    assert result["won"] and result["normalized_score"] == 1.0
    assert stats["divergences"] == 1 and stats["replans"] >= 1 and stats["reflections"] == 1
    assert stats["questions"] == stats["plans"] and stats["calls_by_kind"]["davis_qa"] == stats["questions"]
    assert stats["critic_calls"] == stats["calls_by_kind"]["davis_belief"] == result["steps"] - 1  # not after the win
    assert any("Belief: The agent has executed" in p for p in answerer.prompts["davis_world_model"])
    assert max(1, stats["predictions"]) <= stats["plans"] * policy.config.horizon
    # the world model: read-only, five training variations, none of them the test variation
    world = memory.world_model
    assert world.read_only and len({f.episode for f in world.facts}) == policy.config.train_variations
    assert all(str(f.episode).startswith("train-") for f in world.facts)
    qa = answerer.prompts["davis_qa"][0]
    assert "[ep train-" in qa and "agent, focus on," in qa
    wm = answerer.prompts["davis_world_model"]
    assert any("The outcome differed; re-plan." in p for p in wm)  # the reflection reaches the world model
    assert any("Q: Where can I find a living thing?\nA: Living things were found outside" in p for p in wm)
    assert "Permissible commands now: [" in answerer.prompts["davis_actor"][0]
    # the focus as the game printed it ("You focus on the frog egg."): the walkthrough's typed name
    # ("focus on common toad") is one the game never printed, which memory hygiene keeps out; read by
    # ScienceWorld's parser, handed to DAVIS's rules as to every memory
    focused = [f for f in memory.kg.facts if f.episode == "now" and "focus" in f.relation and f.subject == "agent"]
    assert focused and all(f.relation == "is focused on" for f in focused)


def test_prediction_parsing():
    assert parse_prediction('{"done": true}') == ("done", None)
    assert parse_prediction("no json") == ("invalid", None)
    assert parse_prediction('{"action": "look", "predicted_reward": "x"}') == ("step", Prediction("look", "", 0.0))


def test_davis_survives_llm_faults_and_a_dead_endpoint():
    import json

    def answer(messages):
        prompt = messages[-1]["content"]
        if "world model of DAVIS" in prompt:
            return json.dumps({"action": "look", "predicted_observation": "a room", "predicted_reward": 0})
        if "actor of DAVIS" in prompt:
            return json.dumps({"commands": [{"command": "look", "predicted_observation": "a room"}]})
        return json.dumps({"consistent": True, "reflection": ""})

    faults = ["malformed_json", "empty", Fault("429", retry_after=0.01, times=2), Fault("500", times=2), None]
    with LocalOpenAIServer(responder=answer, faults=faults) as server:
        policy = make_policy("davis", model="m", base_url=server.base_url, structured_output="off", **FAST)
        result = evaluate("TextMem/CookingRL-L1-v0", policy, EvalConfig(max_steps=4))[0]
    stats = result["policy_stats"]
    assert result["steps"] == 4 and sum(stats["faults"].values()) >= 2 and stats["retries"] >= 1
    assert policy.memory.world_model is None  # not a ScienceWorld env
    server = LocalOpenAIServer().start()
    url = server.base_url
    server.stop()
    policy = make_policy("davis", model="m", base_url=url, **FAST)
    with pytest.raises(PolicyNotReady, match="nothing answers"):  # a dead endpoint: no step, no row
        evaluate("TextMem/CookingRL-L1-v0", policy, EvalConfig(max_steps=3))
