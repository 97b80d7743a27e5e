"""How many project files one Ariadne decision runs through, and how many one chat call does.

Plays Ariadne (rules extractor, BM25 similarity, free-text answers) on TextMem/Cooking-v0 against
the real local OpenAI-compatible server of :mod:`textmem_gym.llm.testing` with the rule-driven
walkthrough answerer of the policy tests. After ``--warmup`` decisions, a profiler hook
(:class:`FileTrace`) records every file whose code runs during ``policy.act`` + ``env.step`` +
``policy.observe`` of one decision, and during one chat call (``policy.llm.ask`` of the decision
prompt kind, with its schema, as the decision module sends it): any Python frame entered or resumed
on this thread or on a thread started since the policy was made (functions, lambdas, properties,
``__post_init__``, generators, the module code of a lazy import), generated code (a dataclass's
``__init__``, a ``NamedTuple``'s ``__new__``) counted for the module that made it; the test server's
request threads are left out. It prints the distinct project files (under ``textmem_gym/``,
``policies/``, ``baselines_rl/``) and folders crossed, with the list (``--functions``: and the code
that ran in each).

Issue 21 measured 32 files in 9 folders for one decision and 8 files of ``llm/`` for one chat call;
the target is at most 15 files for one decision.

Run: python benchmarks/decision_files.py [--warmup 3] [--functions]
"""

from __future__ import annotations

import argparse
import inspect
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import CodeType, FrameType
from typing import Any

import gymnasium as gym

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the answerer lives with the tests

import textmem_gym  # noqa: E402,F401
from policies import make_policy  # noqa: E402
from policies.llm_agent import answer_schema  # noqa: E402
from tests.policies.answerer import WalkthroughAnswerer  # noqa: E402
from textmem_gym.llm import LocalOpenAIServer  # noqa: E402

ENV_ID = "TextMem/Cooking-v0"
#: Top-level folders whose files count as the project's.
PROJECT = ("textmem_gym", "policies", "baselines_rl")
#: The test server's files: not on the path being measured; a thread that runs them is the server's.
SERVER = ("textmem_gym/llm/testing/",)
#: Project file -> the qualified names of its code that ran.
Crossed = dict[str, set[str]]


def project_file(filename: str) -> str | None:
    """``filename`` relative to the repository when it is a project file, else ``None``.

    Example:
        >>> project_file(str(ROOT / "policies" / "ariadne.py")), project_file("/usr/lib/python3/json/__init__.py")
        ('policies/ariadne.py', None)
    """
    try:
        relative = Path(filename).resolve().relative_to(ROOT).as_posix()
    except ValueError:
        return None
    return relative if relative.startswith(tuple(f"{top}/" for top in PROJECT)) else None


def generated_code() -> dict[CodeType, str]:
    """The code of methods that classes of the loaded project modules were given without a source file
    (a ``NamedTuple``'s ``__new__``, ...) -> the file of the module that defines the class."""
    owners: dict[CodeType, str] = {}
    for module in list(sys.modules.values()):
        filename = getattr(module, "__file__", None)
        relative = project_file(filename) if isinstance(filename, str) else None
        if relative is None:
            continue
        for value in list(vars(module).values()):
            if isinstance(value, type) and value.__module__ == module.__name__:
                for member in vars(value).values():
                    code = getattr(inspect.unwrap(member), "__code__", None) if callable(member) else None
                    if isinstance(code, CodeType) and code.co_filename.startswith("<"):
                        owners[code] = relative
    return owners


