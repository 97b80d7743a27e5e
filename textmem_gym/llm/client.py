"""The LLM client: OpenAI-compatible chat and embeddings with cache, accounting and retries.

Configuration comes from arguments or the standard environment variables ``OPENAI_MODEL``,
``OPENAI_BASE_URL`` and ``OPENAI_API_KEY`` (plus ``OPENAI_EMBEDDING_MODEL``), so the same code
runs against OpenAI, vLLM, Ollama, llama.cpp or :class:`~textmem_gym.llm.LocalOpenAIServer`.
The API key lives only inside the SDK client: it is not part of ``repr``, cache keys, cache
rows, log lines or error messages.

Example:
    >>> from textmem_gym.llm import LLMClient, LocalOpenAIServer
    >>> with LocalOpenAIServer(responder=lambda messages: '{"action": "look"}') as server:
    ...     client = LLMClient(model="local", base_url=server.base_url, api_key="unused")
    ...     result = client.chat([{"role": "user", "content": "What now?"}])
    >>> result.text, result.cached, client.usage.calls
    ('{"action": "look"}', False, 1)
"""

from __future__ import annotations

import asyncio
import logging
import os
import random
import threading
import time
import weakref
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import openai

from textmem_gym.llm.accounting import PriceTable, UsageTotals
from textmem_gym.llm.cache import CACHE_FILENAME, ResponseCache, cache_mode, request_key
from textmem_gym.llm.call import Call, CallContext, Request
from textmem_gym.llm.endpoints import TRANSPORT_OPTIONS
from textmem_gym.llm.errors import ContextLengthError, LLMError, Secret, safe_url
from textmem_gym.llm.limits import arequest_slot, request_slot
from textmem_gym.llm.results import ChatResult
from textmem_gym.llm.retry import RetryPolicy
from textmem_gym.llm.server_info import ServerInfo, count_tokens, estimate_with_margin, probe_server
from textmem_gym.llm.structured import StructuredChoice, is_rejection, request_params
from textmem_gym.paths import cache_dir

logger = logging.getLogger("textmem_gym.llm")
logger.addHandler(logging.NullHandler())  # a library: the application decides where retries are logged

ENV_MODEL = "OPENAI_MODEL"
ENV_BASE_URL = "OPENAI_BASE_URL"
ENV_API_KEY = "OPENAI_API_KEY"
ENV_EMBEDDING_MODEL = "OPENAI_EMBEDDING_MODEL"
DEFAULT_BASE_URL = "https://api.openai.com/v1"
DEFAULT_EMBEDDING_MODEL = "text-embedding-3-small"
#: Sent when no key is configured: local servers ignore it, OpenAI answers 401 (not retried).
PLACEHOLDER_API_KEY = "no-key-configured"

