"""AdaPlanner through the whole pipeline (policy, restricted plan interpreter, the local
OpenAI-compatible server, a real TextWorld cooking game): a scripted planner writes the
walkthrough as a plan with one wrong assertion; the policy refines it out of plan, asks in plan,
wins, keeps the plan as a skill and reuses it in the second episode. The same loop runs on the
structured route (a steps plan whose first action the schema limits to the admissible commands),
and a planned command the game does not offer is refined, not played."""

from __future__ import annotations

import json
import re

import gymnasium as gym
import pytest

from policies import make_policy
from policies.adaplanner import AdaPlannerPolicy
from policies.plan_interpreter import Act, PlanAssertion, PlanError, parse_plan, run_plan
from textmem_gym.llm import LocalOpenAIServer
from textmem_gym.runner import EvalConfig, evaluate

GAME = "TextMem/STMA-Cooking-L1-v0"
WRONG = '        assert "xyzzy" in obs, "Error in [Step 2]: expected xyzzy."'


def plan_source(commands: list[str], wrong_step: int | None = None) -> str:
    """The walkthrough as an AdaPlanner plan (step 1 also asks in plan; one wrong assertion if asked)."""
    lines = ["def solution(start_from=1):", "    # General plan: follow the recipe."]
    for k, command in enumerate(commands, 1):
        lines += [f"    if start_from <= {k}:", f'        print("[Step {k}] {command}")',
                  f'        obs = act("{command}")']
        if k == 1:
            lines.append('        answer = ask("Which room should I go to next?")')
        lines.append(WRONG if k == wrong_step else f'        assert len(obs) > 0, "Error in [Step {k}]: no answer."')
    return "\n".join(lines)


class Planner:
    """The scripted model: plans, refinements and in-plan answers, recording every prompt."""

    def __init__(self, walkthrough: list[str]) -> None:
        self.walkthrough = walkthrough
        self.prompts: dict[str, list[str]] = {"plan": [], "refine": [], "ask": []}

    def __call__(self, messages: list[dict[str, str]]) -> str:
        prompt = messages[-1]["content"]
        if "did not go as expected: refine it" in prompt:
            self.prompts["refine"].append(prompt)
            return json.dumps({"reason": "step 2 checked the wrong text", "start_from": 3,
                               "plan": plan_source(self.walkthrough)})
        if "Your plan asks you a question" in prompt:
            self.prompts["ask"].append(prompt)
            return json.dumps({"answer": "the kitchen"})
        self.prompts["plan"].append(prompt)
        skill = re.search(r"your skills\):\nTask: [^\n]*\n(def solution.*?)\nCurrent observation", prompt, re.S)
        return json.dumps({"plan": skill.group(1) if skill else plan_source(self.walkthrough, wrong_step=2)})


@pytest.fixture(scope="module")
def two_episodes():
    env = gym.make(GAME, privileged=["walkthrough"])
    _, info = env.reset(seed=0)
    env.close()
    planner = Planner(list(info["walkthrough"]))
    with LocalOpenAIServer(responder=planner) as server:
        policy = make_policy("adaplanner", model="local-test", base_url=server.base_url, plan_format="code")
        results = evaluate(GAME, policy, EvalConfig(episodes=2))
        policy.close()
    return results, planner


@pytest.mark.slow
def test_adaplanner_refines_after_a_failed_assertion(two_episodes):
    (first, _), planner = two_episodes
    stats = first["policy_stats"]
    assert first["won"] and first["normalized_score"] == 1.0
    assert stats["assertion_failures"] == 1 and stats["out_of_plan_refinements"] == 1 and stats["plans"] == 2
    assert stats["in_plan_refinements"] == 1  # step 1 asks; the refined plan resumes at step 3
    refine = planner.prompts["refine"][0]
    assert "assertion failed in step 2: Error in [Step 2]: expected xyzzy." in refine
    assert "> go north ->" in refine  # the history shows what the plan did
    assert stats["model_actions"] == 1.0 and stats["fallbacks"] == {}
    assert stats["calls_by_kind"] == {"adaplanner_plan": 1, "adaplanner_refine": 1, "adaplanner_ask": 1}
    assert first["policy_config"]["max_refinements"] == 10 and stats["prompt_tokens"] > 0


@pytest.mark.slow
def test_adaplanner_reuses_the_won_plan_as_a_skill(two_episodes):
    (first, second), planner = two_episodes
    assert first["policy_stats"]["skills_shown"] == 0 and first["policy_stats"]["skills_saved"] == 1
    second_prompt = planner.prompts["plan"][1]
    assert "Plans that solved similar tasks before (your skills)" in second_prompt
    assert plan_source(planner.walkthrough) in second_prompt  # the refined, winning plan
    stats = second["policy_stats"]
    assert second["won"] and stats["skills_shown"] == 1
    assert stats["assertion_failures"] == 0 and stats["out_of_plan_refinements"] == 0
    assert second["steps"] == len(planner.walkthrough)


def test_a_plan_that_does_not_parse_is_a_fallback():
    with LocalOpenAIServer(script=[json.dumps({"plan": "import os\nos.system('ls')"})]) as server:
        policy = AdaPlannerPolicy(model="m", base_url=server.base_url, structured_output="off")
        policy.reset("You are in a kitchen.", {"objective": "cook", "admissible_commands": ["look", "go east"]})
        action = policy.act("You are in a kitchen.", {"admissible_commands": ["look", "go east"]})
        stats = policy.episode_stats()
        policy.close()
    assert action in ("look", "go east")
    assert stats["fallbacks"] == {"unparseable": 1} and stats["plan_parse_failures"] == 1
    assert stats["model_actions"] == 0.0
    assert stats["plan_forms"] == {"code": 1}  # "auto" without structured output: the paper's code plan


