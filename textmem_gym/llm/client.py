"""The LLM client: OpenAI-compatible chat and embeddings with cache, retries, structured output and accounting.

Configuration comes from arguments or the standard environment variables ``OPENAI_MODEL``,
``OPENAI_BASE_URL`` and ``OPENAI_API_KEY`` (plus ``OPENAI_EMBEDDING_MODEL``), so the same code
runs against OpenAI, vLLM, Ollama, llama.cpp or :class:`~textmem_gym.llm.LocalOpenAIServer`.
The API key lives only inside the SDK client: it is not part of ``repr``, cache keys, cache
rows, log lines or error messages.

One request, in the order of this module:

* **Answers** (:class:`ChatResult`) and **usage** (:class:`UsageTotals`, cost from a :class:`PriceTable`).
  Token counts come from the server's ``usage`` block, else they are estimated
  (:func:`estimate_prompt_tokens`: 4 characters a token, 4 tokens a message) and flagged ``tokens_estimated``.
* **Structured output**: how a JSON schema is sent to each kind of server, each way a *mode*:
  ``json_schema`` (``response_format={"type": "json_schema", ...}``: OpenAI, llama.cpp's server,
  Ollama, vLLM), ``json_object_schema`` (``response_format={"type": "json_object", "schema": ...}``:
  llama-cpp-python's server), ``guided_json`` (vLLM's extra parameter) and ``none`` (free text, read
  by the free-text parser). ``structured_output="auto"`` takes the mode that suits the server kind
  (found by :mod:`textmem_gym.llm.server_info`; on an unknown server ``json_schema`` first) and drops
  a mode the server rejects with HTTP 400/422 for the next, down to ``none``; ``"on"`` never drops
  (a rejection is an error), ``"off"`` is always ``none``, a mode name forces it.
* **Endpoints**: the two API calls (chat, embeddings) and how their answers are normalised into the
  small JSON dicts the cache stores and a replay returns.
* **Faults and retries**: timeouts, connection errors, HTTP 408/429/5xx and malformed answers are
  retried with exponential backoff and jitter (a ``Retry-After`` header is a lower bound); other
  HTTP errors fail at once. A call that fails for good raises :class:`~textmem_gym.llm.LLMError`;
  the :data:`DOWN_AFTER`-th call in a row failing on transport faults raises
  :class:`~textmem_gym.llm.errors.EndpointDown` instead (a dead server is not a bad answer).
* **Request limits**: with the evaluation's shared limits installed (:func:`install`; the limits are
  :class:`~textmem_gym.execution.limits.EndpointLimits`), every HTTP attempt holds a lease on its
  endpoint (:func:`request_slot`), on top of the client's own per-process ``concurrency``.
* **The call's steps**, written once as a generator of effects (send, wait, blocking work), driven
  by a blocking loop for :meth:`LLMClient.chat` and an event-loop one for :meth:`LLMClient.achat`.

Example:
    >>> from textmem_gym.llm import LLMClient, LocalOpenAIServer
    >>> with LocalOpenAIServer(responder=lambda messages: '{"action": "look"}') as server:
    ...     client = LLMClient(model="local", base_url=server.base_url, api_key="unused")
    ...     result = client.chat([{"role": "user", "content": "What now?"}])
    >>> result.text, result.cached, client.usage.calls
    ('{"action": "look"}', False, 1)
    >>> body = request_params("json_object_schema", {"type": "object"}, "decision")
    >>> body["response_format"]["type"], mode_of_body(body)
    ('json_object', 'json_object_schema')
    >>> policy = RetryPolicy(max_retries=3, backoff_base=1.0, jitter=0.0)
    >>> [policy.delay(i, None, random.Random(0)) for i in range(3)]
    [1.0, 2.0, 4.0]
"""

from __future__ import annotations

import asyncio
import email.utils
import json
import logging
import math
import os
import random
import threading
import time
import weakref
from collections.abc import AsyncIterator, Callable, Generator, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager, contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Protocol, TypeVar

import openai
from openai.types import Completion, CreateEmbeddingResponse
from openai.types.chat import ChatCompletion

from textmem_gym.llm.answers import ParseResult, parse_json_object
from textmem_gym.llm.cache import CACHE_FILENAME, CacheMode, ResponseCache, cache_mode, request_key
from textmem_gym.llm.errors import (
    CacheMissError,
    ContextLengthError,
    EndpointDown,
    LLMError,
    Secret,
    is_context_length_message,
    safe_url,
)
from textmem_gym.llm.server_info import (
    ServerInfo,
    check_endpoint,
    count_tokens,
    probe_server,
)
from textmem_gym.paths import cache_dir

