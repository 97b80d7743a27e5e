"""RL on TextWorld Express: MaskablePPO with 2 TWX envs in subprocesses (one JVM each), masks from TWX's
valid actions, game parameters as ``--env-arg``, the saved model played back through ``rl:PATH``."""

from __future__ import annotations

import numpy as np
import pytest
import tyro

from baselines_rl.callbacks import read_csv
from baselines_rl.ppo import PPOArgs, train
from baselines_rl.storage import load_model
from textmem_gym.runner import EvalConfig, evaluate

pytestmark = [pytest.mark.java, pytest.mark.slow, pytest.mark.exhaustive]

#: A one-ingredient, one-room TWX CookingWorld (as easy as CookingRL-L1).
EASY = ("numLocations=1", "numIngredients=1", "numDistractorItems=0", "includeDoors=0", "limitInventorySize=0")


@pytest.fixture(scope="module")
def twx_run(tmp_path_factory):
    args = tyro.cli(PPOArgs, args=["--env-id", "TextMem/TWX-CookingWorld-v0", "--env-arg", *EASY,
                                   "--total-timesteps", "128", "--n-envs", "2", "--n-steps", "64",
                                   "--batch-size", "32", "--n-epochs", "1", "--max-episode-steps", "20",
                                   "--eval-freq", "0", "--eval-episodes", "1",
                                   "--out-dir", str(tmp_path_factory.mktemp("twx-ppo"))])
    return train(args)


def test_ppo_trains_on_a_twx_id_with_parameters_and_subprocess_envs(twx_run):
    assert twx_run.model.num_timesteps >= 128
    assert type(twx_run.model.get_env()).__name__ == "SubprocVecEnv" and twx_run.model.get_env().num_envs == 2
    episodes = read_csv(twx_run.run_dir / "episodes.csv")
    assert episodes, "20-step episodes must end within 128 steps"
    assert sum(row["invalid_actions"] for row in episodes) == 0, "a masked action was chosen"
    assert all(0.0 <= row["normalized_score"] <= 1.0 for row in episodes)


def test_twx_model_keeps_its_parameters_and_masks_follow_valid_actions(twx_run):
    _, _, spec = load_model(twx_run.model_path)
    assert spec.env_kwargs["numIngredients"] == 1 and spec.env_kwargs["max_episode_steps"] == 20
    env = spec.make(seed=0)
    try:
        _, info = env.reset(seed=0)
        mask = env.get_wrapper_attr("action_masks")()
        assert int(np.sum(mask)) == len(info["admissible_commands"]) and "take knife" in info["admissible_commands"]
    finally:
        env.close()
    parameters = {k: v for k, v in spec.env_kwargs.items() if k != "max_episode_steps"}
    rows = evaluate("TextMem/TWX-CookingWorld-v0", f"rl:{twx_run.model_path}",
                    EvalConfig(episodes=1, max_steps=10, env_kwargs=parameters))
    assert rows[0]["steps"] <= 10 and rows[0]["max_score"] == 100
