"""One HTTP request/answer of :class:`~textmem_gym.llm.LocalOpenAIServer`, and its answer sources.

An exchange knows how to write the endpoint's normal OpenAI-shaped answer and the broken
answers fault handlers need (:class:`textmem_gym.llm.testing.faults.Exchange` is the protocol).
Token counts of the local server are whitespace-separated words (plus one per message).

Example:
    >>> responder = ScriptResponder(["first", "second"])
    >>> responder([]), responder([])
    ('first', 'second')
    >>> echo_responder([{"role": "user", "content": "look"}])
    'echo: look'
    >>> bag_of_words_vector("a b", 4) == bag_of_words_vector("b a", 4)
    True
"""

from __future__ import annotations

import base64
import hashlib
import json
import math
import re
import struct
import threading
import time
import uuid
from collections.abc import Callable, Iterable, Sequence
from http.server import BaseHTTPRequestHandler
from typing import Any

from textmem_gym.llm.testing.faults import Fault


class ScriptExhaustedError(RuntimeError):
    """A scripted server was asked for more answers than its script has."""


class ScriptResponder:
    """Gives scripted answers (texts or faults) in order; thread-safe.

    Args:
        answers: The answers, in the order requests should receive them.

    Example:
        >>> script = ScriptResponder(["only"])
        >>> script([])
        'only'
        >>> script([])
        Traceback (most recent call last):
        ...
        textmem_gym.llm.testing.exchange.ScriptExhaustedError: script exhausted: all 1 scripted answers were used
    """

    def __init__(self, answers: Iterable[str | Fault]) -> None:
        self._answers = list(answers)
        self._next = 0
        self._lock = threading.Lock()

    def __call__(self, messages: list[dict[str, Any]]) -> str | Fault:
        with self._lock:
            if self._next >= len(self._answers):
                raise ScriptExhaustedError(f"script exhausted: all {len(self._answers)} scripted answers were used")
            self._next += 1
            return self._answers[self._next - 1]


def message_text(message: dict[str, Any]) -> str:
    """Returns the text of a chat message (text parts of a multi-part content are joined)."""
    content = message.get("content")
    if isinstance(content, list):
        return " ".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return "" if content is None else str(content)


def echo_responder(messages: list[dict[str, Any]]) -> str:
    """Answers ``"echo: <last user message>"``."""
    user = [m for m in messages if isinstance(m, dict) and m.get("role") == "user"]
    return "echo: " + (message_text(user[-1]) if user else "")


def count_words(text: str) -> int:
    """The local server's token count: whitespace-separated words."""
    return len(text.split())


def bag_of_words_vector(text: str, dim: int) -> list[float]:
    """A unit vector of hashed lower-cased words: texts sharing words point the same way."""
    vector = [0.0] * dim
    for word in text.lower().split():
        digest = hashlib.sha256(word.encode("utf-8")).digest()
        index = int.from_bytes(digest[:4], "little") % dim
        vector[index] += 1.0 if digest[4] % 2 == 0 else -1.0
    norm = math.sqrt(sum(v * v for v in vector))
    return [v / norm for v in vector] if norm else vector


