"""Jericho backend: admissible commands, world-state info, facts, seeds, hang guard, bad input."""

from __future__ import annotations

import os
import shutil
import time
import warnings
from pathlib import Path

import gymnasium as gym
import pytest

import textmem_gym  # noqa: F401
from textmem_gym.envs.jericho.admissible import AdmissibleCommands
from textmem_gym.envs.jericho.env import JerichoEnv
from textmem_gym.envs.jericho.ids import ENV_TABLE, GAMES, WALKTHROUGH_DOES_NOT_WIN, env_id
from textmem_gym.envs.jericho.roms import ROM_SHA256
from textmem_gym.envs.jericho.world import snapshot
from textmem_gym.envs.lazy import LazyCommands
from textmem_gym.envs.step_guard import StepWatchdog

SUITE = Path(os.environ.get("TEXTMEM_ROMS_DIR", "/nonexistent"))
pytestmark = pytest.mark.skipif(not (SUITE / "zork1.z5").is_file(), reason="TEXTMEM_ROMS_DIR needed")


@pytest.fixture
def zork() -> JerichoEnv:
    env = JerichoEnv("zork1", privileged=True)
    yield env
    env.close()


def test_one_id_per_suite_game_plus_any_rom():
    assert len(GAMES) == len(ROM_SHA256) == 57
    assert {env_id(Path(name).stem) for name in ROM_SHA256} | {"TextMem/Jericho-v0"} == set(ENV_TABLE)
    assert env_id("lostpig") == "TextMem/Jericho-Lostpig-v0" and "TextMem/Jericho-Detective-v0" in gym.registry
    assert ENV_TABLE["TextMem/Jericho-v0"].needs == ("rom_path",)
    assert set(WALKTHROUGH_DOES_NOT_WIN) <= set(ENV_TABLE)


def test_admissible_commands_are_lazy_cached_and_change_the_world(zork: JerichoEnv):
    _, info = zork.reset()
    commands = info["admissible_commands"]
    assert isinstance(commands, LazyCommands) and not commands.computed
    assert {"open mailbox", "north", "south", "west", "look", "inventory"} <= set(commands)
    assert "east" not in commands  # the front door is boarded: nothing changes
    misses = zork._actions.misses
    start = info["world_state_hash"]
    for command in set(commands) - {"look", "inventory"}:  # each one changes the world state
        zork.reset()
        _, _, _, _, after = zork.step(command)
        assert after["world_state_hash"] != start, command
    _, _, _, _, info = zork.step("look")
    assert not info["admissible_commands"].computed or zork._actions.misses == misses
    zork.reset()
    _, _, _, _, info = zork.step("look")  # back in the start state: a cache hit, no recomputation
    assert list(info["admissible_commands"]) == list(commands)
    assert zork._actions.misses == misses


def test_late_read_lists_the_state_of_its_step(zork: JerichoEnv):
    zork.reset()
    _, _, _, _, early = zork.step("open mailbox")
    for command in ["take leaflet", "north", "north"]:
        zork.step(command)
    fresh = JerichoEnv("zork1")
    try:
        fresh.reset()
        _, _, _, _, direct = fresh.step("open mailbox")
        assert "take leaflet" in early["admissible_commands"]
        assert list(early["admissible_commands"]) == list(direct["admissible_commands"])
    finally:
        fresh.close()
    observation, _, _, _, info = zork.step("look")  # the late read did not disturb the game
    assert observation.startswith("Forest Path") and info["moves"] == 5


def test_world_state_hash_and_visit_counts(zork: JerichoEnv):
    _, info = zork.reset()
    start = info["world_state_hash"]
    assert info["state_visits"] == 1
    _, _, _, _, info = zork.step("look")
    assert (info["world_state_hash"], info["state_visits"]) == (start, 2)
    _, _, _, _, info = zork.step("north")
    assert info["world_state_hash"] != start and info["state_visits"] == 1
    _, _, _, _, info = zork.step("west")  # North of House -> West of House
    assert (info["world_state_hash"], info["state_visits"]) == (start, 3)
    _, info = zork.reset()
    assert info["state_visits"] == 1  # counts are per episode


