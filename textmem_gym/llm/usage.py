"""Usage and prices: token estimates, the price table, and the running totals of one client.

Token counts come from the server's ``usage`` block; a server that sends none gets them estimated
(:func:`estimate_prompt_tokens`: 4 characters a token, 4 tokens a message) and the call flagged
``tokens_estimated``. A call costs its tokens at its model's price in a :class:`PriceTable`;
:class:`UsageTotals` sums the calls, tokens, cost, latency and faults of one client (one run).

Example:
    >>> estimate_prompt_tokens([{"role": "user", "content": "What now?"}])
    7
    >>> totals = UsageTotals()
    >>> cost = PriceTable().cost("gpt-4o-mini", 1_000_000, 0)
    >>> totals.add_call(prompt_tokens=1_000_000, completion_tokens=0, latency_s=0.2, cost_usd=cost, model="gpt-4o-mini")
    >>> totals.as_dict()["cost_usd"], totals.as_dict()["cost_complete"]
    (0.15, True)
"""

from __future__ import annotations

import math
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

#: Tokens added per chat message by the estimate (role markers and separators).
MESSAGE_OVERHEAD_TOKENS = 4
#: Characters per token assumed by the estimate.
CHARS_PER_TOKEN = 4


def estimate_tokens(text: str) -> int:
    """Estimates the token count of ``text`` as ``ceil(len(text) / 4)``."""
    return math.ceil(len(text) / CHARS_PER_TOKEN)


def estimate_prompt_tokens(messages: Sequence[Mapping[str, Any]]) -> int:
    """Estimates prompt tokens of chat ``messages`` (text estimate + per-message overhead)."""
    total = 0
    for message in messages:
        content = message.get("content") or ""
        text = content if isinstance(content, str) else str(content)
        total += estimate_tokens(text) + MESSAGE_OVERHEAD_TOKENS
    return total


#: Factor applied to the character-based estimate of a prompt that the server cannot count: English game
#: text runs at 3.5 to 4.5 characters a token with BPE tokenizers, so 1.25 covers the usual range.
ESTIMATE_MARGIN = 1.25


def estimate_with_margin(messages: Sequence[Mapping[str, Any]]) -> int:
    """The character-based estimate of a prompt, times :data:`ESTIMATE_MARGIN` (errs on the long side)."""
    return math.ceil(estimate_prompt_tokens(messages) * ESTIMATE_MARGIN)


#: USD per 1M (prompt, completion) tokens. Public list prices at the time of writing; prices
#: change, so pass ``prices=`` to :class:`~textmem_gym.llm.LLMClient` for exact accounting.
DEFAULT_PRICES: dict[str, tuple[float, float]] = {
    "gpt-4o": (2.50, 10.00),
    "gpt-4o-mini": (0.15, 0.60),
    "gpt-4.1": (2.00, 8.00),
    "gpt-4.1-mini": (0.40, 1.60),
    "gpt-4.1-nano": (0.10, 0.40),
    "gpt-3.5-turbo": (0.50, 1.50),
    "text-embedding-3-small": (0.02, 0.0),
    "text-embedding-3-large": (0.13, 0.0),
}


class PriceTable:
    """Maps model names to USD prices per 1M prompt and completion tokens.

    A model is priced by its exact name, else by the longest table entry it starts with
    (so ``gpt-4o-mini-2024-07-18`` uses ``gpt-4o-mini``). Unknown models cost ``None``.

    Args:
        prices: Model -> (USD per 1M prompt tokens, USD per 1M completion tokens).
            ``None`` uses :data:`DEFAULT_PRICES`.

    Example:
        >>> PriceTable().cost("gpt-4o-mini-2024-07-18", 1_000_000, 0)
        0.15
    """

    def __init__(self, prices: Mapping[str, tuple[float, float]] | None = None) -> None:
        table = DEFAULT_PRICES if prices is None else prices
        self._prices = {name: (float(p), float(c)) for name, (p, c) in table.items()}

    def lookup(self, model: str) -> tuple[float, float] | None:
        """Returns the (prompt, completion) price for ``model``, or ``None`` if unknown."""
        if model in self._prices:
            return self._prices[model]
        prefixes = [name for name in self._prices if model.startswith(name)]
        return self._prices[max(prefixes, key=len)] if prefixes else None

    def cost(self, model: str, prompt_tokens: int, completion_tokens: int) -> float | None:
        """Returns the USD cost of one call, or ``None`` when the model has no price."""
        price = self.lookup(model)
        if price is None:
            return None
        return (prompt_tokens * price[0] + completion_tokens * price[1]) / 1_000_000


