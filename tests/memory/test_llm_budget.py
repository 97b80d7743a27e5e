"""The memories' own LLM calls are fitted to the context window and accounted like a policy's:
AriGraph's extraction/outdated prompts under Ariadne (trimmed by their stated priority, counted
by kind, recorded with the step whose observation they read) and DAVIS's extraction and QA
prompts. Against the real local OpenAI-compatible server, which states its window (llama.cpp
profile: ``/props`` and an exact tokenizer) and answers HTTP 400 beyond it."""

from __future__ import annotations

import json
import re

import gymnasium as gym
import pytest

from policies import make_policy
from tests.policies.answerer import WalkthroughAnswerer
from textmem_gym.llm import LLMClient, LocalOpenAIServer
from textmem_gym.llm.calls import ClientAsk
from textmem_gym.llm.prompts import estimate_prompt_tokens
from textmem_gym.memory.arigraph.extraction import LLMExtractor, relevance_order
from textmem_gym.memory.davis.kg import TemporalKG
from textmem_gym.memory.davis.memory import DAVISMemory
from textmem_gym.memory.semantic import TripleStore
from textmem_gym.runner import run_episode
from textmem_gym.trajectories import read_trajectory

pytestmark = pytest.mark.llm

GAME = "TextMem/Cooking-v0"
#: Fits the extraction prompts' instructions and observation, not all their example/existing triples.
WINDOW = 1150
EXTRACTION = ("arigraph_triplets", "arigraph_outdated")


def extraction_answer(prompt: str) -> str:
    """Many triples between two-word names the observation printed, so the example and existing
    triples grow (and memory hygiene, which drops names the game never printed, keeps them)."""
    observation = prompt.split("\nObservation: ")[1].split("\n\nRemember that")[0]
    names = re.findall(r"\b[a-z]{3,} [a-z]{3,}\b", " ".join(observation.lower().split()))
    return "; ".join(f"{names[i]}, is near, {names[i + 1]}" for i in range(0, min(len(names) - 1, 24), 2))


@pytest.fixture(scope="module")
def ariadne_run(tmp_path_factory):
    walkthrough = WalkthroughAnswerer(GAME)
    prompts: dict[str, list[str]] = {"arigraph_triplets": [], "arigraph_outdated": []}

    def responder(messages):
        prompt = messages[-1]["content"]
        if "Replacing:" in prompt:
            prompts["arigraph_outdated"].append(prompt)
            return "[]"
        if "Extracted triplets:" in prompt:
            prompts["arigraph_triplets"].append(prompt)
            return extraction_answer(prompt)
        return walkthrough(messages)

    estimates: list[int] = []
    path = tmp_path_factory.mktemp("budget") / "ariadne.jsonl"
    with LocalOpenAIServer(responder=responder, profile="llama.cpp", context_window=WINDOW) as server:
        policy = make_policy("ariadne", model="m", base_url=server.base_url, extractor="llm", similarity="bm25",
                             structured_output="off")
        env = policy.wrap_env(gym.make(GAME, max_episode_steps=6))
        result = run_episode(env, policy, seed=0, trajectory=path,
                             on_step=lambda *_: estimates.append(policy.llm.take_step_estimate()))
        leftover = policy.llm.take_step_estimate()
        env.close()
        policy.close()
    return result, read_trajectory(path), prompts, estimates, leftover


def test_ariadne_extraction_prompts_fit_the_window_and_trims_are_counted(ariadne_run):
    result, _, prompts, _, _ = ariadne_run
    stats = result["policy_stats"]
    assert stats["llm_errors"] == {} and stats["context_overflows"] == 0
    trims = stats["context_trims"]
    assert trims.get("example_triples", 0) > 0 and trims.get("existing_triples", 0) > 0
    for prompt in prompts["arigraph_triplets"] + prompts["arigraph_outdated"]:
        assert len(prompt.split()) + 1 + 512 <= WINDOW  # the server's count: words + one per message
    # the instructions and the new triples are never trimmed
    assert all("Guidelines for Building the Knowledge Graph" in p for p in prompts["arigraph_triplets"])
    assert all(re.search(r'New triplets: "[^"]+, [^"]+, [^"]+"', p) for p in prompts["arigraph_outdated"])


