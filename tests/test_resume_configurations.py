"""Resume never mixes policy configurations: two configurations of one policy written to one
results file are different episodes (both recorded, each skipped on a re-run), and each gets its
own trajectory file."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from textmem_gym.core.registry import make_policy
from textmem_gym.llm import LocalOpenAIServer
from textmem_gym.results import ResultsFile, config_id, episode_key, summarize
from textmem_gym.runner import EvalConfig, evaluate
from textmem_gym.trajectories import read_trajectory, trajectory_path

GAME = "TextMem/CookingRL-L1-v0"


class Counting:
    """A model that always plays ``look`` and counts the requests it answers."""

    def __init__(self) -> None:
        self.requests = 0

    def __call__(self, messages: list[dict[str, str]]) -> str:
        self.requests += 1
        if "action selector" in messages[-1]["content"]:
            return json.dumps({"reason_for_action": "x", "action_to_take": "look"})
        return json.dumps({"main_goal": "g", "plan_steps": [{"sub_goal_1": "look", "reason": "r"}]})


def test_two_configurations_in_one_file_are_both_recorded_and_both_resumed(tmp_path):
    out, folder, model = tmp_path / "results.jsonl", tmp_path / "trajectories", Counting()
    with LocalOpenAIServer(responder=model) as server:
        def run(n_prev: int) -> list[dict]:
            return evaluate(GAME, "full-history", EvalConfig(episodes=2, max_steps=2, out=out, trajectories=folder,
                            policy_kwargs={"model": "m", "base_url": server.base_url, "n_prev": n_prev}))

        first, second = run(1), run(3)
        rows = ResultsFile(out).read()
        assert len(rows) == 4, "the second configuration was not skipped as if it were the first"
        assert sorted(r["policy_config"]["n_prev"] for r in rows) == [1, 1, 3, 3]
        assert len({episode_key(r) for r in rows}) == 4
        assert [r["policy_config"]["n_prev"] for r in first] == [1, 1]
        assert [r["policy_config"]["n_prev"] for r in second] == [3, 3]
        calls = model.requests
        again = run(1) + run(3)
        assert model.requests == calls, "a re-run played an episode already recorded"
        assert len(ResultsFile(out).read()) == 4
        assert again == first + second
    paths = {trajectory_path(folder, r) for r in rows}
    assert len(paths) == 4 and all(p.is_file() for p in paths)
    assert sorted(read_trajectory(p).header["policy_kwargs"]["n_prev"] for p in paths) == [1, 1, 3, 3]
    table = summarize(rows)
    assert sorted(r["policy"] for r in table) == ["full-history[n_prev=1]", "full-history[n_prev=3]"]


def test_rows_without_a_configuration_keep_their_key_and_trajectory_name(tmp_path):
    row = {"env_id": GAME, "policy": "random", "seed": 0, "episode": 0, "game_seed": None}
    out = tmp_path / "old.jsonl"
    ResultsFile(out).append({**row, "normalized_score": 0.0, "won": False, "steps": 2})
    assert episode_key(row) == (GAME, "random", 0, 0, None, None)
    assert trajectory_path(tmp_path, row).name == "TextMem_CookingRL-L1-v0.random.s0.e0.gdefault.jsonl"
    resumed = evaluate(GAME, "random", EvalConfig(episodes=1, max_steps=2, out=out))
    assert resumed[0]["steps"] == 2 and "wall_time_s" not in resumed[0], "the old row was played again"
    assert len(ResultsFile(out).read()) == 1


#: A user's policy module, written where the command runs (``--policy mymod2:Pick``): a plain class,
#: and a BasePolicy subclass that writes no ``policy_config``; neither records its arguments itself.
USER_MODULE = '''
from textmem_gym.core.policy import BasePolicy


class Pick:
    def __init__(self, index=0):
        self.index = index

    def act(self, observation, info):
        commands = sorted(info["admissible_commands"])
        return commands[self.index % len(commands)]


class PickBase(BasePolicy):
    def __init__(self, index=0, label="x"):
        self.index = index

    def act(self, observation, info):
        commands = sorted(info["admissible_commands"])
        return commands[self.index % len(commands)]
'''


def _cli(tmp_path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "textmem_gym.cli", *args], cwd=tmp_path, capture_output=True,
                          text=True, timeout=300)


def test_a_user_policy_records_its_arguments_so_a_second_configuration_is_played(tmp_path):
    """The issue's scenario through the real command line: ``index=0`` then ``index=3`` into one file
    played both (the second was skipped as "already recorded" when rows held ``policy_config {}``)."""
    (tmp_path / "mymod2.py").write_text(USER_MODULE)
    run = ["eval", GAME, "--policy", "mymod2:Pick", "--episodes", "1", "--max-steps", "3", "--out", "pick.jsonl",
           "--quiet"]
    first = _cli(tmp_path, *run, "--policy-arg", "index=0")
    second = _cli(tmp_path, *run, "--policy-arg", "index=3")
    assert first.returncode == 0 and second.returncode == 0, second.stderr
    assert "skipped" not in second.stderr, second.stderr
    rows = ResultsFile(tmp_path / "pick.jsonl").read()
    assert [r["policy_config"] for r in rows] == [{}, {"index": 3}]  # index=0 is the default: as if not given
    assert len({episode_key(r) for r in rows}) == 2
    again = _cli(tmp_path, *run, "--policy-arg", "index=3")
    assert again.returncode == 0 and "skipped 1 finished episodes" in again.stderr
    assert len(ResultsFile(tmp_path / "pick.jsonl").read()) == 2


def test_a_base_policy_subclass_records_its_arguments_and_stays_itself(tmp_path, monkeypatch):
    (tmp_path / "mymod3.py").write_text(USER_MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    policy = make_policy("mymod3:PickBase", index=2, label=Path("a/b"))
    assert type(policy).__name__ == "PickBase"  # not wrapped: user code keeps its object
    assert policy.policy_config() == {"index": 2, "label": "a/b"}  # a path is recorded as its text
    out = tmp_path / "r.jsonl"
    for index in (1, 2):
        evaluate(GAME, "mymod3:PickBase", EvalConfig(max_steps=2, out=out, policy_kwargs={"index": index}))
    assert sorted(r["policy_config"]["index"] for r in ResultsFile(out).read()) == [1, 2]


#: ``policy_config()`` of built-in policies as the code before arguments were recorded gave them
#: (computed once with that code and kept here): their results keys must not change.
BUILT_IN_CONFIGS = [
    ("random", {}, {}),
    ("random", {"seed": 5}, {}),
    ("walkthrough", {}, {}),
    ("explorer", {}, {}),
    ("explorer", {"seed": 3}, {}),
    ("explorer", {"macro_counts_as_one_step": True}, {"macro_counts_as_one_step": True}),
    ("explorer-nomemory", {}, {}),
    ("netplay-heuristic", {"seed": 2}, {}),
    ("react", {"strict": True}, {"strict": True, "n_prev": 5, "plan_temperature": 0.2, "action_temperature": 0.2,
                                 "max_tokens": 400, "observation_chars": 700, "prompt_style": "compact"}),
    ("full-history", {}, {"strict": False, "n_prev": 5, "plan_temperature": 0.2,
                          "action_temperature": 0.2, "max_tokens": 400, "observation_chars": 700,
                          "prompt_style": "compact"}),
    ("ariadne", {"top_k": 3}, {"strict": False, "n_prev": 5, "plan_temperature": 0.2, "action_temperature": 0.2,
                               "max_tokens": 400, "observation_chars": 700, "prompt_style": "compact", "top_k": 3,
                               "extractor": "llm", "similarity": "auto", "episode_chars": 500,
                               "macro_counts_as_one_step": False}),
    ("netplay", {}, {"strict": False, "n_events": 8, "temperature": 0.2, "max_tokens": 200}),
]


@pytest.mark.parametrize(("name", "kwargs", "recorded"), BUILT_IN_CONFIGS,
                         ids=[f"{name}{kwargs or ''}" for name, kwargs, _ in BUILT_IN_CONFIGS])
def test_built_in_policies_record_what_they_recorded_before(name, kwargs, recorded):
    config = make_policy(name, **kwargs).policy_config()
    assert json.dumps(config) == json.dumps(recorded)  # byte for byte, key order included
    assert config_id(config) == config_id(recorded)


def test_a_built_in_policy_argument_it_did_not_record_is_recorded_now():
    """The explorer recorded neither ``memory`` nor ``memory_options``: two memories shared a key."""
    assert make_policy("explorer", memory_options={"memory": "stma"}).policy_config() == \
        {"memory_options": {"memory": "stma"}}
    assert make_policy("explorer", memory=False).policy_config() == {"memory": False}


def test_an_llm_policy_records_its_model_so_two_models_never_share_a_key(monkeypatch):
    """The chat model was not recorded: a run with another ``--model`` into the same file was skipped as
    finished. It is recorded now (the argument, else ``$OPENAI_MODEL``); rows written before lack it."""
    monkeypatch.delenv("OPENAI_MODEL", raising=False)
    first, second = (make_policy("full-history", model=m).policy_config() for m in ("m1", "m2"))
    assert first["model"] == "m1" and second["model"] == "m2" and config_id(first) != config_id(second)
    assert "model" not in make_policy("full-history").policy_config()
    monkeypatch.setenv("OPENAI_MODEL", "m3")
    assert make_policy("react").policy_config()["model"] == "m3"
