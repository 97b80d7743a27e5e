"""Asking a model: the askers of policies (:class:`LLMCalls`) and of memories (:class:`Ask`).

Prompts are built from the templates and fitted by the budget of :mod:`textmem_gym.llm.prompts`.
:class:`LLMCalls` is the LLM side of a policy (``policy.llm``); for every prompt kind alike it does:

* **Schemas.** :meth:`LLMCalls.ask` sends the kind's answer schema (the policy's
  ``prompts/<name>.schema.json``, its action enum filled by
  :func:`~textmem_gym.llm.prompts.with_actions`) as a structured-output request when the client's
  ``structured_output`` allows; :meth:`LLMCalls.read` reads the answer with the one free-text parser
  (:func:`textmem_gym.llm.answers.parse_answer`) either way and counts parse failures.
* **Context budget.** When the model's context window is known (``context_window=`` or stated by
  the server), the prompt is fitted to ``window - max_tokens - RESERVE_TOKENS`` before it is sent:
  its :class:`~textmem_gym.llm.prompts.Trimmable` sections lose items in the order the policy lists
  them (oldest history first, then retrieved memories, ...); the instructions, the goal and the
  current observation are never trimmed, and the action list only down to
  :data:`~textmem_gym.llm.prompts.MIN_ACTIONS` commands by the rule of
  :func:`~textmem_gym.llm.prompts.rank_commands`. Trims are counted by section. A context-length
  error (HTTP 400) gets the prompt trimmed to :data:`RETRY_SHARE` of what was sent and sent once
  more; a second one is a failed call of cause ``context_overflow``.
* **Cut-off answers.** A structured answer that hit ``max_tokens`` is cut-off JSON: it is asked
  once more with :data:`LENGTH_RETRY_FACTOR` times the completion limit (within the window).
* **Accounting.** Usage since :meth:`LLMCalls.begin_episode`, calls/prompt tokens/errors/parse
  failures by kind, structured-output ways, trims, the reusable prompt prefix
  (:class:`~textmem_gym.llm.prompts.PrefixTracker`), and the env actions: :meth:`LLMCalls.model_action`
  or :meth:`LLMCalls.fallback` with a cause of :data:`textmem_gym.fallbacks.FALLBACK_CAUSES` for
  each (``strict=True`` raises :class:`~textmem_gym.fallbacks.FallbackError` at the first fallback);
  :meth:`LLMCalls.take_action_source` says where the last env action came from.

A call that still fails after the client's retries returns ``None`` (:attr:`LLMCalls.last_failure`
says why); the policy then falls back and counts it. A dead endpoint is not a failed call: the
client raises :class:`~textmem_gym.llm.errors.EndpointDown` (a ``RunAborted``), which no asker catches.

Example:
    >>> from textmem_gym.llm import LocalOpenAIServer
    >>> with LocalOpenAIServer(script=["True", "False"]) as server:
    ...     calls = LLMCalls(model="local", base_url=server.base_url)
    ...     answers = [calls.ask("check", "Is it?"), calls.ask("check", "And now?")]
    ...     calls.close()
    >>> answers, calls.episode_stats()["calls_by_kind"]
    (['True', 'False'], {'check': 2})
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

from textmem_gym.core.errors import PolicyNotReady
from textmem_gym.fallbacks import FALLBACK_CAUSES, FallbackError
from textmem_gym.llm.answers import Answer, ChatResult, PromptLogprobs, parse_answer
from textmem_gym.llm.client import LLMClient
from textmem_gym.llm.errors import ContextLengthError, LLMError
from textmem_gym.llm.prompts import (
    RESERVE_TOKENS,
    PrefixTracker,
    Trimmable,
    estimate_prompt_tokens,
    fit_prompt,
    prompt_limit,
    wire_schema,
)
from textmem_gym.loading import lookup

#: A context-length error: the prompt is trimmed to this share of what was sent, then sent once more.
RETRY_SHARE = 0.75
#: A structured answer cut off at ``max_tokens`` is asked once more with this many times the limit.
LENGTH_RETRY_FACTOR = 2
_USAGE_NUMBERS = ("calls", "cache_hits", "prompt_tokens", "completion_tokens", "total_tokens", "cost_usd",
                  "latency_s", "retries", "failed_calls")


class Ask(Protocol):
    """One LLM call of a memory: ``ask(kind, prompt, trim=...)`` -> the answer, ``None`` when the call failed.

    ``prompt`` is the text or a function building it from the current items of ``trim`` (the
    sections that may lose items to fit the context window, in trim order); ``schema``, when given,
    is the answer's JSON schema, sent as a structured-output request. A policy passes its
    ``LLMCalls.ask`` (so the call is fitted, counted by kind and recorded in the trajectory);
    :class:`ClientAsk` makes one over a bare client.
    """

    def __call__(self, kind: str, prompt: str | Callable[[], str], *,
                 trim: Sequence[Trimmable] = (), schema: Mapping[str, Any] | None = None) -> str | None: ...


#: Completion limit of a :class:`ClientAsk`'s calls unless a memory says otherwise (the papers' ports' 1,024).
ASK_MAX_TOKENS = 1024


def completion_limit(max_tokens: int | None, llm: Ask | None) -> int:
    """The completion limit of a memory's calls over a bare client: ``max_tokens``, else :data:`ASK_MAX_TOKENS`;
    a memory given its own ``llm`` (a policy's ``ask``, which sets its own limit) takes none.

    Example:
        >>> completion_limit(None, None), completion_limit(256, None)
        (1024, 256)
        >>> completion_limit(0, None)
        Traceback (most recent call last):
        ...
        ValueError: max_tokens must be a positive int, got 0
    """
    if max_tokens is None:
        return ASK_MAX_TOKENS
    if llm is not None:
        raise ValueError("max_tokens applies to calls over client=...; a given llm=... sets its own limit")
    if not isinstance(max_tokens, int) or isinstance(max_tokens, bool) or max_tokens < 1:
        raise ValueError(f"max_tokens must be a positive int, got {max_tokens!r}")
    return max_tokens


class ClientAsk:
    """An :class:`Ask` over a bare :class:`~textmem_gym.llm.LLMClient` (a memory used without a policy).

    Prompts are fitted to the client's context window (when known) with its token counter; a
    call that failed after the client's retries (:class:`~textmem_gym.llm.LLMError`) gives
    ``None`` and is counted in :attr:`failures`; other exceptions are bugs and propagate.

    Args:
        client: The client.
        max_tokens: Completion limit per call.

    Attributes:
        trims: Items dropped per section name, over this asker's life.
        failures: Calls that failed, by kind.

    Example:
        >>> from textmem_gym.llm import LLMClient, LocalOpenAIServer
        >>> with LocalOpenAIServer(script=["apple, is on, table"]) as server:
        ...     ask = ClientAsk(LLMClient(model="m", base_url=server.base_url))
        ...     ask("triplets", "An apple lies on the table.")
        'apple, is on, table'
    """

    def __init__(self, client: Any, max_tokens: int = ASK_MAX_TOKENS) -> None:
        self.client, self.max_tokens = client, max_tokens
        self.trims: dict[str, int] = {}
        self.failures: dict[str, int] = {}

    def __call__(self, kind: str, prompt: str | Callable[[], str], *,
                 trim: Sequence[Trimmable] = (), schema: Mapping[str, Any] | None = None) -> str | None:
        def count(text: str) -> int:
            return int(self.client.count_tokens([{"role": "user", "content": text}])[0])

        build = prompt if callable(prompt) else (lambda: prompt)
        text, dropped = fit_prompt(count, build, trim, prompt_limit(self.client.context_window, self.max_tokens))
        for name, items in dropped.items():
            self.trims[name] = self.trims.get(name, 0) + items
        try:
            answer = self.client.chat([{"role": "user", "content": text}], temperature=0.0,
                                      max_tokens=self.max_tokens, schema=wire_schema(schema) if schema else None,
                                      schema_name=kind if schema else None).text
        except LLMError:
            self.failures[kind] = self.failures.get(kind, 0) + 1
            return None
        return str(answer)


class LLMCalls:
    """The LLM side of a policy.

    Args:
        model, base_url, api_key: Passed to :class:`~textmem_gym.llm.LLMClient` (else ``OPENAI_*``).
        client: Use this client instead (shared, e.g. with an LLM extractor).
        client_options: Further :class:`LLMClient` arguments (``timeout``, ``max_retries``,
            ``cache``, ``seed``, ``structured_output``, ``context_window``...).
        strict: Raise :class:`~textmem_gym.fallbacks.FallbackError` at the first fallback.
    """

    def __init__(self, model: str | None = None, base_url: str | None = None, api_key: str | None = None, *,
                 client: LLMClient | None = None, client_options: dict[str, Any] | None = None,
                 strict: bool = False) -> None:
        self._settings = {"model": model, "base_url": base_url, "api_key": api_key, **(client_options or {})}
        self._client = client
        self.strict = bool(strict)
        self._started_early = False
        self.last_failure: str | None = None
        self.last_error_status: int | None = None  # HTTP status of the last failed call (if any)
        self._embeddings: bool | None = None
        self.begin_episode()

    @property
    def client(self) -> LLMClient:
        """The client (built on first use, so a policy can be created without any configuration)."""
        if self._client is None:
            self._client = LLMClient(**self._settings)
        return self._client

    def preflight(self) -> None:
        """Checks the endpoint once, before any episode (see :meth:`LLMClient.preflight`).

        Raises:
            PolicyNotReady: One line: no model configured, or the endpoint is unusable
                (:class:`~textmem_gym.llm.errors.EndpointUnavailable`).
        """
        try:
            client = self.client
        except ValueError as error:  # no model given and no $OPENAI_MODEL
            raise PolicyNotReady(str(error)) from None
        client.preflight()

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
        self.parse_failures_by_kind: dict[str, int] = {}
        self.structured: dict[str, int] = {}
        self.trims: dict[str, int] = {}
        self.length_retries: dict[str, int] = {}
        self.trimmed_calls = 0
        self.context_overflows = 0
        self.empty_answers = 0
        self.step_prompt_estimate = 0
        self.step_calls: list[dict[str, Any]] = []
        self.prefixes = PrefixTracker()  # each call's reusable prompt prefix (textmem_gym.llm.prompts)
        self.env_actions = 0
        self.fallbacks: dict[str, int] = {}
        self._sources: list[str] = []  # where the env actions since the last take_action_source came from

    def serves_embeddings(self) -> bool:
        """True when the endpoint answers an embeddings request (probed once, outside any episode's
        accounting when called before :meth:`begin_episode`)."""
        if self._embeddings is None:
            try:
                self.client.embed(["probe"])
                self._embeddings = True
            except LLMError:
                self._embeddings = False
        return self._embeddings

    def similarity(self, choice: str) -> str:
        """The retrieval similarity for ``choice``: ``auto`` is ``openai`` (the endpoint's
        embeddings) when :meth:`serves_embeddings`, else ``bm25``; other names are kept."""
        if choice != "auto":
            return choice
        return "openai" if self.serves_embeddings() else "bm25"

    def _usage(self) -> dict[str, Any]:
        return self._client.usage.as_dict() if self._client is not None else {}

    # -- calls ---------------------------------------------------------------------------
    def ask(self, kind: str, prompt: str | Callable[[], str], *, temperature: float = 0.0,
            max_tokens: int | None = 512, schema: Mapping[str, Any] | None = None,
            trim: Sequence[Trimmable] = ()) -> str | None:
        """One user-message chat; the answer text, or ``None`` after an unrecoverable LLM error.

        A structured answer cut off at ``max_tokens`` (finish reason ``length``: cut-off JSON) is
        asked once more with :data:`LENGTH_RETRY_FACTOR` times the limit, within the context
        window (counted in ``length_retries`` by kind; both calls are recorded).

        Args:
            kind: The prompt kind (accounting key, schema name sent to the server).
            prompt: The prompt, or a function building it from the current items of ``trim``.
            schema: The answer schema (see :func:`with_actions`), sent as a structured-output request.
            trim: Sections that may lose items to fit the context window, in trim order.
        """
        build = prompt if callable(prompt) else (lambda: prompt)
        text = self._fit(build, trim, max_tokens)
        sent_schema = wire_schema(schema) if schema is not None else None
        sent = self._send(kind, text, build, trim, temperature, max_tokens, sent_schema)
        if sent is None:
            return None
        text, result = sent
        room = self._retry_room(text, max_tokens) if sent_schema is not None and result.finish_reason == "length" else 0
        if room:  # a structured answer cut off at the completion limit is cut-off JSON: once more, with more room
            self.length_retries[kind] = self.length_retries.get(kind, 0) + 1
            longer = self._send(kind, text, build, trim, temperature, room, sent_schema)
            if longer is not None:
                text, result = longer
        self.last_failure = None
        return result.text

    def score(self, kind: str, prompt: str) -> PromptLogprobs | None:
        """The log-probabilities of ``prompt``'s tokens (:meth:`LLMClient.prompt_logprobs`), counted
        and recorded like a chat call of ``kind``; ``None`` after an LLM error (the endpoint may not
        serve completions)."""
        started = time.perf_counter()
        try:
            result = self.client.prompt_logprobs(prompt)
        except LLMError as error:
            self.last_error_status = error.status
            if isinstance(error, ContextLengthError):
                self.context_overflows += 1
            self._failed(kind, prompt, started, "context_overflow" if isinstance(error, ContextLengthError)
                         else "llm_error", error)
            return None
        self.calls_by_kind[kind] = self.calls_by_kind.get(kind, 0) + 1
        self.prompt_tokens_by_kind[kind] = self.prompt_tokens_by_kind.get(kind, 0) + result.prompt_tokens
        self.step_calls.append({"kind": kind, "prompt": prompt, "answer": None, "prompt_tokens": result.prompt_tokens,
                                "completion_tokens": result.completion_tokens, "latency_s": round(result.latency_s, 4),
                                "cached": result.cached, "model": result.model, "finish_reason": None,
                                "structured": None, "fallback": None if any(
                                    lp is not None for lp in result.logprobs) else "no_logprobs",
                                **self.prefixes.observe(prompt, kind).record()})
        self.last_failure = None
        return result

    def _retry_room(self, text: str, max_tokens: int | None) -> int:
        """The completion limit for asking again after an answer was cut off at ``max_tokens``:
        :data:`LENGTH_RETRY_FACTOR` times it, within the context window; 0 when there is no more room."""
        if not max_tokens:
            return 0
        room = max_tokens * LENGTH_RETRY_FACTOR
        window = self.client.context_window
        if window:
            room = min(room, window - self._count(text) - RESERVE_TOKENS)
        return room if room > max_tokens else 0

    def _send(self, kind: str, text: str, build: Callable[[], str], trim: Sequence[Trimmable], temperature: float,
              max_tokens: int | None, schema: Any) -> tuple[str, ChatResult] | None:
        """Sends ``text`` (trimmed further and sent once more after a context-length error) and
        records the call; the prompt sent and the result, or ``None`` when the call failed."""
        started = time.perf_counter()
        for attempt in (0, 1):
            messages = [{"role": "user", "content": text}]
            self.step_prompt_estimate += estimate_prompt_tokens(messages)
            try:
                result = self.client.chat(messages, temperature=temperature, max_tokens=max_tokens,
                                          schema=schema, schema_name=kind if schema else None)
            except ContextLengthError as error:
                if attempt == 0 and any(t.can_drop() for t in trim):
                    text = self._fit(build, trim, max_tokens, limit=int(self._count(text) * RETRY_SHARE))
                    continue
                self.context_overflows += 1
                self._failed(kind, text, started, "context_overflow", error)
                return None
            except LLMError as error:
                self._failed(kind, text, started, "llm_error", error)
                return None
            break
        self.calls_by_kind[kind] = self.calls_by_kind.get(kind, 0) + 1
        self.prompt_tokens_by_kind[kind] = self.prompt_tokens_by_kind.get(kind, 0) + result.prompt_tokens
        if schema is not None:
            self.structured[result.structured] = self.structured.get(result.structured, 0) + 1
        empty = not result.text.strip()
        if empty:
            self.empty_answers += 1
        self.step_calls.append({"kind": kind, "prompt": text, "answer": result.text,
                                "prompt_tokens": result.prompt_tokens, "completion_tokens": result.completion_tokens,
                                "latency_s": round(result.latency_s, 4), "cached": result.cached, "model": result.model,
                                "finish_reason": result.finish_reason, "structured": result.structured,
                                "fallback": "empty_answer" if empty else None,
                                **self.prefixes.observe(messages, kind).record()})
        return text, result

    def _failed(self, kind: str, prompt: str, started: float, cause: str, error: LLMError) -> None:
        self.last_failure = cause
        self.errors_by_kind[kind] = self.errors_by_kind.get(kind, 0) + 1
        self.step_calls.append({"kind": kind, "prompt": prompt, "answer": None, "prompt_tokens": 0,
                                "completion_tokens": 0, "latency_s": round(time.perf_counter() - started, 4),
                                "cached": False, "model": None, "finish_reason": None, "structured": None,
                                "fallback": f"{cause}: {type(error).__name__}"})

    def read(self, kind: str, answer: str | None, schema: Mapping[str, Any],
             need: Sequence[str] | None = None) -> Answer:
        """Reads ``answer`` with the shared parser; a non-``None`` answer lacking a property of
        ``need`` (default: the schema's required ones) counts as a parse failure of ``kind``."""
        parsed = parse_answer(answer, schema)
        needed = tuple(schema.get("required") or ()) if need is None else tuple(need)
        if answer is not None and any(name not in parsed.values for name in needed):
            self.parse_failures_by_kind[kind] = self.parse_failures_by_kind.get(kind, 0) + 1
        return parsed

    # -- context budget ----------------------------------------------------------------------
    def _count(self, text: str) -> int:
        return self.client.count_tokens([{"role": "user", "content": text}])[0]

    def _fit(self, build: Callable[[], str], trim: Sequence[Trimmable], max_tokens: int | None,
             limit: int | None = None) -> str:
        """The prompt with items of ``trim`` dropped (in order) until it fits ``limit`` tokens
        (default: the context window less the completion limit and :data:`~textmem_gym.llm.prompts.RESERVE_TOKENS`)."""
        if limit is None:
            limit = prompt_limit(self.client.context_window, max_tokens) if trim else None
        text, dropped = fit_prompt(self._count, build, trim, limit)
        for name, items in dropped.items():
            self.trims[name] = self.trims.get(name, 0) + items
        self.trimmed_calls += int(bool(dropped))
        return text

    # -- env actions -------------------------------------------------------------------------
    def model_action(self, action: str) -> str:
        """Counts ``action`` as chosen by the model as asked; returns it."""
        self.env_actions += 1
        self._sources.append("model")
        return action

    def fallback(self, cause: str, action: str, detail: str = "") -> str:
        """Counts ``action`` as a fallback of ``cause`` (a key of
        :data:`~textmem_gym.fallbacks.FALLBACK_CAUSES`); returns it, or raises
        :class:`~textmem_gym.fallbacks.FallbackError` in strict mode."""
        lookup("fallback cause", cause, FALLBACK_CAUSES)
        self.env_actions += 1
        self.fallbacks[cause] = self.fallbacks.get(cause, 0) + 1
        self._sources.append(cause)
        if self.strict:
            raise FallbackError(cause, detail)
        return action

    def take_action_source(self) -> str | None:
        """Where the env action counted since the last call came from: ``"model"`` or its fallback
        cause (the first fallback's, should several actions have been counted); ``None`` if none was.

        Example:
            >>> calls = LLMCalls(model="m")
            >>> calls.fallback("unparseable", "look"), calls.take_action_source(), calls.take_action_source()
            ('look', 'unparseable', None)
        """
        sources, self._sources = self._sources, []
        return next((source for source in sources if source != "model"), "model" if sources else None)

    def failure_cause(self) -> str:
        """The fallback cause of the last failed call (``llm_error`` or ``context_overflow``)."""
        return self.last_failure or "llm_error"

    # -- per step and per episode -------------------------------------------------------------
    def take_step_calls(self) -> list[dict[str, Any]]:
        """The calls made since the last call of this method (for trajectories): kind, prompt,
        answer, tokens, latency, cache hit, model, finish reason, the structured-output way
        (``structured``), and ``fallback`` (why the call gave no usable answer:
        ``"llm_error: <ErrorType>"``, ``"context_overflow: <ErrorType>"`` or ``"empty_answer"``; else ``None``);
        an answered call also has its reusable prompt prefix, ``reused_prefix_tokens`` and
        ``reused_prefix_share`` (:class:`~textmem_gym.llm.prompts.PrefixTracker`, over the episode's earlier calls)."""
        calls, self.step_calls = self.step_calls, []
        return calls

    def take_step_estimate(self) -> int:
        """Prompt tokens (estimated as characters / 4) sent since the last call of this method."""
        value, self.step_prompt_estimate = self.step_prompt_estimate, 0
        return value

    def episode_stats(self) -> dict[str, Any]:
        """Usage since :meth:`begin_episode` (tokens, calls, cost, latency, retries, faults), the
        env actions (``model_actions``: the share the model chose as asked; ``fallbacks`` by
        cause), parse failures, structured-output ways and context trims."""
        now, start = self._usage(), self._start
        stats: dict[str, Any] = {name: round(float(now.get(name, 0)) - float(start.get(name, 0)), 6)
                                 for name in _USAGE_NUMBERS}
        for name in ("calls", "cache_hits", "prompt_tokens", "completion_tokens", "total_tokens", "retries",
                     "failed_calls"):
            stats[name] = int(stats[name])
        before = start.get("failures", {})
        stats["faults"] = {k: v - before.get(k, 0) for k, v in now.get("failures", {}).items() if v - before.get(k, 0)}
        stats["tokens_estimated"] = bool(now.get("tokens_estimated", False))
        model = self.env_actions - sum(self.fallbacks.values())
        stats.update(calls_by_kind=dict(self.calls_by_kind), prompt_tokens_by_kind=dict(self.prompt_tokens_by_kind),
                     llm_errors=dict(self.errors_by_kind), empty_answers=self.empty_answers,
                     parse_failures_by_kind=dict(self.parse_failures_by_kind),
                     structured_output=dict(self.structured), context_trims=dict(self.trims),
                     context_trimmed_calls=self.trimmed_calls, context_overflows=self.context_overflows,
                     length_retries=dict(self.length_retries),
                     env_actions=self.env_actions,
                     model_actions=round(model / self.env_actions, 4) if self.env_actions else None,
                     fallbacks=dict(self.fallbacks), strict=self.strict, **self.prefixes.stats())
        return stats

    def close(self) -> None:
        """Closes the client (if it was built)."""
        if self._client is not None:
            self._client.close()


__all__ = ["LENGTH_RETRY_FACTOR", "RETRY_SHARE", "Ask", "ClientAsk", "LLMCalls"]
