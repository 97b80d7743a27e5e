"""Evaluate two policies on two ids with the library's runner and print the summary table.

The walkthrough policy is a privileged oracle (the upper bound); random is the floor.
Run: python examples/evaluate_policies.py
"""

import textmem_gym
from textmem_gym import EvalConfig, evaluate, format_table, summarize

ids = ["TextMem/CookingRL-L1-v0", "TextMem/CookingRL-L2-v0"]
results = []
for policy in ("random", "walkthrough"):
    results += evaluate(ids, policy, EvalConfig(episodes=2, seed=0, max_steps=50))
print(format_table(summarize(results)))
assert textmem_gym.ENV_IDS["TextMem/CookingRL-L1-v0"].expected_max_score == 4
