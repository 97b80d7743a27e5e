"""LLM faults never kill a run: episodes finish, faults and fallbacks are counted; bad answers
are mapped to admissible commands and counted; the CLI drives an LLM policy over HTTP."""

from __future__ import annotations

import json

from policies import make_policy
from policies.llm_agent import resolve_action
from textmem_gym.cli import main
from textmem_gym.llm import Fault, LocalOpenAIServer
from textmem_gym.runner import evaluate

GAME = "TextMem/CookingRL-L1-v0"
FAST = {"timeout": 0.3, "max_retries": 1, "backoff_base": 0.001, "backoff_max": 0.01}


def answer_look(messages):
    prompt = messages[-1]["content"]
    if "action selector" in prompt:
        return json.dumps({"reason_for_action": "x", "action_to_take": "look"})
    return json.dumps({"main_goal": "g", "plan_steps": [{"sub_goal_1": "look", "reason": "r"}]})


def test_faults_are_survived_and_counted():
    faults = ["malformed_json", "empty", Fault("429", retry_after=0.01, times=3), Fault("timeout", delay_s=1.0),
              Fault("500", times=2), None, "malformed_json"]
    with LocalOpenAIServer(responder=answer_look, faults=faults) as server:
        policy = make_policy("react", model="m", base_url=server.base_url, **FAST)
        result = evaluate(GAME, policy, max_steps=8)[0]
    stats = result["policy_stats"]
    assert result["steps"] == 8 and result["truncated"]
    assert stats["faults"].get("rate_limit", 0) >= 2 and stats["faults"].get("timeout", 0) >= 1
    assert stats["faults"].get("bad_response", 0) + stats["faults"].get("empty_content", 0) >= 1
    assert sum(stats["llm_errors"].values()) >= 1 and stats["llm_fallbacks"] == sum(stats["llm_errors"].values())
    assert stats["retries"] >= 3


def test_a_dead_endpoint_falls_back_to_the_critic_every_step():
    server = LocalOpenAIServer().start()
    url = server.base_url
    server.stop()
    policy = make_policy("ariadne", model="m", base_url=url, **FAST)
    result = evaluate(GAME, policy, max_steps=4)[0]
    stats = result["policy_stats"]
    assert result["steps"] == 4 and stats["failed_calls"] >= 8
    assert stats["llm_fallbacks"] >= 8 and stats["llm_errors"]["action"] == 4


def test_off_list_and_unparseable_actions_are_mapped_and_counted():
    answers = ["take the knife", "xyzzy plugh", '{"action_to_take": "Inventory"}']
    with LocalOpenAIServer(script=answers) as server:
        policy = make_policy("react", model="m", base_url=server.base_url)
        result = evaluate(GAME, policy, max_steps=3)[0]
    stats = result["policy_stats"]
    assert stats["invalid_actions_mapped"] == 1 and stats["invalid_actions_defaulted"] == 1
    assert stats["parse_failures"] == 2
    assert resolve_action("take the knife", ["take knife from table", "look"]) == ("take knife from table", "mapped")
    assert resolve_action("fly away", ["look", "go north"]) == ("look", "default")
    assert resolve_action("Go North.", ["look", "go north"]) == ("go north", "exact")


def test_cli_eval_runs_ariadne_against_an_openai_compatible_endpoint(tmp_path, capsys):
    out = tmp_path / "r.jsonl"
    with LocalOpenAIServer(responder=answer_look) as server:
        code = main(["eval", GAME, "--policy", "ariadne", "--model", "local-m", "--base-url", server.base_url,
                     "--max-steps", "3", "--out", str(out), "--quiet", "--policy-arg", "top_k=1"])
    assert code == 0
    row = json.loads(out.read_text().splitlines()[0])
    stats = row["policy_stats"]
    assert row["policy"] == "ariadne" and row["steps"] == 3
    assert stats["calls_by_kind"]["plan"] == 3 and stats["prompt_tokens"] > 0 and stats["latency_s"] > 0
    assert stats["cost_usd"] == 0.0 and "ariadne" in capsys.readouterr().out


def test_ariadne_can_extract_with_the_papers_llm_prompts_through_its_own_client():
    prompts = []

    def responder(messages):
        prompts.append(messages[-1]["content"])
        return answer_look(messages) if "action selector" in prompts[-1] or "planner" in prompts[-1] else \
            "fridge, is in, kitchen; carrot, is in, fridge"

    with LocalOpenAIServer(responder=responder) as server:
        policy = make_policy("ariadne", model="m", base_url=server.base_url, extractor="llm")
        result = evaluate(GAME, policy, max_steps=2)[0]
    extraction = [p for p in prompts if "triplet" in p.lower() and "Observation:" in p]
    assert len(extraction) >= 3  # reset observation + one per step
    assert ("carrot", "is in", "fridge") in policy.memory.believed_triples()
    assert result["policy_stats"]["calls"] == len(prompts)  # the extractor's calls are accounted too
