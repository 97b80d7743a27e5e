"""The LLM client: OpenAI-compatible chat and embeddings, a pipeline of small steps of one concern each.

Configuration comes from arguments or the standard environment variables ``OPENAI_MODEL``,
``OPENAI_BASE_URL`` and ``OPENAI_API_KEY`` (plus ``OPENAI_EMBEDDING_MODEL``), so the same code
runs against OpenAI, vLLM, Ollama, llama.cpp or :class:`~textmem_gym.llm.LocalOpenAIServer`.
The API key lives only inside the SDK client: it is not part of ``repr``, cache keys, cache
rows, log lines or error messages.

:class:`LLMClient` composes one chat call as a pipeline of small steps, each a function or class of
its own concern:

1. **build** the request: its body and cache key (:class:`~textmem_gym.llm.request.Requests`), its
   schema sent in the structured-output mode of the moment
   (:class:`~textmem_gym.llm.request.StructuredChoice`), all in :mod:`.request`;
2. **look up** the response cache (:mod:`.cache`; record / replay);
3. **send** it through the SDK holding a request slot and, with a run's shared ``limits``, a lease
   (:class:`~textmem_gym.llm.slots.RequestLimits`, :mod:`.slots`);
4. **retry** faults with backoff and jitter (:class:`~textmem_gym.llm.retry.RetryPolicy`, :mod:`.retry`;
   a call that needs no retry runs none of it);
5. **read** the answer (the endpoint's normaliser in :mod:`.request`) and store it;
6. **account** its tokens, cost and latency (:class:`~textmem_gym.llm.request.UsageTotals`, :mod:`.request`).

Steps 2 to 6 are the life of one request (:class:`~textmem_gym.llm.request.Call`). What the server
is (kind, context window, tokenizer, preflight) is asked once (:mod:`.server_info`); errors are in
:mod:`.errors`. Above the client, :class:`~textmem_gym.llm.calls.LLMCalls` fits the prompt
(:mod:`.prompts`), tracks its reusable prefix (:class:`~textmem_gym.llm.prompts.PrefixTracker`) and
reads the answer (:mod:`.answers`).

The steps of a call are written once, as a generator of effects (send, wait, blocking work), driven
by a blocking loop for :meth:`LLMClient.chat` and an event-loop one for :meth:`LLMClient.achat`. The
:data:`DOWN_AFTER`-th call in a row failing on transport faults raises
:class:`~textmem_gym.llm.errors.EndpointDown` instead of an LLMError (a dead server is not a bad answer).

Example:
    >>> from textmem_gym.llm import LocalOpenAIServer
    >>> with LocalOpenAIServer(responder=lambda messages: '{"action": "look"}') as server:
    ...     client = LLMClient(model="local", base_url=server.base_url, api_key="unused")
    ...     result = client.chat([{"role": "user", "content": "What now?"}])
    >>> result.text, result.cached, client.usage.calls
    ('{"action": "look"}', False, 1)
"""

from __future__ import annotations

import asyncio
import os
import random
import threading
import time
import weakref
from collections.abc import Callable, Generator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import AbstractAsyncContextManager, AbstractContextManager, nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import openai

from textmem_gym.llm.answers import ChatResult, PromptLogprobs
from textmem_gym.llm.cache import ResponseCache, cache_file, cache_mode
from textmem_gym.llm.errors import ContextLengthError, EndpointDown, LLMError, Secret, safe_url
from textmem_gym.llm.prompts import estimate_with_margin
from textmem_gym.llm.request import (
    Call,
    CallContext,
    Messages,
    PriceTable,
    Request,
    Requests,
    StructuredChoice,
    UsageTotals,
    is_rejection,
)
from textmem_gym.llm.retry import TRANSPORT_KINDS, RetryPolicy
from textmem_gym.llm.server_info import ServerInfo, check_endpoint, count_tokens, probe_server
from textmem_gym.llm.slots import DEFAULT_CONCURRENCY, RequestLimits

#: The async SDK client of one event loop and its concurrency limit.
_AsyncTransport = tuple[openai.AsyncOpenAI, asyncio.Semaphore]

ENV_MODEL = "OPENAI_MODEL"
ENV_BASE_URL = "OPENAI_BASE_URL"
ENV_API_KEY = "OPENAI_API_KEY"
ENV_EMBEDDING_MODEL = "OPENAI_EMBEDDING_MODEL"
DEFAULT_BASE_URL = "https://api.openai.com/v1"
DEFAULT_EMBEDDING_MODEL = "text-embedding-3-small"
#: Sent when no key is configured: local servers ignore it, OpenAI answers 401 (not retried).
PLACEHOLDER_API_KEY = "no-key-configured"

