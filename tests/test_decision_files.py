"""``benchmarks/decision_files.py``'s trace counts every project file whose code runs: properties, generator
resumptions, generated dataclass and ``NamedTuple`` methods, module code run again, threads started while
tracing; and not the test server's request threads."""

from __future__ import annotations

import importlib
import importlib.util
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from textmem_gym.llm import LLMClient, LocalOpenAIServer, answers
from textmem_gym.llm.answers import ChatResult
from textmem_gym.llm.prompts import Section, text_pieces
from textmem_gym.llm.request import UsageTotals

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "decision_files.py"


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("decision_files", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def crossed(bench: ModuleType) -> Iterator[Callable[[Callable[[], Any]], dict[str, set[str]]]]:
    """Runs a function under the benchmark's trace and returns the project files it crossed."""
    trace = bench.FileTrace()
    trace.install()

    def run(function: Callable[[], Any]) -> dict[str, set[str]]:
        with trace.recording_files() as files:
            function()
        return dict(files)

    try:
        yield run
    finally:
        trace.uninstall()


def test_properties_and_generated_dataclass_methods_count_for_their_module(crossed: Any) -> None:
    result = ChatResult("hi", 1, 1, False, 0.1, "m", False, 0, finish_reason="length")
    assert crossed(lambda: result.truncated) == {"textmem_gym/llm/answers.py": {"ChatResult.truncated"}}
    assert set(crossed(UsageTotals)) == {"textmem_gym/llm/request.py"}  # its generated __init__ only
    assert set(crossed(lambda: Section("Goal", "cook"))) == {"textmem_gym/llm/prompts.py"}  # NamedTuple.__new__


def test_a_generator_resumed_and_module_code_run_again_are_counted(crossed: Any) -> None:
    pairs = answers._walk({"a": 1, "b": {"c": 2}})
    next(pairs)  # started before the trace
    assert crossed(lambda: next(pairs)) == {"textmem_gym/llm/answers.py": {"_walk"}}
    ran = crossed(run_module_again)
    assert set(ran) == {"textmem_gym/llm/answers.py"} and "<module>" in ran["textmem_gym/llm/answers.py"]


def run_module_again() -> None:
    """Runs answers.py's module code once more, as a second module (the imported one is left alone)."""
    spec = importlib.util.spec_from_file_location("answers_again", answers.__file__)
    assert spec is not None and spec.loader is not None
    sys.modules[spec.name] = module = importlib.util.module_from_spec(spec)  # dataclasses look their module up
    try:
        spec.loader.exec_module(module)
    finally:
        del sys.modules[spec.name]


def test_a_thread_started_while_tracing_is_traced(crossed: Any) -> None:
    def in_thread() -> None:
        thread = threading.Thread(target=text_pieces, args=("One. Two.",))
        thread.start()
        thread.join()

    assert set(crossed(in_thread)) == {"textmem_gym/llm/prompts.py"}


@pytest.mark.llm
def test_the_test_servers_request_threads_are_left_out(crossed: Any) -> None:
    with LocalOpenAIServer(script=["look", "look"]) as server:  # its serving thread starts before the trace
        client = LLMClient(model="m", base_url=server.base_url)
        client.chat([{"role": "user", "content": "warm up"}])  # the SDK client is made, the server known
        files = crossed(lambda: client.chat([{"role": "user", "content": "next?"}]))
        client.close()
    assert "textmem_gym/llm/client.py" in files
    assert not [name for name in files if name.startswith("textmem_gym/llm/testing/")]
