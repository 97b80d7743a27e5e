"""Faults and retries: what went wrong with an attempt, and whether and when to try again.

Timeouts, connection errors, HTTP 408/429/5xx and malformed answers (:class:`BadResponseError`, and
:class:`EmptyContentError` when empty answers are retried) are retried with exponential backoff and
jitter (a ``Retry-After`` header is a lower bound: :class:`RetryPolicy`); other HTTP errors fail at
once. :class:`RetryState` follows the attempts of one call and turns its last fault into an
:class:`~textmem_gym.llm.errors.LLMError` (a :class:`~textmem_gym.llm.errors.ContextLengthError` when
the prompt did not fit) with credentials removed. Exceptions that are not API faults are bugs and
propagate unchanged.

Example:
    >>> policy = RetryPolicy(max_retries=3, backoff_base=1.0, jitter=0.0)
    >>> [policy.delay(i, None, random.Random(0)) for i in range(3)]
    [1.0, 2.0, 4.0]
    >>> classify(BadResponseError("no choices")).kind, classify(ValueError("a bug")) is None
    ('bad_response', True)
"""

from __future__ import annotations

import email.utils
import json
import logging
import random
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import openai

from textmem_gym.llm.errors import ContextLengthError, LLMError, Secret, is_context_length_message, safe_url

logger = logging.getLogger("textmem_gym.llm")
logger.addHandler(logging.NullHandler())  # a library: the application decides where retries are logged

class BadResponseError(Exception):
    """The server answered 200 but the body is not a usable completion."""


class EmptyContentError(Exception):
    """The server answered with empty content (only raised when empty answers are retried)."""


#: Exception type -> fault kind, checked in order (subclasses first).
EXCEPTION_KINDS: tuple[tuple[type[BaseException], str], ...] = (
    (openai.APITimeoutError, "timeout"),
    (openai.APIConnectionError, "connection"),
    (openai.APIResponseValidationError, "bad_response"),
    (json.JSONDecodeError, "bad_response"),
    (BadResponseError, "bad_response"),
    (EmptyContentError, "empty_content"),
)

#: HTTP status -> fault kind for statuses that are retried; 5xx map to ``server_error``.
STATUS_KINDS: dict[int, str] = {408: "timeout", 429: "rate_limit"}

RETRYABLE_KINDS = frozenset({"timeout", "connection", "rate_limit", "server_error", "bad_response", "empty_content"})
#: Faults that say the server is not answering at all (counted toward :data:`~textmem_gym.llm.client.DOWN_AFTER`).
TRANSPORT_KINDS = frozenset({"timeout", "connection"})


@dataclass(frozen=True)
class FaultInfo:
    """One failed attempt, classified.

    Attributes:
        kind: ``timeout``, ``connection``, ``rate_limit``, ``server_error``, ``bad_response``,
            ``empty_content`` or ``http_<status>`` for other HTTP errors.
        message: The underlying error message (redacted later, before it is shown).
        status: The HTTP status, when there was one.
        retry_after: Seconds the server asked us to wait, when it said.

    Example:
        >>> FaultInfo("rate_limit", "slow down").retryable, FaultInfo("http_401", "no").retryable
        (True, False)
    """

    kind: str
    message: str
    status: int | None = None
    retry_after: float | None = None

    @property
    def retryable(self) -> bool:
        """True when this kind of fault is worth another attempt."""
        return self.kind in RETRYABLE_KINDS


def classify(exc: BaseException) -> FaultInfo | None:
    """Returns the :class:`FaultInfo` for ``exc``, or ``None`` if it is not an API fault (a bug)."""
    if isinstance(exc, openai.APIStatusError):
        status = exc.status_code
        kind = STATUS_KINDS.get(status) or ("server_error" if status >= 500 else f"http_{status}")
        message = str(exc)
        if status in (400, 413) and is_context_length_message(message):
            kind = "context_length"  # not retried: the caller trims the prompt
            message += _context_numbers(exc.body)
        return FaultInfo(kind, message, status, parse_retry_after(exc.response.headers))
    for exc_type, kind in EXCEPTION_KINDS:
        if isinstance(exc, exc_type):
            return FaultInfo(kind, f"{type(exc).__name__}: {exc}")
    return None


def _context_numbers(body: object) -> str:
    """The token counts llama.cpp's server puts beside its context-length message (``n_ctx``, ...)."""
    error = body.get("error", body) if isinstance(body, dict) else None
    if not isinstance(error, dict):
        return ""
    numbers = [f"{name}={error[name]}" for name in ("n_prompt_tokens", "n_ctx") if isinstance(error.get(name), int)]
    return f" ({', '.join(numbers)})" if numbers else ""


