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
from textmem_gym.llm.errors import Secret, safe_url
from textmem_gym.llm.limits import arequest_slot, request_slot
from textmem_gym.llm.results import ChatResult
from textmem_gym.llm.retry import RetryPolicy
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

    def __repr__(self) -> str:
        return (f"LLMClient(model={self.model!r}, base_url={safe_url(self.base_url)!r}, "
                f"cache={self.cache_mode!r}, concurrency={self.concurrency})")

    # -- public calls -------------------------------------------------------------------------
    def chat(self, messages: Messages, *, temperature: float | None = 0.0, max_tokens: int | None = None,
             timeout: float | None = None, **params: Any) -> ChatResult:
        """Runs one chat completion (blocking).

        Args:
            messages: OpenAI chat messages (``{"role": ..., "content": ...}``).
            temperature: Sampling temperature (``None`` leaves the server default).
            max_tokens: Completion token limit.
            timeout: Per-attempt timeout overriding the client's.
            **params: Further API parameters (``top_p``, ``stop``, ``response_format``, ...).

        Returns:
            The :class:`ChatResult`.

        Raises:
            LLMError: After the last retry, or at once for non-retryable errors.
            CacheMissError: In replay mode, when the request was never recorded.
        """
        call, response = self._run_sync(self._chat_request(messages, temperature, max_tokens, params), timeout)
        return call.chat_result(response)

    async def achat(self, messages: Messages, *, temperature: float | None = 0.0, max_tokens: int | None = None,
                    timeout: float | None = None, **params: Any) -> ChatResult:
        """Async :meth:`chat` (same arguments, results and errors)."""
        call, response = await self._run_async(self._chat_request(messages, temperature, max_tokens, params), timeout)
        return call.chat_result(response)

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
    def _chat_request(self, messages: Messages, temperature: float | None, max_tokens: int | None,
                      params: dict[str, Any]) -> Request:
        if isinstance(messages, (str, bytes)) or not all(isinstance(m, Mapping) for m in messages):
            raise TypeError("messages must be a sequence of {'role': ..., 'content': ...} mappings")
        body: dict[str, Any] = {"model": self.model, "messages": [dict(m) for m in messages]}
        optional = {"temperature": temperature, "max_tokens": max_tokens, "seed": self.seed}
        body.update({name: value for name, value in optional.items() if value is not None})
        body.update(params)
        return Request("chat", body, self._cache_key(body, sampled=temperature != 0))

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
