"""Cleaning (AriGraph appendix F): house structure from privileged facts, each scoring rule, wins."""

from __future__ import annotations

from collections.abc import Callable

import gymnasium as gym
import pytest

from tests.envs.game_helpers import (
    Playthrough,
    exits,
    holder,
    path,
    play_walkthrough,
    player_room,
    run_in_generation_process,
)
from textmem_gym.envs.textworld.cleaning import plan_cleaning
from textmem_gym.envs.textworld.cleaning_data import HOUSE, MISPLACED_COUNT, home_of, receptacle

pytestmark = pytest.mark.slow

ENV_ID = "TextMem/Cleaning-v0"
SEEDS = [None, 1, 2]
ALL_ITEMS = [i for pieces in HOUSE.values() for p in pieces for i in p.items + p.fixtures]


@pytest.fixture(scope="module")
def playthroughs() -> Callable[[int | None], Playthrough]:
    """Plays each game seed's walkthrough once per module."""
    cache: dict[int | None, Playthrough] = {}

    def get(seed: int | None) -> Playthrough:
        if seed not in cache:
            cache[seed] = play_walkthrough(ENV_ID, seed)
        return cache[seed]

    return get


def misplaced_items(facts: list) -> dict[str, str]:
    """Item -> the furniture it lies on, for items away from their home."""
    return {item: holder(facts, item)[1] for item in ALL_ITEMS if holder(facts, item)[1] != home_of(item)[1]}


def room_of(facts: list, furniture: str) -> str:
    return holder(facts, furniture)[1]


@pytest.mark.parametrize("seed", SEEDS)
def test_house_structure_matches_the_spec(playthroughs, seed):
    facts = playthroughs(seed).facts
    assert sorted(exits(facts)) == sorted(HOUSE), "the nine rooms of the house"
    for room, pieces in HOUSE.items():
        for piece in pieces:
            assert holder(facts, piece.name) == ("at", room)
            assert ((piece.name, "is", "closed") in facts) == (piece.kind == "container")
    misplaced = misplaced_items(facts)
    assert len(misplaced) == MISPLACED_COUNT == 11
    for item, spot in misplaced.items():
        assert holder(facts, item) == ("on", spot), "misplaced items lie in plain sight"
        assert room_of(facts, spot) != home_of(item)[0], "each lies in another room"
        assert item in receptacle(home_of(item)[1]).items, "never a fixture"
    for item in set(ALL_ITEMS) - set(misplaced):
        assert holder(facts, item) == (receptacle(home_of(item)[1]).relation, home_of(item)[1])


def test_seeds_give_other_instances(playthroughs):
    layouts = [sorted(exits(playthroughs(seed).facts).items()) for seed in SEEDS]
    messes = [misplaced_items(playthroughs(seed).facts) for seed in SEEDS]
    assert layouts[0] != layouts[1] and messes[0] != messes[1] != messes[2]
    assert misplaced_items(playthroughs(None).facts) == plan_cleaning(0).misplaced, "default is seed 0"


@pytest.mark.parametrize("seed", SEEDS)
def test_walkthrough_wins_with_the_maximum_score(playthroughs, seed):
    play = playthroughs(seed)
    rewards = [reward for _, _, reward, _ in play.steps]
    assert sorted(set(rewards)) == [0, 1] and sum(rewards) == 22
    assert [done for *_, done in play.steps] == [False] * (len(play.steps) - 1) + [True], "won at the last put"
    info = play.final_info
    assert info["won"] and info["score"] == info["max_score"] == 22 and info["normalized_score"] == 1.0
    assert "11 items" in play.first_observation and "11 items" in play.first_info["objective"]
    assert "where it belongs" in play.first_observation  # the scoring rules of the generator's notes


@pytest.fixture()
def env():
    env = gym.make(ENV_ID, privileged=True)
    yield env
    env.close()


def step(env, command: str) -> tuple[float, dict]:
    _, reward, terminated, _, info = env.step(command)
    assert not terminated, command
    return reward, info


def walk(env, facts: list, room: str) -> list:
    for command in path(facts, player_room(facts), room):
        facts = step(env, command)[1]["facts"]
    return facts


def test_pickup_placement_and_penalty_rules(env):
    _, info = env.reset(seed=0)
    facts = info["facts"]
    misplaced = misplaced_items(facts)
    tidy_at = {place: i for i in ALL_ITEMS if i not in misplaced for place in [home_of(i)[1]]}
    item, spot = next((i, s) for i, s in sorted(misplaced.items()) if home_of(i)[1] in tidy_at)
    home = receptacle(home_of(item)[1])
    facts = walk(env, facts, room_of(facts, spot))
    assert step(env, f"take {item} from {spot}")[0] == 1, "+1 for picking up a misplaced item"
    assert step(env, f"put {item} on {spot}")[0] == 0
    assert step(env, f"take {item} from {spot}")[0] == 0, "no second reward for the same item"
    facts = walk(env, step(env, "look")[1]["facts"], home_of(item)[0])
    if home.kind == "container":
        step(env, f"open {home.name}")
    put = f"put {item} on {home.name}" if home.kind == "supporter" else f"insert {item} into {home.name}"
    reward, info = step(env, put)
    assert reward == 1 and info["score"] == 2, "+1 for putting it where it belongs"
    assert step(env, f"take {item} from {home.name}")[0] == 0 and step(env, put)[0] == 0, "placed once"
    tidy = tidy_at[home.name]
    reward, info = step(env, f"take {tidy} from {home.name}")
    assert reward == -1 and info["score"] == 1, "-1 for moving an item that was in its place"
    assert step(env, put.replace(item, tidy))[0] == 0
    assert step(env, f"take {tidy} from {home.name}")[0] == 0, "the penalty is once per item"
    assert not info["won"] and info["max_score"] == 22


def test_won_only_when_all_eleven_are_in_place_at_once(env):
    _, info = env.reset(seed=0)
    commands = info["walkthrough"]
    first_put = next(i for i, c in enumerate(commands) if c.startswith(("put ", "insert ")))
    verb, rest = commands[first_put].split(" ", 1)
    item, furniture = rest.split(" on " if verb == "put" else " into ")
    for command in commands[:first_put + 1] + [f"take {item} from {furniture}"] + commands[first_put + 1:]:
        reward, info = step(env, command)
    assert info["score"] == 22 and not info["won"], "one item is out of place again"
    walk(env, info["facts"], room_of(info["facts"], furniture))
    _, reward, terminated, _, info = env.step(commands[first_put])
    assert reward == 0 and terminated and info["won"] and info["normalized_score"] == 1.0


def test_built_game_is_identical_across_processes():
    code = ("import hashlib, json; from textworld.generator.inform7 import generate_inform7_source; "
            "from textmem_gym.envs.textworld.cleaning import make_cleaning_game; g = make_cleaning_game(4); "
            "print(hashlib.sha256((json.dumps(g.serialize(), sort_keys=True) "
            "+ generate_inform7_source(g)).encode()).hexdigest())")
    digests = {run_in_generation_process(code) for _ in range(2)}
    assert len(digests) == 1 and len(digests.pop()) == 64