def test_privileged_facts_follow_the_object_tree(zork: JerichoEnv):
    _, info = zork.reset()
    assert ("player", "at", "West of House") in info["facts"]
    assert ("leaflet", "in", "small mailbox") in info["facts"]
    assert info["walkthrough"][:3] == ["N", "N", "U"]
    zork.step("open mailbox")
    _, _, _, _, info = zork.step("take leaflet")
    assert ("leaflet", "in", "I") in info["facts"] and ("leaflet", "in", "small mailbox") not in info["facts"]
    plain = JerichoEnv("zork1")
    try:
        _, info = plain.reset()
        assert "facts" not in info and "walkthrough" not in info
    finally:
        plain.close()


def test_seed_zero_is_the_walkthrough_seed_and_other_seeds_differ():
    env = JerichoEnv("planetfall", privileged=True)
    try:
        _, info = env.reset()
        assert env.interpreter_seed == env.walkthrough_seed
        _, info = env.reset(seed=0)
        assert env.interpreter_seed == env.walkthrough_seed
        walkthrough = info["walkthrough"]
        outcomes = []
        for seed in (0, 3):
            env.reset(seed=seed)
            for command in walkthrough[:40]:
                _, _, terminated, _, info = env.step(command)
                if terminated:
                    break
            outcomes.append((terminated, info["lost"], info["moves"]))
            if terminated:  # an ended game admits only the commands that never change it
                assert list(info["admissible_commands"]) == ["look", "inventory"]
        assert outcomes[0] == (False, False, 40)
        assert outcomes[1][:2] == (True, True)  # another seed: random events kill the walkthrough
    finally:
        env.close()


def _make_interpreter_loop_forever(env: JerichoEnv) -> None:
    """Writes a Z-machine ``jump`` to itself into memory and points the program counter at it."""
    ram, stack, _, sp, fp, frames, _, rng, narrative = snapshot(env._frotz)
    address = len(ram) - 8
    ram[address:address + 3] = [0x8C, 0xFF, 0xFF]  # 1OP jump, offset -1: back to its own opcode
    env._frotz.set_state((ram, stack, address + 1, sp, fp, frames, 0x8C, rng, narrative))


def test_a_hanging_interpreter_truncates_the_episode_and_reset_recovers():
    env = gym.make("TextMem/Jericho-Zork1-v0", step_timeout=0.5)
    try:
        env.reset(seed=0)
        _make_interpreter_loop_forever(env.unwrapped)
        started = time.monotonic()
        observation, reward, terminated, truncated, info = env.step("look")
        assert time.monotonic() - started < 5
        assert truncated and not terminated and reward == 0
        assert "did not answer 'look' within 0.5 s" in info["interpreter_error"]
        assert "truncated" in observation and not info["lost"]
        observation, info = env.reset(seed=0)
        assert "West of House" in observation
        _, _, _, truncated, info = env.step("open mailbox")
        assert not truncated and "open mailbox" not in info["admissible_commands"]
    finally:
        env.close()


BAD_INPUT = ["", "x" * 10_000, "ouvrir la boîte ☕ 北", "look\nnorth\x00\x07\x1b[2J", "\t\r"]


@pytest.mark.parametrize("command", BAD_INPUT)
def test_bad_input_gets_parser_feedback_and_changes_nothing(zork: JerichoEnv, command: str):
    _, info = zork.reset()
    observation, reward, terminated, truncated, after = zork.step(command)
    assert observation.strip() and reward == 0 and not (terminated or truncated)
    assert after["world_state_hash"] == info["world_state_hash"]


def test_any_rom_path_including_one_jericho_does_not_know(tmp_path: Path):
    env = gym.make("TextMem/Jericho-v0", rom_path=str(SUITE / "detective.z5"))
    try:
        _, info = env.reset()
        assert info["max_score"] == 360
    finally:
        env.close()
    unknown = tmp_path / "zork1-padded.z5"
    shutil.copy(SUITE / "zork1.z5", unknown)
    with unknown.open("ab") as file:
        file.write(b"\0" * 512)  # other bytes after the story: Jericho no longer recognizes it
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        env = JerichoEnv(rom_path=unknown, privileged=True)
    try:
        observation, info = env.reset()
        assert not env.supported and info["walkthrough"] == [] and "West of House" in observation
        assert {"open mailbox", "look"} <= set(info["admissible_commands"])
        observation, *_ = env.step("open mailbox")
        assert "leaflet" in observation
    finally:
        env.close()


