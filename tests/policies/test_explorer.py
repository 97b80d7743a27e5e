"""The non-LLM explorer: it uses MemoryGraphWrapper through the runner hook, solves a treasure
hunt by reading notes and going to the rooms they name, and its ablation has no map."""

from __future__ import annotations

import gymnasium as gym
import pytest

import textmem_gym  # noqa: F401
from policies import make_policy
from policies.explorer import ExplorerPolicy, take_object
from textmem_gym.core.info import step_info
from textmem_gym.runner import EvalConfig, evaluate
from textmem_gym.wrappers import MemoryGraphWrapper
from textmem_gym.wrappers.memory_graph import find_memory_wrapper


@pytest.fixture(scope="module")
def treasure_runs():
    return {memory: evaluate("TextMem/TreasureHunt-v0", ExplorerPolicy(memory=memory), EvalConfig(max_steps=60))[0]
            for memory in (True, False)}


def test_explorer_with_memory_wins_the_treasure_hunt_by_following_notes(treasure_runs):
    result = treasure_runs[True]
    rules = result["policy_stats"]["rules"]
    assert result["won"] and result["normalized_score"] == 1.0
    assert rules["read"] >= 3 and rules["open"] >= 2
    assert rules.get("go_mentioned", 0) + rules.get("go_unlock", 0) >= 1  # to the place or lock a note names
    assert result["primitive_steps"] > result["steps"]  # go to macros


def test_the_ablation_has_no_map_and_does_worse(treasure_runs):
    result = treasure_runs[False]
    assert not {"go_mentioned", "go_unlock"} & set(result["policy_stats"]["rules"])
    assert result["primitive_steps"] == result["steps"]
    assert result["normalized_score"] < treasure_runs[True]["normalized_score"]


def test_runner_applies_the_policy_wrapper_hook_after_the_user_wrap():
    seen = []

    class Probe(ExplorerPolicy):
        def reset(self, observation, info):
            if observation:  # not the constructor's empty reset
                seen.append((sorted(observation) if isinstance(observation, dict) else "text", "location" in info))
            super().reset(observation, info)

    evaluate("TextMem/CookingRL-L1-v0", Probe(), EvalConfig(max_steps=2))
    evaluate("TextMem/CookingRL-L1-v0", Probe(memory=False), EvalConfig(max_steps=2))
    assert seen == [(["belief", "observation"], True), ("text", False)]
    user = []
    evaluate("TextMem/CookingRL-L1-v0", Probe(), EvalConfig(max_steps=2,
             wrap=lambda env: user.append(MemoryGraphWrapper(env, belief="full")) or user[-1]))
    env = Probe().wrap_env(user[0])
    assert env is user[0] and find_memory_wrapper(env).belief_mode == "full"  # kept, not doubled


def test_registry_builds_it_and_it_never_asks_for_privileged_info():
    policy = make_policy("explorer", memory=False)
    assert isinstance(policy, ExplorerPolicy) and not policy.privileged
    env = policy.wrap_env(gym.make("TextMem/CookingRL-L1-v0"))
    assert find_memory_wrapper(env) is None
    env.close()
    assert take_object("take knife from table") == "knife" and take_object("open fridge") is None


def test_ariadne_refuses_a_wrapper_holding_another_memory():
    env = MemoryGraphWrapper(gym.make("TextMem/CookingRL-L1-v0"), memory="stma")
    with pytest.raises(ValueError, match="AriGraph"):
        make_policy("ariadne").wrap_env(env)
    env.close()


def test_explorer_wins_twx_cookingworld_at_its_default_difficulty():
    """TextWorld Express moves are ``move <dir>``, doors are named by direction in every room and
    rooms are first seen through a door: the explorer opens doors room by room, enters the rooms it
    only saw, and follows the recipe to the meal."""
    pytest.importorskip("textworld_express")
    results = evaluate("TextMem/TWX-CookingWorld-v0", ExplorerPolicy(), EvalConfig(game_seeds=[0, 1], max_steps=100))
    assert all(r["won"] for r in results)
    assert all(r["policy_stats"]["rules"].get("follow", 0) >= 4 for r in results)
    # TALES's CookingWorld (one room, no barbeque): a recipe's "grill" is done with the toaster
    easy = evaluate("TextMem/TWX-CookingWorld-Easy-v0", ExplorerPolicy(),
                    EvalConfig(max_steps=100, env_kwargs={"split": "test"}))[0]
    assert easy["won"]


def test_explorer_reads_which_key_opens_which_lock():
    policy = ExplorerPolicy(memory=False)
    policy.reset("", step_info({"objective": "The key 1 you found in room A unlocks bronze locker. Read notes."}))
    policy._read_keys("The key 4 unlocks black locker.")
    policy._read_keys("The brass key opens the lavender locker. Each locker holds a key.")
    policy._read_keys("The iron key opens the yellow locker in Room AG.")
    assert policy.key_for == {"key 1": "bronze locker", "key 4": "black locker", "brass key": "lavender locker",
                              "iron key": "yellow locker"}


def test_explorer_puts_back_a_thing_whose_pick_up_cost_a_point():
    policy = ExplorerPolicy(memory=False)
    policy.reset("-= Pool =-", step_info({"objective": "Put every misplaced item back in its place."}))
    policy.observe("take beach towel from sun lounger", "You take the beach towel from the sun lounger.", -1.0,
                   False, False, step_info({}))
    assert policy.held == {"beach towel"}
    commands = ["put beach towel on sun lounger", "go north", "take goggles from rack"]
    assert policy.act("", step_info({"admissible_commands": commands})) == "put beach towel on sun lounger"
    policy.observe("put beach towel on sun lounger", "You put the beach towel on the sun lounger.", 0.0,
                   False, False, step_info({}))
    assert policy.held == set() and policy.return_to == {} and "beach towel" in policy.placed
