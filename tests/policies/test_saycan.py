"""SayCan against the local OpenAI-compatible server: commands scored by their log-probabilities
(the server's rule-driven completions with ``echo`` and ``logprobs``) times SwiftSage's affordance,
the argmax played; the chat fallback, counted, when the endpoint gives no log-probabilities; a few
real ScienceWorld steps with the gold example of another training variation."""

from __future__ import annotations

import json
import math

import pytest

from policies import make_policy
from policies.saycan import SayCanPolicy
from textmem_gym.llm import LocalOpenAIServer
from textmem_gym.runner import EvalConfig, evaluate

SCIENCEWORLD = "TextMem/ScienceWorld-FindLivingThing-v0"
FIRST = "This room is called the hallway. You see a door to the kitchen (closed) and a stove."
COMMANDS = ["look around", "open door to kitchen", "close door to kitchen", "focus on apple", "go to hallway"]
LIKELY = {"open", "door", "to", "kitchen", "close"}


def scorer(before: str, token: str) -> float:
    """The scripted model: the words of opening or closing the kitchen door are likely, the rest not."""
    return -0.1 if token.strip() in LIKELY else -3.0


def test_saycan_plays_the_argmax_of_the_combined_score():
    with LocalOpenAIServer(logprobs=scorer) as server:
        policy = SayCanPolicy(model="m", base_url=server.base_url, examples=0)
        policy.reset(FIRST, {"objective": "Your task is to find a living thing."})
        first = policy.act(FIRST, {"admissible_commands": COMMANDS})
        scores = dict(policy.last_scores)
        probabilities = dict(policy.last_probabilities)
        policy.observe(first, "The door is now open.", 0.0, False, False, {})
        second = policy.act("The door is now open.", {"admissible_commands": COMMANDS})
        stats = policy.episode_stats()
        requests = server.requests
        policy.close()
    # close door: likelier words than opening it, but the affordance (SwiftSage's) rules it out, and
    # focus on apple (not in sight); the language term ranks the rest
    assert set(scores) == {"look around", "open door to kitchen", "go to hallway"}
    assert first == "open door to kitchen" == max(scores, key=scores.__getitem__)
    assert scores["open door to kitchen"] == pytest.approx(-0.4) and scores["look around"] == pytest.approx(-6.0)
    # SayCan's notebook: p_LM(command) x affordance, normalised over the candidates
    assert sum(probabilities.values()) == pytest.approx(1.0)
    assert max(probabilities, key=probabilities.__getitem__) == first
    assert probabilities["open door to kitchen"] / probabilities["look around"] == pytest.approx(math.exp(5.6))
    assert second == "look around"  # the last action is no longer afforded; -6.0 beats go to hallway's -6.1
    assert stats["model_actions"] == 1.0 and stats["fallbacks"] == {} and stats["logprobs_served"] is True
    assert stats["calls_by_kind"] == {"saycan_score": 5} and stats["scored_commands"] == 5
    body = requests[0]
    assert body["echo"] is True and body["logprobs"] == 1 and body["prompt"].endswith("\n> look around")
    assert "Here is the task.\nYour task is to find a living thing." in body["prompt"]


def test_saycan_records_the_fallback_when_logprobs_are_missing():
    def chat(messages):
        return json.dumps({"action": "go to hallway"})

    with LocalOpenAIServer(responder=chat) as server:  # no scorer: completions come without logprobs
        policy = SayCanPolicy(model="m", base_url=server.base_url, examples=0)
        policy.reset(FIRST, {"objective": "find a living thing"})
        actions = [policy.act(FIRST, {"admissible_commands": COMMANDS}) for _ in range(2)]
        stats = policy.episode_stats()
        policy.close()
    assert actions == ["go to hallway", "go to hallway"]
    assert stats["fallbacks"] == {"no_logprobs": 2} and stats["model_actions"] == 0.0
    assert stats["logprobs_served"] is False
    assert stats["calls_by_kind"] == {"saycan_score": 1, "saycan_choice": 2}  # probed once, then chat only


@pytest.mark.java
@pytest.mark.slow
def test_saycan_plays_scienceworld_with_the_gold_example_of_another_variation():
    with LocalOpenAIServer(logprobs=scorer) as server:
        policy = make_policy("saycan", model="local-test", base_url=server.base_url, max_candidates=5)
        result = evaluate(SCIENCEWORLD, policy, EvalConfig(max_steps=2))[0]
        prompt = server.requests[0]["prompt"]
        policy.close()
    stats = result["policy_stats"]
    assert result["steps"] == 2 and stats["model_actions"] == 1.0 and stats["examples"] == 1
    assert stats["calls_by_kind"]["saycan_score"] == 10 and stats["candidates_cut"] == 2
    assert "Here is an example.\nYour task is to find a(n) living thing" in prompt and "> focus on" in prompt
    assert result["policy_config"]["affordance"] == "admissible commands with SwiftSage's filters"
