"""Key hygiene: a run with debug logging, faults, errors, a cache and a results file never writes the key."""

from __future__ import annotations

import json
import os
import pickle
import subprocess
import sys
import traceback
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.llm.conftest import TEST_KEY, USER
from textmem_gym.llm import Fault, LLMClient, LLMError, LocalOpenAIServer

pytestmark = pytest.mark.llm
REPO = Path(__file__).resolve().parents[2]

RUN = r'''
import json, logging, os, sys, traceback
from pathlib import Path
out = Path(sys.argv[1])
logging.basicConfig(filename=out / "run.log", level=logging.DEBUG, format="%(name)s %(levelname)s %(message)s")
from textmem_gym.llm import Fault, LLMClient, LLMError, LocalOpenAIServer
key = os.environ["OPENAI_API_KEY"]
errors, results = [], []
faults = [Fault("429", retry_after=0.01), "500", "malformed_json", Fault("500", times=3)]
with LocalOpenAIServer(api_key=key, faults=faults) as server:
    client = LLMClient(model="gpt-4o-mini", base_url=server.base_url, cache="record", backoff_base=0.01, max_retries=2)
    for prompt in ("first room", "second room", "third room"):
        try:
            results.append(client.chat([{"role": "user", "content": prompt}]).as_dict())
        except LLMError as err:
            traceback.print_exc()
            errors.append(repr(err))
    results.append({"vector": client.embed(["a b c"])[0][:4]})
    wrong = LLMClient(model="gpt-4o-mini", base_url=server.base_url, api_key=key + "-revoked", max_retries=0)
    try:
        wrong.chat([{"role": "user", "content": "hi"}])
    except LLMError as err:
        traceback.print_exc()
        errors.append(str(err))
replay = LLMClient(model="gpt-4o-mini", base_url="http://127.0.0.1:9/v1", cache="replay")
try:
    replay.chat([{"role": "user", "content": "never recorded"}])
except LLMError as err:
    traceback.print_exc()
    errors.append(str(err))
summary = {"results": results, "usage": client.usage.as_dict(), "client": repr(client), "errors": errors}
(out / "results.json").write_text(json.dumps(summary, indent=1))
print(json.dumps(summary))
'''


def test_no_file_written_by_a_run_contains_the_key(tmp_path: Path) -> None:
    out, home = tmp_path / "out", tmp_path / "home"
    out.mkdir()
    home.mkdir()
    env = {**os.environ, "OPENAI_API_KEY": TEST_KEY, "OPENAI_LOG": "debug", "HOME": str(home),
           "TEXTMEM_CACHE_DIR": str(tmp_path / "cache"), "PYTHONPATH": str(REPO)}
    with open(out / "stdout.txt", "w") as stdout, open(out / "stderr.txt", "w") as stderr:
        done = subprocess.run([sys.executable, "-c", RUN, str(out)], env=env, stdout=stdout, stderr=stderr,
                              cwd=tmp_path, timeout=120)
    assert done.returncode == 0, (out / "stderr.txt").read_text()
    written = [path for path in tmp_path.rglob("*") if path.is_file()]
    # The run really did write logs, tracebacks, results and cache rows...
    names = {path.name for path in written}
    assert {"run.log", "results.json", "stderr.txt", "responses.sqlite"} <= names
    log = (out / "run.log").read_text()
    assert "retrying" in log and "Authorization" not in log.replace("'authorization': '<redacted>'", "")
    stderr_text = (out / "stderr.txt").read_text()
    assert stderr_text.count("LLMError") >= 3 and "http_401" in stderr_text and "replay cache miss" in stderr_text
    # ... and none of it holds the key (nor the revoked variant of it).
    leaks = [str(path) for path in written if TEST_KEY.encode() in path.read_bytes()]
    assert leaks == []


def test_llm_error_traceback_and_chain_hold_no_key(make_client: Callable[..., LLMClient]) -> None:
    with LocalOpenAIServer(faults=[Fault("500", times=2)]) as server:
        client = make_client(server, max_retries=1)
        with pytest.raises(LLMError) as info:
            client.chat(USER)
    text = "".join(traceback.format_exception(info.value))
    assert "server_error" in text and TEST_KEY not in text
    assert info.value.__context__ is None and info.value.__cause__ is None
    assert TEST_KEY not in repr(info.value) and TEST_KEY not in str(vars(info.value))


def test_credentials_in_server_messages_and_urls_are_redacted(make_client: Callable[..., LLMClient]) -> None:
    def responder(messages: list[dict[str, str]]) -> str:
        raise RuntimeError(f"bad key {TEST_KEY} and sk-other-0123456789abcdef")

    with LocalOpenAIServer(responder=responder) as server:
        base_url = server.base_url.replace("http://", "http://user:hunter2@")
        client = make_client(server, base_url=base_url)
        with pytest.raises(LLMError) as info:
            client.chat(USER)
    message = str(info.value)
    assert "responder raised RuntimeError" in message and "***" in message
    assert TEST_KEY not in message and "sk-other" not in message and "hunter2" not in message
    assert "hunter2" not in repr(client)


def test_dumping_the_client_state_shows_no_key(server: LocalOpenAIServer,
                                              make_client: Callable[..., LLMClient]) -> None:
    client = make_client(server)
    client.chat(USER)
    dumped = json.dumps(vars(client), default=repr) + repr(vars(client)) + str(vars(client))
    assert "test-model" in dumped and TEST_KEY not in dumped
    with pytest.raises(TypeError, match="credential"):
        pickle.dumps(client._api_key)