logger = logging.getLogger("textmem_gym.llm")
logger.addHandler(logging.NullHandler())  # a library: the application decides where retries are logged

Messages = Sequence[Mapping[str, Any]]
#: The async SDK client of one event loop and its concurrency limit.
_AsyncTransport = tuple[openai.AsyncOpenAI, asyncio.Semaphore]


# -- answers -------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class ChatResult:
    """One chat completion: the text and what it cost.

    Attributes:
        text: The assistant message ("" when the server sent no content).
        prompt_tokens: Prompt tokens (from the server's ``usage``, else estimated).
        completion_tokens: Completion tokens (from the server's ``usage``, else estimated).
        tokens_estimated: True when the token counts are an estimate (server sent no usage).
        latency_s: Wall time of this call, retries and backoff included (cache lookup time
            for a cache hit).
        model: The model that answered, as the server named it.
        cached: True when the answer came from the response cache.
        retries: Attempts retried after faults before this answer.
        finish_reason: The server's finish reason (``"length"`` means truncated output).
        cost_usd: Cost of this call (0 for a cache hit, ``None`` when the model has no price).
        structured: How the answer's JSON schema was sent (a structured-output mode:
            ``json_schema``, ``json_object_schema``, ``guided_json``), or ``none`` for free text.

    Example:
        >>> ChatResult("hi", 1, 1, False, 0.1, "m", False, 0, finish_reason="length").truncated
        True
    """

    text: str
    prompt_tokens: int
    completion_tokens: int
    tokens_estimated: bool
    latency_s: float
    model: str
    cached: bool
    retries: int
    finish_reason: str | None = None
    cost_usd: float | None = None
    structured: str = "none"

    @property
    def total_tokens(self) -> int:
        """Prompt plus completion tokens."""
        return self.prompt_tokens + self.completion_tokens

    @property
    def truncated(self) -> bool:
        """True when the server stopped at the token limit (``finish_reason == "length"``)."""
        return self.finish_reason == "length"

    def json(self, *, required: tuple[str, ...] = ()) -> ParseResult:
        """Parses the first JSON object in :attr:`text` (see :func:`parse_json_object`)."""
        return parse_json_object(self.text, required=required)

    def as_dict(self) -> dict[str, Any]:
        """Returns the fields as a JSON-serialisable dict."""
        return asdict(self)


@dataclass(frozen=True)
class PromptLogprobs:
    """The log-probabilities of a prompt's own tokens (a completions request with ``echo`` and ``logprobs``).

    Attributes:
        tokens: The prompt's tokens as the server split it (then the generated one, if any).
        logprobs: Each token's log-probability given the text before it (``None`` where the server
            gave none: the first token, or every token when the server does not score prompts).
        offsets: Each token's character offset in the prompt.
        prompt_tokens, completion_tokens, tokens_estimated, latency_s, model, cached, retries: As
            for :class:`ChatResult`.

    Example:
        >>> scored = PromptLogprobs(["a", " b", " c"], [None, -1.0, -0.5], [0, 1, 3], 3, 0, False, 0.1, "m", False, 0)
        >>> scored.continuation(1)
        -1.5
        >>> PromptLogprobs(["a"], [None], [0], 1, 0, False, 0.1, "m", False, 0).continuation(1) is None
        True
    """

    tokens: list[str]
    logprobs: list[float | None]
    offsets: list[int]
    prompt_tokens: int
    completion_tokens: int
    tokens_estimated: bool
    latency_s: float
    model: str
    cached: bool
    retries: int

    def continuation(self, start: int, end: int | None = None) -> float | None:
        """The summed log-probability of the tokens starting in ``[start, end)`` (characters of the
        prompt); ``None`` when one of them has no log-probability or none starts there."""
        chosen = [lp for offset, lp in zip(self.offsets, self.logprobs)
                  if offset >= start and (end is None or offset < end)]
        if not chosen or any(lp is None for lp in chosen):
            return None
        return float(sum(lp for lp in chosen if lp is not None))


# -- usage and cost ------------------------------------------------------------------------------------
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


def estimate_with_margin(messages: Messages) -> int:
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


