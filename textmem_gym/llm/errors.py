"""Errors raised by the LLM client, and the redaction that keeps secrets out of them.

Every message built here goes through :class:`Redactor`, so an API key can never reach an
exception text, a log line or a traceback printed from one of these errors.

Two errors are not :class:`LLMError` s, so that no fallback counts them as a model's bad answer:
:class:`EndpointUnavailable` (the preflight check found the endpoint unusable before any episode)
and :class:`EndpointDown` (calls in a row failed on transport faults: the server died midway).

Example:
    >>> err = LLMError("boom with sk-secret-123456789", endpoint="http://h/v1", model="m",
    ...                attempts=3, last_fault="rate_limit", secrets=["sk-secret-123456789"])
    >>> "sk-secret" in str(err)
    False
    >>> err.attempts, err.last_fault
    (3, 'rate_limit')
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from textmem_gym.core.errors import PolicyNotReady, RunAborted

REDACTED = "***"

# Shapes of credentials that may show up in server error bodies even when we do not know them.
_CREDENTIAL_PATTERNS = (
    re.compile(r"\bsk-[A-Za-z0-9_\-]{8,}"),
    re.compile(r"(?i)(bearer\s+)[A-Za-z0-9_\-\.=]{8,}"),
)


class Redactor:
    """Removes known secrets and credential-shaped strings from text.

    Args:
        secrets: Exact strings to hide (e.g. the API key). Empty strings are ignored.

    Example:
        >>> Redactor(["hunter2hunter2"]).redact("key=hunter2hunter2")
        'key=***'
    """

    def __init__(self, secrets: Iterable[str | None] = ()) -> None:
        self._secrets = sorted({s for s in secrets if s}, key=len, reverse=True)

    def redact(self, text: str) -> str:
        """Returns ``text`` with every secret and credential-like token replaced by ``***``."""
        for secret in self._secrets:
            text = text.replace(secret, REDACTED)
        text = _CREDENTIAL_PATTERNS[0].sub(REDACTED, text)
        return _CREDENTIAL_PATTERNS[1].sub(lambda m: m.group(1) + REDACTED, text)


class Secret:
    """Holds a credential so that ``repr``, ``str``, ``vars()`` dumps and pickles never show it.

    Example:
        >>> key = Secret("sk-abcdef123456")
        >>> str(key), key.reveal()
        ('***', 'sk-abcdef123456')
    """

    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        self._value = value

    def reveal(self) -> str:
        """Returns the credential (only to hand it to the HTTP client)."""
        return self._value

    def __repr__(self) -> str:
        return "Secret('***')"

    def __str__(self) -> str:
        return REDACTED

    def __reduce__(self) -> tuple[Any, ...]:
        raise TypeError("refusing to pickle a credential")


def safe_url(url: str) -> str:
    """Returns ``url`` without user info (``user:password@``) and without its query string.

    Example:
        >>> safe_url("http://bob:pw@localhost:8000/v1?key=abc")
        'http://localhost:8000/v1'
    """
    try:
        parts = urlsplit(url)
    except ValueError:
        return "<unparseable url>"
    host = parts.hostname or ""
    netloc = f"{host}:{parts.port}" if parts.port else host
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))


class LLMError(RuntimeError):
    """A chat or embedding call failed for good (after the last retry, or not retryable).

    Attributes:
        endpoint: The base URL that was called (credentials removed).
        model: The model that was requested.
        attempts: How many HTTP attempts were made.
        last_fault: The kind of the last failure (e.g. ``"timeout"``, ``"rate_limit"``).
        status: The last HTTP status code, when there was one.

    Example:
        >>> err = LLMError("failed", endpoint="http://u:pw@h:1/v1", attempts=2, last_fault="timeout")
        >>> err.endpoint, err.attempts
        ('http://h:1/v1', 2)
    """

    def __init__(
        self,
        message: str,
        *,
        endpoint: str = "",
        model: str = "",
        attempts: int = 0,
        last_fault: str = "",
        status: int | None = None,
        secrets: Iterable[str | None] = (),
    ) -> None:
        self.endpoint = safe_url(endpoint) if endpoint else ""
        self.model = model
        self.attempts = attempts
        self.last_fault = last_fault
        self.status = status
        super().__init__(Redactor(secrets).redact(message))


class CacheMissError(LLMError):
    """Replay mode found no recorded response for a request.

    Attributes:
        key: The cache key (SHA-256 hex) that was looked up.
        prompt: A short excerpt of the prompt that has no recording.

    Example:
        >>> err = CacheMissError(key="ab" * 32, model="m", prompt="look around", cache_path="c.sqlite")
        >>> "look around" in str(err), err.last_fault
        (True, 'cache_miss')
    """

    def __init__(self, *, key: str, model: str, prompt: str, cache_path: str) -> None:
        self.key = key
        self.prompt = prompt
        message = (
            f"replay cache miss for model {model!r} in {cache_path} (key {key[:16]}): no recorded "
            f"response for prompt {prompt!r}. Record it first with cache='record' or 'readwrite'."
        )
        super().__init__(message, model=model, last_fault="cache_miss")


#: Messages with which servers refuse a prompt longer than the model's context window (OpenAI,
#: vLLM, llama.cpp's server, llama-cpp-python, Ollama), matched case-insensitively.
CONTEXT_LENGTH_PATTERNS = tuple(re.compile(pattern, re.IGNORECASE) for pattern in (
    r"context_length_exceeded",
    r"maximum context length is \d+",
    r"exceeds? the available context size",
    r"exceed_context_size",
    r"longer than the maximum model length",
    r"is too long and exceeds limit of \d+",
    r"input is (?:too large to process|larger than the max context)",
    r"exceeds? (?:the )?context window",
    r"input tokens exceed the configured limit",
    r"prompt is too long",
))
#: Where such a message states the window, in the order tried.
_WINDOW_PATTERNS = tuple(re.compile(pattern, re.IGNORECASE) for pattern in (
    r"maximum context length is (\d+)",
    r"maximum model length of (\d+)",
    r"exceeds limit of (\d+)",
    r"context window of (\d+)",
    r"configured limit of (\d+)",
    r"""n_ctx['"]?\s*[:=]\s*(\d+)""",
))
_REQUESTED_PATTERNS = tuple(re.compile(pattern, re.IGNORECASE) for pattern in (
    r"you requested (\d+) tokens",
    r"resulted in (\d+) tokens",
    r"request has (\d+) input tokens",
    r"prompt \(length (\d+)\)",
    r"prompt \((\d+) tokens\)",
    r"""n_prompt_tokens['"]?\s*[:=]\s*(\d+)""",
    r"requested tokens \((\d+)\)",
))


