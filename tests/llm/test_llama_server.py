"""A real model through the real client: llama.cpp's server (llama-cpp-python) on SmolLM2-135M-Instruct.

The tests that start the server are marked ``real_llm`` (left out of the default run):
``make test-real-llm`` installs what they need; without it they skip, saying what is missing.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from pathlib import Path

import jsonschema
import pytest

from tests.llm.conftest import TEST_KEY
from textmem_gym.llm import ContextLengthError, LlamaCppServer, LLMClient, LocalModelMissingError, smollm2_path
from textmem_gym.llm.llama_server import missing_server_modules


def _missing() -> str | None:
    modules = missing_server_modules()
    if modules:
        return f"llama-cpp-python[server] is not installed (missing {', '.join(modules)}): run make test-real-llm"
    try:
        smollm2_path()
    except LocalModelMissingError as exc:
        return str(exc)
    return None


MISSING = _missing()
needs_model = pytest.mark.skipif(MISSING is not None, reason=MISSING or "")
needs_server = pytest.mark.skipif(bool(missing_server_modules()), reason="llama-cpp-python[server] is not installed: "
                                  "run make test-real-llm")

SYSTEM = ("You play a text adventure. Choose the next command from the admissible commands. "
          'Answer in JSON: {"reason": "...", "action": "<one admissible command>"}.')
ROOMS = [
    ("You are in the kitchen. A fridge is closed. A knife lies on the table.",
     ["open fridge", "take knife from table", "go east", "look"]),
    ("You are in the corridor. Doors lead north and south.", ["go north", "go south", "inventory", "look"]),
    ("You are in the pantry. A shelf holds a red apple.", ["take red apple from shelf", "go west", "look"]),
    ("You are in the garden. A gate is locked.", ["unlock gate with key", "go north", "examine gate"]),
    ("You are in the bedroom. A chest stands closed.", ["open chest", "go south", "look", "inventory"]),
]


def decision_schema(commands: list[str]) -> dict[str, object]:
    """The answer schema of one decision: a reason and one of the admissible commands."""
    return {"type": "object", "properties": {"reason": {"type": "string", "maxLength": 200},
                                             "action": {"type": "string", "enum": commands}},
            "required": ["reason", "action"], "additionalProperties": False}


def room_prompt(observation: str, commands: list[str]) -> list[dict[str, str]]:
    """The messages of one decision."""
    return [{"role": "system", "content": SYSTEM},
            {"role": "user", "content": f"{observation}\nAdmissible commands: {', '.join(commands)}\nNext command?"}]


@pytest.fixture(scope="module")
def server() -> Iterator[LlamaCppServer]:
    """SmolLM2-135M behind llama.cpp's server, requiring an API key."""
    if MISSING is not None:
        pytest.skip(MISSING)
    with LlamaCppServer(smollm2_path(), api_key=TEST_KEY) as srv:
        yield srv


@pytest.fixture
def client(server: LlamaCppServer) -> Iterator[LLMClient]:
    """A client of the real server (its context window as the server was started)."""
    with LLMClient(model=server.model_alias, base_url=server.base_url, api_key=TEST_KEY, timeout=120.0,
                   context_window=server.context_window) as llm:
        yield llm


@pytest.mark.real_llm
@needs_model
def test_structured_answers_name_an_admissible_command(client: LLMClient) -> None:
    for observation, commands in ROOMS:
        schema = decision_schema(commands)
        result = client.chat(room_prompt(observation, commands), schema=schema, schema_name="decision",
                             max_tokens=120)
        answer = json.loads(result.text)
        jsonschema.validate(answer, schema)
        assert answer["action"] in commands
        assert result.structured == "json_object_schema" and not result.tokens_estimated
    assert client.structured_mode == "json_object_schema"


@pytest.mark.real_llm
@needs_model
def test_server_kind_window_and_exact_token_count(client: LLMClient, server: LlamaCppServer) -> None:
    messages = room_prompt(*ROOMS[0])
    count, exact = client.count_tokens(messages)
    used = client.chat(messages, max_tokens=8).prompt_tokens
    assert client.server_info.kind == "llama-cpp-python"
    assert client.context_window == server.context_window == 8192
    assert (count, exact) == (used, True)


@pytest.mark.real_llm
@needs_model
def test_overlong_prompt_is_a_context_length_error(server: LlamaCppServer) -> None:
    with LLMClient(model=server.model_alias, base_url=server.base_url, api_key=TEST_KEY, timeout=120.0) as client:
        assert client.context_window is None  # llama-cpp-python states no window before an overflow
        with pytest.raises(ContextLengthError) as caught:
            client.chat([{"role": "user", "content": "go north and look around. " * 2000}], max_tokens=16)
        assert client.context_window == 8192  # stated by the error
    assert caught.value.attempts == 1 and caught.value.requested_tokens is not None
    assert caught.value.requested_tokens > 8192


@pytest.mark.real_llm
@needs_model
def test_the_key_is_never_written(server: LlamaCppServer, tmp_path: Path) -> None:
    log_file = tmp_path / "run.log"
    handler = logging.FileHandler(log_file)
    logger = logging.getLogger()
    logger.addHandler(handler)
    old_level = logger.level
    logger.setLevel(logging.DEBUG)
    try:
        with LLMClient(model=server.model_alias, base_url=server.base_url, api_key=TEST_KEY, cache="record",
                       cache_path=tmp_path / "responses.sqlite", timeout=120.0) as client:
            observation, commands = ROOMS[1]
            result = client.chat(room_prompt(observation, commands), schema=decision_schema(commands), max_tokens=80)
            client.count_tokens(room_prompt(observation, commands))
            with pytest.raises(ContextLengthError) as caught:
                client.chat([{"role": "user", "content": "look " * 9000}], max_tokens=8)
    finally:
        logger.removeHandler(handler)
        logger.setLevel(old_level)
        handler.close()
    written = [log_file.read_text(), (tmp_path / "responses.sqlite").read_bytes().decode("latin-1"),
               server.log_tail(lines=100_000), json.dumps(result.as_dict()), str(caught.value), repr(client),
               " ".join(server.command())]
    assert "chat completion" in written[0] or "POST" in written[0]  # the log did record the run
    assert all(TEST_KEY not in text for text in written)


@pytest.mark.real_llm
@needs_server
def test_a_broken_model_file_fails_with_the_server_log(tmp_path: Path) -> None:
    broken = tmp_path / "broken.gguf"
    broken.write_bytes(b"not a gguf file")
    server = LlamaCppServer(broken, startup_timeout=120.0)
    with pytest.raises(RuntimeError, match="exited with code"):
        server.start()
    assert server.process is None


def test_a_missing_model_file_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(LocalModelMissingError, match="model file not found"):
        LlamaCppServer(tmp_path / "absent.gguf")
