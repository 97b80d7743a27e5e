"""Policies the execution tests build by ``module:attr`` spec in worker processes."""

from __future__ import annotations

import os
import random
import threading
from pathlib import Path
from typing import Any, ClassVar

from policies import BasePolicy
from textmem_gym.core.errors import PolicyNotReady, RunAborted
from textmem_gym.llm import LLMClient, RequestLimits


class Trials(BasePolicy):
    """Multi-trial: records how many episodes this object played before (its trial index)."""

    name: ClassVar[str] = "trials"
    multi_trial: ClassVar[bool] = True

    def __init__(self) -> None:
        self.played = -1

    def reset(self, observation: Any, info: dict[str, Any]) -> None:
        self.played += 1

    def act(self, observation: Any, info: dict[str, Any]) -> str:
        return "look"

    def episode_stats(self) -> dict[str, Any]:
        return {"trial": self.played}


class CrashOnce(BasePolicy):
    """Kills its own process at the first step of episode seed ``crash_seed``, once (a marker file
    in ``marker_dir`` remembers it); otherwise plays ``look``."""

    name: ClassVar[str] = "crash-once"

    def __init__(self, marker_dir: str, crash_seed: int) -> None:
        self.marker = Path(marker_dir) / f"crashed-{crash_seed}"
        self.crash_seed, self.episode_seed = crash_seed, None

    def seed(self, seed: int | None) -> None:
        self.episode_seed = seed

    def act(self, observation: Any, info: dict[str, Any]) -> str:
        if self.episode_seed == self.crash_seed and not self.marker.exists():
            self.marker.touch()
            os._exit(13)
        return "look"


class Broken(BasePolicy):
    """Raises in ``act``."""

    name: ClassVar[str] = "broken"

    def act(self, observation: Any, info: dict[str, Any]) -> str:
        raise RuntimeError("broken policy")


class OneCall(BasePolicy):
    """One chat call per step to ``base_url``; plays a seeded random admissible command. Its client takes the
    run's shared request limits (``limits``, given by the run because this factory names it)."""

    name: ClassVar[str] = "one-call"

    def __init__(self, base_url: str, concurrency: int = 8, limits: RequestLimits | None = None) -> None:
        self.client = LLMClient(model="test", base_url=base_url, api_key="unused", concurrency=concurrency,
                                max_retries=2, backoff_base=0.01, limits=limits)
        self.rng = random.Random(0)

    def seed(self, seed: int | None) -> None:
        self.rng = random.Random(seed)

    def act(self, observation: Any, info: dict[str, Any]) -> str:
        self.client.chat([{"role": "user", "content": f"{observation}\nWhat now?"}])
        return self.rng.choice(sorted(info["admissible_commands"]))


class CountingResponder:
    """A LocalOpenAIServer responder that answers ``ok`` after ``delay_s`` and counts the requests it is
    answering at once (the count drops before the answer is written, so a client that sends its next
    request on receiving this answer is never counted twice)."""

    def __init__(self, delay_s: float) -> None:
        self.delay_s, self.inside, self.most = delay_s, 0, 0
        self.lock = threading.Lock()

    def __call__(self, messages: Any) -> str:
        with self.lock:
            self.inside += 1
            self.most = max(self.most, self.inside)
        threading.Event().wait(self.delay_s)
        with self.lock:
            self.inside -= 1
        return "ok"


class NotReady(BasePolicy):
    """Its preflight fails (as an LLM policy's does when its endpoint is dead)."""

    name: ClassVar[str] = "not-ready"

    def preflight(self) -> None:
        raise PolicyNotReady("no LLM server answers at http://127.0.0.1:9/v1")

    def act(self, observation: Any, info: dict[str, Any]) -> str:
        raise AssertionError("never played: the preflight stops the run first")


class AbortAt(BasePolicy):
    """Stops the run (RunAborted) at the first step of episode seed ``abort_seed`` while ``marker``
    does not exist (as a policy whose endpoint died does); otherwise plays ``look``."""

    name: ClassVar[str] = "abort-at"

    def __init__(self, abort_seed: int, marker: str) -> None:
        self.abort_seed, self.marker, self.episode_seed = abort_seed, Path(marker), None

    def seed(self, seed: int | None) -> None:
        self.episode_seed = seed

    def act(self, observation: Any, info: dict[str, Any]) -> str:
        if self.episode_seed == self.abort_seed and not self.marker.exists():
            raise RunAborted("the LLM endpoint http://127.0.0.1:9/v1 stopped answering (3 transport failures in a row)")
        return "look"
