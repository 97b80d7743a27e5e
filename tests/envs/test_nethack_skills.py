"""NetHack skills: they end (capped), report, count primitive keys, give feedback on bad arguments,
stay deterministic; NetHack text for memory (rules extractor + belief accuracy); the skill agent."""

from __future__ import annotations

import gymnasium as gym
import pytest

import textmem_gym  # noqa: F401
from textmem_gym.envs.nethack.skills import KICK_LIMIT, SKILLS, parse_skill
from textmem_gym.runner import run_episode
from textmem_gym.wrappers import MemoryGraphWrapper

ROOM, LEVEL = "TextMem/NetHack-RoomObs-v0", "TextMem/NetHack-LevelObs-v0"
CALLS = ["explore", "go to doorway", "go to x40 y10", "fight jackal", "fight north", "pick up gold piece",
         "descend", "eat apple", "rest", "search", "search 3"]


@pytest.mark.parametrize("cap", [3, 7])
def test_every_skill_ends_within_its_cap(cap):
    env = gym.make(LEVEL, skill_cap=cap)
    try:
        env.reset(seed=1)
        total = 0
        for command in CALLS * 2:
            observation, *_, info = env.step(command)
            keys = info["skill"]["primitive_steps"]
            assert 0 <= keys <= cap and observation.startswith(f"Skill '{command}'")
            total += keys
            assert info["steps"]["primitive"] == total and info["steps"]["decisions"] <= len(CALLS) * 2
    finally:
        env.close()
    assert {parse_skill(c).name for c in CALLS} == set(SKILLS)  # type: ignore[union-attr]


def test_explore_and_descend_reach_the_second_level():
    env = gym.make(ROOM)
    try:
        observation, info = env.reset(seed=1)
        assert {"explore", "rest", "search"} <= set(info["admissible_commands"])
        for _ in range(12):
            if "descend" in info["admissible_commands"]:
                break
            observation, *_, info = env.step("explore")
        observation, *_, info = env.step("descend")
    finally:
        env.close()
    assert "you went down to dungeon level 2" in observation and info["dungeon_level"] == 2
    assert info["metrics"]["max_dungeon_level"] == 2 and info["steps"]["primitive"] > info["steps"]["decisions"]


@pytest.mark.parametrize("command, says", [
    ("go to the dragon hoard", "no 'dragon hoard' here"), ("fight dragon", "no monster 'dragon' in view"),
    ("eat rock", "you have no 'rock' to eat"), ("search abc", "search takes a number"),
    ("go to x99 y99", "is not an explored place"), ("pick up excalibur", "no 'excalibur' here"),
])
def test_bad_skill_arguments_get_feedback_and_cost_nothing(command, says):
    env = gym.make(ROOM)
    try:
        _, before = env.reset(seed=1)
        observation, reward, terminated, truncated, info = env.step(command)
    finally:
        env.close()
    assert says in observation and info["skill"]["primitive_steps"] == 0 and not info["skill"]["completed"]
    assert info["moves"] == before["moves"] and reward == 0 and not (terminated or truncated)


def test_skills_are_deterministic_and_optional():
    def play(**kwargs):
        env = gym.make(ROOM, **kwargs)
        try:
            texts = [env.reset(seed=4)[0]] + [env.step(c)[0] for c in ["explore", "explore", "search 2", "explore"]]
            return texts, env.step("explore")[4]
        finally:
            env.close()

    (first, _), (again, _) = play(), play()
    assert first == again
    words, info = play(skills=False)
    assert "not a NetHack command" in words[1] and "explore" not in info["admissible_commands"]


def test_primitive_limit_truncates():
    env = gym.make(LEVEL, primitive_limit=20)
    try:
        env.reset(seed=1)
        for _ in range(10):
            *_, terminated, truncated, info = env.step("explore")
            if truncated:
                break
    finally:
        env.close()
    assert truncated and info["steps"]["primitive"] >= 20


