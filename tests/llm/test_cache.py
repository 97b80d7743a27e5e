"""Response cache: record/replay/readwrite/off, exact replays at zero cost, several writer processes."""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.llm.conftest import USER, ask
from textmem_gym.llm import CacheMissError, Fault, LLMClient, LLMError, LocalOpenAIServer, ResponseCache

pytestmark = pytest.mark.llm
MakeClient = Callable[..., LLMClient]
PRICES = {"test-model": (1.0, 2.0)}


def _run_session(client: LLMClient) -> tuple[list[tuple[object, ...]], list[list[float]]]:
    """A small 'run': greedy calls, repeated sampled calls and an embedding."""
    results = [client.chat(USER), client.chat(ask("sample"), temperature=0.7),
               client.chat(ask("sample"), temperature=0.7), client.chat(USER, max_tokens=5)]
    fields = [(r.text, r.prompt_tokens, r.completion_tokens, r.tokens_estimated, r.model, r.finish_reason)
              for r in results]
    return fields, client.embed(["the red apple", "a door"])


def test_record_then_replay_is_identical_free_and_needs_no_server(tmp_path: Path, make_client: MakeClient) -> None:
    cache_file = tmp_path / "run.sqlite"
    with LocalOpenAIServer(script=["greedy", "sample A", "sample B", "short"]) as server:
        recorder = make_client(server, cache="record", cache_path=cache_file, prices=PRICES)
        recorded = _run_session(recorder)
        assert server.calls == 5
    dead_url = server.base_url  # stopped: any network call would fail
    replayer = make_client(server, base_url=dead_url, cache="replay", cache_path=cache_file, prices=PRICES,
                           max_retries=0)
    replayed = _run_session(replayer)
    assert replayed == recorded
    assert [text for text, *_ in recorded[0]] == ["greedy", "sample A", "sample B", "short"]
    live, free = recorder.usage.as_dict(), replayer.usage.as_dict()
    assert live["cost_usd"] > 0 and free["cost_usd"] == 0
    assert free["cache_hits"] == free["calls"] == 5 and live["cache_hits"] == 0
    assert (free["prompt_tokens"], free["completion_tokens"]) == (live["prompt_tokens"], live["completion_tokens"])


def test_cached_results_are_marked_and_cost_nothing(tmp_path: Path, make_client: MakeClient) -> None:
    with LocalOpenAIServer() as server:
        client = make_client(server, cache="readwrite", cache_path=tmp_path / "c.sqlite", prices=PRICES)
        first, second = client.chat(USER), client.chat(USER)
        assert server.calls == 1
    assert (first.cached, second.cached) == (False, True)
    assert first.cost_usd == pytest.approx((10 * 1.0 + 10 * 2.0) / 1e6) and second.cost_usd == 0.0
    assert second.text == first.text and second.retries == 0


def test_replay_miss_names_the_missing_prompt(tmp_path: Path, make_client: MakeClient) -> None:
    with LocalOpenAIServer() as server:
        client = make_client(server, cache="replay", cache_path=tmp_path / "empty.sqlite")
        with pytest.raises(CacheMissError) as info:
            client.chat(ask("Where is the golden key hidden?"))
        assert server.calls == 0
    message = str(info.value)
    assert "Where is the golden key hidden?" in message and "replay" in message and "test-model" in message
    assert isinstance(info.value, LLMError) and client.usage.failures == {"cache_miss": 1}


@pytest.mark.parametrize(
    ("first", "second", "hit"),
    [({}, {}, True),
     ({}, {"temperature": 0.2}, False),
     ({}, {"max_tokens": 7}, False),
     ({}, {"top_p": 0.5}, False),
     ({"extra_headers": {"X-Trace": "1"}}, {"extra_headers": {"X-Trace": "2"}}, True)],
)
def test_readwrite_keys_on_sampling_parameters_not_transport(tmp_path: Path, make_client: MakeClient,
                                                             first: dict[str, object], second: dict[str, object],
                                                             hit: bool) -> None:
    with LocalOpenAIServer() as server:
        client = make_client(server, cache="readwrite", cache_path=tmp_path / "c.sqlite")
        client.chat(USER, **first)
        assert client.chat(USER, **second).cached is hit
        assert server.calls == (1 if hit else 2)