@dataclass
class UsageTotals:
    """Running totals of one client (one run): calls, tokens, cost, latency and faults.

    Token totals include cache hits (they describe what the agent consumed, so a replayed run
    reports the same tokens as the recorded one); ``cost_usd`` counts only calls that reached a
    server, so a replay costs nothing.

    Attributes:
        calls: Chat and embedding calls made by the caller (cache hits included).
        cache_hits: Calls answered from the response cache.
        prompt_tokens: Prompt tokens over all calls.
        completion_tokens: Completion tokens over all calls.
        estimated_calls: Calls whose token counts were estimated (server sent no usage).
        cost_usd: Cost of the calls that reached a server, from the price table.
        unpriced_models: Models that had no price (their calls count 0 USD).
        latency_s: Summed wall time of all calls (retries and backoff included).
        retries: Attempts that were retried after a fault.
        failures: Faults by kind, retried or not: failed attempts (``timeout``, ``connection``,
            ``rate_limit``, ``server_error``, ``bad_response``, ``http_<status>``), answers that
            were returned but flawed (``empty_content``, ``truncated``) and replay ``cache_miss``.
        failed_calls: Calls that ended in an error.

    Example:
        >>> totals = UsageTotals()
        >>> totals.add_call(prompt_tokens=10, completion_tokens=5, latency_s=0.1, cost_usd=0.0)
        >>> totals.as_dict()["prompt_tokens"]
        10
    """

    calls: int = 0
    cache_hits: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    estimated_calls: int = 0
    cost_usd: float = 0.0
    unpriced_models: set[str] = field(default_factory=set)
    latency_s: float = 0.0
    retries: int = 0
    failures: dict[str, int] = field(default_factory=dict)
    failed_calls: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def add_call(
        self,
        *,
        prompt_tokens: int,
        completion_tokens: int,
        latency_s: float,
        cost_usd: float | None,
        model: str = "",
        cached: bool = False,
        estimated: bool = False,
        retries: int = 0,
    ) -> None:
        """Adds one finished call (``cost_usd=None`` marks ``model`` as unpriced)."""
        with self._lock:
            self.calls += 1
            self.cache_hits += int(cached)
            self.prompt_tokens += prompt_tokens
            self.completion_tokens += completion_tokens
            self.estimated_calls += int(estimated)
            self.latency_s += latency_s
            self.retries += retries
            if cost_usd is None and not cached:
                self.unpriced_models.add(model)
            elif not cached:
                self.cost_usd += cost_usd or 0.0

    def add_fault(self, kind: str) -> None:
        """Counts one faulty attempt of ``kind``."""
        with self._lock:
            self.failures[kind] = self.failures.get(kind, 0) + 1

    def add_failed_call(self, retries: int, latency_s: float) -> None:
        """Counts one call that ended in an error after ``retries`` retries."""
        with self._lock:
            self.calls += 1
            self.failed_calls += 1
            self.retries += retries
            self.latency_s += latency_s

    @property
    def total_tokens(self) -> int:
        """Prompt plus completion tokens."""
        return self.prompt_tokens + self.completion_tokens

    def as_dict(self) -> dict[str, Any]:
        """Returns a JSON-serialisable snapshot of the totals."""
        with self._lock:
            return {
                "calls": self.calls,
                "cache_hits": self.cache_hits,
                "prompt_tokens": self.prompt_tokens,
                "completion_tokens": self.completion_tokens,
                "total_tokens": self.total_tokens,
                "tokens_estimated": self.estimated_calls > 0,
                "estimated_calls": self.estimated_calls,
                "cost_usd": round(self.cost_usd, 10),
                "cost_complete": not self.unpriced_models,
                "unpriced_models": sorted(self.unpriced_models),
                "latency_s": self.latency_s,
                "retries": self.retries,
                "failures": dict(sorted(self.failures.items())),
                "failed_calls": self.failed_calls,
            }


__all__ = ["CHARS_PER_TOKEN", "DEFAULT_PRICES", "ESTIMATE_MARGIN", "MESSAGE_OVERHEAD_TOKENS", "PriceTable",
           "UsageTotals", "estimate_prompt_tokens", "estimate_tokens", "estimate_with_margin"]