def test_the_interpreter_runs_only_the_whitelisted_subset():
    for bad in ("__import__('os').system('ls')", "open('x')", "obs = act('a').__class__",
                "[x for x in range(3)]", "eval('1')", "while True:\n    pass", "x.y = 1"):
        with pytest.raises(PlanError):
            run = run_plan(parse_plan(bad))
            for _ in range(100):
                next(run)
    plan = parse_plan("for i in range(3):\n    obs = act(f'go {i}')\n    if 'wall' in obs:\n        break")
    run = run_plan(plan)
    assert next(run) == Act("go 0") and run.send("ok") == Act("go 1")
    with pytest.raises(StopIteration):
        run.send("a wall")
    run = run_plan(parse_plan("if start_from <= 1:\n    act('a')\nif start_from <= 2:\n"
                              "    obs = act('b')\n    assert 'x' in obs, 'Error in [Step 2]'"), start_from=2)
    assert next(run) == Act("b")
    with pytest.raises(PlanAssertion) as failure:
        run.send("y")
    assert failure.value.step == 2


def step(action: str, expect: str = "") -> dict[str, str]:
    return {"action": action, "expect": expect}


class StepsPlanner:
    """The scripted model answering in the structured ``steps`` form: the walkthrough with a wrong
    expectation at step 2, then (refined) the rest of the walkthrough from step 3."""

    def __init__(self, walkthrough: list[str]) -> None:
        self.walkthrough = walkthrough
        self.prompts: dict[str, list[str]] = {"plan": [], "refine": []}

    def __call__(self, messages: list[dict[str, str]]) -> str:
        prompt = messages[-1]["content"]
        if "did not go as expected: refine it" in prompt:
            self.prompts["refine"].append(prompt)
            first, *rest = self.walkthrough[2:]
            return json.dumps({"reason": "step 2 expected the wrong words", "first_step": step(first),
                               "next_steps": [step(c) for c in rest]})
        self.prompts["plan"].append(prompt)
        first, second, *rest = self.walkthrough
        return json.dumps({"first_step": step(first), "next_steps": [step(second, "xyzzy")] + [step(c) for c in rest]})


def schema_of(body: dict) -> dict:
    response_format = body.get("response_format") or {}
    return (response_format.get("json_schema") or {}).get("schema") or response_format.get("schema") or {}


@pytest.mark.slow
def test_with_structured_output_the_plan_is_steps_whose_first_action_is_an_admissible_command():
    env = gym.make(GAME, privileged=["walkthrough"])
    _, info = env.reset(seed=0)
    env.close()
    planner = StepsPlanner(list(info["walkthrough"]))
    with LocalOpenAIServer(responder=planner) as server:  # takes JSON schemas: "auto" picks the steps form
        policy = make_policy("adaplanner", model="local-test", base_url=server.base_url, skills=1)
        (row,) = evaluate(GAME, policy, EvalConfig(episodes=1))
        skills = list(policy.library)
        policy.close()
        bodies = [body for body in server.requests if "messages" in body]
    stats = row["policy_stats"]
    assert row["won"] and row["policy_config"]["plan_format"] == "auto" and stats["plan_forms"] == {"steps": 2}
    assert stats["assertion_failures"] == 1 and stats["out_of_plan_refinements"] == 1
    assert stats["model_actions"] == 1.0 and stats["plan_parse_failures"] == 0 and stats["fallbacks"] == {}
    assert row["steps"] == len(planner.walkthrough)  # the refined plan resumed after the step already done
    first_action = schema_of(bodies[0])["properties"]["first_step"]["properties"]["action"]
    assert sorted(first_action["enum"]) == sorted(info["admissible_commands"])
    assert "enum" not in schema_of(bodies[0])["properties"]["next_steps"]["items"]["properties"]["action"]
    refine = planner.prompts["refine"][0]
    assert "assertion failed in step 2: Error in [Step 2]: expected 'xyzzy' after 'go north'" in refine
    assert f'Your plan:\n[{json.dumps(step("inventory"))}, {json.dumps(step("go north", "xyzzy"))}' in refine
    # the won plan, kept as a skill: the step done before the failure, then the refined steps
    assert [s["action"] for s in json.loads(skills[0]["plan"])] == [planner.walkthrough[0]] + planner.walkthrough[2:]


def test_a_planned_command_the_game_does_not_offer_is_refined_not_played():
    answers = [json.dumps({"first_step": step("look"), "next_steps": [step("take knife")]}),
               json.dumps({"reason": "no knife here", "first_step": step("go east"), "next_steps": []})]
    info = {"objective": "cook", "admissible_commands": ["look", "go east"]}
    with LocalOpenAIServer(script=answers) as server:
        policy = AdaPlannerPolicy(model="m", base_url=server.base_url, plan_format="steps")
        policy.reset("You are in a corridor.", info)
        first = policy.act("You are in a corridor.", info)
        policy.observe(first, "You are in a corridor.", 0.0, False, False, info)
        second = policy.act("You are in a corridor.", info)
        stats = policy.episode_stats()
        prompts = [body["messages"][-1]["content"] for body in server.requests if "messages" in body]
        policy.close()
    assert (first, second) == ("look", "go east")
    assert stats["commands_refused"] == 1 and stats["out_of_plan_refinements"] == 1
    assert stats["model_actions"] == 1.0 and stats["fallbacks"] == {}
    assert "step 2 cannot be done: 'take knife' is not among the possible actions now" in prompts[1]


def test_plan_format_is_checked_at_once():
    with pytest.raises(ValueError, match="plan_format must be one of"):
        AdaPlannerPolicy(plan_format="yaml")
