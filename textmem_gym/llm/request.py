"""One request: how it is built, the endpoints it goes to, how their answers are read, its life and its cost.

* **Answers**: a chat gives a :class:`~textmem_gym.llm.answers.ChatResult`, a scored prompt
  :class:`~textmem_gym.llm.answers.PromptLogprobs` (both in :mod:`textmem_gym.llm.answers`, with the
  parser that reads them), an embedding request vectors.
* **Structured output**: how the JSON schema of an answer is sent to each kind of server. Each way
  is a *mode*: ``json_schema`` (``response_format={"type": "json_schema", ...}``: OpenAI, llama.cpp's
  server, Ollama, vLLM), ``json_object_schema`` (``response_format={"type": "json_object", "schema":
  ...}``: llama-cpp-python's server), ``guided_json`` (vLLM's extra parameter) and ``none`` (free text,
  read by the free-text parser). The ``structured_output`` setting of a client chooses
  (:class:`StructuredChoice`): ``"auto"`` takes the mode that suits the server kind (found by
  :mod:`textmem_gym.llm.server_info`; on an unknown server ``json_schema`` first) and drops a mode the
  server rejects with HTTP 400/422 (:func:`is_rejection`) for the next, down to ``none``; ``"on"``
  never drops (a rejection is an error), ``"off"`` is always ``none``, a mode name forces it.
* **Endpoints** (:data:`ENDPOINTS`): the three API calls (chat, completions, embeddings), each posted
  through the SDK client's generic ``post`` and its answer normalised into the small JSON dict that
  the response cache stores and a replay returns (:func:`normalize_chat`, ...).
* **Building a request** (:class:`Requests`): its body, with the client's model and sampling
  settings, and its cache key.
* **The life of one request** (:class:`Call`): cache lookup, attempts (each fault classified by
  :mod:`textmem_gym.llm.retry`), storage of the answer, and accounting into the client's
  :class:`UsageTotals`. How its steps are driven (blocking or on an event loop) is
  :mod:`textmem_gym.llm.client`'s part.
* **Accounting**: token counts come from the server's ``usage`` block; a server that sends none gets
  them estimated (:func:`~textmem_gym.llm.prompts.estimate_prompt_tokens`: 4 characters a token, 4
  tokens a message) and the call flagged ``tokens_estimated``. A call costs its tokens at its model's
  price in a :class:`PriceTable`; :class:`UsageTotals` sums the calls, tokens, cost, latency and faults
  of one client (one run).

Example:
    >>> args = ENDPOINTS["chat"].post_arguments({"model": "m", "messages": [], "extra_headers": {"X": "1"}}, 5.0)
    >>> args["body"], args["options"]
    ({'model': 'm', 'messages': []}, {'timeout': 5.0, 'headers': {'X': '1'}})
    >>> body = request_params("json_object_schema", {"type": "object"}, "decision")
    >>> body["response_format"]["type"], mode_of_body(body)
    ('json_object', 'json_object_schema')
    >>> totals = UsageTotals()
    >>> cost = PriceTable().cost("gpt-4o-mini", 1_000_000, 0)
    >>> totals.add_call(prompt_tokens=1_000_000, completion_tokens=0, latency_s=0.2, cost_usd=cost, model="gpt-4o-mini")
    >>> totals.as_dict()["cost_usd"], totals.as_dict()["cost_complete"]
    (0.15, True)
"""

from __future__ import annotations

import logging
import random
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from openai.types import Completion, CreateEmbeddingResponse
from openai.types.chat import ChatCompletion

from textmem_gym.llm.answers import ChatResult, PromptLogprobs
from textmem_gym.llm.cache import CacheMode, ResponseCache, request_key
from textmem_gym.llm.errors import CacheMissError, LLMError, Secret
from textmem_gym.llm.prompts import estimate_prompt_tokens, estimate_tokens
from textmem_gym.llm.retry import BadResponseError, EmptyContentError, RetryPolicy, RetryState

logger = logging.getLogger("textmem_gym.llm")

#: OpenAI chat messages (``{"role": ..., "content": ...}``).
Messages = Sequence[Mapping[str, Any]]


# -- structured output: how an answer's JSON schema is sent to each kind of server -----------------------
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


# -- accounting: prices and the running totals of one client -----------------------------------------
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


