"""STMA's LLM calls fit the model's context window: the memory's summarizer, relation retriever
and aggregator (standalone, through a ClientAsk) and the policy's calls (trims counted in its
stats, the current observation kept), with the entity similarity the endpoint allows recorded.
Against the real local OpenAI-compatible server, which states its window (llama.cpp profile:
``/props`` and an exact tokenizer) and answers HTTP 400 beyond it."""

from __future__ import annotations

import json

import pytest

from policies import make_policy
from textmem_gym.llm import Fault, LLMClient, LocalOpenAIServer
from textmem_gym.llm.calls import ClientAsk
from textmem_gym.memory.stma.memory import PROMPTS, STMAMemory
from textmem_gym.runner import EvalConfig, evaluate

pytestmark = pytest.mark.llm

WINDOW = 1000
MAX_TOKENS = 100
#: Fits the planner and critic instructions, not their full memory sections nor the retriever's belief.
POLICY_WINDOW = 1300
SUMMARY = "Summarize the robots history"
RELATIONS = "extracting only the spatial relationships"
AGGREGATE = "reconstruct the environment"


class Growing:
    """Answers that make every growing section grow: a long belief, 30 new relations per call."""

    def __init__(self, sentences: int = 40, printed: bool = False) -> None:
        self.sentences, self.printed = sentences, printed
        self.prompts: dict[str, list[str]] = {SUMMARY: [], RELATIONS: [], AGGREGATE: []}
        self.things = 0

    def __call__(self, messages: list[dict[str, str]]) -> str:
        prompt = messages[-1]["content"]
        kind = next(k for k in self.prompts if k.lower() in prompt.lower())
        self.prompts[kind].append(prompt)
        if kind == SUMMARY:
            return " ".join(f"At step {i} the robot looked at thing number {i}." for i in range(self.sentences))
        if kind == RELATIONS and self.printed:  # pairs of the entities the prompt lists (the game printed them)
            entities = json.loads(prompt.split("Entity:\n")[1].split("\n")[0])
            pairs = [(a, b) for a in entities for b in entities if a != b]
            self.things += 30
            chosen = [pairs[i % len(pairs)] for i in range(self.things - 30, self.things)]
            return json.dumps([[a, "is near", b] for a, b in chosen])
        if kind == RELATIONS:
            self.things += 30
            return "[" + ", ".join(f'["thing{i}", "is in", "kitchen"]' for i in range(self.things - 30, self.things)) + "]"
        return "The kitchen holds many things."


def observation(step: int) -> str:
    """Prints the 30 things the relation retriever names at this step (memory hygiene keeps only
    names the game printed) among 50 filler words."""
    things = " ".join(f"thing{30 * step + i}" for i in range(30))
    return f"-= Kitchen =-\nStep {step}. {things} " + " ".join(f"word{step}x{i}" for i in range(50)) + " You see a stove."


def test_memory_prompts_fit_the_window_by_the_stated_priority():
    answers = Growing()
    with LocalOpenAIServer(responder=answers, profile="llama.cpp", context_window=WINDOW) as server:
        client = LLMClient(model="m", base_url=server.base_url, timeout=5, max_retries=0)
        ask = ClientAsk(client, max_tokens=MAX_TOKENS)
        memory = STMAMemory("llm", llm=ask)
        for step in range(8):
            memory.update(observation(step), f"look {step}" if step else "", {"objective": "Cook the meal."})
            memory.spatial_belief("kitchen")
        client.close()
    assert memory.llm_failures == 0 and ask.failures == {}
    assert set(ask.trims) == {"trajectory", "temporal_belief", "entities", "relations"}
    prompts = answers.prompts
    for prompt in sum(prompts.values(), []):
        assert len(prompt.split()) + 1 + MAX_TOKENS <= WINDOW  # the server's count: words + one per message
    first = PROMPTS.render("summarizer", goal="Cook the meal.",
                           trajectory=f"Observation:\n{observation(0)}\nFeedBack:\n(none)")
    assert prompts[SUMMARY][0] == first  # nothing trimmed: the untrimmed prompt, byte for byte
    for step, prompt in enumerate(prompts[SUMMARY]):  # instructions, goal and observation kept
        assert "**Instructions:**" in prompt and "Goal of the robot: Cook the meal." in prompt
        assert f"Observation:\n{observation(step)}\nFeedBack:\n(none)\n```" in prompt
    assert "Observation:\n-= Kitchen =-\nStep 0." not in prompts[SUMMARY][-1]  # the oldest record went first
    last = prompts[RELATIONS][-1]
    assert last.rstrip().endswith("output:") and '"kitchen"' in last and '"stove"' in last  # this step's entities
    # the oldest sentences of the belief went first, then entities not met in this step
    assert any("thing number 39." in p and "thing number 0." not in p for p in prompts[RELATIONS])
    assert "Paragraph:\n\nEntity:" in last and '"thing0"' not in last and '"thing209"' in last
    aggregated = prompts[AGGREGATE][-1]
    assert '["thing239", "is in", "kitchen"]' in aggregated and '"thing0"' not in aggregated  # newest kept


@pytest.mark.parametrize("embeddings", [True, False])
def test_policy_fits_its_calls_and_records_the_similarity(embeddings):
    # on a real game: names the game printed (hygiene keeps them); a belief longer than the window
    answers, sent = Growing(sentences=120, printed=True), []

    def answer(messages: list[dict[str, str]]) -> str:
        prompt = messages[-1]["content"]
        sent.append(prompt)
        if "central processor of a robot" in prompt:
            return 'Plan:\n```YAML\nSubgoal: "look"\nAction Plan:\n- "look"\n- "inventory"\n```'
        if "critically evaluating" in prompt:
            return "Action Suitability: True\nFeedback: ok"
        return answers(messages)

    def refuse_embeddings(index: int, body: dict) -> Fault | None:
        return None if embeddings or "input" not in body else Fault("500", status=404)

    with LocalOpenAIServer(responder=answer, profile="llama.cpp", context_window=POLICY_WINDOW,
                           faults=refuse_embeddings) as server:
        policy = make_policy("stma", model="m", base_url=server.base_url, structured_output="off",
                             max_tokens=MAX_TOKENS, max_retries=0)
        result = evaluate("TextMem/CookingRL-L1-v0", policy, EvalConfig(max_steps=5))[0]
        room = policy.memory.location
        found = policy.memory.retrieve(f"where is the {room}")
        policy.close()
    stats = result["policy_stats"]
    assert stats["llm_errors"] == {} and stats["context_overflows"] == 0 and stats["memory_llm_failures"] == 0
    assert stats["context_trims"]["temporal_belief"] > 0  # the memory's relation retriever, through the policy
    assert stats["context_trims"]["temporal_memory"] > 0 and stats["context_trimmed_calls"] > 0  # its planner
    assert all(len(prompt.split()) + 1 + MAX_TOKENS <= POLICY_WINDOW for prompt in sent)
    plans = [prompt for prompt in sent if "central processor of a robot" in prompt]
    assert plans and all(prompt.split("**Current observation:**\n")[1].strip() for prompt in plans)
    assert stats["calls"] == sum(stats["calls_by_kind"].values()) + stats["embedding_calls"]  # every call accounted
    assert result["policy_config"]["similarity"] == "auto"
    assert stats["similarity"] == ("openai" if embeddings else "bm25")
    assert (stats["embedding_calls"] > 0) == embeddings
    assert room and any(room in (t.subject, t.object) for t in policy.memory.rank(f"where is the {room}")[:1])
    assert found == sorted(found, key=lambda t: t.id)  # retrieve: oldest first