class Exchange:
    """One request being answered (the writing half of fault handlers' protocol).

    Args:
        handler: The HTTP request handler to write to.
        stopping: Set when the server stops (ends waits early).
    """

    text = ""

    def __init__(self, handler: BaseHTTPRequestHandler, stopping: threading.Event) -> None:
        self.handler = handler
        self._stopping = stopping

    def send_json(self, status: int, payload: Any, headers: dict[str, str] | None = None) -> None:
        """Sends ``payload`` as a JSON answer."""
        self._send(status, json.dumps(payload).encode("utf-8"), headers or {})

    def send_error(self, status: int, message: str, headers: dict[str, str] | None = None) -> None:
        """Sends an OpenAI-style error body."""
        error = {"message": message, "type": "server_error" if status >= 500 else "invalid_request_error",
                 "param": None, "code": str(status)}
        self.send_json(status, {"error": error}, headers)

    def send_raw(self, body: bytes, *, declared_length: int | None = None) -> None:
        """Sends ``body`` with status 200, claiming ``declared_length`` bytes (for broken answers)."""
        self._send(200, body, {}, declared_length)

    def wait(self, seconds: float) -> bool:
        """Sleeps ``seconds``; returns False when the server is stopping."""
        return not self._stopping.wait(seconds)

    def answer(self, *, text: str | None = None, finish_reason: str = "stop", usage: bool = True) -> None:
        """Sends the endpoint's normal answer (see subclasses)."""
        self.send_json(200, self.payload(text=text, finish_reason=finish_reason, usage=usage))

    def payload(self, *, text: str | None, finish_reason: str, usage: bool) -> dict[str, Any]:
        """The endpoint's answer body."""
        raise NotImplementedError

    def _send(self, status: int, body: bytes, headers: dict[str, str], declared_length: int | None = None) -> None:
        handler = self.handler
        handler.send_response(status)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", str(len(body) if declared_length is None else declared_length))
        for name, value in headers.items():
            handler.send_header(name, value)
        handler.end_headers()
        handler.wfile.write(body)
        handler.wfile.flush()


class ChatExchange(Exchange):
    """A ``/v1/chat/completions`` request."""

    def __init__(self, handler: BaseHTTPRequestHandler, stopping: threading.Event, body: dict[str, Any]) -> None:
        super().__init__(handler, stopping)
        self.body = body
        self.messages: list[dict[str, Any]] = [m for m in body.get("messages", []) if isinstance(m, dict)]

    def call_responder(self, responder: Callable[[list[dict[str, Any]]], Any],
                       messages: list[Any]) -> str | Fault | None:
        """Asks ``responder`` for the answer; on a responder error answers 400 and returns None."""
        try:
            reply = responder(messages)
        except ScriptExhaustedError as exc:
            self.send_error(400, f"LocalOpenAIServer: {exc}")
            return None
        except Exception as exc:  # a bug in a test's responder must surface, not hang
            self.send_error(400, f"LocalOpenAIServer responder raised {type(exc).__name__}: {exc}")
            return None
        if not isinstance(reply, (str, Fault)):
            self.send_error(400, f"LocalOpenAIServer responder returned {type(reply).__name__}, not str or Fault")
            return None
        self.text = reply if isinstance(reply, str) else ""
        return reply

    def payload(self, *, text: str | None, finish_reason: str, usage: bool) -> dict[str, Any]:
        content = self.text if text is None else text
        body: dict[str, Any] = {
            "id": f"chatcmpl-local-{uuid.uuid4().hex[:12]}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": self.body.get("model", "local-model"),
            "choices": [{"index": 0, "message": {"role": "assistant", "content": content},
                         "finish_reason": finish_reason, "logprobs": None}],
        }
        if usage:
            prompt = sum(count_words(message_text(m)) + 1 for m in self.messages)
            completion = count_words(content)
            body["usage"] = {"prompt_tokens": prompt, "completion_tokens": completion,
                             "total_tokens": prompt + completion}
        return body


#: ``(text before the token, token) -> log-probability``: the local server's rule-driven prompt scorer.
Scorer = Callable[[str, str], float]
#: The one token the local server generates after a completions prompt.
GENERATED = " ."


def split_tokens(text: str) -> list[tuple[int, str]]:
    """The local server's tokens with their offsets: each word with the whitespace before it.

    Example:
        >>> split_tokens("go  east")
        [(0, 'go'), (2, '  east')]
    """
    return [(match.start(), match.group()) for match in re.finditer(r"\s*\S+", text)]


