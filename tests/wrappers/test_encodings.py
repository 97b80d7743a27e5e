"""RL encodings: text to bounded deterministic arrays, commands to masked discrete actions."""

from __future__ import annotations

import subprocess
import sys
import warnings

import gymnasium as gym
import numpy as np
import pytest
from stable_baselines3.common.env_checker import check_env

import textmem_gym  # noqa: F401  (registers ids)
from textmem_gym.wrappers import (
    BagOfWords,
    CommandVocabulary,
    HashTokenizer,
    MemoryGraphWrapper,
    TextEncodingWrapper,
    TokenIds,
    make_text_encoder,
    select_commands,
)
from textmem_gym.wrappers.encodings import ObservationEncoder

L1 = "TextMem/CookingRL-L1-v0"
TEXT = "You take the knife from the table. The table is massive; the knife is sharp, sharp, sharp!"


def test_bag_of_words_counts_bounded_and_case_insensitive():
    bow = BagOfWords(hash_size=256, max_count=2)
    vector = bow.encode(TEXT)
    assert vector.shape == (256,) and vector.dtype == np.uint8 and bow.space().contains(vector)
    assert vector[0] == 0, "bucket 0 is padding, never used"
    assert vector[HashTokenizer(256).token_id("sharp")] == 2, "three 'sharp' clipped to max_count"
    assert vector[HashTokenizer(256).token_id("knife")] == 2
    assert np.array_equal(vector, bow.encode(TEXT.upper()))
    assert bow.encode("").sum() == 0


def test_token_ids_pad_truncate_and_stay_in_range():
    tokens = TokenIds(hash_size=50, max_length=6)
    ids = tokens.encode("Go north, then open the door and go west")
    assert ids.shape == (6,) and ids.dtype == np.int32 and tokens.space().contains(ids)
    assert ids.tolist() == HashTokenizer(50).ids("go north then open the door")
    short = tokens.encode("look")
    assert short[0] > 0 and short[1:].tolist() == [0] * 5
    long = tokens.encode(" ".join(f"w{i}" for i in range(500)))
    assert (long > 0).all() and long.max() < 50


def test_encodings_identical_across_processes():
    code = ("from textmem_gym.wrappers import BagOfWords, TokenIds;"
            f"print(BagOfWords().encode({TEXT!r}).tolist(), TokenIds().encode({TEXT!r}).tolist())")
    outputs = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                              env={"PYTHONHASHSEED": str(seed)}).stdout for seed in (7,)}
    local = f"{BagOfWords().encode(TEXT).tolist()} {TokenIds().encode(TEXT).tolist()}\n"
    assert outputs == {local}


def test_bad_arguments_name_the_value():
    with pytest.raises(ValueError, match="hash_size"):
        BagOfWords(hash_size=1)
    with pytest.raises(ValueError, match="max_count"):
        BagOfWords(max_count=300)
    with pytest.raises(ValueError, match="unknown text encoding 'glove'"):
        make_text_encoder("glove")
    with pytest.raises(TypeError, match="str"):
        TokenIds().encode(42)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="max_commands"):
        ObservationEncoder(max_commands=0)
    with pytest.raises(TypeError, match="iterable of strings"):
        CommandVocabulary("look")  # type: ignore[arg-type]


def test_select_commands_never_empty_and_keeps_safe_command():
    many = [f"take coin {i}" for i in range(10)] + ["look"]
    assert select_commands(many, max_commands=4) == ["take coin 0", "take coin 1", "take coin 2", "look"]
    assert select_commands([], 4) == ["look"] and select_commands(None, 4, safe_command="wait") == ["wait"]
    assert select_commands(["look", "look", " ", "go east"], 4) == ["look", "go east"]


def test_vocabulary_mask_save_load(tmp_path):
    vocab = CommandVocabulary(["go east", "take key", "go east"])
    assert vocab.commands == ("look", "go east", "take key")
    assert vocab.mask(["take key", "not in vocab"]).tolist() == [False, False, True]
    assert vocab.mask(["not in vocab"]).tolist() == [True, False, False], "never all false"
    loaded = CommandVocabulary.load(vocab.save(tmp_path / "vocab.json"))
    assert loaded.commands == vocab.commands and loaded.safe_command == "look"


@pytest.fixture(scope="module")
def l1_env():
    env = TextEncodingWrapper(gym.make(L1))
    yield env
    env.close()


def test_slot_env_passes_sb3_check_env_cleanly(l1_env):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(l1_env)
    assert not [w for w in caught if "env_checker" in w.filename], [str(w.message) for w in caught]


def test_slot_actions_send_their_command_and_masked_ones_the_safe_command(l1_env):
    obs, info = l1_env.reset(seed=0)
    assert l1_env.commands == list(info["admissible_commands"])
    mask = l1_env.action_masks()
    assert mask.dtype == bool and mask.sum() == len(l1_env.commands) and not mask[len(l1_env.commands):].any()
    assert np.array_equal(obs["action_mask"], mask.astype(np.int8))
    rows = obs["commands"].reshape(64, 8)
    assert rows[len(l1_env.commands):].sum() == 0 and (rows[: len(l1_env.commands), 0] > 0).all()
    index = l1_env.commands.index("take knife from table")
    obs, _, _, _, info = l1_env.step(index)
    assert info["command"] == "take knife from table" and not info["invalid_action"]
    assert "drop knife" in l1_env.commands and "take knife from table" not in l1_env.commands
    masked = int(np.flatnonzero(~l1_env.action_masks())[0])
    _, _, _, _, info = l1_env.step(masked)
    assert info["command"] == "look" and info["invalid_action"]


def test_encoded_episodes_are_deterministic():
    runs = []
    for _ in range(2):
        env = TextEncodingWrapper(gym.make(L1), text="tokens", max_tokens=32)
        obs, _ = env.reset(seed=3)
        trace = [obs]
        for action in (0, 3, 1, 5):
            obs, *_ = env.step(action)
            trace.append(obs)
        runs.append(trace)
        env.close()
    for a, b in zip(*runs):
        assert a.keys() == b.keys() and all(np.array_equal(a[k], b[k]) for k in a)


def test_vocabulary_mode_and_collect():
    vocab = CommandVocabulary.collect(lambda: gym.make(L1, max_episode_steps=6), episodes=1, steps=6, seed=0)
    assert "take knife from table" in vocab and vocab.commands[0] == "look"
    env = TextEncodingWrapper(gym.make(L1), vocabulary=vocab)
    obs, info = env.reset(seed=0)
    assert "commands" not in obs and env.action_space.n == len(vocab)
    allowed = {vocab.commands[i] for i in np.flatnonzero(env.action_masks())}
    assert allowed == set(info["admissible_commands"]) & set(vocab.commands)
    _, _, _, _, info = env.step(vocab.index("take knife from table"))
    assert info["command"] == "take knife from table" and not info["invalid_action"]
    check_env(env)
    env.close()


def test_memory_belief_is_encoded_as_its_own_key():
    raw_env = MemoryGraphWrapper(gym.make(L1), goto=False)
    raw, _ = raw_env.reset(seed=0)
    raw_env.close()
    env = TextEncodingWrapper(MemoryGraphWrapper(gym.make(L1), goto=False))
    obs, _ = env.reset(seed=0)
    assert set(obs) == {"observation", "belief", "commands", "action_mask"}
    assert raw["belief"] and np.array_equal(obs["belief"], BagOfWords().encode(raw["belief"]))
    assert np.array_equal(obs["observation"], BagOfWords().encode(raw["observation"]))
    check_env(env)
    env.close()
