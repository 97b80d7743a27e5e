"""Faults that :class:`~textmem_gym.llm.LocalOpenAIServer` can inject, and their schedule.

Each fault kind is an entry of :data:`FAULT_KINDS`: a handler that writes the (broken) HTTP
answer, and whether it consumes an answer from the responder. Kinds:

========================  ==============================================================
``delay``                 wait ``delay_s`` (default 0.5 s), then answer normally
``timeout``               wait ``delay_s`` (default 30 s, longer than a client timeout), then
                          close the connection without answering
``rate_limit`` / ``429``  HTTP 429 with ``Retry-After: retry_after`` (default 1 s)
``server_error``/``500``  HTTP ``status`` (default 500) with an error body
``empty``                 HTTP 200 with empty message content
``malformed_json``        HTTP 200 whose body is not valid JSON
``truncated``             HTTP 200, first half of the answer, ``finish_reason="length"``
``disconnect``            headers and half a body, then the connection is closed
``no_usage``              a normal answer without the ``usage`` block
========================  ==============================================================

Example:
    >>> schedule = FaultSchedule([Fault("429", retry_after=0.1), None, "500"])
    >>> [f and f.kind for f in (schedule.next(i, {}) for i in range(4))]
    ['rate_limit', None, 'server_error', None]
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from typing import Any, Protocol

from textmem_gym.loading import unknown_name

_ALIASES = {"429": "rate_limit", "500": "server_error", "slow": "delay", "malformed": "malformed_json",
            "empty_content": "empty"}


class ExchangeProtocol(Protocol):
    """What a fault handler may do with the request it breaks (implemented by the server)."""

    text: str

    def answer(self, *, text: str | None = None, finish_reason: str = "stop", usage: bool = True) -> None:
        """Sends the endpoint's normal answer (chat text may be replaced)."""

    def send_error(self, status: int, message: str, headers: dict[str, str] | None = None) -> None:
        """Sends an OpenAI-style error body with ``status``."""

    def send_raw(self, body: bytes, *, declared_length: int | None = None) -> None:
        """Sends ``body`` as an HTTP 200 JSON answer, claiming ``declared_length`` bytes."""

    def wait(self, seconds: float) -> bool:
        """Sleeps; returns False if the server is stopping."""


@dataclass(frozen=True)
class Fault:
    """One scheduled fault.

    Args:
        kind: A key of :data:`FAULT_KINDS` or an alias (``"429"``, ``"500"``, ``"slow"``).
        delay_s: Wait for ``delay`` and ``timeout``.
        retry_after: ``Retry-After`` seconds for ``rate_limit`` (fractions allowed).
        status: HTTP status for ``server_error`` (e.g. 502, 503).
        times: How many consecutive requests this fault applies to.

    Example:
        >>> Fault("500", status=503).kind
        'server_error'
    """

    kind: str
    delay_s: float | None = None
    retry_after: float | None = None
    status: int | None = None
    times: int = 1

    def __post_init__(self) -> None:
        kind = _ALIASES.get(self.kind, self.kind)
        if kind not in FAULT_KINDS:
            raise unknown_name("fault kind", self.kind, sorted(FAULT_KINDS))
        object.__setattr__(self, "kind", kind)
        if self.times < 1:
            raise ValueError("Fault.times must be >= 1")


FaultLike = Fault | str | None
FaultRule = Callable[[int, dict[str, Any]], FaultLike]


def as_fault(item: FaultLike) -> Fault | None:
    """Turns a kind name into a :class:`Fault` (``None`` stays ``None``)."""
    return Fault(item) if isinstance(item, str) else item


