"""LLM access for policies: a lazily built client, fault-tolerant calls, per-episode accounting.

A call that still fails after the client's retries (:class:`~textmem_gym.llm.LLMError`) returns
``None`` and is counted; the policy then falls back. Per-episode statistics are the client's
usage totals since :meth:`LLMCalls.begin_episode`, plus calls, prompt tokens and errors by kind
(``plan``, ``action``, ``summary``...).

Example:
    >>> from textmem_gym.llm import LocalOpenAIServer
    >>> with LocalOpenAIServer(script=["True", "False"]) as server:
    ...     calls = LLMCalls(model="local", base_url=server.base_url)
    ...     calls.begin_episode()
    ...     answers = [calls.ask("check", "Is it?"), calls.ask("check", "And now?")]
    ...     calls.close()
    >>> answers, calls.episode_stats()["calls_by_kind"]
    (['True', 'False'], {'check': 2})
"""

from __future__ import annotations

import time
from typing import Any

from textmem_gym.llm import LLMClient, LLMError
from textmem_gym.llm.accounting import estimate_prompt_tokens
from textmem_gym.prompts import PromptFolder

_USAGE_NUMBERS = ("calls", "cache_hits", "prompt_tokens", "completion_tokens", "total_tokens", "cost_usd",
                  "latency_s", "retries", "failed_calls")


#: The policies' prompt templates (``policies/prompts/*.txt``).
PROMPTS = PromptFolder(__package__)

#: Fills a policy prompt; every placeholder must be given.
render_prompt = PROMPTS.render


class LLMCalls:
    """The LLM side of a policy.

    Args:
        model, base_url, api_key: Passed to :class:`~textmem_gym.llm.LLMClient` (else ``OPENAI_*``).
        client: Use this client instead (shared, e.g. with an LLM extractor).
        client_options: Further :class:`LLMClient` arguments (``timeout``, ``max_retries``,
            ``cache``, ``seed``...).
    """

    def __init__(self, model: str | None = None, base_url: str | None = None, api_key: str | None = None, *,
                 client: LLMClient | None = None, client_options: dict[str, Any] | None = None) -> None:
        self._settings = {"model": model, "base_url": base_url, "api_key": api_key, **(client_options or {})}
        self._client = client
        self._started_early = False
        self.begin_episode()

    @property
    def client(self) -> LLMClient:
        """The client (built on first use, so a policy can be created without any configuration)."""
        if self._client is None:
            self._client = LLMClient(**self._settings)
        return self._client

    def start_early(self) -> None:
        """Starts the next episode's counting now, for LLM calls made during ``env.reset`` (a
        memory reading the first observation) before the policy's ``reset``; that next
        :meth:`begin_episode` then keeps the count going."""
        self.begin_episode()
        self._started_early = True

    def begin_episode(self) -> None:
        """Starts per-episode counting (unless :meth:`start_early` just did)."""
        if self._started_early:
            self._started_early = False
            return
        self._start = self._usage()
        self.calls_by_kind: dict[str, int] = {}
        self.prompt_tokens_by_kind: dict[str, int] = {}
        self.errors_by_kind: dict[str, int] = {}
        self.empty_answers = 0
        self.step_prompt_estimate = 0
        self.step_calls: list[dict[str, Any]] = []

    def _usage(self) -> dict[str, Any]:
        return self._client.usage.as_dict() if self._client is not None else {}

    def ask(self, kind: str, prompt: str, *, temperature: float = 0.0, max_tokens: int | None = 512) -> str | None:
        """One user-message chat; the answer text, or ``None`` after an unrecoverable LLM error."""
        messages = [{"role": "user", "content": prompt}]
        self.step_prompt_estimate += estimate_prompt_tokens(messages)
        started = time.perf_counter()
        try:
            result = self.client.chat(messages, temperature=temperature, max_tokens=max_tokens)
        except LLMError as error:
            self.errors_by_kind[kind] = self.errors_by_kind.get(kind, 0) + 1
            self.step_calls.append({"kind": kind, "prompt": prompt, "answer": None, "prompt_tokens": 0,
                                    "completion_tokens": 0, "latency_s": round(time.perf_counter() - started, 4),
                                    "cached": False, "model": None, "finish_reason": None,
                                    "fallback": f"llm_error: {type(error).__name__}"})
            return None
        self.calls_by_kind[kind] = self.calls_by_kind.get(kind, 0) + 1
        self.prompt_tokens_by_kind[kind] = self.prompt_tokens_by_kind.get(kind, 0) + result.prompt_tokens
        empty = not result.text.strip()
        if empty:
            self.empty_answers += 1
        self.step_calls.append({"kind": kind, "prompt": prompt, "answer": result.text,
                                "prompt_tokens": result.prompt_tokens, "completion_tokens": result.completion_tokens,
                                "latency_s": round(result.latency_s, 4), "cached": result.cached, "model": result.model,
                                "finish_reason": result.finish_reason, "fallback": "empty_answer" if empty else None})
        return result.text

    def take_step_calls(self) -> list[dict[str, Any]]:
        """The calls made since the last call of this method (for trajectories): kind, prompt,
        answer, tokens, latency, cache hit, model, finish reason, and ``fallback`` (why the call
        gave no usable answer: ``"llm_error: <ErrorType>"`` or ``"empty_answer"``; else ``None``)."""
        calls, self.step_calls = self.step_calls, []
        return calls

    def take_step_estimate(self) -> int:
        """Prompt tokens (estimated as characters / 4) sent since the last call of this method."""
        value, self.step_prompt_estimate = self.step_prompt_estimate, 0
        return value

    def episode_stats(self) -> dict[str, Any]:
        """Usage since :meth:`begin_episode`: tokens, calls, cost, latency, retries, faults."""
        now, start = self._usage(), self._start
        stats: dict[str, Any] = {name: round(float(now.get(name, 0)) - float(start.get(name, 0)), 6)
                                 for name in _USAGE_NUMBERS}
        for name in ("calls", "cache_hits", "prompt_tokens", "completion_tokens", "total_tokens", "retries",
                     "failed_calls"):
            stats[name] = int(stats[name])
        before = start.get("failures", {})
        stats["faults"] = {k: v - before.get(k, 0) for k, v in now.get("failures", {}).items() if v - before.get(k, 0)}
        stats["tokens_estimated"] = bool(now.get("tokens_estimated", False))
        stats.update(calls_by_kind=dict(self.calls_by_kind), prompt_tokens_by_kind=dict(self.prompt_tokens_by_kind),
                     llm_errors=dict(self.errors_by_kind), empty_answers=self.empty_answers)
        return stats

    def close(self) -> None:
        """Closes the client (if it was built)."""
        if self._client is not None:
            self._client.close()
