"""LLM faults never kill a run: episodes finish, faults and fallbacks are counted; bad answers
are mapped to admissible commands and counted; the CLI drives an LLM policy over HTTP."""

from __future__ import annotations

import json

import gymnasium as gym
import pytest

from policies import make_policy
from policies.llm_agent import resolve_action
from textmem_gym.cli import main
from textmem_gym.core.errors import PolicyNotReady, RunAborted
from textmem_gym.llm import Fault, LocalOpenAIServer
from textmem_gym.results import format_table, summarize
from textmem_gym.runner import EvalConfig, evaluate

from .answerer import listed_actions

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
        result = evaluate(GAME, policy, EvalConfig(max_steps=8))[0]
    stats = result["policy_stats"]
    assert result["steps"] == 8 and result["truncated"]
    assert stats["faults"].get("rate_limit", 0) >= 2 and stats["faults"].get("timeout", 0) >= 1
    assert stats["faults"].get("bad_response", 0) + stats["faults"].get("empty_content", 0) >= 1
    assert sum(stats["llm_errors"].values()) >= 1 and stats["llm_fallbacks"] == sum(stats["llm_errors"].values())
    assert stats["retries"] >= 3


def test_a_dead_endpoint_is_not_ready_and_stops_a_run_instead_of_falling_back():
    server = LocalOpenAIServer().start()
    url = server.base_url
    server.stop()
    policy = make_policy("ariadne", model="m", base_url=url, extractor="rules", **FAST)
    with pytest.raises(PolicyNotReady, match="nothing answers"):
        policy.preflight()
    env = policy.wrap_env(gym.make(GAME))
    observation, info = env.reset(seed=0)
    policy.reset(observation, info)
    with pytest.raises(RunAborted, match=f"LLM endpoint {url} is down"):
        policy.act(observation, info)  # its first decision's calls already make the series
    stats = policy.episode_stats()
    assert stats["failed_calls"] >= 1 and stats["fallbacks"] == {} and stats["env_actions"] == 0
    env.close()
    policy.close()


def scripted_decisions(answers):
    """A model answering decision prompts from ``answers`` (functions of the listed commands), in turn."""
    turn = iter(answers)

    def answer(messages):
        return next(turn)(listed_actions(messages[-1]["content"]))

    return answer


def mangled(commands):
    command = next(c for c in commands if len(c) >= 6 and c.count(" ") >= 1)
    return command[:-1] + ("x" if command[-1] != "x" else "y")


DECISIONS = [
    lambda commands: '{"reason_for_action": "x", "action_to_take": "' + commands[0] + '"',  # cut off: still the action
    lambda commands: "xyzzy plugh",  # off the list, nothing close: defaulted
    lambda commands: f"Action: {mangled(commands)}",  # off the list, close: mapped
    lambda commands: '{"reason_for_action": "I will think about it"',  # no action at all
]


def test_every_env_action_is_the_models_or_a_fallback_counted_by_cause():
    with LocalOpenAIServer(responder=scripted_decisions(DECISIONS)) as server:
        policy = make_policy("react", model="m", base_url=server.base_url, structured_output="off")
        result = evaluate(GAME, policy, EvalConfig(max_steps=4))[0]
    stats = result["policy_stats"]
    assert stats["fallbacks"] == {"invalid_defaulted": 1, "invalid_mapped": 1, "unparseable": 1}
    assert stats["env_actions"] == 4 and stats["model_actions"] == 0.25
    assert stats["invalid_actions_mapped"] == 1 and stats["invalid_actions_defaulted"] == 1
    assert stats["parse_failures"] == 1 and stats["parse_failures_by_kind"] == {"action": 1}
    assert resolve_action("take the knife", ["take knife from table", "look"]) == ("take knife from table", "completed")
    assert resolve_action("fly away", ["look", "go north"]) == ("look", "default")
    assert resolve_action("Go North.", ["look", "go north"]) == ("go north", "exact")
    table = format_table(summarize([result]))
    assert "model actions" in table and "0.25" in table and "invalid_mapped 1" in table