def test_cache_returns_the_same_lists_as_recomputing():
    import jericho

    frotz = jericho.FrotzEnv(str(SUITE / "zork1.z5"))
    frotz.reset()
    cached, fresh = AdmissibleCommands(frotz), AdmissibleCommands(frotz)
    for command in ["north", "north", "up", "look", "down"]:
        frotz.step(command)
        key = frotz.get_world_state_hash()
        assert cached.commands(key) == fresh.compute()
    # "look" leaves the world as "up" made it; "down" returns to the Forest Path state
    assert (cached.hits, cached.misses) == (2, 3)
    frotz.step("up")  # Up a Tree again
    assert cached.commands(frotz.get_world_state_hash()) == fresh.compute()
    assert (cached.hits, cached.misses) == (3, 3)


def test_cached_list_is_checked_before_reuse():
    import jericho

    frotz = jericho.FrotzEnv(str(SUITE / "zork1.z5"))
    frotz.reset()
    actions = AdmissibleCommands(frotz)
    key = frotz.get_world_state_hash()
    at_house = actions.commands(key)
    assert "open mailbox" in at_house
    frotz.step("north")  # a different world under the same key, as a hash blind to some state would see it
    north_of_house = actions.commands(key)
    assert "open mailbox" not in north_of_house and north_of_house == AdmissibleCommands(frotz).compute()
    assert (actions.stale, actions.misses, actions.hits) == (1, 2, 0)
    assert actions.commands(key) == north_of_house and actions.hits == 1  # still valid: reused


def test_overdue_admissible_commands_list_look_and_inventory_and_are_not_cached(monkeypatch):
    from textmem_gym.envs.jericho import env as jericho_env

    env = JerichoEnv("zork1")
    env._watchdog.close()
    env._watchdog = StepWatchdog(env._halt, timeout=10.0, poll=0.001)  # steps keep 10 s; fine polling
    try:
        _, info = env.reset()
        monkeypatch.setattr(jericho_env, "ADMISSIBLE_TIMEOUT", 0.0005)  # the start state's list takes ~6 ms
        with pytest.warns(RuntimeWarning, match="admissible commands took over"):
            assert list(info["admissible_commands"]) == ["look", "inventory"]
        monkeypatch.setattr(jericho_env, "ADMISSIBLE_TIMEOUT", 120.0)
        _, _, _, _, info = env.step("look")  # the same world state: the cut-short list was not kept
        assert "open mailbox" in info["admissible_commands"]
        observation, _, _, _, _ = env.step("open mailbox")  # the interpreter runs on
        assert "leaflet" in observation
    finally:
        env.close()


def test_watchdog_halts_only_overdue_calls():
    halted = []
    watchdog = StepWatchdog(lambda: halted.append(True), timeout=0.2, poll=0.01)
    try:
        with watchdog.watch() as quick:
            time.sleep(0.01)
        with watchdog.watch() as slow:
            time.sleep(0.5)
        assert not quick.fired and slow.fired and halted == [True]
    finally:
        watchdog.close()
    with pytest.raises(ValueError, match="timeout"):
        StepWatchdog(lambda: None, timeout=0)


def test_bad_arguments_are_named():
    with pytest.raises(ValueError, match="step_timeout|timeout must be a positive number"):
        JerichoEnv("zork1", step_timeout=-1)
    with pytest.raises(ValueError, match="admissible_cache_size"):
        JerichoEnv("zork1", admissible_cache_size=-5)
    with pytest.raises(ValueError, match="unknown Jericho game 'nope'"):
        gym.make("TextMem/Jericho-v0", game="nope")
    env = JerichoEnv("zork1")
    try:
        with pytest.raises(ValueError, match="seed must be a non-negative int"):
            env.reset(seed=-3)
    finally:
        env.close()


def test_admissible_commands_work_when_ctypes_util_was_imported_first():
    """``jericho.util`` is shadowed by ``ctypes.util`` after a star import; we must not use it."""
    import subprocess
    import sys

    code = ("import ctypes.util, gymnasium as gym, textmem_gym\n"
            "env = gym.make('TextMem/Jericho-Zork1-v0'); _, info = env.reset(seed=0)\n"
            "print(sorted(info['admissible_commands']))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "'open mailbox'" in proc.stdout


def test_the_games_own_words_come_at_reset_only_and_name_no_place():
    env = JerichoEnv("zork1")  # not privileged: the dictionary is no ground truth
    try:
        _, info = env.reset(seed=0)
        words = info["vocabulary"]
        assert {"mailbo", "lanter", "north"} <= set(words) and words == sorted(words) == env.vocabulary()
        assert all(len(word) <= 6 for word in words)  # a version 3 story file cuts its words at 6 letters
        assert "vocabulary" not in env.step("look")[4]
    finally:
        env.close()