class FaultSchedule:
    """Hands out faults to incoming requests, in arrival order; thread-safe.

    Args:
        faults: A sequence (one entry per request; ``None`` = answer normally; a fault with
            ``times=n`` covers n requests; after the end, requests are answered normally) or
            a rule ``(request_index, body) -> Fault | str | None``.

    Example:
        >>> every_third = FaultSchedule(lambda index, body: "500" if index % 3 == 2 else None)
        >>> [bool(every_third.next(i, {})) for i in range(3)]
        [False, False, True]
    """

    def __init__(self, faults: Iterable[FaultLike] | FaultRule | None = None) -> None:
        self._lock = threading.Lock()
        self._rule: FaultRule | None = faults if callable(faults) else None
        self._queue: deque[Fault | None] = deque()
        if faults is not None and not callable(faults):
            self.extend(faults)

    def extend(self, faults: Iterable[FaultLike]) -> None:
        """Appends faults to the end of the schedule."""
        with self._lock:
            for item in faults:
                fault = as_fault(item)
                self._queue.extend([replace(fault, times=1)] * fault.times if fault else [None])

    def next(self, index: int, body: dict[str, Any]) -> Fault | None:
        """Returns the fault for request number ``index`` (0-based), or ``None``."""
        if self._rule is not None:
            return as_fault(self._rule(index, body))
        with self._lock:
            return self._queue.popleft() if self._queue else None

    def __len__(self) -> int:
        with self._lock:
            return len(self._queue)


def _delay(ex: ExchangeProtocol, fault: Fault) -> None:
    if ex.wait(0.5 if fault.delay_s is None else fault.delay_s):
        ex.answer()


def _timeout(ex: ExchangeProtocol, fault: Fault) -> None:
    ex.wait(30.0 if fault.delay_s is None else fault.delay_s)
    raise ConnectionAbortedError("injected timeout: closing without an answer")


def _format_seconds(seconds: float) -> str:
    return str(int(seconds)) if float(seconds).is_integer() else f"{seconds:g}"


def _rate_limit(ex: ExchangeProtocol, fault: Fault) -> None:
    retry_after = 1.0 if fault.retry_after is None else fault.retry_after
    headers = {"Retry-After": _format_seconds(retry_after)}
    ex.send_error(429, "Rate limit reached (injected by LocalOpenAIServer).", headers)


def _server_error(ex: ExchangeProtocol, fault: Fault) -> None:
    ex.send_error(fault.status or 500, "The server had an error (injected by LocalOpenAIServer).")


def _empty(ex: ExchangeProtocol, fault: Fault) -> None:
    ex.answer(text="")


def _malformed_json(ex: ExchangeProtocol, fault: Fault) -> None:
    ex.send_raw(b'{"id": "chatcmpl-broken", "object": "chat.completion", "choices": [{"index": 0, "mess')


def _truncated(ex: ExchangeProtocol, fault: Fault) -> None:
    ex.answer(text=ex.text[: max(1, len(ex.text) // 2)], finish_reason="length")


def _disconnect(ex: ExchangeProtocol, fault: Fault) -> None:
    body = b'{"id": "chatcmpl-cut", "object": "chat.completion", "choices": ['
    ex.send_raw(body, declared_length=len(body) * 3)
    raise ConnectionAbortedError("injected disconnect")


def _no_usage(ex: ExchangeProtocol, fault: Fault) -> None:
    ex.answer(usage=False)


@dataclass(frozen=True)
class FaultKind:
    """A fault kind: its handler and whether it consumes an answer from the responder.

    Example:
        >>> FAULT_KINDS["truncated"].needs_answer, FAULT_KINDS["rate_limit"].needs_answer
        (True, False)
    """

    handler: Callable[[ExchangeProtocol, Fault], None]
    needs_answer: bool


FAULT_KINDS: dict[str, FaultKind] = {
    "delay": FaultKind(_delay, needs_answer=True),
    "timeout": FaultKind(_timeout, needs_answer=False),
    "rate_limit": FaultKind(_rate_limit, needs_answer=False),
    "server_error": FaultKind(_server_error, needs_answer=False),
    "empty": FaultKind(_empty, needs_answer=False),
    "malformed_json": FaultKind(_malformed_json, needs_answer=False),
    "truncated": FaultKind(_truncated, needs_answer=True),
    "disconnect": FaultKind(_disconnect, needs_answer=False),
    "no_usage": FaultKind(_no_usage, needs_answer=True),
}