class CompletionExchange(Exchange):
    """A (legacy) ``/v1/completions`` request: with ``echo`` the prompt comes back, and with
    ``logprobs`` each token's log-probability from the ``scorer`` (``None`` for the first token,
    as real servers do); without a scorer the answer has no log-probabilities (``logprobs: null``),
    like a server that does not score prompts. One token (:data:`GENERATED`) is generated, none with
    ``max_tokens: 0`` (the scoring route of ``textmem-gym serve-llm``); a list of prompts gets one
    choice each."""

    def __init__(self, handler: BaseHTTPRequestHandler, stopping: threading.Event, body: dict[str, Any],
                 scorer: Scorer | None) -> None:
        super().__init__(handler, stopping)
        self.body, self.scorer = body, scorer
        prompt = body.get("prompt")
        prompts = [prompt] if isinstance(prompt, str) else prompt
        valid = isinstance(prompts, list) and bool(prompts) and all(isinstance(p, str) for p in prompts)
        self.prompts: list[str] | None = prompts if valid else None
        self.prompt: str | None = self.prompts[0] if self.prompts else None

    def _choice(self, index: int, prompt: str) -> dict[str, Any]:
        echo = bool(self.body.get("echo"))
        generated = "" if self.body.get("max_tokens") == 0 else GENERATED
        full = (prompt if echo else "") + generated
        choice: dict[str, Any] = {"index": index, "text": full, "finish_reason": "length", "logprobs": None}
        if self.scorer is not None and self.body.get("logprobs") is not None:
            base = 0 if echo else len(prompt)
            tokens = split_tokens(full)
            whole = prompt + generated
            values = [None if base + offset == 0 else float(self.scorer(whole[:base + offset], token))
                      for offset, token in tokens]
            choice["logprobs"] = {"tokens": [t for _, t in tokens], "token_logprobs": values,
                                  "text_offset": [o for o, _ in tokens], "top_logprobs": None}
        return choice

    def payload(self, *, text: str | None, finish_reason: str, usage: bool) -> dict[str, Any]:
        prompts = self.prompts or [""]
        body: dict[str, Any] = {"id": f"cmpl-local-{uuid.uuid4().hex[:12]}", "object": "text_completion",
                                "created": int(time.time()), "model": self.body.get("model", "local-model"),
                                "choices": [self._choice(i, p) for i, p in enumerate(prompts)]}
        if usage:
            generated = 0 if self.body.get("max_tokens") == 0 else len(prompts)
            words = sum(count_words(p) for p in prompts)
            body["usage"] = {"prompt_tokens": words, "completion_tokens": generated, "total_tokens": words + generated}
        return body


class EmbeddingExchange(Exchange):
    """A ``/v1/embeddings`` request (``encoding_format`` ``float`` or ``base64``)."""

    def __init__(
        self,
        handler: BaseHTTPRequestHandler,
        stopping: threading.Event,
        body: dict[str, Any],
        embedder: Callable[[str], Sequence[float]] | None,
        dim: int,
    ) -> None:
        super().__init__(handler, stopping)
        self.body = body
        raw = body.get("input")
        items = [raw] if isinstance(raw, str) else raw
        valid = isinstance(items, list) and all(isinstance(item, str) for item in items)
        self.inputs: list[str] | None = items if valid else None
        self._embed = embedder or (lambda text: bag_of_words_vector(text, dim))

    def payload(self, *, text: str | None, finish_reason: str, usage: bool) -> dict[str, Any]:
        base64_format = self.body.get("encoding_format") == "base64"
        data = []
        for index, item in enumerate(self.inputs or []):
            vector = [float(v) for v in self._embed(item)]
            encoded: Any = vector
            if base64_format:
                encoded = base64.b64encode(struct.pack(f"<{len(vector)}f", *vector)).decode("ascii")
            data.append({"object": "embedding", "index": index, "embedding": encoded})
        body: dict[str, Any] = {"object": "list", "data": data, "model": self.body.get("model")}
        if usage:
            tokens = sum(count_words(item) for item in self.inputs or [])
            body["usage"] = {"prompt_tokens": tokens, "total_tokens": tokens}
        return body
