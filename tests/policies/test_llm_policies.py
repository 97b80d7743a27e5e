"""Ariadne and the paper baselines against the local OpenAI-compatible server driven by the
rule-driven walkthrough answerer: they win, their prompts hold what the paper says, and the
results record tokens, calls and mapping counts."""

from __future__ import annotations

import json

import pytest

from policies import make_policy
from tests.policies.answerer import WalkthroughAnswerer, listed_actions
from textmem_gym.llm import LocalOpenAIServer
from textmem_gym.runner import EvalConfig, evaluate
from textmem_gym.wrappers import MemoryGraphWrapper

GAME = "TextMem/Cooking-v0"
PLANNED = ["ariadne", "full-history", "summary", "rag", "simulacra", "reflexion"]


def play(policy_name: str, env_id: str = GAME, **kwargs):
    if policy_name == "ariadne":  # the stand-in answers decisions, not the paper's extraction prompts
        kwargs.setdefault("extractor", "rules")
    if policy_name in ("ariadne", "rag", "simulacra", "reflexion"):  # no embedding calls in the call counts
        kwargs.setdefault("similarity", "bm25")
    kwargs.setdefault("structured_output", "off")  # the stand-in writes free text: the shared parser reads it
    answerer = WalkthroughAnswerer(env_id)
    with LocalOpenAIServer(responder=answerer) as server:
        policy = make_policy(policy_name, model="local-test", base_url=server.base_url, **kwargs)
        result = evaluate(env_id, policy)[0]
        policy.close()
    return result, answerer


@pytest.fixture(scope="module")
def runs():
    return {name: play(name) for name in PLANNED + ["react"]}


@pytest.mark.parametrize("name", PLANNED + ["react"])
def test_wins_cooking_with_the_walkthrough_answerer(runs, name):
    result, answerer = runs[name]
    stats = result["policy_stats"]
    assert result["won"] and result["normalized_score"] == 1.0
    assert stats["calls_by_kind"]["action"] == result["steps"]
    assert stats["invalid_actions_mapped"] == stats["invalid_actions_defaulted"] == 0
    assert stats["prompt_tokens"] > 0 and stats["completion_tokens"] > 0 and stats["latency_s"] > 0
    assert stats["calls"] == sum(stats["calls_by_kind"].values())
    assert ("plan" in stats["calls_by_kind"]) == (name != "react")


def test_ariadne_uses_go_to_plans_and_checks_exploration(runs):
    result, answerer = runs["ariadne"]
    stats = result["policy_stats"]
    assert any(a.startswith("go to ") for a in answerer.answers)
    assert result["primitive_steps"] > result["steps"]  # go to expanded into several moves
    assert stats["plan_updates"] == result["steps"] and stats["exploration_checks"] > 0
    assert result["steps"] < runs["full-history"][0]["steps"]


def test_ariadne_prompts_hold_the_papers_working_memory(runs):
    _, answerer = runs["ariadne"]
    plan, action = answerer.prompts["plan"][10], answerer.prompts["action"][10]
    for prompt in (plan, action):
        for section in ("1. Main goal:", "2. History of 5 last observations and actions:",
                        "3. Your current observation:", "4. Information from the memory module",
                        "5. Your 2 most relevant episodic memories"):
            assert section in prompt, section
    assert "6. Your previous plan:" in plan and "6. Your current plan:" in action
    assert "Answer only with JSON" in plan and '"plan_steps"' in plan and "at least one sub-goal" in plan
    assert "Possible actions in current situation: {" in action and '"go to":["' in action
    listed = listed_actions(action)
    assert "go to kitchen" in listed and all(" " in a or a in ("look", "inventory") for a in listed)
    assert "reason_for_action" in action and "action_to_take" in action
    assert any("7. Yet unexplored exits in the environment:" in p for p in answerer.prompts["action"])
    assert all(p.count("Plan: {") == 1 for p in answerer.prompts["exploration_check"])
    # the plan of step t is the previous plan of step t + 1
    last_plan = json.loads(action.split("6. Your current plan: ")[1].splitlines()[0])
    assert last_plan["plan_steps"] and "sub_goal_1" in last_plan["plan_steps"][0]
    assert "cookbook" in answerer.prompts["action"][-1].lower() or "recipe" in answerer.prompts["action"][-1].lower()