# -- structured output ---------------------------------------------------------------------------------
#: Mode name -> ``(schema, name, strict) -> request parameters`` that constrain the answer.
MODE_PARAMS: dict[str, Callable[[dict[str, Any], str, bool], dict[str, Any]]] = {
    "json_schema": lambda schema, name, strict: {
        "response_format": {"type": "json_schema", "json_schema": {"name": name, "schema": schema, "strict": strict}}},
    "json_object_schema": lambda schema, name, strict: {"response_format": {"type": "json_object", "schema": schema}},
    "guided_json": lambda schema, name, strict: {"guided_json": schema},
    "none": lambda schema, name, strict: {},
}
MODES = tuple(MODE_PARAMS)
STRUCTURED_SETTINGS = ("auto", "on", "off", *MODES)
#: Server kind (see :mod:`textmem_gym.llm.server_info`) -> the modes to try, best first.
KIND_MODES: dict[str, tuple[str, ...]] = {
    "openai": ("json_schema",),
    "vllm": ("json_schema", "guided_json"),
    "llama-cpp-python": ("json_object_schema",),
    "llama.cpp": ("json_schema", "json_object_schema"),
    "ollama": ("json_schema",),
    "unknown": ("json_schema", "json_object_schema", "guided_json"),
}
#: HTTP statuses with which a server rejects a request shape it does not know.
REJECTION_STATUSES = frozenset({400, 422})
#: Words of such a rejection's message (a 400 for another reason does not drop a mode).
REJECTION_WORDS = ("response_format", "json_schema", "json_object", "guided", "schema", "grammar")
DEFAULT_SCHEMA_NAME = "answer"


def request_params(mode: str, schema: Mapping[str, Any], name: str | None = None) -> dict[str, Any]:
    """The chat request parameters that send ``schema`` in ``mode``."""
    schema = dict(schema)
    return MODE_PARAMS[mode](schema, _safe_name(name), is_strict_schema(schema))


def mode_of_body(body: Mapping[str, Any]) -> str:
    """The mode a chat request body was sent in (``"none"`` when it carries no schema)."""
    if "guided_json" in body or "guided_json" in (body.get("extra_body") or {}):
        return "guided_json"
    response_format = body.get("response_format")
    if not isinstance(response_format, Mapping):
        return "none"
    if response_format.get("type") == "json_schema":
        return "json_schema"
    if response_format.get("type") == "json_object" and "schema" in response_format:
        return "json_object_schema"
    return "none"


def is_strict_schema(schema: Any) -> bool:
    """True when ``schema`` meets OpenAI's strict mode (every object closed, every property required).

    Example:
        >>> is_strict_schema({"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"],
        ...                   "additionalProperties": False})
        True
        >>> is_strict_schema({"type": "object", "properties": {"a": {"type": "string"}}})
        False
    """
    if isinstance(schema, list):
        return all(is_strict_schema(item) for item in schema)
    if not isinstance(schema, Mapping):
        return True
    if schema.get("type") == "object" or "properties" in schema:
        properties = schema.get("properties") or {}
        if schema.get("additionalProperties") is not False or set(schema.get("required") or ()) != set(properties):
            return False
    return all(is_strict_schema(value) for key, value in schema.items() if key not in ("enum", "const", "required"))


def _safe_name(name: str | None) -> str:
    """OpenAI wants ``[a-zA-Z0-9_-]{1,64}``."""
    cleaned = "".join(c if c.isalnum() or c in "_-" else "_" for c in (name or DEFAULT_SCHEMA_NAME))
    return cleaned[:64] or DEFAULT_SCHEMA_NAME


def is_rejection(status: int | None, message: str) -> bool:
    """True when an HTTP error says the server does not take a schema in the shape it was sent.

    Example:
        >>> is_rejection(400, "Invalid parameter: 'response_format' of type 'json_schema' is not supported")
        True
        >>> is_rejection(400, "you must provide a model parameter")
        False
    """
    lowered = message.lower()
    return status in REJECTION_STATUSES and any(word in lowered for word in REJECTION_WORDS)


def check_setting(setting: str) -> str:
    """Returns ``setting`` or raises a ValueError naming the valid ones."""
    if setting not in STRUCTURED_SETTINGS:
        raise ValueError(f"structured_output={setting!r}: expected one of {', '.join(STRUCTURED_SETTINGS)}")
    return setting