class FileTrace:
    """Records the project files whose code runs, on every thread, while :attr:`recording`.

    A :func:`sys.setprofile` hook on this thread, and :func:`threading.setprofile` on the threads
    started after :meth:`install` (a pool the decision starts, the test server's request threads),
    see every Python frame entered or resumed: functions, lambdas, property getters, ``__post_init__``,
    generator and coroutine resumptions, and the module code of an import made during the decision.
    Code without a source file counts for the project module it was made for: a dataclass's generated
    ``__init__``/``__eq__``/... (run with that module's globals) and a ``NamedTuple``'s ``__new__``
    (:func:`generated_code`). Threads other than the measuring one that run the test server's code are
    the server's and are left out.

    Example:
        >>> trace = FileTrace()
        >>> trace.install()
        >>> with trace.recording_files() as files:
        ...     _ = project_file("x")
        >>> trace.uninstall()
        >>> sorted(files)
        []
    """

    def __init__(self) -> None:
        self.recording = False
        self._by_thread: dict[int, set[tuple[str, str]]] = {}
        self._known: dict[str, str | None] = {}
        self._generated: dict[CodeType, str] = {}

    def install(self) -> None:
        """Hooks this thread and the threads started from now on (they record only while :attr:`recording`)."""
        threading.setprofile(self._hook)
        sys.setprofile(self._hook)

    def uninstall(self) -> None:
        """Removes the hooks."""
        sys.setprofile(None)
        threading.setprofile(None)

    @contextmanager
    def recording_files(self) -> Iterator[Crossed]:
        """Records inside the block; when it ends, the mapping holds each project file whose code ran,
        with the names of the code that ran in it."""
        crossed: Crossed = {}
        self._by_thread, self._generated = {}, generated_code()
        self.recording = True
        try:
            yield crossed
        finally:
            self.recording = False
            self._collect(crossed)

    def _collect(self, crossed: Crossed) -> None:
        here = threading.get_ident()
        for thread, seen in self._by_thread.items():
            if thread != here and any(f.startswith(SERVER) for f, _ in seen):
                continue  # the test server's request thread
            for relative, name in seen:
                if not relative.startswith(SERVER):
                    crossed.setdefault(relative, set()).add(name)

    def _hook(self, frame: FrameType, event: str, arg: Any) -> None:
        if event != "call" or not self.recording:
            return
        code = frame.f_code
        relative = self._file(code.co_filename) if not code.co_filename.startswith("<") else (
            self._generated.get(code) or self._globals_file(frame))
        if relative is not None:
            self._by_thread.setdefault(threading.get_ident(), set()).add((relative, code.co_qualname))

    def _file(self, filename: str) -> str | None:
        if filename not in self._known:
            self._known[filename] = project_file(filename)
        return self._known[filename]

    def _globals_file(self, frame: FrameType) -> str | None:
        """The project file of the module whose globals generated code runs with (a dataclass's methods)."""
        filename = frame.f_globals.get("__file__")
        return self._file(filename) if isinstance(filename, str) else None


def report(title: str, crossed: Crossed, functions: bool = False) -> None:
    """Prints the count of files and folders, then the files by folder (with the code that ran in each)."""
    folders = sorted({str(Path(f).parent) for f in crossed})
    print(f"{title}: {len(crossed)} project files in {len(folders)} folders")
    for folder in folders:
        names = sorted(Path(f).name for f in crossed if str(Path(f).parent) == folder)
        print(f"  {folder}/: {', '.join(names)}")
        for name in names if functions else ():
            print(f"    {name}: {', '.join(sorted(crossed[f'{folder}/{name}']))}")


def measure(warmup: int) -> tuple[Crossed, Crossed]:
    """Files of one decision (after ``warmup`` decisions) and of one chat call."""
    answerer = WalkthroughAnswerer(ENV_ID)
    trace = FileTrace()
    with LocalOpenAIServer(responder=answerer) as server:
        trace.install()  # before the policy and env are made: the threads they start are traced too
        try:
            policy: Any = make_policy("ariadne", model="local-test", base_url=server.base_url, extractor="rules",
                                      similarity="bm25", structured_output="off")
            env = policy.wrap_env(gym.make(ENV_ID))
            observation, info = env.reset(seed=0)
            policy.reset(observation, info)
            decide = _decision(policy, env)
            state = (observation, info)
            for _ in range(warmup):
                state = decide(*state)
            with trace.recording_files() as decision:
                state = decide(*state)
            chat = _chat_call(policy, trace)
        finally:
            trace.uninstall()
        env.close()
        policy.close()
    return decision, chat


def _decision(policy: Any, env: gym.Env) -> Callable[[Any, dict[str, Any]], tuple[Any, dict[str, Any]]]:
    def decide(observation: Any, info: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
        action = policy.act(observation, info)
        observation, reward, terminated, truncated, info = env.step(action)
        policy.observe(action, observation, float(reward), terminated, truncated, info)
        if terminated or truncated:
            raise RuntimeError("the episode ended during the measurement: lower --warmup")
        return observation, info

    return decide


def _chat_call(policy: Any, trace: FileTrace) -> Crossed:
    """Files of one ``policy.llm.ask`` (the decision kind, with its schema) after a first, warming one."""
    llm = policy.llm
    schema = answer_schema("decision", ["look", "go east"])
    prompt = "You are an action selector. Possible actions in current situation: [\"look\", \"go east\"]"
    llm.ask("action", prompt, schema=schema)
    with trace.recording_files() as chat:
        llm.ask("action", prompt, schema=schema)
    return chat


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--warmup", type=int, default=3, help="decisions played before the measured one")
    parser.add_argument("--functions", action="store_true", help="also list the code that ran in each file")
    args = parser.parse_args()
    decision, chat = measure(args.warmup)
    report("One Ariadne decision (act + env.step + observe)", decision, args.functions)
    llm_files = sorted(f for f in chat if f.startswith("textmem_gym/llm/"))
    report("One chat call (LLMCalls.ask, decision kind, with schema)", chat, args.functions)
    print(f"  of which in textmem_gym/llm/: {len(llm_files)}")
    print(f"ratio: {len(decision)} / 15 files of the target = {len(decision) / 15:.2f} (issue 21 measured 32)")


if __name__ == "__main__":
    main()