#: Calls in a row that end in a transport fault (connection or timeout, after their retries) before the
#: endpoint counts as down (:class:`~textmem_gym.llm.errors.EndpointDown` instead of one more LLMError).
DOWN_AFTER = 3
#: Seconds the preflight check waits for the endpoint's model list.
PREFLIGHT_TIMEOUT = 5.0


class LLMClient:
    """Chat completions and embeddings from any OpenAI-compatible server.

    Args:
        model: Chat model; defaults to ``$OPENAI_MODEL`` (one of the two is required).
        base_url: Server URL ending in ``/v1``; defaults to ``$OPENAI_BASE_URL``, then OpenAI.
        api_key: Key; defaults to ``$OPENAI_API_KEY`` (local servers need none).
        timeout: Seconds allowed for each HTTP attempt.
        max_retries: Retries after the first attempt for timeouts, connection errors,
            HTTP 408/429/5xx and malformed answers.
        concurrency: Most requests in flight at once (separately for sync and for each
            event loop of async calls).
        cache: ``"off"``, ``"record"``, ``"replay"`` or ``"readwrite"`` (see :mod:`.cache`).
        cache_path: SQLite file (or a directory for it); defaults to
            ``textmem_gym.paths.cache_dir("llm") / "responses.sqlite"``.
        prices: Model -> (USD per 1M prompt tokens, USD per 1M completion tokens).
        seed: Sent as the ``seed`` sampling parameter when set.
        embedding_model: Embedding model; defaults to ``$OPENAI_EMBEDDING_MODEL``, then
            ``text-embedding-3-small``.
        backoff_base: First retry wait in seconds (doubles each retry, with jitter).
        backoff_max: Longest retry wait in seconds.
        retry_empty: Also retry answers with empty content.
        structured_output: How ``chat(schema=...)`` sends its schema: ``"auto"`` (the way the
            server takes, found once and kept; a way the server rejects is dropped for the next,
            down to free text), ``"on"`` (the server's way; a rejection is an error), ``"off"``
            (free text) or a mode name (:data:`~textmem_gym.llm.request.MODES`) to force it.
        context_window: The model's context window in tokens; default: what the server states
            (see :mod:`.server_info`), else what a context-length error stated, else unknown.
        limits: The shared request limits of a run (:class:`~textmem_gym.llm.slots.RequestLimits`):
            every HTTP attempt also holds a lease on its endpoint from them. ``None``: this client's
            ``concurrency`` alone limits it.

    Example:
        >>> from textmem_gym.llm import LocalOpenAIServer
        >>> with LocalOpenAIServer(faults=["500"]) as server:
        ...     client = LLMClient(model="m", base_url=server.base_url, backoff_base=0.01)
        ...     client.chat([{"role": "user", "content": "hi"}]).retries
        1
    """

    def __init__(
        self,
        model: str | None = None,
        base_url: str | None = None,
        api_key: str | None = None,
        *,
        timeout: float = 60.0,
        max_retries: int = 5,
        concurrency: int = DEFAULT_CONCURRENCY,
        cache: str = "off",
        cache_path: str | Path | None = None,
        prices: Mapping[str, tuple[float, float]] | None = None,
        seed: int | None = None,
        embedding_model: str | None = None,
        backoff_base: float = 0.5,
        backoff_max: float = 30.0,
        retry_empty: bool = False,
        structured_output: str = "auto",
        context_window: int | None = None,
        limits: RequestLimits | None = None,
    ) -> None:
        self.model = model or os.environ.get(ENV_MODEL) or ""
        if not self.model:
            raise ValueError(f"no model given: pass model= or set ${ENV_MODEL}")
        if concurrency < 1 or max_retries < 0 or timeout <= 0:
            raise ValueError("need concurrency >= 1, max_retries >= 0 and timeout > 0")
        self.base_url = base_url or os.environ.get(ENV_BASE_URL) or DEFAULT_BASE_URL
        key = api_key or os.environ.get(ENV_API_KEY)
        self._api_key = Secret(key) if key else None
        self.embedding_model = embedding_model or os.environ.get(ENV_EMBEDDING_MODEL) or DEFAULT_EMBEDDING_MODEL
        self.timeout, self.concurrency, self.seed, self.retry_empty = timeout, concurrency, seed, retry_empty
        self.retry_policy = RetryPolicy(max_retries=max_retries, backoff_base=backoff_base, backoff_max=backoff_max)
        self.cache_mode, self._mode = cache, cache_mode(cache)  # validates the name
        self.cache_path = cache_file(cache_path) if cache != "off" else None
        self.cache = ResponseCache(self.cache_path) if self.cache_path is not None else None
        self.prices, self.usage, self.rng = PriceTable(prices), UsageTotals(), random.Random()
        self.limits = limits
        self.structured_output = structured_output
        self._structured = StructuredChoice(structured_output)  # validates the setting
        self._requests = Requests(self.model, self.embedding_model, seed=seed, structured_output=structured_output,
                                  keyed=self.cache is not None)
        if context_window is not None and context_window < 1:
            raise ValueError(f"context_window={context_window}: expected a positive token count")
        self._context_window = context_window
        self._stated_window: int | None = None  # from a context-length error
        self._server_info: ServerInfo | None = None
        self._lock = threading.Lock()
        self._sync_slots = threading.BoundedSemaphore(concurrency)
        self._sync_sdk: openai.OpenAI | None = None
        self._async_sdks: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _AsyncTransport]
        self._async_sdks = weakref.WeakKeyDictionary()
        self._transport_failures = 0  # calls in a row that failed for good on transport faults

    def __repr__(self) -> str:
        return (f"LLMClient(model={self.model!r}, base_url={safe_url(self.base_url)!r}, "
                f"cache={self.cache_mode!r}, concurrency={self.concurrency})")

    # -- public calls -------------------------------------------------------------------------
    def chat(self, messages: Messages, *, temperature: float | None = 0.0, max_tokens: int | None = None,
             timeout: float | None = None, schema: Mapping[str, Any] | None = None,
             schema_name: str | None = None, **params: Any) -> ChatResult:
        """Runs one chat completion (blocking).

        Args:
            messages: OpenAI chat messages (``{"role": ..., "content": ...}``).
            temperature: Sampling temperature (``None`` leaves the server default).
            max_tokens: Completion token limit.
            timeout: Per-attempt timeout overriding the client's.
            schema: JSON schema of the answer, sent as a structured-output request as
                ``structured_output`` decides (:attr:`ChatResult.structured` tells which way).
            schema_name: Name of the schema (OpenAI's ``json_schema.name``).
            **params: Further API parameters (``top_p``, ``stop``, ``response_format``, ...).

        Returns:
            The :class:`ChatResult`.

        Raises:
            ContextLengthError: The prompt does not fit the model's context window (not retried).
            LLMError: After the last retry, or at once for non-retryable errors.
            CacheMissError: In replay mode, when the request was never recorded.
        """
        steps = self._chat_steps(messages, temperature, max_tokens, timeout, schema, schema_name, params)
        return _drive(steps, self._sync_transport())

    async def achat(self, messages: Messages, *, temperature: float | None = 0.0, max_tokens: int | None = None,
                    timeout: float | None = None, schema: Mapping[str, Any] | None = None,
                    schema_name: str | None = None, **params: Any) -> ChatResult:
        """Async :meth:`chat` (same arguments, results and errors)."""
        steps = self._chat_steps(messages, temperature, max_tokens, timeout, schema, schema_name, params)
        return await _adrive(steps, self._async_transport())

    def chat_many(self, conversations: Sequence[Messages], **kwargs: Any) -> list[ChatResult]:
        """Runs several chats on ``concurrency`` threads; results keep the input order."""
        with ThreadPoolExecutor(max_workers=self.concurrency) as pool:
            return list(pool.map(lambda messages: self.chat(messages, **kwargs), conversations))

    def prompt_logprobs(self, prompt: str, *, timeout: float | None = None) -> PromptLogprobs:
        """The log-probability of every token of ``prompt`` given the text before it: one (legacy)
        completions request with ``echo`` and ``logprobs`` and one generated token (llama.cpp's
        ``llama-cpp-python`` server, vLLM and OpenAI's completion models score prompts this way;
        a server that does not gives no log-probabilities: :attr:`PromptLogprobs.logprobs` holds
        ``None``, or the request fails with an :class:`~textmem_gym.llm.errors.LLMError`).

        Example:
            >>> from textmem_gym.llm import LocalOpenAIServer
            >>> with LocalOpenAIServer(logprobs=lambda before, token: -1.0) as server:
            ...     scored = LLMClient(model="m", base_url=server.base_url).prompt_logprobs("go to> open door")
            >>> scored.continuation(len("go to>"), len("go to> open door"))  # without the generated token
            -2.0
        """
        request = self._requests.prompt_logprobs(prompt)
        return _drive(self._logprob_steps(request, timeout), self._sync_transport())

    def _logprob_steps(self, request: Request, timeout: float | None) -> Steps[PromptLogprobs]:
        call, response = yield from self._request_steps(request, timeout)
        return call.prompt_logprobs(response)

    def embed(self, texts: Sequence[str], *, model: str | None = None,
              timeout: float | None = None) -> list[list[float]]:
        """Embeds ``texts``; returns one vector per text, in order."""
        return _drive(self._embed_steps(texts, model, timeout), self._sync_transport())

    async def aembed(self, texts: Sequence[str], *, model: str | None = None,
                     timeout: float | None = None) -> list[list[float]]:
        """Async :meth:`embed`."""
        return await _adrive(self._embed_steps(texts, model, timeout), self._async_transport())

    # -- what the server is ---------------------------------------------------------------------
    @property
    def server_info(self) -> ServerInfo:
        """What the server said about itself (asked once; nothing is asked in replay mode)."""
        if self._server_info is None:
            info = ServerInfo("unknown") if self._mode.replay_only else probe_server(self._sync_client(), self.base_url)
            with self._lock:
                self._server_info = self._server_info or info
        return self._server_info

    @property
    def structured_mode(self) -> str:
        """How schemas are sent now (``json_schema``, ``json_object_schema``, ``guided_json`` or ``none``)."""
        return self._structured.current or self._structured.resolve(self.server_info.kind)

    @property
    def context_window(self) -> int | None:
        """The model's context window in tokens: given, else stated by the server, else ``None``."""
        if self._context_window is not None:
            return self._context_window
        return self.server_info.context_window or self._stated_window

    def preflight(self, timeout: float = PREFLIGHT_TIMEOUT) -> None:
        """Checks once that the endpoint answers, takes the key and serves the model (in replay mode
        nothing is asked: no server is needed). See :func:`~textmem_gym.llm.server_info.check_endpoint`.

        Raises:
            EndpointUnavailable: One line naming the URL and what is wrong.
        """
        if not self._mode.replay_only:
            check_endpoint(self._sync_client(), self.base_url, self.model, timeout=timeout,
                           key_given=self._api_key is not None)

    def count_tokens(self, messages: Messages) -> tuple[int, bool]:
        """Prompt tokens of ``messages`` and whether the count is exact.

        Exact (``True``) with the server's tokenizer (llama.cpp's ``/tokenize``,
        llama-cpp-python's ``/extras/tokenize``); otherwise an estimate that errs on the long
        side by :data:`~textmem_gym.llm.prompts.ESTIMATE_MARGIN` (see :mod:`.server_info`).
        """
        exact = None if self._mode.replay_only else count_tokens(self._sync_client(), self.server_info,
                                                                 self.base_url, messages)
        return (exact, True) if exact is not None else (estimate_with_margin(messages), False)

    def close(self) -> None:
        """Closes the sync HTTP client and the cache."""
        if self._sync_sdk is not None:
            self._sync_sdk.close()
            self._sync_sdk = None
        if self.cache is not None:
            self.cache.close()

    async def aclose(self) -> None:
        """Closes the running event loop's async HTTP client, then what :meth:`close` closes."""
        with self._lock:
            entry = self._async_sdks.pop(asyncio.get_running_loop(), None)
        if entry is not None:
            await entry[0].close()
        self.close()

    def __enter__(self) -> LLMClient:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    async def __aenter__(self) -> LLMClient:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    # -- what a chat's outcome teaches: the structured mode, the context window -------------------
    def _resend_after(self, err: LLMError, mode: str) -> bool:
        """Learns from a failed chat; True when it should go again in the next structured mode."""
        if isinstance(err, ContextLengthError):
            self._stated_window = err.context_window or self._stated_window
            return False
        return mode != "none" and is_rejection(err.status, str(err)) and self._structured.rejected(mode)

    def _chat_done(self, call: Call, response: dict[str, Any], mode: str) -> ChatResult:
        if mode != "none" and not call.cached:
            self._structured.accepted(mode)
        return call.chat_result(response)

    # -- transport ----------------------------------------------------------------------------
    def _sdk_options(self) -> dict[str, Any]:
        key = self._api_key.reveal() if self._api_key else PLACEHOLDER_API_KEY
        return {"api_key": key, "base_url": self.base_url,
                "timeout": self.timeout, "max_retries": 0}

    def _sync_client(self) -> openai.OpenAI:
        with self._lock:
            if self._sync_sdk is None:
                self._sync_sdk = openai.OpenAI(**self._sdk_options())
            return self._sync_sdk

    def _async_client(self) -> tuple[openai.AsyncOpenAI, asyncio.Semaphore]:
        loop = asyncio.get_running_loop()
        with self._lock:
            if loop not in self._async_sdks:
                sdk = openai.AsyncOpenAI(**self._sdk_options())
                self._async_sdks[loop] = (sdk, asyncio.Semaphore(self.concurrency))
            return self._async_sdks[loop]

    def _sync_transport(self) -> _Transport:
        sdk = None if self._mode.replay_only else self._sync_client()  # one-time setup: not in latencies
        return _Transport(sdk, self._sync_slots, self.limits, self.base_url)

    def _async_transport(self) -> _Transport:
        sdk, slots = (None, None) if self._mode.replay_only else self._async_client()
        return _Transport(sdk, slots, self.limits, self.base_url)

    def _new_call(self, request: Request, timeout: float | None) -> Call:
        context = CallContext(
            base_url=self.base_url, mode=self._mode, cache=self.cache, retry_policy=self.retry_policy,
            retry_empty=self.retry_empty, api_key=self._api_key, usage=self.usage, prices=self.prices, rng=self.rng,
        )
        return Call(context, request, self.timeout if timeout is None else timeout)

    # -- the steps of a call, written once (driven by :func:`_drive` or :func:`_adrive`) -------
    def _chat_steps(self, messages: Messages, temperature: float | None, max_tokens: int | None,
                    timeout: float | None, schema: Mapping[str, Any] | None, schema_name: str | None,
                    params: dict[str, Any]) -> Steps[ChatResult]:
        """One chat: sent in the structured mode of the moment, again in the next after a rejection."""
        body, key = self._requests.chat(messages, temperature, max_tokens, params, schema, schema_name)
        while True:
            mode = "none" if schema is None else (yield _Blocking(lambda: self.structured_mode))  # may ask the server
            try:
                request = self._requests.with_schema(body, key, schema, schema_name, mode)
                call, response = yield from self._request_steps(request, timeout)
            except LLMError as err:
                if self._resend_after(err, mode):
                    continue
                raise
            return self._chat_done(call, response, mode)

    def _embed_steps(self, texts: Sequence[str], model: str | None, timeout: float | None) -> Steps[list[list[float]]]:
        call, response = yield from self._request_steps(self._requests.embeddings(texts, model), timeout)
        return call.vectors(response)

    def _request_steps(self, request: Request, timeout: float | None) -> Steps[tuple[Call, dict[str, Any]]]:
        """Cache lookup, then attempts until one succeeds or the retry policy gives up."""
        call = self._new_call(request, timeout)
        hit = call.lookup()  # in replay mode a miss raises here
        if hit is not None or self._mode.replay_only:
            return call, hit or {}
        while True:
            try:
                response = call.succeeded((yield _Send(call)))
            except Exception as exc:  # classified by the retry policy; bugs are re-raised
                step: float | Exception = call.failed(exc)
            else:
                self._call_ended(None)
                return call, response
            if isinstance(step, LLMError):
                step = self._call_ended(step) or step
            yield _Wait(call.wait_or_raise(step))

    def _call_ended(self, error: LLMError | None) -> LLMError | EndpointDown | None:
        """Counts the calls in a row that failed for good on a transport fault (connection refused or
        reset, timeout); the :data:`DOWN_AFTER`-th becomes :class:`~textmem_gym.llm.errors.EndpointDown`."""
        with self._lock:
            dead = error is not None and error.last_fault in TRANSPORT_KINDS
            self._transport_failures = self._transport_failures + 1 if dead else 0
            failures = self._transport_failures
        if error is not None and failures >= DOWN_AFTER:
            return EndpointDown(self.base_url, failures, error.last_fault)
        return error


