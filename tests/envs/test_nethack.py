"""NetHack backend: words -> keys, room vs level text, seeding, prompts, descending, facts."""

from __future__ import annotations

import math

import gymnasium as gym
import numpy as np
import pytest

import textmem_gym  # noqa: F401
from textmem_gym.envs.nethack.actions import COMMANDS, KEYS, MOVES, key_for, prompt_keys
from textmem_gym.envs.nethack.ids import ENV_TABLE
from textmem_gym.envs.nethack.text import CORRIDOR, DOOR, FLOOR, UNSEEN, WALL, compass, region

ROOM, LEVEL = "TextMem/NetHack-RoomObs-v0", "TextMem/NetHack-LevelObs-v0"
#: From the start of the seed-1 dungeon: across the first room, along a corridor, into a second room.
WALK = (["far east"] * 6 + ["far northeast", "far east", "far east", "far southeast", "far east"]
        + ["far northeast", "far east", "far east", "far southeast"] + ["east"] * 3 + ["far east"])


def seen_lines(observation: str) -> list[str]:
    block = observation.split("you see:", 1)[1].split("\n\n", 1)[0]
    return [line[2:] for line in block.splitlines() if line.startswith("- ")]


@pytest.fixture(scope="module")
def walked():
    """(room text, level text, room info) after each command of WALK, from reset(seed=1)."""
    room, level = gym.make(ROOM), gym.make(LEVEL)
    try:
        trace = [(room.reset(seed=1)[0], level.reset(seed=1)[0], {})]
        for command in WALK:
            a, b = room.step(command), level.step(command)
            trace.append((a[0], b[0], a[4]))
        return trace
    finally:
        room.close()
        level.close()


def test_ids_and_privileged_keys():
    from textmem_gym.envs.nethack.env import NetHackEnv

    assert set(ENV_TABLE) == {ROOM, LEVEL} and all(i in gym.registry for i in ENV_TABLE)
    assert gym.spec(ROOM).max_episode_steps == 1000
    assert NetHackEnv.supported_privileged == {"facts"}
    with pytest.raises(ValueError, match="walkthrough"):
        gym.make(ROOM, privileged="walkthrough")
    with pytest.raises(ValueError, match="scope must be one of"):
        gym.make(ROOM, scope="dungeon")


def test_every_word_is_a_key_of_nle():
    from nle import nethack

    codes = {int(action) for action in nethack.ACTIONS}
    assert all(key in codes for key in {**MOVES, **COMMANDS, **KEYS}.values())
    assert key_for("far north") == ord("K") and key_for("Go  West") == ord("h")
    assert key_for("north east") == ord("u") and key_for("pickup") == ord(",")
    assert key_for("y") == ord("y") and key_for("Y") == ord("Y") and key_for("dance") is None


def test_prompt_keys_read_prompts_and_menus():
    assert prompt_keys("What do you want to eat? [fg-i or ?*]", "") == ["f", "g", "h", "i"]
    assert prompt_keys("Really attack? [yn] (n)", "") == ["y", "n"]
    assert prompt_keys("", "Pick up what?\na - a dagger\nb - 2 apples\n(end)") == ["a", "b"]


def test_compass_and_region_on_a_drawn_map():
    assert [compass(*d) for d in [(1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1), (0, -1), (1, -1)]] == [
        "east", "southeast", "south", "southwest", "west", "northwest", "north", "northeast"]
    rows = ["#####.....",
            "#...#.....",
            "#...+ccc..",
            "#####.....",
            ".........."]
    codes = {"#": WALL, ".": UNSEEN, "+": DOOR, "c": CORRIDOR}
    classes = np.array([[codes.get(ch, FLOOR) for ch in row] for row in rows], dtype=np.int8)
    classes[1:3, 1:4] = FLOOR
    kind, mask = region(classes, 2, 1)
    assert kind == "room" and mask[1:3, 1:4].all() and mask[2, 4] and not mask[2, 5:8].any()
    kind, mask = region(classes, 6, 2)
    assert kind == "corridor" and mask[2, 5:8].all() and mask[2, 4] and not mask[1:3, 1:4].any()


