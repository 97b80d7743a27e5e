"""``textmem-gym serve-llm``'s scoring route on the real SmolLM2-135M (marked ``real_llm``: ``make test-real-llm``).

The route's log-probabilities are checked against a direct computation from the model's logits
(a ``logits_all`` llama-cpp-python ``Llama`` on the same tokens), with and without a BOS token; the
server keeps serving chat and structured outputs, and refuses wrong scoring requests with a 400.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from typing import Any

import httpx
import jsonschema
import numpy as np
import pytest

from tests.llm.test_llama_server import MISSING, ROOMS, decision_schema, room_prompt
from textmem_gym.llm import ContextLengthError, LLMClient, LocalModelMissingError, smollm2_path
from textmem_gym.llm.scoring_server import PromptScorer, ScoringServer, log_softmax

PROMPT = ("This room is called the kitchen. In it, you see: a fridge, a stove, an orange, a counter.\n"
          "Your task is to find a living thing.\n> look around\nThis room is called the kitchen.\n>")
CANDIDATES = [" open fridge", " focus on orange", " go to hallway", " look around", " pick up orange"]
needs_server = pytest.mark.skipif(MISSING is not None, reason=MISSING or "")
pytestmark = pytest.mark.real_llm


def _scorer_missing() -> str | None:
    if importlib.util.find_spec("llama_cpp") is None:
        return "llama-cpp-python is not installed: run make test-real-llm"
    try:
        smollm2_path()
    except LocalModelMissingError as exc:
        return str(exc)
    return None


needs_scorer = pytest.mark.skipif(_scorer_missing() is not None, reason=_scorer_missing() or "")


@pytest.fixture(scope="module")
def direct() -> Iterator[Any]:
    """SmolLM2 keeping the logits of every token (``logits_all``): the reference computation."""
    import llama_cpp

    llama = llama_cpp.Llama(str(smollm2_path()), n_ctx=512, logits_all=True, verbose=False, n_threads=1,
                            n_threads_batch=1)  # one thread: two spin against each other on shared cores
    yield llama
    llama.close()


def direct_logprobs(llama: Any, tokens: list[int]) -> list[float]:
    """Each token's log-probability after the tokens before it, from the model's logits."""
    llama.reset()
    llama.eval(tokens)
    rows = log_softmax(np.asarray(llama.scores[:len(tokens) - 1]))
    return [float(rows[i - 1][tokens[i]]) for i in range(1, len(tokens))]


@pytest.fixture(scope="module")
def scorers() -> Iterator[dict[bool, PromptScorer]]:
    """The scorer without and with a BOS token."""
    made = {bos: PromptScorer(smollm2_path(), n_ctx=1024, add_bos=bos, threads=1) for bos in (False, True)}
    yield made
    for scorer in made.values():
        scorer.close()


@needs_scorer
@pytest.mark.parametrize("bos", [False, True])
def test_route_logprobs_agree_with_the_model_logits(scorers: dict[bool, PromptScorer], direct: Any,
                                                    bos: bool) -> None:
    scorer = scorers[bos]
    assert (scorer.tokenize("look")[0] == scorer.bos) is bos  # SmolLM2's tokenizer adds none by itself
    for candidate in CANDIDATES:  # the prompt from the cache after the first candidate
        tokens = scorer.tokenize(PROMPT + candidate)
        scored, _ = scorer.score_tokens(tokens, top=1)
        expected = direct_logprobs(direct, tokens)
        assert scored[0].logprob is None
        got = [s.logprob for s in scored[1:]]
        assert np.allclose(got, expected, atol=1e-3), (candidate, np.max(np.abs(np.subtract(got, expected))))


@needs_scorer
def test_candidates_are_evaluated_from_the_cached_prompt(scorers: dict[bool, PromptScorer]) -> None:
    scorer = scorers[False]
    first = scorer.choice(PROMPT + CANDIDATES[0], 1, 0)[0]["logprobs"]
    before = scorer.evaluated_tokens
    again = scorer.choice(PROMPT + CANDIDATES[1], 1, 0)[0]["logprobs"]
    prompt_tokens = len(scorer.tokenize(PROMPT))
    assert scorer.evaluated_tokens - before <= len(scorer.tokenize(CANDIDATES[1])) + 2  # not the prompt again
    assert again["token_logprobs"][:prompt_tokens - 1] == first["token_logprobs"][:prompt_tokens - 1]
    assert "".join(again["tokens"]) == PROMPT + CANDIDATES[1]
    assert (PROMPT + CANDIDATES[1])[again["text_offset"][-1]:] == again["tokens"][-1]


@pytest.fixture(scope="module")
def server() -> Iterator[ScoringServer]:
    """SmolLM2 behind ``textmem-gym serve-llm``'s server."""
    with ScoringServer(smollm2_path(), n_ctx=2048, threads=1) as srv:
        yield srv


@needs_server
def test_the_client_scores_commands_and_chat_still_works(server: ScoringServer) -> None:
    with LLMClient(model=server.model_alias, base_url=server.base_url, timeout=120.0,
                   context_window=server.context_window) as client:
        scored = client.prompt_logprobs(PROMPT + CANDIDATES[0])
        observation, commands = ROOMS[0]
        schema = decision_schema(commands)
        answer = client.chat(room_prompt(observation, commands), schema=schema, schema_name="decision",
                             max_tokens=120)
        with pytest.raises(ContextLengthError):
            client.prompt_logprobs("look around. " * 1200)
    value = scored.continuation(len(PROMPT), len(PROMPT) + len(CANDIDATES[0]))
    assert value is not None and -40.0 < value < 0.0
    jsonschema.validate(answer.json().value, schema)


@needs_server
@pytest.mark.parametrize("body", [
    {"prompt": "look", "echo": True, "max_tokens": 9, "logprobs": 1},
    {"prompt": "look", "echo": True, "max_tokens": 0, "logprobs": 21},
    {"prompt": ["look", 3], "echo": True, "max_tokens": 0},
])
def test_a_wrong_scoring_request_is_a_400(server: ScoringServer, body: dict[str, object]) -> None:
    reply = httpx.post(server.base_url + "/completions", json={"model": server.model_alias, **body}, timeout=30.0)
    assert reply.status_code == 400 and reply.json()["error"]["message"]


@needs_server
def test_a_prompt_list_is_scored_in_one_request(server: ScoringServer) -> None:
    reply = httpx.post(server.base_url + "/completions", json={
        "model": server.model_alias, "prompt": [PROMPT + c for c in CANDIDATES[:3]], "echo": True, "max_tokens": 0,
        "logprobs": 2}, timeout=120.0).json()
    assert [c["text"] for c in reply["choices"]] == [PROMPT + c for c in CANDIDATES[:3]]
    top = reply["choices"][0]["logprobs"]["top_logprobs"]
    assert top[0] is None and all(len(t) == 2 for t in top[1:])
