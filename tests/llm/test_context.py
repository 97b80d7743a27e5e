"""Context windows, token counts and context-length errors, against the local server passing for each server kind."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.llm.conftest import TEST_KEY, ask
from textmem_gym.llm import ContextLengthError, LLMClient, LocalOpenAIServer
from textmem_gym.llm.errors import is_context_length_message
from textmem_gym.llm.prompts import chatml, estimate_with_margin
from textmem_gym.llm.testing.exchange import count_words

pytestmark = pytest.mark.llm

MakeClient = Callable[..., LLMClient]
GAME = [{"role": "system", "content": "You play a text game. Answer with one command."},
        {"role": "user", "content": "You are in a kitchen. There is a fridge here. Exits: east, north."}]
LONG = ask("word " * 80)

#: Context-length messages as the real servers word them (from their sources and bug reports).
REAL_MESSAGES = {
    "openai": ("This model's maximum context length is 8192 tokens. However, your messages resulted in 9012 "
               "tokens. Please reduce the length of the messages.", 8192, 9012),
    "vllm": ("This model's maximum context length is 2048 tokens. However, you requested 2148 tokens (2048 in "
             "the messages, 100 in the completion). Please reduce the length of the messages or completion.",
             2048, 2148),
    "vllm-v1": ("'max_tokens' or 'max_completion_tokens' is too large: 512. This model's maximum context "
                "length is 4096 tokens and your request has 3900 input tokens (512 > 4096 - 3900).", 4096, 3900),
    "vllm-long-prompt": ("The decoder prompt (length 5000) is longer than the maximum model length of 4096. "
                         "Make sure that `max_model_len` is no smaller than the number of text tokens.", 4096, 5000),
    "llama.cpp": ("the request exceeds the available context size, try increasing it (n_prompt_tokens=9100, "
                  "n_ctx=8192)", 8192, 9100),
    "llama-cpp-python-raw": ("Requested tokens (9100) exceed context window of 8192", 8192, 9100),
}


@pytest.mark.parametrize(("profile", "stated"), [
    ("local", None), ("openai", None), ("vllm", 300), ("llama.cpp", 300), ("llama-cpp-python", None),
])
def test_context_window_is_read_where_the_server_states_it(
        make_client: MakeClient, profile: str, stated: int | None) -> None:
    with LocalOpenAIServer(profile=profile, context_window=300) as server:
        assert make_client(server).context_window == stated
        assert make_client(server, context_window=1000).context_window == 1000  # given wins


@pytest.mark.parametrize("profile", ["openai", "vllm", "llama.cpp", "llama-cpp-python"])
def test_context_length_error_is_distinct_and_not_retried(make_client: MakeClient, profile: str) -> None:
    with LocalOpenAIServer(profile=profile, context_window=50) as server:
        client = make_client(server, max_retries=3)
        with pytest.raises(ContextLengthError) as caught:
            client.chat(LONG, max_tokens=10)
        assert server.calls == 1
        assert client.chat(ask("short prompt"), max_tokens=10).text == "echo: short prompt"
    error = caught.value
    assert (error.status, error.last_fault, error.attempts, error.context_window) == (400, "context_length", 1, 50)
    assert error.requested_tokens in (81, 91)  # prompt alone (llama.cpp) or prompt + max_tokens
    assert client.context_window == 50  # learned from the error where the server states nothing else
    assert client.usage.as_dict()["failures"] == {"context_length": 1}
    assert TEST_KEY not in str(error) and TEST_KEY not in repr(error)


def test_a_prompt_that_fits_is_answered(make_client: MakeClient) -> None:
    with LocalOpenAIServer(profile="vllm", context_window=50) as server:
        result = make_client(server).chat(ask("word " * 30), max_tokens=10)
    assert result.prompt_tokens == 31


@pytest.mark.parametrize("name", sorted(REAL_MESSAGES))
def test_real_servers_wording_is_recognised(name: str) -> None:
    message, window, requested = REAL_MESSAGES[name]
    error = ContextLengthError(message)
    assert is_context_length_message(message)
    assert (error.context_window, error.requested_tokens) == (window, requested)


@pytest.mark.parametrize("message", [
    "you must provide a model parameter", "Incorrect API key provided.", "Rate limit reached for requests",
    "response_format: structured output of type 'json_schema' is not supported by this server",
])
def test_other_errors_are_not_context_errors(message: str) -> None:
    assert not is_context_length_message(message)


def test_llama_cpp_counts_exactly_with_its_template_and_tokenizer(make_client: MakeClient) -> None:
    with LocalOpenAIServer(profile="llama.cpp") as server:
        client = make_client(server)
        counted = client.count_tokens(GAME)
        used = client.chat(GAME).prompt_tokens
    assert counted == (used, True)


def test_llama_cpp_python_counts_chatml_with_its_tokenizer(make_client: MakeClient) -> None:
    with LocalOpenAIServer(profile="llama-cpp-python") as server:
        counted = make_client(server).count_tokens(GAME)
    assert counted == (count_words(chatml(GAME)), True)


@pytest.mark.parametrize("profile", ["local", "openai", "vllm"])
def test_servers_without_a_tokenizer_get_the_stated_estimate(make_client: MakeClient, profile: str) -> None:
    with LocalOpenAIServer(profile=profile) as server:
        count, exact = make_client(server).count_tokens(GAME)
    text_chars = sum(len(m["content"]) for m in GAME)
    assert (count, exact) == (estimate_with_margin(GAME), False)
    assert count >= text_chars / 4  # errs on the long side


def test_replay_counts_without_a_server(tmp_path: object) -> None:
    client = LLMClient(model="m", base_url="http://127.0.0.1:9/v1", cache="replay")
    assert client.count_tokens(GAME) == (estimate_with_margin(GAME), False)
    assert client.context_window is None and client.structured_mode == "json_schema"
    client.close()


def test_given_window_must_be_positive() -> None:
    with pytest.raises(ValueError, match="context_window=0"):
        LLMClient(model="m", base_url="http://127.0.0.1:9/v1", context_window=0)
