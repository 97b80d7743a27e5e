"""NetPlay (LLM, both modes) and Ariadne on NetHack-RoomObs through the real local OpenAI server."""

from __future__ import annotations

import json
import re

import gymnasium as gym
import pytest

import textmem_gym  # noqa: F401
from policies import make_policy
from textmem_gym.llm import LocalOpenAIServer
from textmem_gym.runner import run_episode

from .answerer import listed_actions, prompt_kind

ROOM, LEVEL = "TextMem/NetHack-RoomObs-v0", "TextMem/NetHack-LevelObs-v0"


def netplay_answer(messages: list[dict[str, str]]) -> str:
    """Rule-driven model: descend when offered, answer questions, else explore; every 7th answer is
    garbage, every 11th a bad skill argument (the env's feedback, not a fallback)."""
    prompt = messages[-1]["content"]
    netplay_answer.calls += 1  # type: ignore[attr-defined]
    if netplay_answer.calls % 7 == 0:  # type: ignore[attr-defined]
        return "I think I will go exploring"
    commands = prompt.rsplit("Commands available now: ", 1)[-1].split(", ")
    skill = ("go to the moon" if netplay_answer.calls % 11 == 0 else  # type: ignore[attr-defined]
             "descend" if "descend" in commands else "explore" if "explore" in commands else "esc")
    return json.dumps({"reason": "going deeper scores", "skill": skill})


@pytest.mark.parametrize("env_id", [ROOM, LEVEL])
def test_netplay_plays_50_steps_and_counts_fallbacks(env_id):
    netplay_answer.calls = 0  # type: ignore[attr-defined]
    with LocalOpenAIServer(netplay_answer) as server:
        policy = make_policy("netplay", model="local", base_url=server.base_url, cache="off", structured_output="off")
        env = gym.make(env_id, max_episode_steps=50)
        try:
            result = run_episode(env, policy, seed=1)
        finally:
            env.close()
            policy.close()
    stats = result["policy_stats"]
    assert result["steps"] == 50 or result["terminated"]
    assert stats["fallbacks"]["unparseable"] == result["steps"] // 7
    assert stats["env_actions"] == result["steps"]
    assert stats["model_actions"] == round(1 - sum(stats["fallbacks"].values()) / result["steps"], 4)
    assert stats["calls_by_kind"]["skill"] == result["steps"]
    assert result["max_dungeon_level"] >= 2 and result["primitive_steps"] > result["steps"]


def test_netplay_prompt_has_netplays_sections():
    prompts: list[str] = []

    def answer(messages):
        prompts.append(messages[-1]["content"])
        return '{"reason": "look around", "skill": "explore"}'

    with LocalOpenAIServer(answer) as server:
        policy = make_policy("netplay", model="local", base_url=server.base_url, cache="off", structured_output="off")
        env = gym.make(ROOM, max_episode_steps=3)
        try:
            run_episode(env, policy, seed=2)
        finally:
            env.close()
            policy.close()
    last = prompts[-1]
    for section in ("Task:", "Observation:", "Recent events", "Skills (name <argument>", "- go to <feature",
                    "Commands available now:", '"skill"'):
        assert section in last
    assert "> explore: Skill 'explore'" in last


REMEMBERED: list[str] = []


def ariadne_answer(messages: list[dict[str, str]]) -> str:
    prompt = messages[-1]["content"]
    kind = prompt_kind(prompt)
    REMEMBERED.extend(a for a in listed_actions(prompt) if re.match(r"^go to .+ x\d+ y\d+$", a))
    if kind == "plan":
        return json.dumps({"main_goal": "descend", "plan_steps": [{"sub_goal_1": "find the stairs down"}]})
    if kind != "action":
        return "False"
    actions = listed_actions(prompt)
    stairs = [a for a in actions if a.startswith("go to staircase down x")]
    action = "descend" if "descend" in actions else stairs[0] if stairs else "explore"
    return json.dumps({"reason_for_action": "descending", "action_to_take": action})


def test_ariadne_on_room_obs_uses_its_memory_of_the_level():
    with LocalOpenAIServer(ariadne_answer) as server:
        policy = make_policy("ariadne", model="local", base_url=server.base_url, cache="off", structured_output="off",
                             extractor="rules", similarity="bm25")
        env = policy.wrap_env(gym.make(ROOM, max_episode_steps=50))
        seen: list[list[str]] = []
        try:
            result = run_episode(env, policy, seed=1,
                                 on_step=lambda step, action, obs, reward, info: seen.append([action]))
            memory = env.get_wrapper_attr("memory")
        finally:
            env.close()
            policy.close()
    assert result["steps"] == 50 or result["terminated"]
    assert any(t[0] == "you" for t in memory.believed_triples())
    assert result["max_dungeon_level"] >= 2 and result["primitive_steps"] > result["steps"]
    assert REMEMBERED, "the places AriGraph remembers are offered as go to commands"
    assert all(len(action) == 1 for action in seen)


def test_heuristic_explores_before_trying_an_unreachable_staircase_again():
    from policies.netplay import DESCEND_WAIT, NetPlayHeuristic
    from textmem_gym.core.info import step_info

    agent = NetPlayHeuristic(seed=0)
    text = "Dungeon level 1, turn 40. HP 14/14, not hungry."
    offered = step_info({"admissible_commands": ["explore", "rest", "descend"]})
    assert agent.act(text, offered) == "descend"
    failed = step_info({"skill": {"name": "descend", "argument": "", "primitive_steps": 0, "completed": False,
                                  "reason": "no path to the staircase down"}})
    agent.observe("descend", text, 0.0, False, False, failed)
    assert [agent.act(text, offered) for _ in range(DESCEND_WAIT)] == ["explore"] * DESCEND_WAIT
    assert agent.act(text, offered) == "descend"  # the level may have opened up: it tries again
