"""Quick start: make a TextMem env, play a few random admissible commands, read the info.

Run: python examples/quickstart.py
"""

import random

import gymnasium as gym

import textmem_gym  # noqa: F401  (registers the TextMem/* ids)

env = gym.make("TextMem/Cooking-v0")
observation, info = env.reset(seed=0)
print(observation)
print("objective:", info["objective"])
rng = random.Random(0)
for _ in range(5):
    command = rng.choice(info["admissible_commands"])
    observation, reward, terminated, truncated, info = env.step(command)
    print(f"\n> {command}\n{observation}\n[reward {reward}, score {info['score']}/{info['max_score']}]")
    if terminated or truncated:
        break
env.close()
