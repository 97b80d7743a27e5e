"""Context cost of the LLM policies: prompt tokens per step at steps 10, 50 and 150 on
TextMem/Cooking-Hard-v0, with the rule-driven walkthrough answerer (tests/policies/answerer.py)
behind the local OpenAI-compatible server, side by side in one run.

A step's prompt tokens are those of every LLM call made for that decision (planner, exploration
check, decision, and the memory's own calls such as summaries or importance ratings), counted
as characters / 4 + 4 per message (close to BPE tokenizers on English; the local server's own
count is words). The answerer plays the walkthrough except its last two commands, then idles on
harmless commands, so every policy reaches step 150 with the same information available.
Paper, Table 3: Ariadne ~6,000 prompt tokens per step, full history ~14,000 at step 150.
Target: Ariadne <= 3,000 on average.

Run: python benchmarks/prompt_tokens.py [--steps 150] [--policies ariadne full-history ...]
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

import gymnasium as gym

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the answerer lives with the tests

import textmem_gym  # noqa: E402,F401
from policies import make_policy  # noqa: E402
from tests.policies.answerer import WalkthroughAnswerer  # noqa: E402
from textmem_gym.llm import LocalOpenAIServer  # noqa: E402
from textmem_gym.runner import run_episode  # noqa: E402
from textmem_gym.wrappers import MemoryGraphWrapper  # noqa: E402

ENV_ID = "TextMem/Cooking-Hard-v0"
POLICIES = ["ariadne", "ariadne:paper", "full-history", "summary", "rag", "simulacra", "reflexion", "react", "reflact"]
#: Row name suffix -> policy arguments (``ariadne:paper`` = Ariadne with the appendix E prompt wording).
VARIANTS = {"paper": {"prompt_style": "paper"}}
PAPER = {"ariadne": "6,000", "ariadne:paper": "6,000", "full-history": "14,000 (step 150)", "summary": "3,800",
         "rag": "4,000", "simulacra": "7,500", "reflexion": "5,800", "react": "-", "reflact": "-"}
MARKS = (10, 50, 150)


def per_step_tokens(name: str, steps: int) -> list[int]:
    """Estimated prompt tokens of each decision of one episode of ``name``."""
    answerer = WalkthroughAnswerer(ENV_ID, hold_back=2)
    tokens: list[int] = []
    with LocalOpenAIServer(responder=answerer) as server:
        base, _, variant = name.partition(":")
        policy = make_policy(base, model="local", base_url=server.base_url, **VARIANTS.get(variant, {}))
        # macros count as one decision, so every policy makes exactly ``steps`` decisions
        env = MemoryGraphWrapper(gym.make(ENV_ID, max_episode_steps=steps), macro_counts_as_one_step=True)
        env = policy.wrap_env(env)
        run_episode(env, policy, seed=0, on_step=lambda *_: tokens.append(policy.llm.take_step_estimate()))
        env.close()
        policy.close()
    return tokens


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=150)
    parser.add_argument("--policies", nargs="*", default=POLICIES)
    args = parser.parse_args()
    marks = [m for m in MARKS if m <= args.steps]
    print(f"Prompt tokens per step on {ENV_ID} (chars/4 estimate, all LLM calls of the step)\n")
    print("| policy | " + " | ".join(f"step {m}" for m in marks) + " | mean over steps | paper (Table 3) |")
    print("|---|" + "---|" * (len(marks) + 2))
    means = {}
    for name in args.policies:
        tokens = per_step_tokens(name, args.steps)
        means[name] = statistics.fmean(tokens)
        cells = [f"{tokens[m - 1]:,}" if len(tokens) >= m else "ended" for m in marks]
        print(f"| {name} | " + " | ".join(cells) + f" | {means[name]:,.0f} | {PAPER.get(name, '-')} |", flush=True)
    if "ariadne" in means:
        verdict = "met" if means["ariadne"] <= 3000 else "NOT met"
        print(f"\nAriadne mean {means['ariadne']:,.0f} tokens/step: target <= 3,000 {verdict}.")


if __name__ == "__main__":
    main()