def test_seeded_start_text_comes_from_nle(walked):
    from nle import nethack
    from nle.env.base import NLE

    raw = NLE(observation_keys=("blstats", "message", "inv_strs", "inv_letters"), fix_moon_phase=True)
    try:
        env = gym.make(ROOM, game_seed=5)
        observation, info = env.reset(seed=0)
        env.close()
        raw.seed(5, 6, reseed=False)
        obs, _ = raw.reset()
    finally:
        raw.close()
    hp, hpmax = obs["blstats"][nethack.NLE_BL_HP], obs["blstats"][nethack.NLE_BL_HPMAX]
    assert f"HP {hp}/{hpmax}" in observation and "Dungeon level 1, turn 1." in observation
    assert bytes(obs["message"]).split(b"\0")[0].decode().strip() in observation
    for letter, item in zip(obs["inv_letters"], obs["inv_strs"]):
        name = bytes(item).split(b"\0")[0].decode()
        if letter:
            assert f"{chr(letter)}: {name}" in observation
    assert info["dungeon_level"] == 1 and info["experience_level"] == 1


def test_room_text_is_part_of_level_text(walked):
    smaller = 0
    for room_text, level_text, _ in walked:
        room_seen, level_seen = seen_lines(room_text), seen_lines(level_text)
        assert set(room_seen) <= set(level_seen)
        smaller += len(room_seen) < len(level_seen)
        assert room_text.split("You are in")[0] == level_text.split("You are in")[0]
    assert smaller >= 3, "once the hero leaves the first room, the level shows more than the room"
    assert any("You are in a corridor" in room_text for room_text, _, _ in walked)
    first_room_stairs = [line for line in seen_lines(walked[-1][1]) if line.startswith("staircase up")]
    assert first_room_stairs and not [line for line in seen_lines(walked[-1][0]) if "staircase up" in line]


def test_same_seed_same_dungeon_other_seed_other_dungeon(walked):
    env = gym.make(ROOM)
    try:
        again = [env.reset(seed=1)[0]] + [env.step(command)[0] for command in WALK[:5]]
        other = env.reset(seed=2)[0]
    finally:
        env.close()
    assert again == [room_text for room_text, _, _ in walked[:6]]
    assert other != walked[0][0]


def test_game_seed_fixes_the_dungeon_for_every_reset_seed():
    env = gym.make(LEVEL, game_seed=11)
    try:
        assert env.reset(seed=1)[0] == env.reset(seed=2)[0] == env.reset()[0]
    finally:
        env.close()


def test_words_prompts_and_stairs_down():
    env = gym.make(ROOM, privileged="facts")
    try:
        _, info = env.reset(seed=1)
        assert ("you", "on", "dungeon level 1") in info["facts"]
        assert any(t[:2] == ("you", "carry") for t in info["facts"])
        observation, reward, terminated, truncated, after = env.step("dance like nobody watches")
        assert "not a NetHack command" in observation and reward == 0 and after["moves"] == info["moves"]
        for command in WALK:
            info = env.step(command)[4]
        assert any(t[0] == "staircase down" for t in info["facts"])
        observation, *_, info = env.step("eat")
        assert "What do you want to eat?" in observation
        assert {"f", "g", "esc"} <= set(info["admissible_commands"]) and "far north" not in info["admissible_commands"]
        env.step("esc")
        for command in ["travel", "down", "wait", "travel", "down", "wait", "down"]:
            info = env.step(command)[4]
    finally:
        env.close()
    assert info["dungeon_level"] == 2 and info["max_dungeon_level"] == 2
    assert info["max_score"] == 0 and info["normalized_score"] == 0
    assert all(math.isfinite(info[key]) for key in ("score", "normalized_score", "max_score"))


def test_quitting_ends_the_game_as_lost():
    env = gym.make(ROOM)
    try:
        env.reset(seed=1)
        observation, _, terminated, _, info = env.step("quit")
        assert "Really quit?" in observation and not terminated and info["admissible_commands"] == ["y", "n", "esc"]
        observation, reward, terminated, truncated, info = env.step("y")
        assert terminated and not truncated and info["lost"] and not info["won"]
        assert "The game is over." in observation and info["admissible_commands"] == []
        assert info["dungeon_level"] == 1 and info["experience_level"] == 1
        observation, reward, terminated, _, after = env.step("north")
        assert "call reset()" in observation and terminated and reward == 0 and after["moves"] == info["moves"]
        assert "quit" not in env.reset(seed=1)[1]["admissible_commands"]
    finally:
        env.close()
