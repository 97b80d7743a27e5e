"""ReflAct as the seed describes it, on Lost Pig (whose rooms print new names as the story goes on):
locations keyed by Jericho's location object, the per-location log with the score before and after,
revisits from the world-state hash, and a loop guard that forbids the repeated action."""

from __future__ import annotations

import gymnasium as gym
import pytest

from policies import make_policy
from policies.critic import LoopGuard, place_of
from textmem_gym.llm import LocalOpenAIServer

GAME = "TextMem/Jericho-Lostpig-v0"
#: Walkthrough steps up to the closet that becomes the "Gnome Room" once Grunk has met the gnome.
UNTIL_RENAMED = 62


@pytest.mark.exhaustive
def test_reflact_keys_a_renamed_room_by_its_location_object():
    """The walkthrough played through ReflAct's observation side (its sub-agents answered by the
    local server): the closet renamed "Gnome Room" keeps one log and one tried list."""
    env = gym.make(GAME, privileged=True)
    with LocalOpenAIServer(responder=lambda messages: "nothing to add") as server:
        policy = make_policy("reflact", model="local-test", base_url=server.base_url)
        wrapped = policy.wrap_env(env)
        observation, info = wrapped.reset(seed=0)
        policy.reset(observation, info)
        names: dict[str, set[str]] = {}
        for action in info["walkthrough"][:UNTIL_RENAMED]:
            observation, reward, terminated, truncated, info = wrapped.step(action)
            policy.observe(action, observation, reward, terminated, truncated, info)
            if policy.room_name:
                names.setdefault(info["location_id"], set()).add(policy.room_name)
        policy.close()
    wrapped.close()
    closet = next(key for key, printed in names.items() if {"closet", "gnome room"} <= printed)
    assert closet == policy.room == info["location_id"], "keyed by the location object, not the name"
    assert {"SHOUT", "GREET GNOME", "LOOK"} <= policy.tried_in[closet], "tries under both names in one list"
    assert all(key is None or key.startswith("z") for key in policy.room_log)
    assert any(t.score_after > t.score_before for turns in policy.room_log.values() for t in turns), \
        "the log keeps the score before and after each action"
    assert all(len(turns) <= 40 for turns in policy.room_log.values())
    assert policy.guard.current_state == info["world_state_hash"], "revisits counted on Jericho's world state"


def test_place_of_prefers_the_games_location_id():
    assert place_of("Closet\nA small closet.", {"location_id": "z194"}) == "z194"
    assert place_of("Gnome Room\nA small room.", {"location_id": "z194"}) == "z194"
    assert place_of("-= Kitchen =-\nYou see a table.", {}) == "kitchen"


def test_loop_guard_forbids_a_command_replayed_from_the_same_state():
    guard = LoopGuard()
    guard.record("look", "a" * 32)
    guard.record("ask gnome about pig", "b" * 32)  # played from state a
    guard.record("wait", "a" * 32)  # back in state a
    action, forced = guard.check("ask gnome about pig", ["ask gnome about pig", "go east"])
    assert (action, forced) == ("go east", True) and guard.forced == 1 and guard.revisits == 2
    assert guard.check("go west", ["go east"]) == ("go west", False)


def test_loop_guard_forbids_a_frequent_command_and_plays_an_alternative():
    guard = LoopGuard()
    for i, command in enumerate(["eat pants", "north", "eat pants", "south", "eat pants", "north", "eat pants"]):
        guard.record(command, f"state {i}")
    assert guard.check("eat pants", ["eat pants", "take torch"]) == ("take torch", True)
    assert any("eat pants" in w for w in guard.warnings())