Messages = Sequence[Mapping[str, Any]]
#: The async SDK client of one event loop and its concurrency limit.
_AsyncTransport = tuple[openai.AsyncOpenAI, asyncio.Semaphore]


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
            (free text) or a mode of :mod:`.structured` to force it.
        context_window: The model's context window in tokens; default: what the server states
            (see :mod:`.server_info`), else what a context-length error stated, else unknown.

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
        concurrency: int = 8,
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
        self.cache_mode = cache
        self._mode = cache_mode(cache)  # validates the name
        self.cache_path = _resolve_cache_path(cache_path) if cache != "off" else None
        self.cache = ResponseCache(self.cache_path) if self.cache_path is not None else None
        self.prices = PriceTable(prices)
        self.usage = UsageTotals()
        self.rng = random.Random()
        self._lock = threading.Lock()
        self._sync_slots = threading.BoundedSemaphore(concurrency)
        self._sync_sdk: openai.OpenAI | None = None
        self._async_sdks: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _AsyncTransport]
        self._async_sdks = weakref.WeakKeyDictionary()
        self._sample_counts: dict[str, int] = {}
        self.structured_output = structured_output
        self._structured = StructuredChoice(structured_output)  # validates the setting
        if context_window is not None and context_window < 1:
            raise ValueError(f"context_window={context_window}: expected a positive token count")
        self._context_window = context_window
        self._stated_window: int | None = None  # from a context-length error
        self._server_info: ServerInfo | None = None

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
        body, key = self._chat_body(messages, temperature, max_tokens, params, schema, schema_name)
        while True:
            mode = self._mode_for(schema)
            try:
                call, response = self._run_sync(self._with_schema(body, key, schema, schema_name, mode), timeout)
            except LLMError as err:
                if self._resend_after(err, mode):
                    continue
                raise
            return self._chat_done(call, response, mode)

    async def achat(self, messages: Messages, *, temperature: float | None = 0.0, max_tokens: int | None = None,
                    timeout: float | None = None, schema: Mapping[str, Any] | None = None,
                    schema_name: str | None = None, **params: Any) -> ChatResult:
        """Async :meth:`chat` (same arguments, results and errors)."""
        body, key = self._chat_body(messages, temperature, max_tokens, params, schema, schema_name)
        while True:
            mode = await asyncio.to_thread(self._mode_for, schema)  # the first call may ask the server
            try:
                request = self._with_schema(body, key, schema, schema_name, mode)
                call, response = await self._run_async(request, timeout)
            except LLMError as err:
                if self._resend_after(err, mode):
                    continue
                raise
            return self._chat_done(call, response, mode)

    def chat_many(self, conversations: Sequence[Messages], **kwargs: Any) -> list[ChatResult]:
        """Runs several chats on ``concurrency`` threads; results keep the input order."""
        with ThreadPoolExecutor(max_workers=self.concurrency) as pool:
            return list(pool.map(lambda messages: self.chat(messages, **kwargs), conversations))

    def embed(self, texts: Sequence[str], *, model: str | None = None,
              timeout: float | None = None) -> list[list[float]]:
        """Embeds ``texts``; returns one vector per text, in order."""
        call, response = self._run_sync(self._embed_request(texts, model), timeout)
        return call.vectors(response)

    async def aembed(self, texts: Sequence[str], *, model: str | None = None,
                     timeout: float | None = None) -> list[list[float]]:
        """Async :meth:`embed`."""
        call, response = await self._run_async(self._embed_request(texts, model), timeout)
        return call.vectors(response)

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

    def count_tokens(self, messages: Messages) -> tuple[int, bool]:
        """Prompt tokens of ``messages`` and whether the count is exact.

        Exact (``True``) with the server's tokenizer (llama.cpp's ``/tokenize``,
        llama-cpp-python's ``/extras/tokenize``); otherwise an estimate that errs on the long
        side by :data:`~textmem_gym.llm.server_info.ESTIMATE_MARGIN` (see :mod:`.server_info`).
        """
        if self._mode.replay_only:
            return estimate_with_margin(messages), False
        return count_tokens(self._sync_client(), self.server_info, self.base_url, messages)

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

    # -- requests -----------------------------------------------------------------------------
    def _chat_body(self, messages: Messages, temperature: float | None, max_tokens: int | None,
                   params: dict[str, Any], schema: Mapping[str, Any] | None,
                   schema_name: str | None) -> tuple[dict[str, Any], str]:
        """The request body without its schema, and the cache key (which names the schema and the
        ``structured_output`` setting, not the way the schema goes over the wire, so a replay
        needs no server)."""
        if isinstance(messages, (str, bytes)) or not all(isinstance(m, Mapping) for m in messages):
            raise TypeError("messages must be a sequence of {'role': ..., 'content': ...} mappings")
        body: dict[str, Any] = {"model": self.model, "messages": [dict(m) for m in messages]}
        optional = {"temperature": temperature, "max_tokens": max_tokens, "seed": self.seed}
        body.update({name: value for name, value in optional.items() if value is not None})
        body.update(params)
        keyed = body if schema is None else {
            **body, "schema": dict(schema), "schema_name": schema_name, "structured_output": self.structured_output}
        return body, self._cache_key(keyed, sampled=temperature != 0)

    def _with_schema(self, body: dict[str, Any], key: str, schema: Mapping[str, Any] | None,
                     schema_name: str | None, mode: str) -> Request:
        wire = body if schema is None else {**body, **request_params(mode, schema, schema_name)}
        return Request("chat", wire, key)

    def _mode_for(self, schema: Mapping[str, Any] | None) -> str:
        return "none" if schema is None else self.structured_mode

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

    def _embed_request(self, texts: Sequence[str], model: str | None) -> Request:
        if isinstance(texts, str) or not all(isinstance(t, str) for t in texts):
            raise TypeError("texts must be a sequence of strings")
        body = {"model": model or self.embedding_model, "input": list(texts), "encoding_format": "float"}
        return Request("embeddings", body, self._cache_key(body, sampled=False))

    def _cache_key(self, body: dict[str, Any], *, sampled: bool) -> str:
        """The cache key; sampled requests also count repeats, so a replay gives each repeat its own answer."""
        if self.cache is None:
            return ""
        keyed = {name: value for name, value in body.items() if name not in TRANSPORT_OPTIONS}
        key = request_key({"body": keyed})
        if not sampled:
            return key
        with self._lock:
            repeat = self._sample_counts.get(key, 0)
            self._sample_counts[key] = repeat + 1
        return request_key({"body": keyed, "repeat": repeat})

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

    def _async_client(self) -> _AsyncTransport:
        loop = asyncio.get_running_loop()
        with self._lock:
            if loop not in self._async_sdks:
                sdk = openai.AsyncOpenAI(**self._sdk_options())
                self._async_sdks[loop] = (sdk, asyncio.Semaphore(self.concurrency))
            return self._async_sdks[loop]

    def _new_call(self, request: Request, timeout: float | None) -> Call:
        context = CallContext(
            base_url=self.base_url, mode=self._mode, cache=self.cache, retry_policy=self.retry_policy,
            retry_empty=self.retry_empty, secrets=(self._api_key.reveal(),) if self._api_key else (),
            usage=self.usage, prices=self.prices, rng=self.rng,
        )
        return Call(context, request, self.timeout if timeout is None else timeout)

    def _run_sync(self, request: Request, timeout: float | None) -> tuple[Call, dict[str, Any]]:
        sdk = None if self._mode.replay_only else self._sync_client()  # one-time setup: not in latencies
        call = self._new_call(request, timeout)
        hit = call.lookup()  # in replay mode a miss raises here
        if hit is not None or sdk is None:
            return call, hit or {}
        while True:
            try:
                with self._sync_slots, request_slot(self.base_url, call.timeout):
                    raw = call.send(sdk)
                return call, call.succeeded(raw)
            except Exception as exc:  # classified by the retry policy; bugs are re-raised
                step = call.failed(exc)
            time.sleep(call.wait_or_raise(step))

    async def _run_async(self, request: Request, timeout: float | None) -> tuple[Call, dict[str, Any]]:
        transport = None if self._mode.replay_only else self._async_client()
        call = self._new_call(request, timeout)
        hit = call.lookup()  # in replay mode a miss raises here
        if hit is not None or transport is None:
            return call, hit or {}
        sdk, slots = transport
        while True:
            try:
                async with slots, arequest_slot(self.base_url, call.timeout):
                    raw = await call.send(sdk)
                return call, call.succeeded(raw)
            except Exception as exc:  # classified by the retry policy; bugs are re-raised
                step = call.failed(exc)
            await asyncio.sleep(call.wait_or_raise(step))


def _resolve_cache_path(cache_path: str | Path | None) -> Path:
    if cache_path is None:
        return cache_dir("llm") / CACHE_FILENAME
    path = Path(cache_path).expanduser()
    return path / CACHE_FILENAME if path.is_dir() else path


__all__ = ["LLMClient"]
