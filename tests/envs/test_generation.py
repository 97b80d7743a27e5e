"""Game generation: byte-identical across processes, cache safe under concurrency, instances."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

import gymnasium as gym
import pytest

import textmem_gym
from textmem_gym.envs.textworld.generation import game_key, generate_game

ROOT = Path(__file__).resolve().parents[2]
L1 = {"recipe": 1, "take": 1, "go": 1, "cut": True}
GENERATE = ("import sys; from textmem_gym.envs.textworld.generation import generate_game; import textmem_gym.envs.textworld.cooking; "
            "print(generate_game('tw-cooking', int(sys.argv[1]), {'recipe': 1, 'take': 1, 'go': 1, 'cut': True}))")


def _generate_in_process(cache: Path, seed: int, hashseed: str) -> subprocess.Popen:
    env = {**os.environ, "TEXTMEM_CACHE_DIR": str(cache), "PYTHONHASHSEED": hashseed}
    return subprocess.Popen([sys.executable, "-c", GENERATE, str(seed)], env=env, cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.slow
def test_same_settings_give_byte_identical_games_in_every_process(tmp_path):
    procs = [_generate_in_process(tmp_path / f"cache{i}", 4242, hashseed) for i, hashseed in enumerate("17")]
    paths = []
    for proc in procs:
        out, err = proc.communicate(timeout=600)
        assert proc.returncode == 0, err
        paths.append(Path(out.strip().splitlines()[-1]))
    assert paths[0] != paths[1]
    assert _sha(paths[0]) == _sha(paths[1])
    assert _sha(paths[0].with_suffix(".json")) == _sha(paths[1].with_suffix(".json"))


@pytest.mark.slow
def test_concurrent_makers_of_one_game_share_a_complete_file(tmp_path):
    procs = [_generate_in_process(tmp_path, 4343, "0") for _ in range(3)]
    outputs = []
    for proc in procs:
        out, err = proc.communicate(timeout=600)
        assert proc.returncode == 0, err
        outputs.append(out.strip().splitlines()[-1])
    assert len(set(outputs)) == 1
    games = tmp_path / "games"
    assert sorted(p.suffix for p in games.iterdir() if not p.name.endswith(".lock")) == [".json", ".z8"]
    env = gym.make("TextMem/TextWorld-v0", game_file=outputs[0])
    assert env.reset(seed=0)[1]["max_score"] == 4
    env.close()


def test_game_key_is_readable_and_distinguishes_settings():
    key = game_key("tw-cooking", 10318, {"recipe": 3, "take": 3, "go": 9, "cook": True, "cut": True, "open": False})
    assert key.startswith("tw-cooking-cook-cut-go9-recipe3-take3-s10318-")
    assert key != game_key("tw-cooking", 10318, {"recipe": 3, "take": 3, "go": 9, "cook": True})
    assert key != game_key("tw-cooking", 10318, {"recipe": 3, "take": 3, "go": 9, "cook": True, "cut": True},
                           split="train")


def test_unknown_generator_and_split_are_rejected():
    with pytest.raises(ValueError, match="no-such-generator"):
        generate_game("no-such-generator", 1)
    with pytest.raises(ValueError, match="'holdout'"):
        generate_game("tw-cooking", 1, L1, split="holdout")


def test_generation_failure_reports_the_generator_error(tmp_path, monkeypatch):
    monkeypatch.setenv("TEXTMEM_CACHE_DIR", str(tmp_path))
    with pytest.raises(RuntimeError, match="unknown tw-cooking settings"):
        generate_game("tw-cooking", 1, {"recipe": 1, "bogus_setting": 3})
    assert not list((tmp_path / "games").glob("*.z8"))


@pytest.mark.parametrize("env_id", [i for i, e in textmem_gym.ENV_IDS.items() if e.expected_max_score])
def test_default_games_have_the_papers_max_score(env_id):
    env = gym.make(env_id)
    _, info = env.reset(seed=0)
    env.close()
    assert info["max_score"] == textmem_gym.ENV_IDS[env_id].expected_max_score


def test_cooking_first_observation_and_objective_state_the_appliance_rules():
    env = gym.make("TextMem/Cooking-Hard-v0")
    observation, info = env.reset(seed=0)
    env.close()
    for text in (observation, info["objective"]):
        assert "BBQ" in text and "stove" in text and "oven" in text
    assert "Welcome" not in observation and "$$" not in observation


@pytest.mark.slow
def test_game_seed_and_split_select_other_instances():
    envs = [gym.make("TextMem/CookingRL-L1-v0", privileged=["walkthrough"], **kwargs)
            for kwargs in ({}, {"game_seed": 57138}, {"split": "train"})]
    try:
        assert len({env.unwrapped.game_file for env in envs}) == 3
        walkthroughs = [env.reset(seed=0)[1]["walkthrough"] for env in envs[:2]]
    finally:
        for env in envs:
            env.close()
    assert walkthroughs[0] != walkthroughs[1]
    assert textmem_gym.instance_seeds("TextMem/CookingRL-L1-v0", 2) == [57137, 57138]


def test_instance_helpers():
    assert textmem_gym.instance_seeds("TextMem/STMA-Cooking-L4-v0", 3) == [303, 304, 305]
    envs = textmem_gym.make_instances("TextMem/CookingRL-L1-v0", 1)
    assert envs[0].unwrapped.game_file == gym.make("TextMem/CookingRL-L1-v0").unwrapped.game_file
    for bad in (0, -1, 1.5):
        with pytest.raises(ValueError, match="positive"):
            textmem_gym.instance_seeds("TextMem/CookingRL-L1-v0", bad)
    with pytest.raises(ValueError, match="no generated instances"):
        textmem_gym.instance_seeds("TextMem/TextWorld-v0", 2)


def test_bad_constructor_arguments_are_named(tmp_path):
    with pytest.raises(ValueError, match="game_seed"):
        gym.make("TextMem/Cooking-v0", game_seed=-3)
    with pytest.raises(ValueError, match="does not exist"):
        gym.make("TextMem/TextWorld-v0", game_file=str(tmp_path / "missing.z8"))
    with pytest.raises(ValueError, match="exactly one"):
        gym.make("TextMem/TextWorld-v0")
    with pytest.raises(ValueError, match="render_mode"):
        gym.make("TextMem/Cooking-v0", render_mode="rgb_array")
