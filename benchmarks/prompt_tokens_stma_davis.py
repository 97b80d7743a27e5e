"""Context cost of STMA and DAVIS: prompt tokens per decision, measured like
``benchmarks/prompt_tokens.py`` (every LLM call of the decision, including the memory's own:
STMA's summarizer and aggregator, DAVIS's graph QA; characters / 4 + 4 per message), with the
rule-driven answerers of ``tests/policies/paper_answerers.py`` behind the local
OpenAI-compatible server, side by side in one run.

- STMA on TextMem/Cooking-Hard-v0 at steps 10, 50 and 150 (the answerer holds back the last
  two walkthrough commands, so the episode runs to the limit), as in the main table.
- DAVIS on TextMem/ScienceWorld-FindLivingThing-v0 (its benchmark; world model from 5 training
  variations): mean prompt tokens per action over the episode. The DAVIS paper (section 6.1)
  reports about 43,000 tokens sent and received per action.

The answerers write short answers, so completion tokens and chain-of-thought length are far
below a real model's; prompts grow with real answers (beliefs, monologue, reflections).

Run: python benchmarks/prompt_tokens_stma_davis.py [--steps 150]
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

import gymnasium as gym

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the answerers live with the tests

import textmem_gym  # noqa: E402,F401
from policies import make_policy  # noqa: E402
from tests.policies.paper_answerers import DAVISAnswerer, STMAAnswerer  # noqa: E402
from textmem_gym.llm import LocalOpenAIServer  # noqa: E402
from textmem_gym.runner import run_episode  # noqa: E402

COOKING = "TextMem/Cooking-Hard-v0"
SCIENCEWORLD = "TextMem/ScienceWorld-FindLivingThing-v0"
MARKS = (10, 50, 150)


def per_step_tokens(name: str, env_id: str, answerer: object, steps: int | None = None) -> tuple[list[int], dict]:
    """Estimated prompt tokens of each decision of one episode, and the episode result."""
    tokens: list[int] = []
    with LocalOpenAIServer(responder=answerer) as server:
        policy = make_policy(name, model="local", base_url=server.base_url)
        env = policy.wrap_env(gym.make(env_id, **({"max_episode_steps": steps} if steps else {})))
        result = run_episode(env, policy, seed=0, on_step=lambda *_: tokens.append(policy.llm.take_step_estimate()))
        tokens[-1] += policy.llm.take_step_estimate()  # calls made after the last step (e.g. DAVIS's critic)
        env.close()
        policy.close()
    return tokens, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=150)
    args = parser.parse_args()
    marks = [m for m in MARKS if m <= args.steps]
    print(f"STMA: prompt tokens per step on {COOKING} (chars/4 estimate, all LLM calls of the step)\n")
    print("| policy | " + " | ".join(f"step {m}" for m in marks) + " | mean over steps | paper |")
    print("|---|" + "---|" * (len(marks) + 2))
    tokens, _ = per_step_tokens("stma", COOKING, STMAAnswerer(COOKING, hold_back=2), args.steps)
    cells = [f"{tokens[m - 1]:,}" if len(tokens) >= m else "ended" for m in marks]
    print("| stma | " + " | ".join(cells) + f" | {statistics.fmean(tokens):,.0f} | - |", flush=True)
    print(f"\nDAVIS: prompt tokens per action on {SCIENCEWORLD} (world model: 5 training variations)\n")
    tokens, result = per_step_tokens("davis", SCIENCEWORLD, DAVISAnswerer(SCIENCEWORLD))
    stats = result["policy_stats"]
    mean = statistics.fmean(tokens)
    print("| policy | actions | won | mean prompt tokens / action | max | LLM calls / action | paper |")
    print("|---|---|---|---|---|---|---|")
    print(f"| davis | {len(tokens)} | {result['won']} | {mean:,.0f} | {max(tokens):,} | "
          f"{stats['calls'] / max(len(tokens), 1):.1f} | ~43,000 tokens sent+received |")
    print(f"\nDAVIS ours / paper: {mean / 43000:.3f} (prompt tokens only, scripted short answers).")


if __name__ == "__main__":
    main()