# -- how the steps are driven: the only code that differs between sync and async -------------------------
@dataclass(frozen=True)
class _Transport:
    """What effects are performed with: the SDK client (``None`` in replay mode), this process's request
    slots (a ``threading.BoundedSemaphore``, or an ``asyncio.Semaphore`` of the running loop), the run's
    shared limits (``None``: none) and the endpoint."""

    sdk: Any
    slots: Any
    limits: RequestLimits | None
    base_url: str

    def lease(self, timeout: float) -> AbstractContextManager[None]:
        """A lease from the shared limits on the endpoint for one attempt (nothing without shared limits)."""
        return nullcontext() if self.limits is None else self.limits.lease(self.base_url, timeout)

    def alease(self, timeout: float) -> AbstractAsyncContextManager[None]:
        """Async :meth:`lease`."""
        return nullcontext() if self.limits is None else self.limits.alease(self.base_url, timeout)


@dataclass(frozen=True)
class _Send:
    """Send the call's request (one attempt) holding a request slot (and a lease from the shared limits, when
    the client has them); the reply is the SDK's answer."""

    call: Call

    def run(self, transport: _Transport) -> Any:
        with transport.slots, transport.lease(self.call.timeout):
            return self.call.send(transport.sdk)

    async def arun(self, transport: _Transport) -> Any:
        async with transport.slots, transport.alease(self.call.timeout):
            return await self.call.send(transport.sdk)


