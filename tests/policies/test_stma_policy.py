"""STMA through the full pipeline (policy, STMA memory with LLM summarizer and aggregator, the
local OpenAI-compatible server) with the rule-driven walkthrough answerer; fault injection."""

from __future__ import annotations

import pytest

from policies import make_policy
from policies.stma import executable, parse_plan, parse_verdict
from tests.policies.paper_answerers import STMAAnswerer
from textmem_gym.core.errors import PolicyNotReady
from textmem_gym.llm import Fault, LocalOpenAIServer
from textmem_gym.runner import EvalConfig, evaluate

GAME = "TextMem/STMA-Cooking-L2-v0"
FAST = {"timeout": 0.3, "max_retries": 1, "backoff_base": 0.001, "backoff_max": 0.01}


@pytest.fixture(scope="module")
def run():
    answerer = STMAAnswerer(GAME)
    with LocalOpenAIServer(responder=answerer) as server:
        policy = make_policy("stma", model="local-test", base_url=server.base_url, structured_output="off")
        result = evaluate(GAME, policy)[0]
        policy.close()
    return result, answerer


@pytest.mark.slow
def test_stma_wins_stma_cooking_l2_with_rejections_and_replans(run):
    result, answerer = run
    stats = result["policy_stats"]
    assert result["won"] and result["normalized_score"] == 1.0
    assert stats["critic_rejections"] >= 1 and stats["replans"] >= 1
    assert stats["calls_by_kind"]["stma_critic"] == stats["critic_calls"] == result["steps"] + 1
    assert stats["calls_by_kind"]["stma_summary"] == result["steps"] + 1  # every step and the reset (wrap_env starts counting)
    assert max(stats["plan_lengths"]) > 1 and stats["plans"] < result["steps"]
    assert stats["similarity"] == "openai" and result["policy_config"]["similarity"] == "auto"  # the server embeds
    assert stats["prompt_tokens"] > 0 and stats["embedding_calls"] > 0
    assert stats["calls"] == sum(stats["calls_by_kind"].values()) + stats["embedding_calls"]  # every call accounted


@pytest.mark.slow
def test_stma_prompts_carry_beliefs_and_critic_feedback(run):
    _, answerer = run
    plans, critics = answerer.prompts["stma_plan"], answerer.prompts["stma_critic"]
    assert "Re-check the plan against the recipe." in plans[1]  # the rejection drives the re-plan
    last = plans[-1]
    assert "**What you have done (temporal memory):**\nBelief: the robot follows the recipe" in last
    assert "**Spatial memory:**\nThe kitchen contains a stove." in last and "**Available actions:** [" in last
    assert "Rules of the kitchen" in last and "**Turn:**" in last
    assert "7. Proposed Action: eat meal" in critics[-1] and "All possible action: [" in critics[-1]
    assert any("FeedBack:\n'" in p for p in answerer.prompts["stma_summary"])  # feedback reaches the buffer
    aggregated = answerer.prompts["stma_aggregate"][-1]
    assert '["kitchen", "is' in aggregated or '"is at", "kitchen"]' in aggregated


def test_plan_and_verdict_parsing():
    answer = 'Thought:\n1. x\nPlan:\n```YAML\nSubgoal: "cut" # detail\nAction Plan:\n- "take knife"\n- slice apple with knife\n```\nmore'
    assert parse_plan(answer) == ("cut", ["take knife", "slice apple with knife"])
    assert parse_plan("no plan at all") == ("", [])
    assert parse_verdict("**Action Suitability:** True\nFeedback: fine") == (True, "fine")
    assert parse_verdict("unclear") == (None, "")
    assert executable("Take Knife", ["take knife from table", "look"]) == "take knife from table"
    assert executable("open door", ["open red door", "open blue door"]) is None


def test_stma_survives_llm_faults():
    def answer(messages):
        prompt = messages[-1]["content"]
        if "central processor of a robot" in prompt:
            return 'Plan:\n```YAML\nSubgoal: "look"\nAction Plan:\n- "look"\n- "inventory"\n```'
        if "critically evaluating" in prompt:
            return "Action Suitability: True\nFeedback: ok"
        return "fine"

    faults = ["malformed_json", "empty", Fault("429", retry_after=0.01, times=2), Fault("500", times=2), None]
    with LocalOpenAIServer(responder=answer, faults=faults) as server:
        policy = make_policy("stma", model="m", base_url=server.base_url, structured_output="off", **FAST)
        result = evaluate("TextMem/CookingRL-L1-v0", policy, EvalConfig(max_steps=4))[0]
    stats = result["policy_stats"]
    assert result["steps"] == 4 and result["truncated"]
    assert sum(stats["faults"].values()) >= 2 and stats["retries"] >= 1


def test_a_dead_endpoint_is_not_ready_before_any_step():
    server = LocalOpenAIServer().start()
    url = server.base_url
    server.stop()
    policy = make_policy("stma", model="m", base_url=url, **FAST)
    with pytest.raises(PolicyNotReady, match="nothing answers"):
        evaluate("TextMem/CookingRL-L1-v0", policy, EvalConfig(max_steps=3))
    assert policy.llm.similarity("auto") == "bm25"  # no embeddings served
