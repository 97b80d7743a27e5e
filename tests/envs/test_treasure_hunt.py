"""Treasure Hunt (AriGraph appendix F): structure from privileged facts, scoring, walkthroughs."""

from __future__ import annotations

from collections.abc import Callable

import gymnasium as gym
import pytest

from tests.envs.game_helpers import (
    Playthrough,
    distances,
    exits,
    generate_in_fresh_caches,
    holder,
    play_walkthrough,
    player_room,
)
from textmem_gym.envs.registration import ENV_IDS
from textmem_gym.envs.textworld.treasure_hunt import LEVELS, plan_treasure_hunt

pytestmark = pytest.mark.slow

LEVEL_OF = {"TextMem/TreasureHunt-v0": "normal", "TextMem/TreasureHunt-Hard-v0": "hard",
            "TextMem/TreasureHunt-Hardest-v0": "hardest"}
CASES = [("TextMem/TreasureHunt-v0", None), ("TextMem/TreasureHunt-v0", 5),
         ("TextMem/TreasureHunt-Hard-v0", None), ("TextMem/TreasureHunt-Hard-v0", 7),
         ("TextMem/TreasureHunt-Hardest-v0", None)]


HARD_CASES = [case for case in CASES if LEVELS[LEVEL_OF[case[0]]].far_second_key]
HARDEST_CASES = [case for case in CASES if LEVELS[LEVEL_OF[case[0]]].distractors_per_room]


@pytest.fixture(scope="module")
def playthroughs() -> Callable[[str, int | None], Playthrough]:
    """Plays each (id, game seed) walkthrough once per module."""
    cache: dict[tuple[str, int | None], Playthrough] = {}

    def get(env_id: str, seed: int | None) -> Playthrough:
        if (env_id, seed) not in cache:
            cache[env_id, seed] = play_walkthrough(env_id, seed)
        return cache[env_id, seed]

    return get


def chain_from_facts(facts: list) -> list[tuple[str, str]]:
    """(key, locker it opens) in the order the keys are found, starting from the player's room."""
    matches = {s: o for s, r, o in facts if r == "match"}
    key = next(k for k in matches if holder(facts, k) == ("at", player_room(facts)))
    chain = []
    while key is not None:
        chain.append((key, matches[key]))
        key = next((k for k in matches if holder(facts, k) == ("in", matches[key])), None)
    return chain


@pytest.mark.parametrize(("env_id", "seed"), CASES)
def test_rooms_lockers_keys_and_notes_match_the_spec(playthroughs, env_id, seed):
    play = playthroughs(env_id, seed)
    level, facts = LEVELS[LEVEL_OF[env_id]], play.facts
    rooms = set(exits(facts))
    assert len(rooms) == level.width * level.height and len(distances(facts, player_room(facts))) == len(rooms)
    lockers = {s: o for s, r, o in facts if r == "at" and s.endswith(" locker")}
    assert sorted(lockers.values()) == sorted(rooms), "one locker per room"
    assert all((locker, "is", "locked") in facts for locker in lockers)
    assert [name for name in lockers if name.startswith("golden")] == ["golden locker"]
    chain = chain_from_facts(facts)
    assert len(chain) == level.keys, "every key is reached from the first one"
    assert chain[-1][1] == "golden locker" and holder(facts, "treasure") == ("in", "golden locker")
    assert len({locker for _, locker in chain}) == level.keys and player_room(facts) not in {
        lockers[locker] for _, locker in chain}
    for key, _ in chain:  # a key's name never gives away its locker
        assert not any(locker.split()[0] in key for locker in lockers)
    places = [("at", player_room(facts))] + [("in", locker) for _, locker in chain[:-1]]
    notes = [s for s, r, _ in facts if s.endswith(" note") and r in ("at", "in")]
    assert sorted(holder(facts, note) for note in notes) == sorted(places), "each key comes with a note"


@pytest.mark.parametrize(("env_id", "seed"), CASES)
def test_notes_name_the_next_locker_and_its_room(playthroughs, env_id, seed):
    play = playthroughs(env_id, seed)
    facts, chain = play.facts, chain_from_facts(play.facts)
    lockers = {s: o for s, r, o in facts if r == "at" and s.endswith(" locker")}
    read = [obs for command, obs, _, _ in play.steps if command.startswith("read ")]
    assert len(read) == len(chain)
    assert f"{chain[0][0]} opens the {chain[0][1]}" in read[0]
    for text, (key, locker) in zip(read[1:], chain[1:]):
        assert f"The {key} opens the {locker} in {lockers[locker]}." in text


