"""The two API endpoints the client calls, and how their answers are normalised.

A normalised response is a small JSON-serialisable dict (what the cache stores and a replay
returns): for chat ``text``, ``prompt_tokens``, ``completion_tokens``, ``tokens_estimated``,
``model``, ``finish_reason`` and ``structured`` (how a schema was sent); for embeddings ``vectors`` instead of ``text``.

Example:
    >>> ENDPOINTS["chat"].prompt_excerpt({"messages": [{"role": "user", "content": "hi"}]})
    'hi'
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from openai.types import CreateEmbeddingResponse
from openai.types.chat import ChatCompletion

from textmem_gym.llm.accounting import estimate_prompt_tokens, estimate_tokens
from textmem_gym.llm.retry import BadResponseError, EmptyContentError
from textmem_gym.llm.structured import mode_of_body

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
}
