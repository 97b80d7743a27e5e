"""One client call in progress: cache lookup, retry bookkeeping, storage and accounting.

:class:`Call` holds everything the sync and the async paths of
:class:`~textmem_gym.llm.LLMClient` share, so they differ only in how they wait and send.

Example:
    >>> Request("chat", {"model": "m", "messages": []}, key="").model
    'm'
"""

from __future__ import annotations

import logging
import random
import time
from dataclasses import dataclass
from typing import Any

from textmem_gym.llm.accounting import PriceTable, UsageTotals
from textmem_gym.llm.cache import CacheMode, ResponseCache
from textmem_gym.llm.endpoints import ENDPOINTS, Endpoint
from textmem_gym.llm.errors import CacheMissError, LLMError
from textmem_gym.llm.results import ChatResult
from textmem_gym.llm.retry import RetryPolicy, RetryState

logger = logging.getLogger("textmem_gym.llm")


@dataclass(frozen=True)
class Request:
    """A request ready to send.

    Attributes:
        kind: A key of :data:`textmem_gym.llm.endpoints.ENDPOINTS`.
        body: The API parameters (model included); never holds credentials.
        key: Its cache key ("" when caching is off).
    """

    kind: str
    body: dict[str, Any]
    key: str

    @property
    def model(self) -> str:
        """The requested model."""
        return str(self.body["model"])


@dataclass(frozen=True)
class CallContext:
    """What a call needs from the client that makes it, handed over explicitly.

    Attributes:
        base_url: The server URL (shown, redacted, in errors).
        mode: How the cache is used (read, write, replay only, overwrite).
        cache: The response cache, or ``None`` when caching is off.
        retry_policy: Which faults are retried and how long to wait.
        retry_empty: Whether empty answers are retried.
        secrets: Strings never to show in errors (the API key).
        usage: The totals this call is accounted into.
        prices: Prices used to compute the call's cost.
        rng: Randomness for the retry jitter.
    """

    base_url: str
    mode: CacheMode
    cache: ResponseCache | None
    retry_policy: RetryPolicy
    retry_empty: bool
    secrets: tuple[str, ...]
    usage: UsageTotals
    prices: PriceTable
    rng: random.Random


class Call:
    """The life of one call: lookup, attempts, storage and accounting.

    Args:
        context: The client's cache, usage, prices and retry policy for this call.
        request: What to send.
        timeout: Seconds allowed per attempt.
    """

    def __init__(self, context: CallContext, request: Request, timeout: float) -> None:
        self.context, self.request, self.timeout = context, request, timeout
        self.endpoint: Endpoint = ENDPOINTS[request.kind]
        self.started = time.perf_counter()
        self.cached = False
        self.retry = RetryState(
            context.retry_policy, operation=self.endpoint.operation, endpoint=context.base_url,
            model=request.model, secrets=context.secrets,
            on_fault=lambda fault: context.usage.add_fault(fault.kind), rng=context.rng,
        )

    def send(self, sdk: Any) -> Any:
        """Sends the request with the SDK client's ``post`` (a coroutine for the async SDK)."""
        return sdk.post(self.endpoint.path, **self.endpoint.post_arguments(self.request.body, self.timeout))

    def lookup(self) -> dict[str, Any] | None:
        """Returns the cached response when the mode reads the cache; raises on a replay miss."""
        cache, mode = self.context.cache, self.context.mode
        if cache is None or not mode.read:
            return None
        hit = cache.get(self.request.key)
        if hit is None and mode.replay_only:
            self.context.usage.add_fault("cache_miss")
            self.context.usage.add_failed_call(0, time.perf_counter() - self.started)
            raise CacheMissError(key=self.request.key, model=self.request.model,
                                 prompt=self.endpoint.prompt_excerpt(self.request.body), cache_path=str(cache.path))
        self.cached = hit is not None
        return hit

    def succeeded(self, raw: Any) -> dict[str, Any]:
        """Normalises a server answer (may raise a retryable fault) and stores it when recording."""
        response = self.endpoint.normalize(raw, self.request.body, self.context.retry_empty)
        cache, mode = self.context.cache, self.context.mode
        if cache is not None and mode.write:
            cache.put(self.request.key, kind=self.request.kind, model=self.request.model,
                      request=self.request.body, response=response, overwrite=mode.overwrite)
        return response

    def failed(self, exc: BaseException) -> float | LLMError:
        """Records a failed attempt; returns the wait before retrying, or the final error."""
        step = self.retry.failed(exc)
        if isinstance(step, LLMError):
            self.context.usage.add_failed_call(self.retry.failures - 1, time.perf_counter() - self.started)
        return step

    @staticmethod
    def wait_or_raise(step: float | LLMError) -> float:
        """Returns the wait, or raises the final error (outside any ``except``, so no SDK
        exception, which holds request headers, is chained to it)."""
        if isinstance(step, LLMError):
            raise step
        return step

    def chat_result(self, response: dict[str, Any]) -> ChatResult:
        """Accounts the finished chat and returns its :class:`ChatResult`."""
        latency, cost = self._account(response)
        return ChatResult(
            text=response["text"], prompt_tokens=response["prompt_tokens"],
            completion_tokens=response["completion_tokens"], tokens_estimated=response["tokens_estimated"],
            latency_s=latency, model=response["model"], cached=self.cached, retries=self._retries,
            finish_reason=response["finish_reason"], cost_usd=cost,
            structured=response.get("structured", "none"),  # rows cached before schemas have none
        )

    def vectors(self, response: dict[str, Any]) -> list[list[float]]:
        """Accounts the finished embedding call and returns its vectors."""
        self._account(response)
        return [list(vector) for vector in response["vectors"]]

    @property
    def _retries(self) -> int:
        return 0 if self.cached else self.retry.failures

    def _account(self, response: dict[str, Any]) -> tuple[float, float | None]:
        latency = time.perf_counter() - self.started
        prices, usage = self.context.prices, self.context.usage
        prompt, completion = response["prompt_tokens"], response["completion_tokens"]
        cost = prices.cost(response["model"], prompt, completion)
        cost = prices.cost(self.request.model, prompt, completion) if cost is None else cost
        cost = 0.0 if self.cached else cost
        usage.add_call(prompt_tokens=prompt, completion_tokens=completion, latency_s=latency, cost_usd=cost,
                       model=self.request.model, cached=self.cached, estimated=response["tokens_estimated"],
                       retries=self._retries)
        if not self.cached:
            self._count_content_faults(response)
        logger.debug("%s model=%s tokens=%d+%d latency=%.3fs cached=%s retries=%d", self.endpoint.operation,
                     response["model"], prompt, completion, latency, self.cached, self._retries)
        return latency, cost

    def _count_content_faults(self, response: dict[str, Any]) -> None:
        if self.request.kind == "chat" and not response["text"]:
            self.context.usage.add_fault("empty_content")
        if response["finish_reason"] == "length":
            self.context.usage.add_fault("truncated")
