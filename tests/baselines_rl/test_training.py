"""End-to-end tiny training runs: logs, checkpoints, saved models that load and act the same."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
import tyro

from baselines_rl import dqn, ppo
from baselines_rl.callbacks import read_csv
from baselines_rl.common import EnvSpec
from baselines_rl.dqn import DQNArgs, MaskedDQN
from baselines_rl.ppo import PPOArgs
from baselines_rl.storage import load_model, predict, read_metadata


def test_ppo_run_writes_model_logs_and_checkpoints(ppo_run):
    assert ppo_run.model.num_timesteps >= 256
    assert (ppo_run.run_dir / "args.json").is_file()
    episodes = read_csv(ppo_run.run_dir / "episodes.csv")
    assert episodes, "20-step episodes must finish within 256 steps"
    assert all(row["steps"] <= 20 and 0.0 <= row["normalized_score"] <= 1.0 for row in episodes)
    assert sum(row["invalid_actions"] for row in episodes) == 0, "masked actions were chosen"
    checkpoints = sorted((ppo_run.run_dir / "checkpoints").glob("*.zip"))
    assert [p.name for p in checkpoints] == ["model_128.zip", "model_256.zip"]
    evaluation = read_csv(ppo_run.run_dir / "eval.csv")
    assert len(evaluation) == 1
    assert evaluation[0]["mean_normalized_score"] == ppo_run.final_eval["mean_normalized_score"]
    assert ppo_run.steps_per_second > 0


def test_saved_model_reloads_with_its_env_spec_and_same_actions(ppo_run):
    model, algorithm, spec = load_model(ppo_run.model_path)
    assert algorithm == "maskable_ppo" and spec.env_id == "TextMem/CookingRL-L1-v0"
    assert read_metadata(ppo_run.model_path)["args"]["total_timesteps"] == 256
    env = spec.make()
    try:
        obs, _ = env.reset(seed=0)
        for _ in range(5):
            mask = env.get_wrapper_attr("action_masks")()
            expected = predict(ppo_run.model, obs, mask)
            assert predict(model, obs, mask) == expected and mask[int(expected)]
            obs, *_ = env.step(int(expected))
    finally:
        env.close()


def test_dqn_run_learns_without_invalid_actions_and_reloads(dqn_run):
    assert isinstance(dqn_run.model, MaskedDQN) and dqn_run.model.num_timesteps >= 200
    assert dqn_run.model._n_updates > 0, "gradient steps must have happened after learning_starts"
    episodes = read_csv(dqn_run.run_dir / "episodes.csv")
    assert episodes and sum(row["invalid_actions"] for row in episodes) == 0
    model, algorithm, _ = load_model(dqn_run.model_path)
    assert algorithm == "masked_dqn" and isinstance(model, MaskedDQN)
    params = dict(dqn_run.model.policy.state_dict())
    assert all(np.array_equal(v.numpy(), params[k].numpy()) for k, v in model.policy.state_dict().items())


def _help_entries(text: str) -> dict[str, str]:
    """``--help`` output as {option spec (e.g. ``--env-id STR``): its description}."""
    entries: dict[str, str] = {}
    spec = ""
    for line in text.splitlines():
        line = line.strip("│ ")
        if line.startswith("-"):
            spec, _, description = line.partition("  ")
            entries[spec] = description.strip()
        elif spec and line and not line.startswith(("─", "╰")):
            entries[spec] = f"{entries[spec]} {line}".strip()
    return entries


@pytest.mark.parametrize(("script", "args_class"), [(ppo, PPOArgs), (dqn, DQNArgs)])
def test_help_shows_every_field_with_its_docstring(script, args_class, capsys):
    with pytest.raises(SystemExit) as exit_info:
        script.main(["--help"])
    assert exit_info.value.code == 0
    entries = _help_entries(capsys.readouterr().out)
    for item in dataclasses.fields(args_class):
        flag = "--" + item.name.replace("_", "-")
        (description,) = [text for spec, text in entries.items() if spec.split(",")[0].split()[0] == flag]
        assert description and not description.startswith("(default"), f"{flag} has no docstring"


def test_arguments_parse_from_the_command_line():
    args = tyro.cli(PPOArgs, args=["--env-id", "TextMem/CookingRL-L3-v0", "--memory", "arigraph",
                                   "--total-timesteps", "1000", "--no-subprocess", "--game-seed", "None",
                                   "--novelty-key", "observation"])
    assert (args.env_id, args.memory, args.total_timesteps, args.subprocess, args.game_seed) == \
        ("TextMem/CookingRL-L3-v0", "arigraph", 1000, False, None)
    assert args.env_spec() == EnvSpec("TextMem/CookingRL-L3-v0", "arigraph", False,
                                      {"text": "bow", "hash_size": 1024, "max_commands": 64}, {}, 0.05,
                                      "observation")
    args = tyro.cli(DQNArgs, args=["--goto", "--game-seed", "3", "--max-episode-steps", "20", "--model", "mlp"])
    assert (args.goto, args.model, args.out_dir) == (True, "mlp", "runs/dqn")
    assert args.env_spec().env_kwargs == {"game_seed": 3, "max_episode_steps": 20}
    with pytest.raises(SystemExit) as exit_info:
        tyro.cli(PPOArgs, args=["--model", "transformer"])
    assert exit_info.value.code == 2


def test_bad_arguments_are_rejected_by_name(tmp_path):
    from baselines_rl.ppo import train

    with pytest.raises(ValueError, match="n_envs"):
        train(PPOArgs(n_envs=0, out_dir=str(tmp_path)))
    with pytest.raises(ValueError, match="model"):
        train(PPOArgs(model="transformer", out_dir=str(tmp_path)))
    with pytest.raises(ValueError, match="privileged"):
        EnvSpec("TextMem/CookingRL-L1-v0", env_kwargs={"privileged": True})
    with pytest.raises(ValueError, match="does not exist"):
        load_model(tmp_path / "missing.zip")


def test_stop_score_ends_training_after_a_good_evaluation(tmp_path):
    from baselines_rl.callbacks import TrainingLog

    log = TrainingLog(tmp_path, EnvSpec("TextMem/CookingRL-L1-v0"), "maskable_ppo", stop_score=0.9)
    assert not log.reached_stop_score()
    log.eval_history.append({"timesteps": 100, "mean_normalized_score": 0.75})
    assert not log.reached_stop_score()
    log.eval_history.append({"timesteps": 200, "mean_normalized_score": 1.0})
    assert log.reached_stop_score()
    assert not TrainingLog(tmp_path, EnvSpec("TextMem/CookingRL-L1-v0"), "maskable_ppo").reached_stop_score()
