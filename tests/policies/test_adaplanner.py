"""AdaPlanner through the whole pipeline (policy, restricted plan interpreter, the local
OpenAI-compatible server, a real TextWorld cooking game): a scripted planner writes the
walkthrough as a plan with one wrong assertion; the policy refines it out of plan, asks in plan,
wins, keeps the plan as a skill and reuses it in the second episode."""

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
#: The games stay in the shared cache (no regeneration per test; see conftest.py).
SHARED_CACHE = True
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
        policy = make_policy("adaplanner", model="local-test", base_url=server.base_url)
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


class StepsPlanner:
    """The scripted model answering in the structured ``steps`` form: a wrong expectation at step 2,
    then the refined plan from step 3."""

    def __init__(self, walkthrough: list[str]) -> None:
        self.walkthrough = walkthrough
        self.refines = 0

    def steps(self, wrong_step: int | None = None) -> list[dict[str, str]]:
        return [{"action": c, "expect": "xyzzy" if k == wrong_step else ""} for k, c in enumerate(self.walkthrough, 1)]

    def __call__(self, messages: list[dict[str, str]]) -> str:
        prompt = messages[-1]["content"]
        if "did not go as expected: refine it" in prompt:
            self.refines += 1
            return json.dumps({"reason": "step 2 expected the wrong words", "start_from": 3, "plan": self.steps()})
        return json.dumps({"plan": self.steps(wrong_step=2)})


@pytest.mark.slow
def test_a_steps_plan_runs_in_the_same_interpreter_and_is_refined_after_a_failed_expectation():
    env = gym.make(GAME, privileged=["walkthrough"])
    _, info = env.reset(seed=0)
    env.close()
    planner = StepsPlanner(list(info["walkthrough"]))
    with LocalOpenAIServer(responder=planner) as server:
        policy = make_policy("adaplanner", model="local-test", base_url=server.base_url, plan_format="steps")
        (row,) = evaluate(GAME, policy, EvalConfig(episodes=1))
        policy.close()
    stats = row["policy_stats"]
    assert row["won"] and row["policy_config"]["plan_format"] == "steps"
    assert stats["assertion_failures"] == 1 and stats["out_of_plan_refinements"] == 1 == planner.refines
    assert stats["model_actions"] == 1.0 and stats["plan_parse_failures"] == 0


def test_plan_format_is_checked_at_once():
    with pytest.raises(ValueError, match="plan_format must be one of"):
        AdaPlannerPolicy(plan_format="yaml")