@dataclass(frozen=True)
class _Wait:
    """Wait before the next attempt."""

    seconds: float

    def run(self, transport: _Transport) -> None:
        time.sleep(self.seconds)

    async def arun(self, transport: _Transport) -> None:
        await asyncio.sleep(self.seconds)


@dataclass(frozen=True)
class _Blocking:
    """Run a function that may block on I/O (off the event loop when async); the reply is its value."""

    function: Callable[[], Any]

    def run(self, transport: _Transport) -> Any:
        return self.function()

    async def arun(self, transport: _Transport) -> Any:
        return await asyncio.to_thread(self.function)


_Effect = _Send | _Wait | _Blocking
_T = TypeVar("_T")
#: The steps of a call: they yield effects and get each effect's outcome back (or its exception thrown in).
Steps = Generator[_Effect, Any, _T]


def _drive(steps: Steps[_T], transport: _Transport) -> _T:
    """Runs ``steps`` to their result, performing each effect as it comes (blocking)."""
    reply: Any = None
    error: Exception | None = None
    while True:
        try:
            effect = steps.send(reply) if error is None else steps.throw(error)
        except StopIteration as done:
            return done.value
        reply, error = None, None
        try:
            reply = effect.run(transport)
        except Exception as exc:  # thrown into the steps, which decide (outside this except: no chaining)
            error = exc