def test_ariadne_extraction_calls_are_counted_and_recorded_with_their_step(ariadne_run):
    result, trajectory, prompts, estimates, leftover = ariadne_run
    stats = result["policy_stats"]
    kinds = stats["calls_by_kind"]
    # one extraction per observation the memory reads: the reset and every primitive step
    assert kinds["arigraph_triplets"] == len(prompts["arigraph_triplets"]) == result["primitive_steps"] + 1
    assert kinds["arigraph_outdated"] == len(prompts["arigraph_outdated"]) > 0
    assert stats["calls"] == sum(kinds.values())
    records = [trajectory.reset] + trajectory.steps
    calls = [c for r in records for c in r["llm_calls"]]
    assert sum(c["kind"] in EXTRACTION for c in calls) == kinds["arigraph_triplets"] + kinds["arigraph_outdated"]
    for record in records:  # made during env.step of decision t (env.reset): in record t (the reset record)
        extraction = [c["prompt"] for c in record["llm_calls"] if c["kind"] == "arigraph_triplets"]
        assert extraction and f"Observation: {record['observation'].strip()}" in extraction[-1]
    # and in the step's prompt-token estimate (the reset's calls in step 1's)
    sent = sum(estimate_prompt_tokens([{"role": "user", "content": c["prompt"]}]) for c in calls)
    assert sum(estimates) + leftover == sent


def test_outdated_prompt_drops_the_least_relevant_existing_triples_and_is_untouched_when_it_fits():
    store = TripleStore()
    filler = [store.add(f"thing {i}", "is at", "far away place", 0) for i in range(60)]
    knife = store.add("knife", "is on", "table", 1)
    table = store.add("table", "is at", "kitchen", 2)
    existing = [store.triples[i] for i in [*filler, knife, table]]
    new = [("knife", "is in", "inventory"), ("table", "is at", "kitchen")]
    assert [t.id for t in relevance_order(existing, new)][:2] == [table, knife]
    prompts = []

    def answer(messages):
        prompts.append(messages[-1]["content"])
        return "[]"

    for window, profile in ((None, "local"), (1250, "llama.cpp")):
        with LocalOpenAIServer(responder=answer, profile=profile, context_window=window) as server:
            ask = ClientAsk(LLMClient(model="m", base_url=server.base_url, max_retries=0), max_tokens=512)
            LLMExtractor(ask).outdated(existing, new)
    full, fitted = prompts
    listed = full.split("Existing triplets: ")[1].split(".\nNew triplets")[0]
    assert listed == "; ".join(f'"{t.text()}"' for t in existing)  # the paper's template, filled as before
    assert len(fitted.split()) + 1 + 512 <= 1250 and ask.trims["existing_triples"] > 0
    kept = fitted.split("Existing triplets: ")[1].split(".\nNew triplets")[0]
    assert kept.endswith('"knife, is on, table"; "table, is at, kitchen"')  # shown in the memory's order
    assert '"thing 0, is at, far away place"' not in kept  # the oldest unrelated ones went first
    assert '"thing 59, is at, far away place"' in kept  # the newest unrelated ones stay longest
    assert 'New triplets: "knife, is in, inventory"; "table, is at, kitchen".' in fitted


def test_davis_extraction_and_qa_prompts_are_trimmed_by_their_priority():
    world = TemporalKG()
    for step in range(150):
        world.add(f"green spotted frog {step}", "is in", "outside", step, episode="train-0",
                  types={f"green spotted frog {step}": "object", "outside": "location"})
    prompts: list[str] = []

    def answer(messages):
        prompt = messages[-1]["content"]
        prompts.append(prompt)
        if "choose the entity types" in prompt:
            return json.dumps({"types": ["location", "object"], "entities": ["outside", "green spotted frog 149"]})
        if "Resolve coreferences" in prompt:
            return '```\n[["agent", "opened", "fridge", "person", "object"]]\n```'
        return "Go outside."

    # each observation fits as the one after the action; both together do not
    before = "This room is called the kitchen. " + "You see a very old cupboard. " * 60
    after = "You open the fridge. It contains milk. " + "The fridge hums quietly. " * 40
    with LocalOpenAIServer(responder=answer, profile="llama.cpp", context_window=900) as server:
        ask = ClientAsk(LLMClient(model="m", base_url=server.base_url, max_retries=0), max_tokens=256)
        memory = DAVISMemory("llm", llm=ask, world_model=world, max_facts=200)
        memory.update(before, "", {})
        memory.update(after, "open fridge", {})
        found = memory.graph_qa("Where is the frog 149?")
    assert not ask.failures and found.answer == "Go outside."
    assert all(len(p.split()) + 1 + 256 <= 900 for p in prompts)  # the server's count: words + one per message
    assert {"context", "entities", "facts"} <= set(ask.trims)
    extract = next(p for p in prompts if "Action: open fridge" in p)
    assert "Observation before: This room is called the kitchen. You see" in extract  # its start is kept
    assert f"Observation after: {after}" in extract  # never trimmed
    assert extract.count("You see a very old cupboard.") < 60
    select = next(p for p in prompts if "choose the entity types" in p)
    assert "Question: Where is the frog 149?" in select and "green spotted frog 149" in select
    qa = prompts[-1]
    assert "Question: Where is the frog 149?" in qa and "t=149] green spotted frog 149, is in, outside" in qa
    assert "t=0] green spotted frog 0," not in qa  # the oldest facts went first
