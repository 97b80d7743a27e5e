"""How many project files one Ariadne decision runs through, and how many one chat call does.

Plays Ariadne (rules extractor, BM25 similarity, free-text answers) on TextMem/Cooking-v0 against
the real local OpenAI-compatible server of :mod:`textmem_gym.llm.testing` with the rule-driven
walkthrough answerer of the policy tests. After ``--warmup`` decisions, a :func:`sys.setprofile`
hook on this thread (the server's threads are not traced) records every Python function entered
during ``policy.act`` + ``env.step`` + ``policy.observe`` of one decision, and during one chat call
(``policy.llm.ask`` of the decision prompt kind, with its schema, as the decision module sends it).
It prints the distinct project files (under ``textmem_gym/``, ``policies/``, ``baselines_rl/``) and
folders crossed, with the list.

Issue 21 measured 32 files in 9 folders for one decision and 8 files of ``llm/`` for one chat call;
the target is at most 15 files for one decision.

Run: python benchmarks/decision_files.py [--warmup 3]
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
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
#: Project files that are not on the path being measured (the test server, should a hook reach it).
EXCLUDED = ("textmem_gym/llm/testing/",)


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
    if not relative.startswith(tuple(f"{top}/" for top in PROJECT)) or relative.startswith(EXCLUDED):
        return None
    return relative


@contextmanager
def files_crossed() -> Iterator[set[str]]:
    """Collects the project files whose functions are entered on this thread inside the block."""
    seen: set[str] = set()
    known: dict[str, str | None] = {}

    def hook(frame: FrameType, event: str, arg: Any) -> None:
        if event == "call":
            filename = frame.f_code.co_filename
            if filename not in known:
                known[filename] = project_file(filename)
            relative = known[filename]
            if relative is not None:
                seen.add(relative)

    sys.setprofile(hook)
    try:
        yield seen
    finally:
        sys.setprofile(None)


def report(title: str, files: set[str]) -> None:
    """Prints the count of files and folders, then the files by folder."""
    folders = sorted({str(Path(f).parent) for f in files})
    print(f"{title}: {len(files)} project files in {len(folders)} folders")
    for folder in folders:
        names = sorted(Path(f).name for f in files if str(Path(f).parent) == folder)
        print(f"  {folder}/: {', '.join(names)}")


def measure(warmup: int) -> tuple[set[str], set[str]]:
    """Files of one decision (after ``warmup`` decisions) and of one chat call."""
    answerer = WalkthroughAnswerer(ENV_ID)
    with LocalOpenAIServer(responder=answerer) as server:
        policy: Any = make_policy("ariadne", model="local-test", base_url=server.base_url, extractor="rules",
                             similarity="bm25", structured_output="off")
        env = policy.wrap_env(gym.make(ENV_ID))
        observation, info = env.reset(seed=0)
        policy.reset(observation, info)
        decide = _decision(policy, env)
        state = (observation, info)
        for _ in range(warmup):
            state = decide(*state)
        with files_crossed() as decision:
            state = decide(*state)
        chat = _chat_call(policy)
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


def _chat_call(policy: Any) -> set[str]:
    """Files of one ``policy.llm.ask`` (the decision kind, with its schema) after a first, warming one."""
    llm = policy.llm
    schema = answer_schema("decision", ["look", "go east"])
    prompt = "You are an action selector. Possible actions in current situation: [\"look\", \"go east\"]"
    llm.ask("action", prompt, schema=schema)
    with files_crossed() as chat:
        llm.ask("action", prompt, schema=schema)
    return chat


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--warmup", type=int, default=3, help="decisions played before the measured one")
    args = parser.parse_args()
    decision, chat = measure(args.warmup)
    report("One Ariadne decision (act + env.step + observe)", decision)
    llm_files = sorted(f for f in chat if f.startswith("textmem_gym/llm/"))
    report("One chat call (LLMCalls.ask, decision kind, with schema)", chat)
    print(f"  of which in textmem_gym/llm/: {len(llm_files)}")
    print(f"ratio: {len(decision)} / 15 files of the target = {len(decision) / 15:.2f} (issue 21 measured 32)")


if __name__ == "__main__":
    main()