def is_context_length_message(message: str) -> bool:
    """True when a server error message says the prompt does not fit the context window.

    Example:
        >>> is_context_length_message("This model's maximum context length is 2048 tokens. However, ...")
        True
        >>> is_context_length_message("the request exceeds the available context size, try increasing it")
        True
        >>> is_context_length_message("model not found")
        False
    """
    return any(pattern.search(message) for pattern in CONTEXT_LENGTH_PATTERNS)


def _first_number(patterns: tuple[re.Pattern[str], ...], message: str) -> int | None:
    for pattern in patterns:
        match = pattern.search(message)
        if match:
            return int(match.group(1))
    return None


class ContextLengthError(LLMError):
    """The server refused the prompt: it does not fit the model's context window (HTTP 400).

    Never retried by the client: the caller trims the prompt and sends it once more.

    Attributes:
        context_window: The window the server stated, when its message says (else ``None``).
        requested_tokens: The tokens the server said were requested, when it says.

    Example:
        >>> err = ContextLengthError("This model's maximum context length is 2048 tokens. However, you "
        ...                          "requested 2100 tokens (2000 in the messages, 100 in the completion).")
        >>> err.context_window, err.requested_tokens, err.last_fault, isinstance(err, LLMError)
        (2048, 2100, 'context_length', True)
    """

    def __init__(self, message: str, **kwargs: Any) -> None:
        kwargs.setdefault("last_fault", "context_length")
        kwargs.setdefault("status", 400)
        super().__init__(message, **kwargs)
        self.context_window = _first_number(_WINDOW_PATTERNS, message)
        self.requested_tokens = _first_number(_REQUESTED_PATTERNS, message)


class EndpointUnavailable(PolicyNotReady):
    """The preflight check found the endpoint unusable: unreachable, refusing the key, or not serving
    the model. The message is one line naming the URL (credentials removed) and what is wrong.

    Example:
        >>> str(EndpointUnavailable("http://u:pw@127.0.0.1:9/v1", "nothing answers (connection refused)"))
        'LLM endpoint http://127.0.0.1:9/v1: nothing answers (connection refused)'
    """

    def __init__(self, base_url: str, problem: str, *, secrets: Iterable[str | None] = ()) -> None:
        self.base_url, self.problem = safe_url(base_url), Redactor(secrets).redact(problem)
        super().__init__(f"LLM endpoint {self.base_url}: {self.problem}")


class EndpointDown(RunAborted):
    """Several calls in a row failed for good on transport faults (connection refused or reset,
    timeouts, each after the client's own retries): the endpoint died, the run stops.

    Example:
        >>> str(EndpointDown("http://127.0.0.1:8000/v1", 3, "connection"))
        'LLM endpoint http://127.0.0.1:8000/v1 is down: 3 calls in a row failed (connection) after their retries'
    """

    def __init__(self, base_url: str, failures: int, last_fault: str) -> None:
        self.base_url, self.failures, self.last_fault = safe_url(base_url), failures, last_fault
        super().__init__(f"LLM endpoint {self.base_url} is down: {failures} calls in a row failed ({last_fault}) "
                         "after their retries")
