"""The ``cache`` prompt layout holds the same sections as the paper's layout, in another order.

Every LLM policy plays a few steps twice against the local OpenAI-compatible server, once with
``prompt_layout="paper"`` and once with ``"cache"``: each prompt of the second run holds the same
lines as its twin of the first (the working-memory sections renumbered), the instructions still come
first, and the order differs wherever a policy has sections that change less often than the ones
the paper puts before them. Every template of ``policies/prompts/`` keeps its lines too, and the
setting is recorded in results rows only when it is not the paper's."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import gymnasium as gym
import pytest

from policies import POLICIES, make_policy
from policies.llm_agent import LLMPolicy
from textmem_gym.cli.arguments import check_policy_kwargs
from textmem_gym.llm import LocalOpenAIServer
from textmem_gym.llm.prompts import LAYOUTS, SLOW, LayoutFolder, Section, template_parts
from textmem_gym.loading import load_object
from textmem_gym.runner import run_episode

from .answerer import WalkthroughAnswerer
from .paper_answerers import DAVISAnswerer, STMAAnswerer

COOKING = "TextMem/Cooking-Hard-v0"
NETHACK = "TextMem/NetHack-RoomObs-v0"
PROMPTS = Path(__file__).resolve().parents[2] / "policies" / "prompts"
#: The policies that ask a model, by name.
LLM_POLICIES = sorted(name for name, target in POLICIES.items()
                      if isinstance(load_object(target), type) and issubclass(load_object(target), LLMPolicy))
#: Policies whose paper prompts already put every fixed and slow section before the new ones.
ALREADY_CACHE_ORDERED = {"react", "saycan", "adaplanner"}


def _netplay(messages: list[dict[str, str]]) -> str:
    commands = messages[-1]["content"].rsplit("Commands available now: ", 1)[-1].split(", ")
    return json.dumps({"reason": "deeper", "skill": "descend" if "descend" in commands else "explore"})


def _first_listed(messages: list[dict[str, str]]) -> str:
    """A plan for RAP, then the first offered action with a retrieval key."""
    prompt = messages[-1]["content"]
    if "Make a short plan" in prompt:
        return json.dumps({"plan": "To solve the task, find the kitchen."})
    found = re.search(r"Possible actions in current situation: (\{.*\})", prompt)
    head, rests = next(iter(json.loads(found.group(1)).items())) if found else ("look", [""])
    return json.dumps({"thought": "go on", "retrieval_key": "kitchen", "action": f"{head} {rests[0]}".strip()})


def _look_plan(messages: list[dict[str, str]]) -> str:
    """An AdaPlanner plan of two steps (its assertion fails on the second: a refinement follows)."""
    return json.dumps({"reason": "look first", "start_from": 1, "plan": "\n".join([
        "def solution(start_from=1):", "    if start_from <= 1:", '        print("[Step 1] look")',
        '        obs = act("look")', "    if start_from <= 2:", '        print("[Step 2] inventory")',
        '        obs = act("inventory")', '        assert "xyzzy" in obs, "Error in [Step 2]: no xyzzy."'])})


def _score(before: str, token: str) -> float:
    return -0.5 if token.strip() in {"go", "take", "open"} else -2.0


@dataclass(frozen=True)
class Run:
    """How a policy plays a few steps: its game, the model behind the server, its settings."""

    env_id: str
    responder: Callable[[], Callable[[list[dict[str, str]]], str]] | None
    kwargs: dict[str, Any]
    steps: int = 4
    logprobs: Callable[[str, str], float] | None = None


def _walkthrough() -> Callable[[list[dict[str, str]]], str]:
    return WalkthroughAnswerer(COOKING, hold_back=2)


RUNS: dict[str, Run] = {
    **{name: Run(COOKING, _walkthrough, {}) for name in
       ("ariadne", "react", "full-history", "summary", "rag", "reflact")},
    "simulacra": Run(COOKING, _walkthrough, {"reflect_every": 2}),
    "reflexion": Run(COOKING, _walkthrough, {}),
    "stma": Run(COOKING, lambda: STMAAnswerer(COOKING), {}),
    "davis": Run(COOKING, lambda: DAVISAnswerer(COOKING), {"horizon": 2}),
    "netplay": Run(NETHACK, lambda: _netplay, {}),
    "rap": Run(COOKING, lambda: _first_listed, {}),
    "adaplanner": Run(COOKING, lambda: _look_plan, {"plan_format": "code"}),
    "saycan": Run(COOKING, None, {"examples": 0, "max_candidates": 3}, steps=2, logprobs=_score),
}


def _prompts(name: str, layout: str) -> list[str]:
    """The prompts (chat or completions) ``name`` sends in a few steps with ``layout``."""
    run = RUNS[name]
    server = LocalOpenAIServer(responder=run.responder() if run.responder else None, logprobs=run.logprobs)
    with server:
        policy = make_policy(name, model="local", base_url=server.base_url, structured_output="off",
                             prompt_layout=layout, **run.kwargs)
        env = policy.wrap_env(gym.make(run.env_id, max_episode_steps=run.steps))
        try:
            run_episode(env, policy, seed=0)
        finally:
            env.close()
            policy.close()
        bodies = list(server.requests)
    return [body["messages"][-1]["content"] if "messages" in body else body["prompt"] for body in bodies
            if "messages" in body or "prompt" in body]


def _lines(prompt: str, numbers: bool = True) -> list[str]:
    """A prompt's lines but blank ones, sorted (``numbers``: without the working-memory sections' numbers)."""
    return sorted(re.sub(r"^\d+\. ", "", line) if numbers else line for line in prompt.splitlines() if line.strip())


def test_every_llm_policy_is_measured_here():
    assert set(RUNS) == set(LLM_POLICIES)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(RUNS))
def test_the_cache_layout_sends_the_same_sections_in_another_order(name):
    paper, cache = _prompts(name, "paper"), _prompts(name, "cache")
    assert len(paper) == len(cache) > 0  # the same calls: the model answers alike, the policy acts alike
    for first, second in zip(paper, cache, strict=True):
        assert _lines(first) == _lines(second)
        assert first.splitlines()[0] == second.splitlines()[0]  # the instructions first
    moved = sum(first != second for first, second in zip(paper, cache, strict=True))
    assert (moved == 0) == (name in ALREADY_CACHE_ORDERED), f"{moved} of {len(paper)} prompts reordered"


@pytest.mark.parametrize("name", LLM_POLICIES)
def test_every_template_keeps_its_lines_and_its_instructions_first(name):
    changes = load_object(POLICIES[name]).prompt_changes
    paper, cache = LayoutFolder("policies", "paper", changes), LayoutFolder("policies", "cache", changes)
    for path in sorted(PROMPTS.glob("*.txt")):
        written = path.read_text(encoding="utf-8")
        assert paper.template(path.stem).template == written
        laid_out = cache.template(path.stem).template
        assert _lines(laid_out, numbers=False) == _lines(written, numbers=False), path.name
        head, _, tail = template_parts(written, changes)
        assert laid_out.startswith(head) and laid_out.endswith(tail), path.name


def test_the_cache_layout_puts_fixed_then_slow_then_new_sections():
    rap = LayoutFolder("policies", "cache", load_object(POLICIES["rap"]).prompt_changes)
    fields = [line.split(":")[0] for line in rap.template("rap_action").template.splitlines() if "$" in line]
    assert fields == ["Task", "Plan", "$examples", "Recent history (action -> observation)", "Current observation",
                      "Possible actions in current situation"]
    netplay = LayoutFolder("policies", "cache", load_object(POLICIES["netplay"]).prompt_changes)
    text = netplay.template("netplay").template
    assert text.index("$task") < text.index("$skills") < text.index("$memory") < text.index("$observation") \
        < text.index("$events") < text.index("$commands")
    stma = LayoutFolder("policies", "cache", load_object(POLICIES["stma"]).prompt_changes)
    critic = [line[:2] for line in stma.template("stma_critic").template.splitlines()[-7:]]
    assert critic == ["4.", "1.", "2.", "3.", "5.", "6.", "7."]  # the knowledge and goal first


def test_the_working_memory_keeps_the_goal_and_the_plan_before_the_new_steps():
    working = make_policy("react").working_memory("You are in the kitchen.", {})
    sections = [*working, Section("Your current plan", '{"plan_steps": []}', SLOW)]

    def labels(layout: str) -> list[str]:
        rendered = make_policy("react", prompt_layout=layout).render_sections(sections)
        return [line.split(":")[0] for line in rendered.splitlines() if re.match(r"\d+\. ", line)]

    assert labels("paper") == ["1. Main goal", "2. History of 5 last observations and actions",
                               "3. Your current observation", "4. Your current plan"]
    assert labels("cache") == ["1. Main goal", "2. Your current plan", "3. History of 5 last observations and actions",
                               "4. Your current observation"]


def test_the_layout_is_recorded_only_when_it_is_not_the_papers():
    assert "prompt_layout" not in make_policy("react").policy_config()
    assert make_policy("react", prompt_layout="paper").policy_config() == make_policy("react").policy_config()
    assert make_policy("stma", prompt_layout="cache").policy_config()["prompt_layout"] == "cache"
    assert check_policy_kwargs("ariadne", {"prompt_layout": "cache"}) == {"prompt_layout": "cache"}
    with pytest.raises(ValueError, match=r"prompt_layout must be one of \['cache', 'paper'\], got 'fast'"):
        make_policy("react", prompt_layout="fast")
    assert set(LAYOUTS) == {"paper", "cache"}


@pytest.mark.real_llm
def test_slots_keep_one_kv_cache_per_prompt_kind():
    """Two prompt kinds alternate through ``LlamaCppSlots``: each kind lands on its own server, whose log shows
    the kind's long prefix reused from the second call on (one plain server would evaluate it every call)."""
    from tests.real_model import smollm2_server
    from textmem_gym.llm import LLMClient
    from textmem_gym.llm.llama_server import LlamaCppSlots

    smollm2_server()  # skips without the model or the server
    kinds = {kind: " ".join(f"{kind} rule {i}: keep it short." for i in range(40)) for kind in ("plan", "act")}
    with LlamaCppSlots(2, n_ctx=2048, threads=1, extra_args=["--logits_all", "false"]) as slots:
        client = LLMClient(model=slots.model_alias, base_url=slots.base_url, cache="off", max_retries=0)
        for step in range(2):
            for rules in kinds.values():
                client.chat([{"role": "user", "content": f"{rules}\nStep {step}: what now?"}], max_tokens=2)
        client.close()
        logs = [server.log_path.read_text(errors="replace") for server in slots.servers if server.log_path]
    hits = [[int(n) for n in re.findall(r"(\d+) prefix-match hit", log)] for log in logs]
    assert [len(found) for found in hits] == [1, 1]  # the second call of each kind, on the server of its kind
    assert all(found[0] > 200 for found in hits)  # the kind's rules, not only the chat header