def parse_retry_after(headers: Mapping[str, str]) -> float | None:
    """Reads ``retry-after-ms`` or ``retry-after`` (seconds or an HTTP date) in seconds.

    Example:
        >>> parse_retry_after({"retry-after": "2"}), parse_retry_after({"retry-after-ms": "250"})
        (2.0, 0.25)
    """
    for header, scale in (("retry-after-ms", 1000.0), ("retry-after", 1.0)):
        value = headers.get(header)
        if value is None:
            continue
        try:
            return max(0.0, float(value) / scale)
        except ValueError:
            return _seconds_until(value) if scale == 1.0 else None
    return None


def _seconds_until(http_date: str) -> float | None:
    try:
        moment = email.utils.parsedate_to_datetime(http_date)
    except (TypeError, ValueError):
        return None
    return max(0.0, moment.timestamp() - time.time())


@dataclass(frozen=True)
class RetryPolicy:
    """Exponential backoff with jitter, honouring ``Retry-After``.

    The wait before retry ``i`` (0-based) is ``min(backoff_max, backoff_base * 2**i)``, reduced
    by a random fraction of up to ``jitter``; a server's ``Retry-After`` is a lower bound
    (capped at ``max_retry_after``).

    Attributes:
        max_retries: Retries after the first attempt (so ``max_retries + 1`` attempts in all).
        backoff_base: First backoff in seconds.
        backoff_max: Longest backoff in seconds.
        jitter: Fraction (0..1) of each backoff that is randomised away.
        max_retry_after: Longest ``Retry-After`` wait that is honoured.

    Example:
        >>> RetryPolicy(max_retries=2).attempts
        3
    """

    max_retries: int = 5
    backoff_base: float = 0.5
    backoff_max: float = 30.0
    jitter: float = 0.5
    max_retry_after: float = 120.0

    @property
    def attempts(self) -> int:
        """Total attempts allowed."""
        return self.max_retries + 1

    def delay(self, retry_index: int, retry_after: float | None, rng: random.Random) -> float:
        """Seconds to wait before retry number ``retry_index`` (0-based)."""
        backoff = min(self.backoff_max, self.backoff_base * 2.0**retry_index)
        backoff *= 1.0 - self.jitter * rng.random()
        if retry_after is not None:
            backoff = max(backoff, min(retry_after, self.max_retry_after))
        return backoff


class RetryState:
    """Tracks the attempts of one call and decides what to do after each failure.

    Args:
        policy: The retry policy.
        operation: What is being done, for messages (``"chat completion"``).
        endpoint: The base URL (credentials are removed from messages).
        model: The requested model.
        api_key: The key, which must never appear in messages.
        on_fault: Called with every fault (for accounting).
        rng: Source of jitter.
    """

    def __init__(
        self,
        policy: RetryPolicy,
        *,
        operation: str,
        endpoint: str,
        model: str,
        api_key: Secret | None,
        on_fault: Callable[[FaultInfo], None],
        rng: random.Random,
    ) -> None:
        self.policy = policy
        self.operation, self.endpoint, self.model = operation, endpoint, model
        self._api_key, self._on_fault, self._rng = api_key, on_fault, rng
        self.failures = 0

    def failed(self, exc: BaseException) -> float | LLMError:
        """Records a failed attempt; returns the wait before the next one, or the final error.

        Exceptions that are not API faults are re-raised unchanged (they are bugs).
        """
        self.failures += 1
        fault = classify(exc)
        if fault is None:
            raise exc
        self._on_fault(fault)
        if not fault.retryable or self.failures >= self.policy.attempts:
            return self._final_error(fault)
        wait = self.policy.delay(self.failures - 1, fault.retry_after, self._rng)
        logger.warning(
            "%s attempt %d/%d failed (%s); retrying in %.2fs",
            self.operation, self.failures, self.policy.attempts, fault.kind, wait,
        )
        return wait

    def _final_error(self, fault: FaultInfo) -> LLMError:
        status = f" (HTTP {fault.status})" if fault.status else ""
        message = (
            f"{self.operation} failed at {safe_url(self.endpoint)} (model {self.model!r}) after "
            f"{self.failures} attempt(s); last fault: {fault.kind}{status}: {fault.message[:500]}"
        )
        error_type = ContextLengthError if fault.kind == "context_length" else LLMError
        return error_type(
            message, endpoint=self.endpoint, model=self.model, attempts=self.failures,
            last_fault=fault.kind, status=fault.status, secrets=(self._api_key.reveal(),) if self._api_key else (),
        )


__all__ = ["BadResponseError", "EmptyContentError", "FaultInfo", "RETRYABLE_KINDS", "RetryPolicy", "RetryState",
           "TRANSPORT_KINDS", "classify", "parse_retry_after"]
