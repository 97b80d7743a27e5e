"""Run the Ariadne agent end to end against the local OpenAI-compatible server (no key, no internet).

The "LLM" here is a tiny rule-based responder (it reads the possible actions written in the
decision prompt and prefers reading, taking and opening); with a real endpoint use
``make_policy("ariadne", model=..., base_url=...)`` or
``textmem-gym eval TextMem/Cooking-v0 --policy ariadne --model M --base-url URL``.

Run:
    python examples/ariadne_local.py
"""

from __future__ import annotations

import json
import re

import textmem_gym  # noqa: F401  (registers the ids)
from policies import make_policy
from textmem_gym.llm import LocalOpenAIServer
from textmem_gym.runner import EvalConfig, evaluate

PREFERRED = ("examine cookbook", "take", "open", "go to", "go")
RISKY = ("eat", "drink", "cook", "slice", "dice", "chop", "prepare", "drop")  # could lose a cooking game


def responder(messages: list[dict[str, str]]) -> str:
    """Answers Ariadne's three prompt kinds by simple rules."""
    prompt = messages[-1]["content"]
    if "planner" in prompt:
        return json.dumps({"main_goal": "cook and eat the meal",
                           "plan_steps": [{"sub_goal_1": "read the cookbook", "reason": "it has the recipe"}]})
    if "Possible actions" not in prompt:  # the exploration check
        return "True"
    groups = json.loads(re.search(r"Possible actions in current situation: (\{.*\})", prompt).group(1))
    actions = [f"{verb} {rest}".strip() for verb, rests in groups.items() for rest in rests]
    tried = set(re.findall(r"> (.+?) ->", prompt))
    safe = [a for a in actions if not a.startswith(RISKY)] or actions
    fresh = [a for a in safe if a not in tried] or safe
    choice = next((a for p in PREFERRED for a in fresh if a.startswith(p)), fresh[0])
    return json.dumps({"reason_for_action": "rule", "action_to_take": choice})


def main() -> None:
    """Plays 12 steps of TextMem/CookingRL-L1-v0 and prints the result and its LLM accounting."""
    with LocalOpenAIServer(responder=responder) as server:
        policy = make_policy("ariadne", model="local-model", base_url=server.base_url)
        result = evaluate("TextMem/CookingRL-L1-v0", policy, EvalConfig(max_steps=12))[0]
        policy.close()
    stats = result["policy_stats"]
    status = "won" if result["won"] else "lost" if result["lost"] else "not finished"
    print(f"score {result['score']}/{result['max_score']} in {result['steps']} steps ({status})")
    print(f"LLM calls {stats['calls']} {stats['calls_by_kind']}, prompt tokens {stats['prompt_tokens']}, "
          f"completion tokens {stats['completion_tokens']}, latency {stats['latency_s']:.2f}s, "
          f"cost ${stats['cost_usd']:.4f}")
    print(f"plan updates {stats['plan_updates']}, invalid actions mapped {stats['invalid_actions_mapped']}")


if __name__ == "__main__":
    main()
