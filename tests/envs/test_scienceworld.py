"""ScienceWorld backend: ids, JVM lifetime, arguments, scores, facts, admissible commands."""

from __future__ import annotations

import gc
import os
import re
from pathlib import Path

import gymnasium as gym
import pytest

import textmem_gym  # noqa: F401
from textmem_gym.envs.scienceworld.ids import ENV_TABLE, TASKS, camel_case, env_id, split_variations

pytestmark = pytest.mark.java
LIVING = "TextMem/ScienceWorld-FindLivingThing-v0"


def java_children() -> set[int]:
    """Pids of live (not zombie) java processes whose parent is this test process."""
    pids = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes().split(b"\0")[0]
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if int(fields[1]) == os.getpid() and fields[0] != "Z" and cmdline.endswith(b"java"):
            pids.add(int(entry.name))
    return pids


@pytest.fixture(scope="module")
def living():
    env = gym.make(LIVING, privileged=True)
    yield env
    env.close()


def test_ids_cover_every_scienceworld_task():
    from scienceworld.constants import TASKS as ENGINE_TASKS

    assert set(TASKS) == {task["task_name"] for task in ENGINE_TASKS}
    assert {TASKS[t["task_name"]][0] for t in ENGINE_TASKS} == {t["task_id"] for t in ENGINE_TASKS}
    assert len(ENV_TABLE) == 30 and all(i in gym.registry for i in ENV_TABLE)
    assert env_id("find-living-thing") == LIVING
    assert camel_case("identify-life-stages-1") == "IdentifyLifeStages1"
    assert gym.spec(LIVING).max_episode_steps == 100


def test_split_table_matches_the_engine():
    from textmem_gym.envs.scienceworld.process import ScienceWorldProcess

    sim = ScienceWorldProcess()
    try:
        assert {task: sim.get_max_variations(task) for task in TASKS} == {
            task: sum(info.splits) for task, info in TASKS.items()}
        for task in ["identify-life-stages-1", "grow-fruit"]:
            sim.load(task, 0, "easy")
            assert list(sim.get_variations_train()) == list(split_variations(task, "train"))
            assert list(sim.get_variations_dev()) == list(split_variations(task, "dev"))
            assert list(sim.get_variations_test()) == list(split_variations(task, "test"))
    finally:
        sim.close()


def test_close_and_garbage_collection_stop_the_jvm():
    before = java_children()
    env = gym.make(LIVING)
    started = java_children() - before
    assert len(started) == 1, "one JVM per env"
    env.reset(seed=0)
    env.close()
    assert java_children() == before
    env = gym.make(LIVING)
    assert len(java_children() - before) == 1
    del env
    gc.collect()
    assert java_children() == before


def test_class_archive_is_built_once_then_used(monkeypatch, tmp_path):
    from textmem_gym.envs.scienceworld.process import ScienceWorldProcess

    monkeypatch.setenv("TEXTMEM_CACHE_DIR", str(tmp_path))
    first = ScienceWorldProcess()
    assert any("ArchiveClassesAtExit" in arg for arg in first.java_process.args)
    first.close()
    archives = list(tmp_path.glob("scienceworld/*"))
    assert [a.suffix for a in archives] == [".jsa"] and archives[0].stat().st_size > 0
    second = ScienceWorldProcess()
    try:
        assert f"-XX:SharedArchiveFile={archives[0]}" in second.java_process.args
        second.load("find-plant", 0, "easy")
        assert "called the" in second.reset()[0]
    finally:
        second.close()


def test_two_envs_have_their_own_jvm():
    before = java_children()
    first, second = gym.make(LIVING), gym.make(LIVING)
    try:
        assert len(java_children() - before) == 2
        assert first.unwrapped._sim.java_process.pid != second.unwrapped._sim.java_process.pid
    finally:
        first.close()
        second.close()
    assert java_children() == before