class StructuredChoice:
    """Which mode a client's schema calls use, decided once per client and thread-safe.

    Args:
        setting: ``auto``, ``on``, ``off`` or a mode name.

    Example:
        >>> choice = StructuredChoice("auto")
        >>> choice.resolve("unknown")
        'json_schema'
        >>> choice.rejected("json_schema"), choice.current
        (True, 'json_object_schema')
        >>> choice.accepted("json_object_schema"); choice.rejected("json_object_schema")
        False
    """

    def __init__(self, setting: str) -> None:
        self.setting = check_setting(setting)
        self._lock = threading.Lock()
        self._candidates: list[str] | None = None
        self._confirmed = False
        if setting == "off":
            self._candidates = ["none"]
        elif setting in MODES:
            self._candidates = [setting]

    @property
    def needs_server_kind(self) -> bool:
        """True until the modes to try are known (``auto``/``on`` need the server kind)."""
        return self._candidates is None

    @property
    def current(self) -> str | None:
        """The mode the next schema call uses (``None`` before :meth:`resolve`)."""
        with self._lock:
            return self._candidates[0] if self._candidates else None

    def resolve(self, server_kind: str) -> str:
        """Fixes the candidates from the server kind (first call only); returns the current mode."""
        with self._lock:
            if self._candidates is None:
                modes = KIND_MODES.get(server_kind, KIND_MODES["unknown"])
                self._candidates = list(modes[:1] if self.setting == "on" else (*modes, "none"))
            return self._candidates[0]

    def rejected(self, mode: str) -> bool:
        """The server rejected ``mode``: drops it when ``auto`` may; returns True to send again."""
        with self._lock:
            if self.setting != "auto" or self._confirmed or not self._candidates or self._candidates[0] != mode:
                return False
            if len(self._candidates) == 1:
                return False
            self._candidates.pop(0)
            return True

    def accepted(self, mode: str) -> None:
        """The server answered a call sent in ``mode``: the decision is final."""
        with self._lock:
            if self._candidates and self._candidates[0] == mode:
                self._confirmed = True


# -- endpoints ------------------------------------------------------------------------------------------
EXCERPT_CHARS = 200


