"""RL quick start: train MaskablePPO (DRRN policy) briefly, then evaluate it as an ``rl:PATH`` policy.

A real run uses ``python -m baselines_rl.ppo --total-timesteps 50000`` (see benchmarks/rl_learning.py);
this one trains 64 steps so it finishes in seconds.

Run: python examples/rl_quickstart.py
"""

import tempfile
from pathlib import Path

import gymnasium as gym

import textmem_gym  # noqa: F401  (registers the TextMem/* ids)
from baselines_rl.ppo import PPOArgs, train
from textmem_gym.runner import EvalConfig, evaluate
from textmem_gym.wrappers import TextEncodingWrapper

# The encoding: arrays in, an index among the admissible commands out, with a mask.
env = TextEncodingWrapper(gym.make("TextMem/CookingRL-L1-v0"))
obs, info = env.reset(seed=0)
print({key: value.shape for key, value in obs.items()}, "actions:", env.action_space)
print("allowed now:", env.commands[:4], "...")
env.close()

with tempfile.TemporaryDirectory() as tmp:
    args = PPOArgs(total_timesteps=64, n_envs=2, n_steps=32, batch_size=32, max_episode_steps=10,
                   eval_freq=0, eval_episodes=1, subprocess=False, out_dir=str(Path(tmp) / "ppo"))
    result = train(args)  # model.zip + episodes.csv + eval.csv in out_dir
    print(f"trained {result.model.num_timesteps} steps at {result.steps_per_second:.0f} steps/s ->",
          result.model_path.name)
    # The saved model is a Policy for the runner and the CLI (textmem-gym eval ... --policy rl:PATH).
    for row in evaluate("TextMem/CookingRL-L1-v0", f"rl:{result.model_path}", EvalConfig(episodes=1, max_steps=10)):
        print(f"rl policy: normalized score {row['normalized_score']:.2f} in {row['steps']} steps")