async def _adrive(steps: Steps[_T], transport: _Transport) -> _T:
    """:func:`_drive` on an event loop."""
    reply: Any = None
    error: Exception | None = None
    while True:
        try:
            effect = steps.send(reply) if error is None else steps.throw(error)
        except StopIteration as done:
            return done.value
        reply, error = None, None
        try:
            reply = await effect.arun(transport)
        except Exception as exc:  # thrown into the steps, which decide (outside this except: no chaining)
            error = exc


def preflight(model: str | None = None, base_url: str | None = None, api_key: str | None = None, *,
              timeout: float = PREFLIGHT_TIMEOUT) -> None:
    """Checks an endpoint once, before a run: reachable, authorised, model served (a few seconds at most).

    Args:
        model, base_url, api_key: As for :class:`LLMClient` (else the ``OPENAI_*`` variables).
        timeout: Seconds allowed for the check's one request.

    Raises:
        EndpointUnavailable: A :class:`~textmem_gym.core.errors.PolicyNotReady` with one line naming
            the URL and what is wrong.

    Example:
        >>> preflight("m", "http://127.0.0.1:9/v1")
        Traceback (most recent call last):
        ...
        textmem_gym.llm.errors.EndpointUnavailable: LLM endpoint http://127.0.0.1:9/v1: nothing answers (...)
    """
    with LLMClient(model, base_url, api_key) as client:
        client.preflight(timeout)


__all__ = ["DOWN_AFTER", "ENV_API_KEY", "ENV_BASE_URL", "ENV_EMBEDDING_MODEL", "ENV_MODEL", "LLMClient",
           "PREFLIGHT_TIMEOUT", "preflight"]
