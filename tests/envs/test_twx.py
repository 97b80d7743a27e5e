"""TextWorld Express envs: games, parameters, privileged facts and walkthroughs, aliases, the JVM's
life, and the memory's reading of TWX text (belief precision/recall). Each test makes one or two
real envs (one JVM each, about a second to start); the generic contract runs in
tests/envs/test_registered_envs.py."""

from __future__ import annotations

import random

import gymnasium as gym
import pytest

import textmem_gym  # noqa: F401
from textmem_gym.envs.twx.ids import ENV_TABLE, GAMES, env_id, game_params
from textmem_gym.envs.twx.text import read_room
from textmem_gym.wrappers import MemoryGraphWrapper

pytestmark = pytest.mark.java


def test_every_game_has_an_id():
    assert {env_id(game) for game in GAMES} <= set(ENV_TABLE)
    assert "TextMem/TWX-CookingWorld-Easy-v0" in ENV_TABLE
    assert all(entry.max_episode_steps == 100 for entry in ENV_TABLE.values())


@pytest.mark.parametrize(("params", "message"), [
    ({"numLocations": 12}, r"numLocations of TWX game 'coin' must be an int in 1\.\.11, got 12"),
    ({"rooms": 3}, r"unknown parameter 'rooms' of TWX game 'coin'; its parameters: numLocations"),
    ({"includeDoors": True}, r"includeDoors .* got True"),
])
def test_bad_parameters_name_the_value_and_the_valid_ones(params, message):
    with pytest.raises(ValueError, match=message):
        game_params("coin", params)


def test_unknown_game_split_and_seed_are_rejected():
    with pytest.raises(ValueError, match="unknown TWX game 'chess'; choose from"):
        gym.make("TextMem/TWX-CoinCollector-v0", game="chess")
    with pytest.raises(ValueError, match=r"split must be one of \['train', 'dev', 'test'\], got 'valid'"):
        gym.make("TextMem/TWX-CoinCollector-v0", split="valid")
    with pytest.raises(ValueError, match="game_seed must be below 1000"):
        gym.make("TextMem/TWX-CoinCollector-v0", game_seed=1000)


def test_parameters_splits_and_seeds_choose_the_game():
    env = gym.make("TextMem/TWX-CoinCollector-v0", numLocations=4, includeDoors=0, split="train")
    other = gym.make("TextMem/TWX-CoinCollector-v0", numLocations=4, includeDoors=0, split="train", game_seed=1)
    try:
        first, _ = env.reset(seed=0)
        again, _ = env.reset(seed=5)
        assert first == again, "the reset seed does not change a TWX game"
        assert other.reset(seed=0)[0] != first
        assert env.unwrapped.seed == 0 and other.unwrapped.seed == 1
        assert "numLocations=4" in env.unwrapped.params
    finally:
        env.close()
        other.close()


def test_walkthrough_wins_and_facts_follow_the_game():
    env = gym.make("TextMem/TWX-CoinCollector-v0", numLocations=3, privileged=True)
    try:
        _, info = env.reset(seed=0)
        facts = set(info["facts"])
        assert any(r.endswith("_of") for _, r, _ in facts), "the crawl found the map"
        assert {r for _, r, _ in facts} <= {"at", "in", "on", "is", "link", *(f"{d}_of" for d in
                                                                                ("north", "south", "east", "west"))}
        for command in info["walkthrough"]:
            _, reward, terminated, _, info = env.step(command)
        assert info["won"] and terminated and info["score"] == 100 and reward == 100.0
        assert ("coin", "in", "I") in info["facts"]
        assert not any(s == "coin" and r != "in" for s, r, _ in info["facts"]), "taken: no longer in a room"
    finally:
        env.close()


def test_aliases_and_bad_commands_get_the_games_answers():
    env = gym.make("TextMem/TWX-CoinCollector-v0", numLocations=2, includeDoors=1, split="train")
    try:
        obs, info = env.reset(seed=0)
        moves = [c for c in info["admissible_commands"] if c.startswith("move ")]
        door = [c for c in info["admissible_commands"] if c.startswith("open door to ")]
        assert moves or door
        if door:
            direction = door[0].rsplit(" ", 1)[1]
            name = obs.split("closed ", 1)[1].split(".")[0]
            assert env.step(f"open {name}")[0].startswith(f"You open the {name}")
        else:
            direction = moves[0].rsplit(" ", 1)[1]
        assert env.step(f"go {direction}")[0].startswith("You are in the")
        assert env.step("look")[0].startswith("You are in the")
        assert env.step("i")[0].startswith("Inventory")
        assert env.step("xyzzy")[0] == "Unknown action: I'm not sure what you mean."
    finally:
        env.close()


def test_a_game_twx_cannot_generate_is_a_clear_error():
    env = gym.make("TextMem/TWX-MapReader-v0", numLocations=2, maxDistanceApart=8)
    try:
        with pytest.raises(ValueError, match="could not generate seed 20000 of test with parameters 'mapreader: "):
            env.reset(seed=0)
    finally:
        env.close()


def test_close_stops_the_jvm():
    env = gym.make("TextMem/TWX-Sorting-v0")
    process = env.unwrapped._sim.java_process
    env.reset(seed=0)
    env.close()
    assert process.poll() is not None
    with pytest.raises(gym.error.Error, match="closed"):
        env.unwrapped.step("look around")


def _belief(env_id_: str, kind: str, episodes: int, **kwargs) -> dict:
    env = MemoryGraphWrapper(gym.make(env_id_, privileged=True, **kwargs), memory="arigraph", extractor="rules")
    try:
        for game_seed in range(episodes):
            _, info = env.reset(seed=game_seed)
            rng = random.Random(game_seed)
            plan = list(info["walkthrough"]) if kind == "walkthrough" else None
            for step in range(len(plan) if plan else 40):
                action = plan[step] if plan else rng.choice(sorted(info["admissible_commands"]))
                _, _, terminated, truncated, info = env.step(action)
                if terminated or truncated:
                    break
        return env.get_wrapper_attr("belief_accuracy").summary()["overall"]
    finally:
        env.close()


@pytest.mark.parametrize("kind", ["walkthrough", "random"])
def test_rules_memory_reads_twx_text(kind):
    summary = _belief("TextMem/TWX-CookingWorld-v0", kind, 1, numLocations=4)
    assert summary["tp"] > 50
    assert summary["precision"] >= 0.98 and summary["recall"] >= 0.95, summary


def test_go_to_macro_walks_a_known_route():
    env = MemoryGraphWrapper(gym.make("TextMem/TWX-CoinCollector-v0", numLocations=4, split="train"),
                             memory="arigraph", extractor="rules")
    try:
        obs, info = env.reset(seed=0)
        start = read_room(obs["observation"]).room
        move = next(c for c in info["admissible_commands"] if c.startswith(("move ", "open door to ")))
        obs, *_, info = env.step(move)
        if move.startswith("open"):
            obs, *_, info = env.step("move " + move.rsplit(" ", 1)[1])
        assert f"go to {start}" in info["admissible_commands"]
        obs, *_, info = env.step(f"go to {start}")
        assert obs["observation"].startswith(f"You are in the {start}.")
        assert info["macro"]["actions"]
    finally:
        env.close()
