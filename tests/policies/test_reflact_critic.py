"""``reflact``'s critic against the real local server: ``constrain`` keeps rejected commands out of
the action enum and names them in the prompt, asks a model that insists once more, and only then
substitutes; ``substitute`` is the seed's critic; a bad mode is refused.

The game: TextMem/Cooking-v0 starts in the livingroom (``examine sofa``, ``go east``, ``go south``,
``inventory``, ``look``); ``examine sofa`` earns nothing, so after two tries the critic rejects it.
The env is built once (building a TextWorld env takes seconds) and played by each test's policy.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import gymnasium as gym
import pytest

from policies import make_policy
from tests.policies.answerer import prompt_kind
from textmem_gym.llm import LocalOpenAIServer
from textmem_gym.llm.request import mode_of_body
from textmem_gym.llm.testing.profiles import request_schema
from textmem_gym.runner import run_episode
from textmem_gym.wrappers.memory_graph import ensure_memory_wrapper

GAME = "TextMem/Cooking-v0"
REPEATED = "examine sofa"
REJECTED = 'Rejected by the critic (do not repeat): ["examine sofa"]'
REASK = "The critic rejected 'examine sofa' because it was tried 2 times here without reward"


def reflact_answer(action: str) -> str:
    return f"REFLECTION: in the livingroom\nOBJECTIVE: look around\nACTION: {action}"


def responder(after_reask: str = REPEATED) -> Callable[[list[dict]], str]:
    """Always proposes ``examine sofa``; a re-ask (the critic's feedback) gets ``after_reask``."""

    def answer(messages: list[dict]) -> str:
        prompt = messages[-1]["content"]
        if prompt_kind(prompt) != "reflact":
            return "nothing to add"
        return reflact_answer(after_reask if "The critic rejected" in prompt else REPEATED)

    return answer


@pytest.fixture(scope="module")
def env() -> Iterator[gym.Env]:
    """Three steps of the game, with the memory wrapper reflact adds."""
    game = ensure_memory_wrapper(gym.make(GAME, max_episode_steps=3))
    yield game
    game.close()


def play(env: gym.Env, answer: Callable[[list[dict]], str], **kwargs) -> tuple[dict, list[dict]]:
    """One episode of reflact answered by ``answer``: its results row and its reflact requests."""
    with LocalOpenAIServer(responder=answer) as server:
        policy = make_policy("reflact", model="local-test", base_url=server.base_url, **kwargs)
        result = run_episode(env, policy, seed=0)
        policy.close()
        reflact = [body for body in server.requests if prompt_kind(body["messages"][-1]["content"]) == "reflact"]
    return result, reflact


def test_constrain_keeps_rejected_commands_out_of_the_enum_and_names_them(env):
    result, requests = play(env, responder())  # structured outputs (the server answers within the enum)
    stats = result["policy_stats"]
    enums = [request_schema(body, mode_of_body(body))["properties"]["action"]["enum"] for body in requests]
    assert len(enums) == 3 and REPEATED in enums[0] and REPEATED in enums[1]
    assert REPEATED not in enums[2] and "go east" in enums[2]
    last_prompt = requests[2]["messages"][-1]["content"]
    assert REJECTED in last_prompt and '"examine sofa"' not in last_prompt.split("Valid actions: ")[1].split("\n")[0]
    assert REJECTED not in requests[0]["messages"][-1]["content"]
    assert stats["model_actions"] == 1.0 and stats["fallbacks"] == {}
    assert stats["critic_withheld"] == 1 and stats["critic_reasks"] == stats["critic_substitutions"] == 0
    assert result["policy_config"]["critic"] == "constrain"


def test_constrain_asks_once_more_then_substitutes_when_the_model_insists(env):
    result, requests = play(env, responder(), structured_output="off")
    stats = result["policy_stats"]
    assert stats["calls_by_kind"] == {"reflact": 3, "reflact_reask": 1}
    assert REASK in requests[3]["messages"][-1]["content"]
    assert stats["critic_reasks"] == 1 and stats["critic_reasks_accepted"] == 0
    assert stats["critic_substitutions"] == 1 and stats["fallbacks"] == {"critic_substitution": 1}
    assert stats["model_actions"] == round(2 / 3, 4)


def test_constrain_plays_an_acceptable_reanswer_as_the_models_action(env):
    result, _ = play(env, responder(after_reask="go south"), structured_output="off")
    stats = result["policy_stats"]
    assert stats["critic_reasks"] == stats["critic_reasks_accepted"] == 1
    assert stats["critic_substitutions"] == 0 and stats["fallbacks"] == {}
    assert stats["model_actions"] == 1.0


def test_substitute_is_the_seeds_critic(env):
    result, requests = play(env, responder(), structured_output="off", critic="substitute")
    stats = result["policy_stats"]
    assert result["policy_config"]["critic"] == "substitute"
    assert stats["calls_by_kind"] == {"reflact": 3} and stats["critic_reasks"] == 0
    assert not any(REJECTED in body["messages"][-1]["content"] for body in requests)
    assert stats["fallbacks"] == {"critic_substitution": 1} and stats["model_actions"] == round(2 / 3, 4)


def test_an_unknown_critic_mode_is_refused():
    with pytest.raises(ValueError, match="critic must be one of .*'veto'"):
        make_policy("reflact", critic="veto")