class Requests:
    """Builds the requests of one client: their bodies, with its model and sampling settings, and their cache keys.

    A sampled request (temperature not 0) also counts its repeats in its key, so a replay gives each
    repeat its own answer. A chat key names the answer's schema and the ``structured_output`` setting, not
    the way the schema goes over the wire, so a replay needs no server.

    Args:
        model: The chat (and completions) model.
        embedding_model: The embedding model when a call names none.
        seed: Sent as the ``seed`` sampling parameter when set.
        structured_output: The client's setting (part of the keys of schema calls).
        keyed: Whether requests get cache keys (the client has a cache); otherwise their key is ``""``.

    Example:
        >>> requests = Requests("m", "e", seed=None, structured_output="auto", keyed=False)
        >>> requests.chat([{"role": "user", "content": "hi"}], 0.0, None, {}, None, None)
        ({'model': 'm', 'messages': [{'role': 'user', 'content': 'hi'}], 'temperature': 0.0}, '')
        >>> requests.embeddings(["a"], None).body
        {'model': 'e', 'input': ['a'], 'encoding_format': 'float'}
    """

    def __init__(self, model: str, embedding_model: str, *, seed: int | None, structured_output: str,
                 keyed: bool) -> None:
        self.model, self.embedding_model, self.seed = model, embedding_model, seed
        self.structured_output, self.keyed = structured_output, keyed
        self._lock = threading.Lock()
        self._sample_counts: dict[str, int] = {}

    def chat(self, messages: Messages, temperature: float | None, max_tokens: int | None, params: Mapping[str, Any],
             schema: Mapping[str, Any] | None, schema_name: str | None) -> tuple[dict[str, Any], str]:
        """The chat body without its schema (see :meth:`with_schema`), and its cache key."""
        if isinstance(messages, (str, bytes)) or not all(isinstance(m, Mapping) for m in messages):
            raise TypeError("messages must be a sequence of {'role': ..., 'content': ...} mappings")
        body: dict[str, Any] = {"model": self.model, "messages": [dict(m) for m in messages]}
        optional = {"temperature": temperature, "max_tokens": max_tokens, "seed": self.seed}
        body.update({name: value for name, value in optional.items() if value is not None})
        body.update(params)
        keyed = body if schema is None else {
            **body, "schema": dict(schema), "schema_name": schema_name, "structured_output": self.structured_output}
        return body, self.key(keyed, sampled=temperature != 0)

    @staticmethod
    def with_schema(body: dict[str, Any], key: str, schema: Mapping[str, Any] | None, schema_name: str | None,
                    mode: str) -> Request:
        """The chat request of :meth:`chat`'s body and key, its schema sent in structured-output ``mode``."""
        wire = body if schema is None else {**body, **request_params(mode, schema, schema_name)}
        return Request("chat", wire, key)

    def prompt_logprobs(self, prompt: str) -> Request:
        """The completions request that scores ``prompt``'s tokens (``echo`` and ``logprobs``, one token generated)."""
        if not isinstance(prompt, str):
            raise TypeError("prompt must be a string")
        body = {"model": self.model, "prompt": prompt, "max_tokens": 1, "temperature": 0.0, "echo": True,
                "logprobs": 1}
        return Request("completions", body, self.key(body, sampled=False))

    def embeddings(self, texts: Sequence[str], model: str | None) -> Request:
        """The request embedding ``texts`` with ``model`` (default: :attr:`embedding_model`)."""
        if isinstance(texts, str) or not all(isinstance(t, str) for t in texts):
            raise TypeError("texts must be a sequence of strings")
        body = {"model": model or self.embedding_model, "input": list(texts), "encoding_format": "float"}
        return Request("embeddings", body, self.key(body, sampled=False))

    def key(self, body: Mapping[str, Any], *, sampled: bool) -> str:
        """The cache key of ``body`` (its transport options left out), counting repeats when ``sampled``."""
        if not self.keyed:
            return ""
        keyed = {name: value for name, value in body.items() if name not in TRANSPORT_OPTIONS}
        key = request_key({"body": keyed})
        if not sampled:
            return key
        with self._lock:
            repeat = self._sample_counts.get(key, 0)
            self._sample_counts[key] = repeat + 1
        return request_key({"body": keyed, "repeat": repeat})


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
        self._retry: RetryState | None = None  # made at the first fault (most calls have none)

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
        if self._retry is None:
            context = self.context
            self._retry = RetryState(
                context.retry_policy, operation=self.endpoint.operation, endpoint=context.base_url,
                model=self.request.model, api_key=context.api_key,
                on_fault=lambda fault: context.usage.add_fault(fault.kind), rng=context.rng,
            )
        step = self._retry.failed(exc)
        if isinstance(step, LLMError):
            self.context.usage.add_failed_call(self.failures - 1, time.perf_counter() - self.started)
        return step

    @property
    def failures(self) -> int:
        """Attempts that failed so far."""
        return 0 if self._retry is None else self._retry.failures

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
        return 0 if self.cached else self.failures

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


__all__ = ["DEFAULT_PRICES", "ENDPOINTS", "KIND_MODES", "MODES", "MODE_PARAMS", "STRUCTURED_SETTINGS", "Call",
           "CallContext", "Endpoint", "Messages", "PriceTable", "Request", "Requests", "StructuredChoice",
           "TRANSPORT_OPTIONS", "UsageTotals", "check_setting", "is_rejection", "is_strict_schema", "mode_of_body",
           "normalize_chat", "normalize_completion", "normalize_embeddings", "request_params"]