@pytest.mark.parametrize("env_id", [ROOM, LEVEL])
def test_rules_memory_of_a_level_and_belief_accuracy(env_id):
    env = MemoryGraphWrapper(gym.make(env_id, privileged=True), goto=False)
    try:
        env.reset(seed=1)
        for command in ["explore"] * 4 + ["descend", "explore"]:
            observation, *_, info = env.step(command)
        memory = env.get_wrapper_attr("memory")
        believed = set(memory.believed_triples())
        summary = env.belief_accuracy.summary()["overall"]
    finally:
        env.close()
    level = info["dungeon_level"]
    assert ("you", "is on", f"dungeon level {level}") in believed and memory.location == f"dungeon level {level}"
    assert ("you", "is on", "dungeon level 1") not in believed or level == 1
    assert any(o.startswith("level 1 x") for s, r, o in believed if s == "doorway")
    assert info["steps"]["primitive"] > info["steps"]["decisions"]
    assert summary["precision"] > 0.8 and summary["recall"] > 0.8 and summary["tp"] > 20


def test_skill_agent_goes_deeper_than_random_over_five_seeds():
    from policies import make_policy

    deepest = {}
    for name in ("netplay-heuristic", "random"):
        levels = []
        for seed in range(5):
            env = gym.make(ROOM, max_episode_steps=60)
            try:
                result = run_episode(env, make_policy(name, seed=seed), seed=seed)
            finally:
                env.close()
            assert result["max_dungeon_level"] >= 1 and result["primitive_steps"] >= result["steps"] // 2
            assert 0 <= result["doors_kicked_open"] + result["locked_doors_given_up"] <= result["locked_doors"]
            assert result["door_kicks"] >= result["doors_kicked_open"]
            levels.append(result["max_dungeon_level"])
        deepest[name] = sum(levels) / len(levels)
    assert deepest["netplay-heuristic"] > deepest["random"], deepest


# seed 3 (Level obs): the first ``explore`` meets the locked door at x22 y7, which holds once
# ("WHAMM!!") and gives way to the second kick (the default monk kicks as a martial artist)
LOCKED_SEED, LOCKED_DOOR = 3, (1, 22, 7)


def _explore_once(**kwargs):
    env = gym.make(LEVEL, **kwargs)
    try:
        env.reset(seed=LOCKED_SEED)
        observation, *_, info = env.step("explore")
        return observation, info, env.get_wrapper_attr("levels")
    finally:
        env.close()


def test_explore_kicks_a_locked_door_open_and_walks_through():
    observation, info, levels = _explore_once()
    metrics = info["metrics"]
    assert metrics["locked_doors"] == 1 and metrics["doors_kicked_open"] == 1 and metrics["locked_doors_given_up"] == 0
    assert 1 <= metrics["door_kicks"] <= KICK_LIMIT and levels.kicks.per_door == {LOCKED_DOOR: metrics["door_kicks"]}
    assert "As you kick the door, it" in observation and not levels.locked.get(1)
    depth, x, y = LOCKED_DOOR
    assert levels.visited[depth][y, x], "the hero walked through the kicked-open door"


@pytest.mark.parametrize("limit", [0, 1])
def test_a_door_that_holds_past_the_kick_limit_is_routed_around(limit):
    observation, info, levels = _explore_once(kick_limit=limit)
    metrics = info["metrics"]
    assert metrics["door_kicks"] == limit and levels.kicks.per_door == {LOCKED_DOOR: limit}
    assert metrics["locked_doors"] == 1 and metrics["doors_kicked_open"] == 0 and metrics["locked_doors_given_up"] == 1
    assert levels.locked == {1: {LOCKED_DOOR[1:]}} and ("WHAMM" in observation) == (limit > 0)
    with pytest.raises(ValueError, match="kick_limit"):
        gym.make(LEVEL, kick_limit=-1)
