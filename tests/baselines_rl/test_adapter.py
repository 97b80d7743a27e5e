"""A trained model as a Policy: ``rl:PATH`` through the registry, the runner and the CLI."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import textmem_gym  # noqa: F401  (registers ids)
from baselines_rl.adapter import RLPolicy
from baselines_rl.common import EnvSpec, make_vec_env
from baselines_rl.ppo import PPOArgs, build_model
from baselines_rl.storage import predict, save_model
from policies import Policy, make_policy
from textmem_gym import cli
from textmem_gym.runner import EvalConfig, evaluate

L1 = "TextMem/CookingRL-L1-v0"


def test_rl_prefix_builds_a_policy(ppo_run):
    policy = make_policy(f"rl:{ppo_run.model_path}")
    assert isinstance(policy, RLPolicy) and isinstance(policy, Policy)
    with pytest.raises(ValueError, match="does not exist"):
        make_policy("rl:/no/such/model.zip")
    with pytest.raises(ValueError, match="model path"):
        make_policy("rl:")


def test_adapter_acts_like_the_model_on_the_encoded_env(ppo_run):
    policy = make_policy(f"rl:{ppo_run.model_path}")
    raw, encoded = gym.make(L1), EnvSpec.from_dict(policy.spec.to_dict()).make()
    try:
        policy.seed(0)
        observation, info = raw.reset(seed=0)
        obs, _ = encoded.reset(seed=0)
        policy.reset(observation, info)
        for _ in range(6):
            command = policy.act(observation, info)
            action = int(predict(ppo_run.model, obs, encoded.get_wrapper_attr("action_masks")()))
            assert command in info["admissible_commands"]
            assert command == encoded.get_wrapper_attr("command_of")(action)
            observation, reward, terminated, truncated, info = raw.step(command)
            obs, *_ = encoded.step(action)
            policy.observe(command, observation, reward, terminated, truncated, info)
            if terminated or truncated:
                break
    finally:
        raw.close()
        encoded.close()


def test_adapter_runs_through_the_runner_and_the_cli(ppo_run, tmp_path, capsys):
    out = tmp_path / "results.jsonl"
    results = evaluate(L1, f"rl:{ppo_run.model_path}", EvalConfig(episodes=2, max_steps=6, out=out))
    assert len(results) == 2 and all(r["steps"] <= 6 for r in results)
    assert results[0]["policy"] == f"rl:{ppo_run.model_path}"
    assert results[0]["policy_stats"]["actions"] == results[0]["steps"]
    assert len(out.read_text().splitlines()) == 2
    assert cli.main(["eval", L1, "--policy", f"rl:{ppo_run.model_path}", "--max-steps", "3", "--quiet"]) == 0
    assert "rl:" in capsys.readouterr().out


def test_memory_model_keeps_its_own_belief_on_a_plain_env(tmp_path):
    spec = EnvSpec(L1, memory="arigraph", goto=True, env_kwargs={"max_episode_steps": 5})
    venv = make_vec_env(spec, n_envs=1, seed=0, subprocess=False)
    try:
        model = build_model(PPOArgs(memory="arigraph"), venv)
        path = save_model(model, tmp_path / "memory_model", "maskable_ppo", spec)
    finally:
        venv.close()
    result = evaluate(L1, f"rl:{path}", EvalConfig(episodes=1, max_steps=4))[0]
    assert result["steps"] == 4
    policy = make_policy(f"rl:{path}")
    env = gym.make(L1)
    observation, info = env.reset(seed=0)
    policy.reset(observation, info)
    inputs, admissible = policy._inputs(observation, info)
    assert "Current location: kitchen" in inputs["belief"] and admissible == list(info["admissible_commands"])
    encoded = policy.encoding.encode(inputs, admissible)
    assert encoded["belief"].sum() > 0 and np.any(encoded["belief"] != encoded["observation"])
    env.close()