def test_ariadne_retrieves_once_per_decision_with_the_same_prompts():
    def run(wrap=None):
        answerer = WalkthroughAnswerer(GAME)
        with LocalOpenAIServer(responder=answerer) as server:
            # the memory a plain MemoryGraphWrapper builds: rules extractor, BM25
            policy = make_policy("ariadne", model="local-test", base_url=server.base_url, extractor="rules", structured_output="off",
                                 memory_options={"similarity": "bm25"})
            result = evaluate(GAME, policy, EvalConfig(max_steps=12, wrap=wrap))[0]
            policy.close()
        return result, answerer.prompts, policy.memory.retrievals

    shared, prompts, retrievals = run()  # Ariadne's own wrapper renders the belief from its retrieval
    # one retrieval per decision, plus the belief of the last observation (no decision follows it)
    assert retrievals == shared["steps"] + 1 and shared["steps"] > 5
    separate, prompts_apart, retrievals_apart = run(wrap=MemoryGraphWrapper)  # a user's wrapper: its own belief
    assert retrievals_apart == 2 * separate["steps"] + 1
    assert prompts == prompts_apart and shared["score"] == separate["score"]


def test_baseline_prompts_hold_their_memory(runs):
    prompts = {name: runs[name][1].prompts for name in PLANNED + ["react"]}
    assert "History of all observations and actions" in prompts["full-history"]["action"][-1]
    assert prompts["full-history"]["action"][-1].count("> ") >= runs["full-history"][0]["steps"] - 1
    assert "Summary of the game so far: Summary:" in prompts["summary"]["action"][-1]
    assert "Your previous summary:" in prompts["summary"]["summary"][-1]
    assert "Your 5 most relevant memories from the past" in prompts["rag"]["action"][-1]
    assert "importance" not in prompts["rag"]  # the paper's RAG: top-k by similarity, no importance ratings
    assert len(prompts["simulacra"]["importance"]) == runs["simulacra"][0]["steps"] + 1  # Generative Agents' scoring
    assert runs["rag"][0]["policy_config"]["scoring"] == "similarity" and runs["rag"][0]["policy_stats"]["similarity"] == "bm25"
    reflections = prompts["simulacra"]["action"][-1].split("Your reflections on past memories: ")[1]
    assert "The recipe is in the kitchen." in reflections.splitlines()[0]
    assert prompts["simulacra"]["reflection"]
    assert "Your reflections from previous trials: none (first trial)" in prompts["reflexion"]["action"][0]
    react = prompts["react"]["action"][-1]
    assert "History of 5 last observations" in react and "plan" not in prompts["react"]
    assert "Information from the memory module that" not in react and "Your current plan" not in react


def test_reflexion_reads_its_reflection_in_the_next_trial():
    answerer = WalkthroughAnswerer("TextMem/CookingRL-L1-v0")
    with LocalOpenAIServer(responder=answerer) as server:
        policy = make_policy("reflexion", model="m", base_url=server.base_url, structured_output="off")
        first, second = evaluate("TextMem/CookingRL-L1-v0", policy, EvalConfig(episodes=2, max_steps=2))
    assert not first["won"] and first["policy_stats"]["reflections_written"] == 1
    assert first["policy_stats"]["calls_by_kind"]["trial_reflection"] == 1
    assert second["policy_stats"]["reflections_read"] == 1
    assert "Trial 1: I ran out of steps" in answerer.prompts["action"][-1]
    assert "I ran out of steps" not in answerer.prompts["action"][0]


def test_reflact_keeps_its_objective_and_wins():
    result, answerer = play("reflact", "TextMem/CookingRL-L1-v0")
    stats = result["policy_stats"]
    assert result["won"] and stats["objective_changes"] >= 1 and stats["narratives"] >= 1
    prompts = answerer.prompts["reflact"]
    assert "CURRENT_OBJECTIVE: do 'inventory' next" in prompts[1]  # the first answer's objective persists
    for label in ("REFLECTION:", "ALL_TRIED_IN_THIS_ROOM:", "ARIGRAPH_BELIEF_STATE: Current location: kitchen",
                  "NARRATIVE_SYNTHESIS:", "WARNINGS:", "Valid actions: ["):
        assert label in prompts[-1], label


def test_paper_prompt_style_sends_appendix_e_wording():
    answerer = WalkthroughAnswerer("TextMem/CookingRL-L1-v0")
    with LocalOpenAIServer(responder=answerer) as server:
        policy = make_policy("ariadne", model="m", base_url=server.base_url, prompt_style="paper",
                             structured_output="off")
        result = evaluate("TextMem/CookingRL-L1-v0", policy)[0]
    assert result["won"]
    assert "Write your answer exactly in this json format" in answerer.prompts["plan"][0]
    assert "You may choose actions only from the list of possible actions" in answerer.prompts["action"][0]
    with pytest.raises(ValueError, match="prompt_style"):
        make_policy("react", prompt_style="verbose")