def _excerpt(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= EXCERPT_CHARS else text[: EXCERPT_CHARS - 3] + "..."


def _usage_counts(raw: Any) -> tuple[int, int] | None:
    usage = getattr(raw, "usage", None)
    prompt = getattr(usage, "prompt_tokens", None)
    if not isinstance(prompt, int):
        return None
    completion = getattr(usage, "completion_tokens", None)
    return prompt, completion if isinstance(completion, int) else 0


def normalize_chat(raw: Any, body: Mapping[str, Any], retry_empty: bool) -> dict[str, Any]:
    """Turns an SDK chat completion into a normalised response.

    Raises:
        BadResponseError: The completion has no choice or no message (retried).
        EmptyContentError: The content is empty and ``retry_empty`` is set (retried).
    """
    choices = getattr(raw, "choices", None)
    choice = choices[0] if choices else None
    message = getattr(choice, "message", None)
    if message is None:
        raise BadResponseError("completion has no choices[0].message")
    text = getattr(message, "content", None) or ""
    if not text and retry_empty:
        raise EmptyContentError("completion has empty content")
    counts = _usage_counts(raw)
    estimated = counts is None
    if counts is None:
        counts = (estimate_prompt_tokens(body["messages"]), estimate_tokens(text))
    return {
        "text": text,
        "prompt_tokens": counts[0],
        "completion_tokens": counts[1],
        "tokens_estimated": estimated,
        "model": getattr(raw, "model", None) or body["model"],
        "finish_reason": getattr(choice, "finish_reason", None),
        "structured": mode_of_body(body),
    }


def normalize_completion(raw: Any, body: Mapping[str, Any], retry_empty: bool) -> dict[str, Any]:
    """Turns an SDK (legacy) completion into a normalised response with its token log-probabilities
    (``logprobs``: ``None`` when the server sent none).

    Raises:
        BadResponseError: The completion has no choice (retried).
    """
    choices = getattr(raw, "choices", None)
    if not choices:
        raise BadResponseError("completion has no choices[0]")
    choice = choices[0]
    text = getattr(choice, "text", None) or ""
    scored = getattr(choice, "logprobs", None)
    tokens = getattr(scored, "tokens", None)
    logprobs = None
    if tokens:
        values = list(getattr(scored, "token_logprobs", None) or [None] * len(tokens))
        offsets = list(getattr(scored, "text_offset", None) or [])
        if len(values) == len(tokens) and len(offsets) == len(tokens):
            logprobs = {"tokens": list(tokens), "token_logprobs": values, "text_offset": offsets}
    counts = _usage_counts(raw)
    estimated = counts is None
    if counts is None:
        counts = (estimate_tokens(str(body.get("prompt", ""))), estimate_tokens(text))
    return {"text": text, "prompt_tokens": counts[0], "completion_tokens": counts[1], "tokens_estimated": estimated,
            "model": getattr(raw, "model", None) or body["model"],
            "finish_reason": getattr(choice, "finish_reason", None), "logprobs": logprobs}


def normalize_embeddings(raw: Any, body: Mapping[str, Any], retry_empty: bool) -> dict[str, Any]:
    """Turns an SDK embedding response into a normalised response (vectors in input order).

    Raises:
        BadResponseError: The number of vectors does not match the inputs (retried).
    """
    inputs = body["input"]
    data = sorted(getattr(raw, "data", None) or [], key=lambda item: getattr(item, "index", 0))
    vectors = [[float(v) for v in getattr(item, "embedding", None) or []] for item in data]
    if len(vectors) != len(inputs) or any(not vector for vector in vectors):
        raise BadResponseError(f"expected {len(inputs)} embedding vectors, got {len(vectors)}")
    counts = _usage_counts(raw)
    prompt_tokens = counts[0] if counts else sum(estimate_tokens(text) for text in inputs)
    return {
        "vectors": vectors,
        "prompt_tokens": prompt_tokens,
        "completion_tokens": 0,
        "tokens_estimated": counts is None,
        "model": getattr(raw, "model", None) or body["model"],
        "finish_reason": None,
    }


def _chat_excerpt(body: Mapping[str, Any]) -> str:
    messages = body.get("messages") or []
    users = [m for m in messages if m.get("role") == "user"] or list(messages)
    return _excerpt(str(users[-1].get("content", ""))) if users else ""


def _completion_excerpt(body: Mapping[str, Any]) -> str:
    return _excerpt(str(body.get("prompt", ""))[-EXCERPT_CHARS:])


def _embeddings_excerpt(body: Mapping[str, Any]) -> str:
    inputs = body.get("input") or []
    return _excerpt(str(inputs[0])) + (f" (+{len(inputs) - 1} more)" if len(inputs) > 1 else "")


#: SDK request options that shape the HTTP request, not the answer (never part of a cache key),
#: and the SDK ``post`` option each one becomes.
TRANSPORT_OPTIONS = {"extra_headers": "headers", "extra_query": "params"}


@dataclass(frozen=True)
class Endpoint:
    """An API endpoint: its path, response type, and how its answers are read.

    Requests go through the SDK client's generic ``post`` (its documented way to send any
    request): the body is passed through as given, so server-specific parameters (vLLM's
    ``top_k``, ...) need no ``extra_body``, and the per-request cost of the typed ``create``
    methods' parameter transformation is avoided.

    Attributes:
        operation: Human name for messages.
        path: Path below the base URL.
        cast_to: The SDK model the answer is parsed into.
        normalize: ``(raw, body, retry_empty) -> normalised response``.
        prompt_excerpt: ``body -> short text`` naming the request in errors.

    Example:
        >>> args = ENDPOINTS["chat"].post_arguments({"model": "m", "extra_headers": {"X": "1"}}, 5.0)
        >>> args["body"], args["options"]
        ({'model': 'm'}, {'timeout': 5.0, 'headers': {'X': '1'}})
    """

    operation: str
    path: str
    cast_to: type
    normalize: Callable[[Any, Mapping[str, Any], bool], dict[str, Any]]
    prompt_excerpt: Callable[[Mapping[str, Any]], str]

    def post_arguments(self, body: Mapping[str, Any], timeout: float) -> dict[str, Any]:
        """Keyword arguments for ``sdk.post`` (sync or async) sending ``body``."""
        payload = {name: value for name, value in body.items() if name not in TRANSPORT_OPTIONS}
        payload.update(payload.pop("extra_body", None) or {})
        options: dict[str, Any] = {"timeout": timeout}
        options.update({option: body[name] for name, option in TRANSPORT_OPTIONS.items() if body.get(name)})
        return {"cast_to": self.cast_to, "body": payload, "options": options}


ENDPOINTS: dict[str, Endpoint] = {
    "chat": Endpoint("chat completion", "/chat/completions", ChatCompletion, normalize_chat, _chat_excerpt),
    "embeddings": Endpoint("embedding", "/embeddings", CreateEmbeddingResponse, normalize_embeddings,
                           _embeddings_excerpt),
    "completions": Endpoint("completion", "/completions", Completion, normalize_completion, _completion_excerpt),
}


# -- faults and retries ---------------------------------------------------------------------------------
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
#: Faults that say the server is not answering at all (counted toward :data:`DOWN_AFTER`).
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


# -- request limits ------------------------------------------------------------------------------------
#: Requests in flight per process when no limit is given (``LLMClient(concurrency=...)``'s default).
DEFAULT_CONCURRENCY = 8
#: A lease outlives the HTTP attempt it covers by this many seconds (the attempt's own timeout
#: ends it earlier; a lease left by a dead holder lapses after timeout + margin).
LEASE_MARGIN_S = 5.0
#: Longest single wait inside the shared limiter before the caller asks again (keeps a waiting
#: request from pinning a remote call forever).
WAIT_CHUNK_S = 1.0


class Limiter(Protocol):
    """What a worker needs of the shared limits (an :class:`~textmem_gym.execution.limits.EndpointLimits`, a proxy,
    or a Ray handle)."""

    def acquire(self, endpoint: str, owner: str, lease_s: float, wait_s: float) -> int | None:
        """See :meth:`~textmem_gym.execution.limits.EndpointLimits.acquire`."""

    def release(self, token: int) -> None:
        """See :meth:`~textmem_gym.execution.limits.EndpointLimits.release`."""


_installed: tuple[Limiter, str] | None = None


def install(limiter: Limiter | None, owner: str = "") -> tuple[Limiter, str] | None:
    """Makes every LLM client of this process take its leases from ``limiter`` (``None``: no limit).

    Args:
        limiter: The shared limits (or ``None`` to remove them).
        owner: Names this process in the leases (so its leases can be freed if it dies).

    Returns:
        What was installed before (give it back to :func:`restore`).
    """
    global _installed
    previous = _installed
    _installed = None if limiter is None else (limiter, owner)
    return previous


def restore(previous: tuple[Limiter, str] | None) -> None:
    """Reinstalls what :func:`install` returned."""
    global _installed
    _installed = previous


@contextmanager
def installed(limiter: Limiter | None, owner: str = "") -> Iterator[None]:
    """:func:`install` for the duration of a ``with`` block."""
    previous = install(limiter, owner)
    try:
        yield
    finally:
        restore(previous)


def _take_lease(limiter: Limiter, owner: str, base_url: str, attempt_timeout: float) -> int:
    """Waits (blocking) for a lease on ``base_url`` and returns its token."""
    token = None
    while token is None:
        token = limiter.acquire(base_url, owner, attempt_timeout + LEASE_MARGIN_S, WAIT_CHUNK_S)
    return token


@contextmanager
def request_slot(base_url: str, attempt_timeout: float) -> Iterator[None]:
    """Holds a lease on ``base_url`` for one HTTP attempt (does nothing when no limit is installed)."""
    current = _installed
    if current is None:
        yield
        return
    token = _take_lease(*current, base_url, attempt_timeout)
    try:
        yield
    finally:
        current[0].release(token)


@asynccontextmanager
async def arequest_slot(base_url: str, attempt_timeout: float) -> AsyncIterator[None]:
    """Async :func:`request_slot` (the shared limiter is asked from a thread, never blocking the loop)."""
    current = _installed
    if current is None:
        yield
        return
    token = await asyncio.to_thread(_take_lease, *current, base_url, attempt_timeout)
    try:
        yield
    finally:
        await asyncio.to_thread(current[0].release, token)


# -- one call -------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Request:
    """A request ready to send.

    Attributes:
        kind: A key of :data:`ENDPOINTS`.
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
        api_key: The key, never to show in errors.
        usage: The totals this call is accounted into.
        prices: Prices used to compute the call's cost.
        rng: Randomness for the retry jitter.
    """

    base_url: str
    mode: CacheMode
    cache: ResponseCache | None
    retry_policy: RetryPolicy
    retry_empty: bool
    api_key: Secret | None
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
            model=request.model, api_key=context.api_key,
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
    def wait_or_raise(step: float | Exception) -> float:
        """Returns the wait, or raises the final error (outside any ``except``, so no SDK
        exception, which holds request headers, is chained to it)."""
        if isinstance(step, Exception):
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

    def prompt_logprobs(self, response: dict[str, Any]) -> PromptLogprobs:
        """Accounts the finished completion and returns its prompt's :class:`PromptLogprobs`."""
        latency, _ = self._account(response)
        scored = response.get("logprobs") or {}
        tokens = list(scored.get("tokens") or [])
        return PromptLogprobs(tokens=tokens, logprobs=list(scored.get("token_logprobs") or [None] * len(tokens)),
                              offsets=list(scored.get("text_offset") or []), prompt_tokens=response["prompt_tokens"],
                              completion_tokens=response["completion_tokens"],
                              tokens_estimated=response["tokens_estimated"], latency_s=latency,
                              model=response["model"], cached=self.cached, retries=self._retries)

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


# -- the client -----------------------------------------------------------------------------------------
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
            (free text) or a mode name (:data:`MODES`) to force it.
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
        if not isinstance(prompt, str):
            raise TypeError("prompt must be a string")
        body = {"model": self.model, "prompt": prompt, "max_tokens": 1, "temperature": 0.0, "echo": True,
                "logprobs": 1}
        request = Request("completions", body, self._cache_key(body, sampled=False))
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
        side by :data:`ESTIMATE_MARGIN` (see :mod:`.server_info`).
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

    def _async_client(self) -> tuple[openai.AsyncOpenAI, asyncio.Semaphore]:
        loop = asyncio.get_running_loop()
        with self._lock:
            if loop not in self._async_sdks:
                sdk = openai.AsyncOpenAI(**self._sdk_options())
                self._async_sdks[loop] = (sdk, asyncio.Semaphore(self.concurrency))
            return self._async_sdks[loop]

    def _sync_transport(self) -> _Transport:
        sdk = None if self._mode.replay_only else self._sync_client()  # one-time setup: not in latencies
        return _Transport(sdk, self._sync_slots, self.base_url)

    def _async_transport(self) -> _Transport:
        sdk, slots = (None, None) if self._mode.replay_only else self._async_client()
        return _Transport(sdk, slots, self.base_url)

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
        body, key = self._chat_body(messages, temperature, max_tokens, params, schema, schema_name)
        while True:
            mode = "none" if schema is None else (yield _Blocking(lambda: self.structured_mode))  # may ask the server
            try:
                call, response = yield from self._request_steps(self._with_schema(body, key, schema, schema_name, mode),
                                                                timeout)
            except LLMError as err:
                if self._resend_after(err, mode):
                    continue
                raise
            return self._chat_done(call, response, mode)

    def _embed_steps(self, texts: Sequence[str], model: str | None, timeout: float | None) -> Steps[list[list[float]]]:
        call, response = yield from self._request_steps(self._embed_request(texts, model), timeout)
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
    slots (a ``threading.BoundedSemaphore``, or an ``asyncio.Semaphore`` of the running loop) and the endpoint."""

    sdk: Any
    slots: Any
    base_url: str


@dataclass(frozen=True)
class _Send:
    """Send the call's request (one attempt) holding a request slot; the reply is the SDK's answer."""

    call: Call

    def run(self, transport: _Transport) -> Any:
        with transport.slots, request_slot(transport.base_url, self.call.timeout):
            return self.call.send(transport.sdk)

    async def arun(self, transport: _Transport) -> Any:
        async with transport.slots, arequest_slot(transport.base_url, self.call.timeout):
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


def _resolve_cache_path(cache_path: str | Path | None) -> Path:
    if cache_path is None:
        return cache_dir("llm") / CACHE_FILENAME
    path = Path(cache_path).expanduser()
    return path / CACHE_FILENAME if path.is_dir() else path


__all__ = ["ChatResult", "DEFAULT_CONCURRENCY", "DOWN_AFTER", "LLMClient", "LEASE_MARGIN_S", "Limiter", "PriceTable",
           "PromptLogprobs", "RetryPolicy", "STRUCTURED_SETTINGS", "UsageTotals", "arequest_slot",
           "estimate_prompt_tokens", "estimate_tokens", "estimate_with_margin", "install", "installed", "preflight",
           "request_slot", "restore"]