def test_strict_mode_ends_the_episode_at_the_first_fallback_and_records_its_cause(tmp_path):
    out = tmp_path / "r.jsonl"
    with LocalOpenAIServer(responder=scripted_decisions([DECISIONS[0], DECISIONS[1], DECISIONS[0]])) as server:
        code = main(["eval", GAME, "--policy", "react", "--model", "m", "--base-url", server.base_url,
                     "--max-steps", "3", "--out", str(out), "--quiet", "--strict", "--structured-output", "off"])
    assert code == 0
    row = json.loads(out.read_text().splitlines()[0])
    assert row["error"]["cause"] == "invalid_defaulted" and row["error"]["step"] == 2 and row["steps"] == 1
    assert row["policy_stats"]["fallbacks"] == {"invalid_defaulted": 1} and row["policy_config"]["strict"] is True
    summary = summarize([row, {**row, "error": None, "episode": 1, "normalized_score": 0.5}])[0]
    assert summary["errors"] == 1 and summary["error_causes"] == {"invalid_defaulted": 1}
    assert summary["score_mean"] == 0.5  # the errored episode is left out of the means
    assert "errors" in format_table([summary])


def test_with_structured_outputs_the_schema_keeps_the_answer_admissible():
    """The same bad free-text answers, sent with the decision schema (its action an enum of the
    admissible commands): the local server constrains them as a schema-following server does."""
    with LocalOpenAIServer(responder=scripted_decisions(DECISIONS)) as server:
        policy = make_policy("react", model="m", base_url=server.base_url, structured_output="auto")
        result = evaluate(GAME, policy, EvalConfig(max_steps=4))[0]
    stats = result["policy_stats"]
    assert stats["structured_output"] == {"json_schema": 4} and stats["fallbacks"] == {}
    assert stats["model_actions"] == 1.0 and stats["parse_failures"] == 0


def test_cli_eval_runs_ariadne_against_an_openai_compatible_endpoint(tmp_path, capsys):
    out = tmp_path / "r.jsonl"
    with LocalOpenAIServer(responder=answer_look) as server:
        code = main(["eval", GAME, "--policy", "ariadne", "--model", "local-m", "--base-url", server.base_url,
                     "--max-steps", "3", "--out", str(out), "--quiet", "--policy-arg", "top_k=1",
                     "--policy-arg", "similarity=bm25"])
    assert code == 0
    row = json.loads(out.read_text().splitlines()[0])
    stats = row["policy_stats"]
    assert row["policy"] == "ariadne" and row["steps"] == 3
    assert stats["calls_by_kind"]["plan"] == 3 and stats["prompt_tokens"] > 0 and stats["latency_s"] > 0
    assert stats["cost_usd"] == 0.0 and "ariadne" in capsys.readouterr().out
    assert row["policy_config"]["extractor"] == "llm" and stats["similarity"] == "bm25"  # the paper's default


def test_ariadne_can_extract_with_the_papers_llm_prompts_through_its_own_client():
    prompts = []

    def responder(messages):
        prompts.append(messages[-1]["content"])
        return answer_look(messages) if "action selector" in prompts[-1] or "planner" in prompts[-1] else \
            "fridge, is in, kitchen; carrot, is in, fridge"

    with LocalOpenAIServer(responder=responder) as server:
        policy = make_policy("ariadne", model="m", base_url=server.base_url, extractor="llm", similarity="bm25")
        result = evaluate(GAME, policy, EvalConfig(max_steps=2))[0]
    extraction = [p for p in prompts if "triplet" in p.lower() and "Observation:" in p]
    assert len(extraction) >= 3  # reset observation + one per step
    believed = policy.memory.believed_triples()
    assert ("fridge", "is in", "kitchen") in believed
    assert ("carrot", "is in", "fridge") not in believed  # the game never printed a carrot: hygiene drops it
    assert result["policy_stats"]["calls"] == len(prompts)  # the extractor's calls are accounted too
