"""MemoryGraphWrapper on real TextWorld games: spaces, info, belief, go-to macros, step limits."""

from __future__ import annotations

import gymnasium as gym
import pytest
from gymnasium.utils.env_checker import check_env

import textmem_gym  # noqa: F401  (registers ids)
from textmem_gym.wrappers import MemoryGraphWrapper

HARDEST = "TextMem/Cooking-Hardest-v0"
# From the start (corridor): learn kitchen, livingroom, driveway, street; leave the front door
# (livingroom <-> driveway) closed behind us; end in the kitchen.
TOUR = ["go west", "go east", "go south", "open front door", "go south", "go west", "go east", "go north",
        "close front door", "go north", "go west"]


def toured(env: gym.Env) -> dict:
    env.reset(seed=0)
    info = {}
    for action in TOUR:
        _, _, _, _, info = env.step(action)
    return info


@pytest.fixture(scope="module")
def hardest():
    env = MemoryGraphWrapper(gym.make(HARDEST, privileged=True))
    yield env
    env.close()


def test_check_env_dict_and_flat():
    for flatten in (False, True):
        env = MemoryGraphWrapper(gym.make("TextMem/Cooking-v0"), flatten=flatten)
        check_env(env, skip_render_check=True)
        observation, _ = env.reset(seed=0)
        assert isinstance(observation, str) == flatten
        if flatten:
            assert "[Memory]" in observation and "Current location: livingroom" in observation
        env.close()


def test_observation_info_and_memory_attribute(hardest):
    observation, info = hardest.reset(seed=0)
    assert set(observation) == {"observation", "belief"} and "-= Corridor =-" in observation["observation"]
    assert observation["belief"].startswith("Current location: corridor")
    assert info["location"] == "corridor" and info["known_locations"] == ["corridor"]
    assert info["unexplored_exits"] == {"corridor": ["north", "south", "west"]}
    assert info["memory"]["added"] > 0 and info["memory"]["believed"] == info["memory"]["total"]
    assert info["steps"] == {"decisions": 0, "primitive": 0, "counted": 0, "limit": 150}
    memory = hardest.get_wrapper_attr("memory")
    assert ("corridor", "has exit", "west") in memory.believed_triples()
    assert info["belief_accuracy"]["overall"]["precision"] == 1.0, "privileged env: belief scored"


def test_goto_multi_room_path_opens_closed_door(hardest):
    info = toured(hardest)
    memory = hardest.get_wrapper_attr("memory")
    assert info["location"] == "kitchen" and memory.spatial.door("livingroom", "south") == ("front door", "closed")
    assert "go to street" in info["admissible_commands"] and "go to kitchen" not in info["admissible_commands"]
    observation, reward, terminated, truncated, info = hardest.step("go to street")
    assert info["macro"]["actions"] == ["go east", "go south", "open front door", "go south", "go west"]
    assert info["macro"]["completed"] and info["location"] == "street"
    assert "-= Street =-" in observation["observation"] and reward == 0.0 and not (terminated or truncated)
    assert info["steps"] == {"decisions": len(TOUR) + 1, "primitive": len(TOUR) + 5, "counted": len(TOUR) + 5,
                             "limit": 150}
    assert ("front door", "is", "open") in memory.believed_triples()
    _, _, _, _, back = hardest.step("Go to the Kitchen")
    assert back["location"] == "kitchen" and back["macro"]["primitive_steps"] == 4


def test_goto_unknown_target_and_already_there(hardest):
    _, info = hardest.reset(seed=0)
    observation, reward, terminated, truncated, info = hardest.step("go to narnia")
    assert "don't know a place called 'narnia'" in observation["observation"]
    assert "corridor" in observation["observation"] and info["macro"]["actions"] == []
    assert (reward, terminated, truncated) == (0.0, False, False)
    assert info["steps"]["decisions"] == 1 and info["steps"]["primitive"] == 0 and "admissible_commands" in info
    observation, *_ = hardest.step("go to corridor")
    assert observation["observation"] == "You are already in the corridor."


def test_goto_disabled_sends_command_to_game():
    env = MemoryGraphWrapper(gym.make("TextMem/Cooking-v0"), goto=False, belief="full")
    env.reset(seed=0)
    observation, _, _, _, info = env.step("go to kitchen")
    assert "macro" not in info and info["steps"]["primitive"] == 1
    assert not any(c.startswith("go to") for c in info["admissible_commands"])
    assert "Known facts: sofa, is at, livingroom" in observation["belief"]
    env.close()