def test_missing_java_names_the_package(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.delenv("JAVA_HOME", raising=False)
    before = java_children()
    with pytest.raises(gym.error.DependencyNotInstalled, match="default-jre-headless"):
        gym.make(LIVING)
    assert java_children() == before


@pytest.mark.parametrize("kwargs, message", [
    ({"split": "validation"}, "split must be one of"),
    ({"variation": -1}, "variation must be a non-negative int"),
    ({"variation": 1, "game_seed": 1}, "not both"),
    ({"game_seed": 10_000}, "game_seed must be below 75"),
    ({"variation": 0}, "variation 0 is not in the test split"),
    ({"simplification": "hard"}, "Unknown simplification"),
])
def test_bad_arguments_are_rejected_without_leaking_a_jvm(kwargs, message):
    before = java_children()
    with pytest.raises(ValueError, match=message):
        gym.make(LIVING, **kwargs)
    gc.collect()
    assert java_children() == before


def test_unknown_task_is_rejected():
    from textmem_gym.envs.scienceworld.env import ScienceWorldEnv

    with pytest.raises(ValueError, match="unknown ScienceWorld task 'find-unicorn'"):
        ScienceWorldEnv("find-unicorn")


def test_variation_selection_and_reset_determinism():
    env = gym.make(LIVING, split="train", game_seed=2)
    try:
        first, info = env.reset(seed=0)
        assert info["variation"] == 2 and info["task"] == "find-living-thing"
        trace = [env.step(c)[0] for c in ["go to hallway", "wait", "look around"]]
        again, _ = env.reset(seed=123)
        assert again == first
        assert [env.step(c)[0] for c in ["go to hallway", "wait", "look around"]] == trace
    finally:
        env.close()
    other = gym.make(LIVING, split="train", variation=3)
    try:
        assert other.reset(seed=0)[0] != first
    finally:
        other.close()


def test_reset_shows_task_and_room(living):
    observation, info = living.reset(seed=0)
    assert observation.startswith(info["objective"])
    assert "find a(n) living thing" in info["objective"]
    assert re.search(r"This room is called the [a-z ]+\.", observation)
    assert info["max_score"] == 100 and info["variation"] in range(225, 300)


def test_failure_is_lost_with_clamped_score(living):
    living.reset(seed=0)
    observation, reward, terminated, truncated, info = living.step("focus on air")
    assert terminated and not truncated
    assert info["lost"] and not info["won"]
    assert info["scienceworld_score"] < 0 and info["score"] == 0 and info["normalized_score"] == 0
    assert reward <= 0 and "focus on the air" in observation


def test_walkthrough_rewards_add_up_and_facts_follow_the_agent(living):
    _, info = living.reset(seed=0)
    start_score, total = info["score"], 0.0
    assert any(t[0] == "agent" and t[1] == "in" for t in info["facts"])
    carried = set()
    for command in info["walkthrough"]:
        _, reward, terminated, _, info = living.step(command)
        total += reward
        carried |= {t[0] for t in info["facts"] if t[1:] == ("in", "inventory")}
    assert terminated and info["won"] and info["score"] == 100
    assert total == 100 - start_score
    assert carried, "the walkthrough picks something up"


def test_facts_hold_doors_of_the_current_room(living):
    observation, info = living.reset(seed=0)
    room = re.search(r"called the ([a-z ]+)\.", observation).group(1)
    doors = re.findall(r"A door to the ([a-z ]+) \(that is (open|closed)\)", observation)
    assert doors
    for other, state in doors:
        assert (room, "connected_to", other) in info["facts"]
        assert (f"door to {other}", "is", state) in info["facts"]
    assert ("agent", "in", room) in info["facts"]


def test_admissible_commands_are_lazy_and_kept_for_late_readers(living):
    _, info = living.reset(seed=0)
    commands = info["admissible_commands"]
    assert not commands.computed
    assert "look around" in commands and len(commands) > 50
    living.reset(seed=0)
    fresh = list(living.step("go to hallway")[4]["admissible_commands"])
    living.reset(seed=0)
    kept = living.step("go to hallway")[4]["admissible_commands"]
    assert not kept.computed
    elsewhere = list(living.step("go to kitchen")[4]["admissible_commands"])
    assert list(kept) == fresh != elsewhere


def test_bad_commands_get_scienceworld_feedback(living):
    living.reset(seed=0)
    for command in ["", "x" * 5000, "fly to the moon", "☕ 北"]:
        observation, reward, terminated, truncated, info = living.step(command)
        assert observation and reward == 0 and not terminated
    assert "No known action matches that input" in observation


def test_facts_name_electrical_connections_like_the_commands():
    env = gym.make("TextMem/ScienceWorld-PowerComponent-v0", privileged=True)
    try:
        _, info = env.reset(seed=0)
        walkthrough = info["walkthrough"]
        assert not [t for t in info["facts"] if t[1] == "connected_to" and "terminal" in t[0]]
        for command in walkthrough:
            info = env.step(command)[4]
    finally:
        env.close()
    pairs = [re.match(r"connect (battery \w+) to (.+)$", c) for c in walkthrough]
    pairs = [m.groups() for m in pairs if m]
    assert pairs and info["won"]
    for terminal, wire in pairs:
        assert (terminal, "connected_to", wire) in info["facts"]
        assert (wire, "connected_to", terminal) in info["facts"]
