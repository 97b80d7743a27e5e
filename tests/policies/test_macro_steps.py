"""``go to`` step accounting reachable from the CLI: ``--policy-arg macro_counts_as_one_step=true``
reaches the MemoryGraphWrapper of every policy that builds one, and changes what the step limit counts."""

from __future__ import annotations

import gymnasium as gym
import pytest

import textmem_gym  # noqa: F401  (registers the ids)
from policies import make_policy
from textmem_gym.cli import main
from textmem_gym.results import ResultsFile
from textmem_gym.wrappers.memory_graph import find_memory_wrapper

GAME = "TextMem/Cooking-v0"
#: Policies that add a MemoryGraphWrapper, with arguments that need no endpoint to build it.
BUILDERS = {"ariadne": {"extractor": "rules", "similarity": "bm25"}, "reflact": {},
            "stma": {"extractor": "rules", "memory_llm": False, "similarity": "bm25"}, "davis": {"extractor": "rules"}, "explorer": {}}


@pytest.mark.parametrize("name", sorted(BUILDERS))
@pytest.mark.parametrize("flag", [False, True])
def test_the_argument_reaches_the_wrapper_and_the_configuration(name, flag):
    policy = make_policy(name, macro_counts_as_one_step=flag, **BUILDERS[name])
    env = policy.wrap_env(gym.make(GAME, max_episode_steps=10))
    try:
        assert find_memory_wrapper(env).macro_counts_as_one_step is flag
        assert policy.policy_config().get("macro_counts_as_one_step", False) is flag
    finally:
        env.close()


def test_a_go_to_counts_as_one_step_when_asked_from_the_cli(tmp_path):
    out = tmp_path / "results.jsonl"
    common = ["eval", GAME, "--policy", "explorer", "--max-steps", "30", "--out", str(out), "--quiet"]
    assert main(common) == 0
    assert main([*common, "--policy-arg", "macro_counts_as_one_step=true"]) == 0
    per_move, per_decision = sorted(ResultsFile(out).read(), key=lambda r: bool(r["policy_config"]))
    assert per_move["policy_config"] == {} and per_decision["policy_config"] == {"macro_counts_as_one_step": True}
    # default: primitive moves count, so a go to of several moves spends several of the 30 steps
    assert per_move["primitive_steps"] <= 30 and per_move["steps"] < per_move["primitive_steps"]
    # the papers' accounting: decisions count, so the moves may exceed the limit
    assert per_decision["steps"] <= 30 and per_decision["primitive_steps"] > per_decision["steps"]
    assert per_decision["primitive_steps"] > 30 or per_decision["terminated"]