@pytest.mark.parametrize(("env_id", "seed"), CASES)
def test_first_observation_gives_the_task(playthroughs, env_id, seed):
    play = playthroughs(env_id, seed)
    first_key, first_locker = chain_from_facts(play.facts)[0]
    for text in (play.first_observation, play.first_info["objective"]):
        assert "treasure" in text and "golden locker" in text and "read" in text
        assert f"The {first_key} lying here opens the {first_locker}" in text


@pytest.mark.parametrize(("env_id", "seed"), CASES)
def test_walkthrough_wins_with_a_point_per_key_and_the_treasure(playthroughs, env_id, seed):
    play = playthroughs(env_id, seed)
    keys = LEVELS[LEVEL_OF[env_id]].keys
    rewarded = [command for command, _, reward, _ in play.steps if reward]
    assert all(reward == 1 for _, _, reward, _ in play.steps if reward)
    assert [c.split(" from ")[0] for c in rewarded] == [f"take {k}" for k, _ in chain_from_facts(play.facts)] + [
        "take treasure"]
    assert [done for *_, done in play.steps] == [False] * (len(play.steps) - 1) + [True]
    info = play.final_info
    assert info["won"] and info["score"] == info["max_score"] == keys + 1 == ENV_IDS[env_id].expected_max_score
    assert info["normalized_score"] == 1.0 and len(play.steps) <= 150


@pytest.mark.parametrize(("env_id", "seed"), HARD_CASES)
def test_hard_levels_hide_the_second_key_in_the_farthest_dead_end(playthroughs, env_id, seed):
    play = playthroughs(env_id, seed)
    facts, graph = play.facts, exits(play.facts)
    dist = distances(facts, player_room(facts))
    second_room = holder(facts, holder(facts, chain_from_facts(facts)[1][0])[1])[1]
    dead_ends = [room for room, out in graph.items() if len(out) == 1 and room != player_room(facts)]
    assert len(graph[second_room]) == 1 and dist[second_room] == max(dist[room] for room in dead_ends)


@pytest.mark.parametrize(("env_id", "seed"), HARDEST_CASES)
def test_hardest_has_distractors_in_every_room(playthroughs, env_id, seed):
    play = playthroughs(env_id, seed)
    per_room = LEVELS[LEVEL_OF[env_id]].distractors_per_room
    special = ("P", "treasure")
    lying = [(s, o) for s, r, o in play.facts if r == "at" and s not in special
             and not s.endswith((" locker", " key", " note"))]
    for room in exits(play.facts):
        assert len([item for item, where in lying if where == room]) == per_room
    assert len({item for item, _ in lying}) == len(lying), "distractor names are unique"


def test_wrong_key_does_not_open_a_locker_and_pickups_score_once():
    env = gym.make("TextMem/TreasureHunt-v0", privileged=True)
    try:
        _, info = env.reset(seed=0)
        first_key = info["walkthrough"][0].removeprefix("take ")
        assert env.step(f"take {first_key}")[1] == 1
        assert env.step(f"drop {first_key}")[1] == 0 and env.step(f"take {first_key}")[1] == 0
        here = player_room(info["facts"])
        other = next(s for s, r, o in info["facts"] if r == "at" and o == here and s.endswith(" locker"))
        _, reward, terminated, _, info = env.step(f"unlock {other} with {first_key}")
        assert (other, "is", "locked") in info["facts"] and reward == 0 and not terminated
        assert info["score"] == 1 and not info["won"]
    finally:
        env.close()


def test_plans_are_deterministic_and_seeds_differ():
    assert plan_treasure_hunt(3, "hard").walkthrough() == plan_treasure_hunt(3, "hard").walkthrough()
    assert len({tuple(plan_treasure_hunt(s, "normal").walkthrough()) for s in range(5)}) == 5
    with pytest.raises(ValueError, match="difficulty"):
        plan_treasure_hunt(0, "impossible")


def test_generated_game_is_identical_across_processes(tmp_path):
    z8_a, json_a, z8_b, json_b = generate_in_fresh_caches(tmp_path, "treasure-hunt", 11, {"difficulty": "normal"})
    assert json_a == json_b
    assert z8_a[:0x12] + z8_a[0x18:] == z8_b[:0x12] + z8_b[0x18:], "only the header's serial (date) may differ"