def test_model_and_messages_are_part_of_the_key(tmp_path: Path, make_client: MakeClient) -> None:
    path = tmp_path / "c.sqlite"
    with LocalOpenAIServer() as server:
        make_client(server, cache="readwrite", cache_path=path).chat(USER)
        assert make_client(server, cache="readwrite", cache_path=path, model="other").chat(USER).cached is False
        assert make_client(server, cache="readwrite", cache_path=path).chat(ask("other")).cached is False
        assert make_client(server, cache="readwrite", cache_path=path).chat(USER).cached is True
        assert server.calls == 3


def test_record_overwrites_and_failures_are_never_cached(tmp_path: Path, make_client: MakeClient) -> None:
    path = tmp_path / "c.sqlite"
    with LocalOpenAIServer(script=["old", "new"], faults=[None, Fault("500", times=2)]) as server:
        make_client(server, cache="record", cache_path=path).chat(USER)
        with pytest.raises(LLMError):
            make_client(server, cache="record", cache_path=path, max_retries=1).chat(USER)
        assert make_client(server, cache="replay", cache_path=path).chat(USER).text == "old"
        make_client(server, cache="record", cache_path=path).chat(USER)
    assert make_client(server, cache="replay", cache_path=path).chat(USER).text == "new"
    assert len(ResponseCache(path)) == 1


def test_off_writes_nothing_and_default_path_is_in_the_cache_dir(tmp_path: Path, make_client: MakeClient) -> None:
    default_file = tmp_path / "cache" / "llm" / "responses.sqlite"  # TEXTMEM_CACHE_DIR is tmp_path/cache
    with LocalOpenAIServer() as server:
        make_client(server).chat(USER)
        assert not default_file.exists()
        client = make_client(server, cache="readwrite")
        client.chat(USER)
    assert client.cache_path == default_file and len(ResponseCache(default_file)) == 1


def test_cache_path_may_be_a_directory(tmp_path: Path, make_client: MakeClient) -> None:
    with LocalOpenAIServer() as server:
        client = make_client(server, cache="readwrite", cache_path=tmp_path)
        client.chat(USER)
    assert client.cache_path == tmp_path / "responses.sqlite" and client.cache_path.exists()


def test_unknown_cache_mode_is_rejected(server: LocalOpenAIServer) -> None:
    with pytest.raises(ValueError, match="unknown cache mode"):
        LLMClient(model="m", base_url=server.base_url, cache="sometimes")


def _writer(worker: int, path: str, urls: Any, results: Any) -> None:
    """One writer process: chats through a readwrite cache and writes rows directly."""
    client = LLMClient(model="m", base_url=urls.get(timeout=60), cache="readwrite", cache_path=path, timeout=10)
    texts = {}
    for i in range(15):
        for prompt in (f"shared {i}", f"worker {worker} prompt {i}"):
            texts[prompt] = client.chat(ask(prompt)).text
    direct = ResponseCache(path)
    for i in range(150):
        direct.put(f"direct-{worker}-{i}", kind="test", model="m", request={}, response={"i": i})
    results.put(texts)


def test_several_processes_share_one_cache_file(tmp_path: Path, make_client: MakeClient) -> None:
    # Forked before the server thread starts, so the children skip re-importing openai (~2 s each).
    context = multiprocessing.get_context("fork")
    urls, results = context.Queue(), context.Queue()
    path = str(tmp_path / "shared.sqlite")
    workers = [context.Process(target=_writer, args=(w, path, urls, results)) for w in range(3)]
    for worker in workers:
        worker.start()
    with LocalOpenAIServer() as server:
        for _ in workers:
            urls.put(server.base_url)
        texts: dict[str, str] = {}
        for _ in workers:
            texts.update(results.get(timeout=120))
        for worker in workers:
            worker.join(timeout=30)
        served = server.calls
    assert [worker.exitcode for worker in workers] == [0, 0, 0]
    assert len(texts) == 15 + 3 * 15
    assert len(ResponseCache(path)) == 15 + 3 * 15 + 3 * 150
    assert 60 <= served <= 90  # shared prompts may race, but nothing is lost
    replayer = make_client(server, model="m", cache="replay", cache_path=path)
    assert {prompt: replayer.chat(ask(prompt)).text for prompt in texts} == texts
    assert all(text == f"echo: {prompt}" for prompt, text in texts.items())
