"""RAP against the local OpenAI-compatible server: the nearest stored trajectory is retrieved and
shown around its best-matching step; on ScienceWorld the memory is the gold paths of five other
training variations, never the variation being played."""

from __future__ import annotations

import json
import re

import pytest

from policies import make_policy
from policies.rap import RAPPolicy
from textmem_gym.envs.scienceworld.gold import GoldTrajectory, gold_trajectories
from textmem_gym.llm import LocalOpenAIServer
from textmem_gym.runner import EvalConfig, evaluate

SCIENCEWORLD = "TextMem/ScienceWorld-FindLivingThing-v0"


class Model:
    """The scripted model: a plan, then the first listed action with a retrieval key about the stove."""

    def __init__(self) -> None:
        self.prompts: list[str] = []

    def __call__(self, messages: list[dict[str, str]]) -> str:
        prompt = messages[-1]["content"]
        self.prompts.append(prompt)
        if "Make a short plan" in prompt:
            return json.dumps({"plan": "To solve the task, heat the water on the stove."})
        actions = re.search(r"Possible actions in current situation: (\{.*\})", prompt)
        first = next(iter(json.loads(actions.group(1)).items())) if actions else ("look", [""])
        return json.dumps({"thought": "heat it", "retrieval_key": "activate stove",
                           "action": f"{first[0]} {first[1][0]}".strip()})


def path(label: str, objective: str, actions: list[str]) -> GoldTrajectory:
    return GoldTrajectory(label, objective, objective, [(a, f"You {a}.", 0) for a in actions])


def test_rap_retrieves_the_nearest_stored_trajectory():
    model = Model()
    with LocalOpenAIServer(responder=model) as server:
        policy = RAPPolicy(model="m", base_url=server.base_url, k=1, window=1)
        for gold in (path("train-0", "Your task is to boil water.", ["go to kitchen", "pick up pot", "move pot to sink",
                                                                    "activate sink", "move pot to stove",
                                                                    "activate stove", "wait"]),
                     path("train-1", "Your task is to melt ice.", ["go to kitchen", "open freezer", "pick up ice"]),
                     path("train-2", "Your task is to grow a plant.", ["go to greenhouse", "plant seed"])):
            assert policy.add_trajectory(gold)
        policy.reset("You are in the hallway.", {"objective": "Your task is to boil milk."})
        info = {"admissible_commands": ["look around", "go to kitchen"]}
        policy.act("You are in the hallway.", info)
        policy.observe("look around", "You are in the hallway.", 0.0, False, False, info)
        policy.act("You are in the hallway.", info)
        stats = policy.episode_stats()
        policy.close()
    plan_prompt, first, second = model.prompts
    assert "Task: Your task is to boil water." in plan_prompt.split("Task: Your task is to boil milk.")[0]
    assert stats["retrieved"] == {"train-0": 2} and stats["model_actions"] == 1.0
    # the retrieval key of the first answer ("activate stove") centres the second step's example on that step
    assert "> activate stove" in second and "> move pot to stove" in second and "> pick up pot" not in second
    assert "Plan: To solve the task, heat the water on the stove." in second


@pytest.mark.java
@pytest.mark.slow
def test_rap_memory_is_five_other_training_variations_never_the_played_one():
    model = Model()
    played = {"split": "train", "variation": 1}
    with LocalOpenAIServer(responder=model) as server:
        policy = make_policy("rap", model="local-test", base_url=server.base_url)
        result = evaluate(SCIENCEWORLD, policy, EvalConfig(max_steps=3, env_kwargs=played))[0]
        stored = [trajectory.steps for trajectory in policy.memory.trajectories]
        policy.close()
    stats = result["policy_stats"]
    assert stats["memory_labels"] == ["train-0", "train-2", "train-3", "train-4", "train-5"]
    assert set(stats["retrieved"]) <= set(stats["memory_labels"]) and sum(stats["retrieved"].values()) == 3 * 2
    assert result["steps"] == 3 and stats["model_actions"] == 1.0
    # ScienceWorld offers 400+ commands: the action enum sent holds the best-ranked the endpoint can take
    actions = [request for request in server.requests if "rap_action" in json.dumps(request)
               or "action selector" in json.dumps(request)]
    schemas = [json.dumps(request.get("response_format") or {}) for request in actions]
    assert schemas and all('"enum"' in schema for schema in schemas)
    own = gold_trajectories("find-living-thing", 2)[1]  # the played variation's gold path is not stored
    assert own.label == "train-1" and [(a, o) for a, o, _ in own.steps] not in stored and len(stored) == 5
