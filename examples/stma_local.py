"""Run the STMA agent end to end against the local OpenAI-compatible server (no key, no internet).

The "LLM" is a tiny rule-based responder: the planner plans two actions from the available
ones (preferring reading, taking and opening; a risky one when it runs out of ideas), the critic
rejects actions that could lose a cooking game (so the planner re-plans), the summarizer and the
relation aggregator answer briefly. With a real endpoint
use ``make_policy("stma", model=..., base_url=...)`` or
``textmem-gym eval TextMem/STMA-Cooking-L1-v0 --policy stma --model M --base-url URL``.

Run:
    python examples/stma_local.py
"""

from __future__ import annotations

import json
import re

import textmem_gym  # noqa: F401  (registers the ids)
from policies import make_policy
from textmem_gym.llm import LocalOpenAIServer
from textmem_gym.runner import EvalConfig, evaluate

PREFERRED = ("examine cookbook", "take", "open", "go")
RISKY = ("eat", "drink", "cook", "slice", "dice", "chop", "prepare", "drop")  # could lose a cooking game


def plan(prompt: str) -> str:
    actions = json.loads(re.search(r"\*\*Available actions:\*\* (\[.*\])", prompt).group(1))
    safe = [a for a in actions if not a.startswith(RISKY)]
    tried = set(re.findall(r"Action:\n(.+)", prompt))
    choices = [a for p in PREFERRED for a in safe if a.startswith(p) and a not in tried][:2] or ["look", "cook meal"]
    steps = "\n".join(f'- "{a}"' for a in choices)
    return f'Thought:\n1. Find the recipe.\nPlan:\n```YAML\nSubgoal: "explore and read"\nAction Plan:\n{steps}\n```'


def responder(messages: list[dict[str, str]]) -> str:
    """Answers STMA's prompt kinds by simple rules."""
    prompt = messages[-1]["content"]
    if "central processor of a robot" in prompt:
        return plan(prompt)
    if "critically evaluating" in prompt:
        action = re.findall(r"7\. Proposed Action: (.+)", prompt)[-1]
        ok = not action.startswith(RISKY)
        return f"Action Suitability: {ok}\nFeedback: \"{'fine' if ok else 'risky before reading the recipe'}\""
    if "summarize the robots history" in prompt:
        return "The robot is exploring the house to find the cookbook."
    return "Known places and things: " + ", ".join(re.findall(r'\["([^"]+)"', prompt)[:8])


def main() -> None:
    """Plays 10 steps of TextMem/CookingRL-L1-v0 and prints the result, the counts and the belief."""
    with LocalOpenAIServer(responder=responder) as server:
        policy = make_policy("stma", model="local-model", base_url=server.base_url)
        result = evaluate("TextMem/CookingRL-L1-v0", policy, EvalConfig(max_steps=10))[0]
        memory = policy.memory
        policy.close()
    stats = result["policy_stats"]
    status = "won" if result["won"] else "lost" if result["lost"] else "not finished"
    print(f"score {result['score']}/{result['max_score']} in {result['steps']} steps ({status})")
    print(f"LLM calls {stats['calls']} {stats['calls_by_kind']}, prompt tokens {stats['prompt_tokens']}")
    print(f"plans {stats['plans']}, critic rejections {stats['critic_rejections']}, replans {stats['replans']}")
    print(f"believed triples {len(memory.believed_triples())}; spatial belief: "
          f"{memory.spatial_belief(None)[:300]}")


if __name__ == "__main__":
    main()