@pytest.mark.parametrize(("one_step", "expected_truncation_at"), [(False, "macro"), (True, "decision")])
def test_step_limit_accounting(one_step, expected_truncation_at):
    env = MemoryGraphWrapper(gym.make(HARDEST, max_episode_steps=len(TOUR) + 3), macro_counts_as_one_step=one_step)
    toured(env)
    _, _, _, truncated, info = env.step("go to street")
    if expected_truncation_at == "macro":  # 3 primitive moves left: the walk stops at the limit
        assert truncated and info["macro"]["actions"] == ["go east", "go south", "open front door"]
        assert not info["macro"]["completed"] and info["steps"]["primitive"] == len(TOUR) + 3
    else:  # the macro is one decision; the walk completes
        assert not truncated and info["macro"]["completed"] and info["steps"]["primitive"] == len(TOUR) + 5
        env.step("look")
        _, _, _, truncated, info = env.step("look")
        assert truncated and info["steps"]["decisions"] == len(TOUR) + 3
    env.close()


def test_one_step_accounting_leaves_the_time_limit_as_built():
    inner = gym.make("TextMem/Cooking-v0", max_episode_steps=2)
    env = MemoryGraphWrapper(inner, macro_counts_as_one_step=True)
    assert env.max_steps == 2 and inner.spec.max_episode_steps == 2
    env.reset(seed=0)
    assert not env.step("look")[3] and env.step("look")[3]
    inner.reset(seed=0)  # the TimeLimit itself still truncates whoever steps it
    assert not inner.step("look")[3] and inner.step("look")[3]
    env.close()
    wrapped = gym.wrappers.RecordEpisodeStatistics(gym.make("TextMem/Cooking-v0"))
    with pytest.raises(ValueError, match="directly inside"):
        MemoryGraphWrapper(wrapped, macro_counts_as_one_step=True)
    wrapped.close()


def test_moves_that_go_nowhere_still_count():
    env = MemoryGraphWrapper(gym.make("TextMem/Cooking-v0", max_episode_steps=2))
    env.reset(seed=0)
    assert not env.step("go to narnia")[3]
    _, _, _, truncated, info = env.step("go to narnia")
    assert truncated and info["steps"]["counted"] == 2 and info["steps"]["primitive"] == 0
    env.close()


def test_a_callable_belief_renders_the_belief_key():
    env = MemoryGraphWrapper(gym.make("TextMem/Cooking-v0"),
                             belief=lambda memory, observation: f"at {memory.location}: {len(observation)} chars")
    observation, _ = env.reset(seed=0)
    assert observation["belief"] == f"at livingroom: {len(observation['observation'])} chars"
    assert env.render_belief("abc") == "at livingroom: 3 chars"
    env.close()


def test_bad_arguments():
    env = gym.make("TextMem/Cooking-v0")
    with pytest.raises(ValueError, match="belief"):
        MemoryGraphWrapper(env, belief="everything")
    with pytest.raises(ValueError, match="unknown memory"):
        MemoryGraphWrapper(env, memory="nope")
    env.close()


def test_the_env_hands_its_text_parser_to_the_memory_and_the_belief_metric():
    from textmem_gym.memory.extractors.nethack import NetHackObservedTruth, NetHackRules
    from textmem_gym.memory.ground_truth import ObservedTruth

    pytest.importorskip("nle")
    env = MemoryGraphWrapper(gym.make("TextMem/NetHack-RoomObs-v0", privileged=True), memory="stma", goto=False)
    try:
        assert isinstance(env.parser, NetHackRules) and isinstance(env.belief_accuracy.truth, NetHackObservedTruth)
        assert env.memory.extractor.parser is env.parser
        _, info = env.reset(seed=1)
        assert info["location"] == "dungeon level 1" and info["belief_accuracy"]["overall"]["recall"] > 0
    finally:
        env.close()
    env = MemoryGraphWrapper(gym.make("TextMem/Cooking-v0"))
    try:
        assert env.parser is None and env.memory.extractor.parser is None
        assert isinstance(env.belief_accuracy.truth, ObservedTruth)
    finally:
        env.close()
