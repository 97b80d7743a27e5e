"""A local OpenAI-compatible HTTP server with scripted answers and injectable faults.

:class:`LocalOpenAIServer` speaks ``POST /v1/chat/completions``, ``POST /v1/embeddings``,
``POST /v1/completions`` (with ``echo`` and rule-driven ``logprobs``) and
``GET /v1/models`` closely enough for the real ``openai`` client (and any other
OpenAI-compatible client) to work against it. It binds to 127.0.0.1 on a random free port and
is used by every LLM test, so no test needs a key or the internet. Answers come from a
callable ``messages -> text`` or a script (a list of answers given in order); faults
(see :mod:`textmem_gym.llm.testing.faults`) are injected by schedule or by the responder itself.

It can pass for a given server kind (``profile=``, see :mod:`textmem_gym.llm.testing.profiles`):
what its model list says, which structured-output requests it takes (an answer to one is JSON
valid for the schema; another is rejected with HTTP 400/422 as the real server does), llama.cpp's
``/props`` and ``/apply-template``, a tokenizer route, and with ``context_window=`` a context-length
error (HTTP 400, in that server's words) for prompt + ``max_tokens`` beyond the window.

Users can also run it by hand to try an LLM policy offline (an echo server)::

    python -m textmem_gym.llm --port 8000 [--script answers.json] [--latency 0.2]

Example:
    >>> import openai
    >>> with LocalOpenAIServer(responder=lambda messages: "go north", faults=["500"]) as server:
    ...     sdk = openai.OpenAI(base_url=server.base_url, api_key="unused", max_retries=1)
    ...     reply = sdk.chat.completions.create(model="m", messages=[{"role": "user", "content": "hi"}])
    >>> reply.choices[0].message.content, server.calls
    ('go north', 2)
"""

from __future__ import annotations

import json
import logging
import socket
import threading
from collections.abc import Callable, Iterable, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

from textmem_gym.llm.request import mode_of_body
from textmem_gym.llm.scoring_server import ScoringRequestError, is_scoring_request, scoring_arguments
from textmem_gym.llm.testing.exchange import (
    ChatExchange,
    CompletionExchange,
    EmbeddingExchange,
    Exchange,
    Scorer,
    ScriptResponder,
    count_words,
    echo_responder,
    message_text,
)
from textmem_gym.llm.testing.faults import FAULT_KINDS, Fault, FaultLike, FaultRule, FaultSchedule
from textmem_gym.llm.testing.profiles import PROFILES, constrain, request_schema
from textmem_gym.loading import lookup

logger = logging.getLogger("textmem_gym.llm.testing.server")

Responder = Callable[[list[dict[str, Any]]], "str | Fault"]
Embedder = Callable[[str], Sequence[float]]
_Route = Callable[["_Handler", dict[str, Any], int], None]


class _HTTPServer(ThreadingHTTPServer):
    """The HTTP server; its owner hands it the two callbacks its handlers call."""

    daemon_threads = True
    block_on_close = False
    request_queue_size = 128
    #: Called with each connection as it opens (``add=True``) and closes.
    track: Callable[..., None]
    #: Called with the handler and the HTTP method of each request.
    dispatch: Callable[[_Handler, str], None]


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    timeout = 60
    disable_nagle_algorithm = True  # headers and body go out as separate writes
    server: _HTTPServer

    def setup(self) -> None:
        super().setup()
        self.server.track(self.connection, add=True)

    def finish(self) -> None:
        try:
            super().finish()
        finally:
            self.server.track(self.connection, add=False)

    def do_POST(self) -> None:  # noqa: N802 (http.server naming)
        self.server.dispatch(self, "POST")

    def do_GET(self) -> None:  # noqa: N802
        self.server.dispatch(self, "GET")

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        logger.debug("%s " + format, self.address_string(), *args)


class LocalOpenAIServer:
    """An OpenAI-compatible server on 127.0.0.1 for tests and offline runs.

    Args:
        responder: ``messages -> text`` (or ``-> Fault`` to inject a fault by rule).
            Defaults to echoing the last user message.
        script: Answers to give in order instead of a responder (an exhausted script
            answers HTTP 400 with a clear message).
        faults: A fault schedule: a sequence consumed one entry per request (chat and
            embeddings, in arrival order; ``None`` entries answer normally) or a rule
            ``(request_index, body) -> Fault | str | None``.
        latency: Seconds added to every chat/embedding request.
        api_key: When set, requests must carry ``Authorization: Bearer <api_key>`` (else 401).
        embedder: ``text -> vector``; defaults to a hashed bag of words (similar texts get
            similar vectors), of ``embedding_dim`` dimensions.
        embedding_dim: Size of the default embedding vectors.
        host: Interface to bind (keep the loopback default).
        port: Port to bind; 0 picks a free one.
        profile: The server kind it passes for: a key of
            :data:`~textmem_gym.llm.testing.profiles.PROFILES` (``local``, ``openai``, ``vllm``,
            ``llama.cpp``, ``llama-cpp-python``).
        context_window: Tokens (words, plus one per message) a request's prompt and
            ``max_tokens`` may use; beyond it the answer is a context-length error. Stated on
            ``/props`` or in ``/v1/models`` where the profile's server states it.
        structured: The structured-output modes it takes, instead of the profile's (``()``: none,
            like a server without constrained output).
        logprobs: ``(text before, token) -> log-probability``: how ``POST /v1/completions`` with
            ``echo`` and ``logprobs`` scores each (whitespace-separated) token of the prompt; ``None``
            (default): completions come back without log-probabilities.
        models_status: HTTP status of ``GET /v1/models``: 200 lists the model; another (e.g. 501)
            answers that error, like a server that serves chat completions but lists no models.

    Example:
        >>> with LocalOpenAIServer(script=["a", "b"]) as server:
        ...     server.base_url.startswith("http://127.0.0.1:")
        True
    """

    def __init__(
        self,
        responder: Responder | None = None,
        *,
        script: Iterable[str | Fault] | None = None,
        faults: Iterable[FaultLike] | FaultRule | None = None,
        latency: float = 0.0,
        api_key: str | None = None,
        embedder: Embedder | None = None,
        embedding_dim: int = 64,
        host: str = "127.0.0.1",
        port: int = 0,
        profile: str = "local",
        context_window: int | None = None,
        structured: Iterable[str] | None = None,
        models_status: int = 200,
        logprobs: Scorer | None = None,
    ) -> None:
        if responder is not None and script is not None:
            raise ValueError("give either responder= or script=, not both")
        self.responder: Responder = ScriptResponder(script) if script is not None else responder or echo_responder
        self.embedder = embedder
        self.scorer = logprobs
        self.embedding_dim = embedding_dim
        self.faults = FaultSchedule(faults)
        self.profile = lookup("server profile", profile, PROFILES)
        self.context_window = context_window
        self.structured = frozenset(self.profile.structured if structured is None else structured)
        self.latency = latency
        self.models_status = models_status
        self._api_key = api_key
        self._address = (host, port)
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._connections: set[socket.socket] = set()
        self._requests: list[dict[str, Any]] = []
        self._received = 0
        self._in_flight = 0
        self.max_in_flight = 0
        self._httpd: _HTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._port: int | None = None
        self._routes: dict[tuple[str, str], _Route] = {
            ("POST", "/v1/chat/completions"): self._chat,
            ("POST", "/v1/embeddings"): self._embeddings,
            ("POST", "/v1/completions"): self._completions,
        }
        self._extras: dict[tuple[str, str], Callable[[dict[str, Any]], dict[str, Any] | None]] = {
            ("GET", "/v1/models"): self._models_payload, ("GET", "/props"): self._props,
            ("POST", "/apply-template"): self._apply_template,
        }
        if self.profile.tokenize is not None:
            self._extras[("POST", self.profile.tokenize[0])] = self._tokenize

    # -- lifecycle ---------------------------------------------------------------------------
    def start(self) -> LocalOpenAIServer:
        """Binds the port and starts serving in a background thread."""
        if self._httpd is not None:
            raise RuntimeError("server already started")
        self._stopping.clear()
        self._httpd = _HTTPServer(self._address, _Handler)
        self._httpd.track, self._httpd.dispatch = self._track, self._dispatch
        self._port = int(self._httpd.server_address[1])
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, name="LocalOpenAIServer", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stops serving, wakes delayed handlers and closes open connections."""
        if self._httpd is None:
            return
        self._stopping.set()
        self._httpd.shutdown()
        self._httpd.server_close()
        with self._lock:
            connections = list(self._connections)
        for conn in connections:
            try:
                conn.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._httpd = None

    def __enter__(self) -> LocalOpenAIServer:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    # -- what tests look at -----------------------------------------------------------------
    @property
    def port(self) -> int:
        """The bound port (kept after :meth:`stop`, so tests can aim at a dead endpoint)."""
        if self._port is None:
            raise RuntimeError("server was never started")
        return self._port

    @property
    def base_url(self) -> str:
        """The OpenAI ``base_url`` of this server, e.g. ``http://127.0.0.1:PORT/v1``."""
        return f"http://{self._address[0]}:{self.port}/v1"

    @property
    def requests(self) -> list[dict[str, Any]]:
        """Bodies of the accepted chat/embedding requests so far (a copy), in arrival order."""
        with self._lock:
            return list(self._requests)

    @property
    def calls(self) -> int:
        """Chat/embedding requests received, rejected ones (bad body, wrong key) included."""
        with self._lock:
            return self._received

    def add_faults(self, faults: Iterable[FaultLike]) -> None:
        """Appends faults to the schedule (for a sequence schedule)."""
        self.faults.extend(faults)

    # -- request handling -------------------------------------------------------------------
    def _track(self, conn: socket.socket, *, add: bool) -> None:
        with self._lock:
            (self._connections.add if add else self._connections.discard)(conn)

    def _dispatch(self, handler: _Handler, method: str) -> None:
        path = urlsplit(handler.path).path.rstrip("/")
        body = self._read_json(handler) if method == "POST" else {}
        if (method, path) in self._extras:
            self._serve_extra(handler, self._extras[(method, path)], body)
            return
        route = self._routes.get((method, path))
        if route is not None:
            with self._lock:
                self._received += 1
        problem = self._request_problem(handler, route, body)
        if problem is not None:
            Exchange(handler, self._stopping).send_error(*problem)
            return
        assert route is not None and body is not None
        self._run_counted(handler, route, body)

    def _request_problem(self, handler: _Handler, route: object, body: dict[str, Any] | None) -> tuple[int, str] | None:
        if route is None:
            return 404, f"no route for {handler.command} {handler.path}"
        if self._api_key is not None and handler.headers.get("Authorization") != f"Bearer {self._api_key}":
            return 401, "Incorrect API key provided."
        if body is None:
            return 400, "request body is not a JSON object"
        if not isinstance(body.get("model"), str):
            return 400, "you must provide a model parameter"
        if body.get("stream"):
            return 400, "LocalOpenAIServer does not stream: send stream=false"
        return None

    @staticmethod
    def _read_json(handler: _Handler) -> dict[str, Any] | None:
        length = int(handler.headers.get("Content-Length") or 0)
        raw = handler.rfile.read(length) if length else b""
        try:
            body = json.loads(raw or b"null")
        except (json.JSONDecodeError, UnicodeDecodeError):
            return None
        return body if isinstance(body, dict) else None

    def _run_counted(self, handler: _Handler, route: _Route, body: dict[str, Any]) -> None:
        with self._lock:
            index = len(self._requests)
            self._requests.append(body)
            self._in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self._in_flight)
        try:
            if self.latency <= 0 or not self._stopping.wait(self.latency):
                route(handler, body, index)
        except (ConnectionError, OSError) as exc:
            logger.debug("connection ended: %s", exc)
            handler.close_connection = True
        finally:
            with self._lock:
                self._in_flight -= 1

    def _chat(self, handler: _Handler, body: dict[str, Any], index: int) -> None:
        messages = body.get("messages")
        if not isinstance(messages, list):
            Exchange(handler, self._stopping).send_error(400, "'messages' must be a list")
            return
        exchange = ChatExchange(handler, self._stopping, body)
        problem = self._chat_problem(body, exchange)
        if problem is not None:
            exchange.send_json(problem[0], problem[1])
            return
        fault = self.faults.next(index, body)
        if fault is None or FAULT_KINDS[fault.kind].needs_answer:
            reply = exchange.call_responder(self.responder, messages)
            if reply is None:
                return
            fault = reply if isinstance(reply, Fault) else fault
            mode = mode_of_body(body)
            if isinstance(reply, str) and mode != "none":
                exchange.text = constrain(reply, request_schema(body, mode))
        self._answer(exchange, fault)

    def _chat_problem(self, body: dict[str, Any], exchange: ChatExchange) -> tuple[int, dict[str, Any]] | None:
        """The error the emulated server answers instead (structured mode not taken, prompt too long)."""
        mode = mode_of_body(body)
        if mode != "none" and mode not in self.structured:
            status = self.profile.rejection_status
            field = "guided_json" if mode == "guided_json" else "response_format"
            return status, _error_body(status, f"{field}: structured output of type {mode!r} is not supported "
                                               f"by this server", "invalid_request_error")
        window = self.context_window
        prompt = sum(count_words(message_text(m)) + 1 for m in exchange.messages)
        completion = body.get("max_tokens") or 0
        if window is None or prompt + completion <= window:
            return None
        message = self.profile.context_error.format(window=window, requested=prompt + completion, prompt=prompt,
                                                    completion=completion)
        error = _error_body(400, message, "invalid_request_error", code=self.profile.context_error_code)
        if self.profile.props:  # llama.cpp's server adds the numbers to its error
            error["error"].update(type="exceed_context_size_error", n_prompt_tokens=prompt, n_ctx=window)
        return 400, error

    def _embeddings(self, handler: _Handler, body: dict[str, Any], index: int) -> None:
        exchange = EmbeddingExchange(handler, self._stopping, body, self.embedder, self.embedding_dim)
        if exchange.inputs is None:
            exchange.send_error(400, "'input' must be a string or a list of strings")
            return
        self._answer(exchange, self.faults.next(index, body))

    def _completions(self, handler: _Handler, body: dict[str, Any], index: int) -> None:
        exchange = CompletionExchange(handler, self._stopping, body, self.scorer)
        if exchange.prompts is None:
            exchange.send_error(400, "'prompt' must be a string or a non-empty list of strings")
            return
        if is_scoring_request(body):  # checked as textmem-gym serve-llm's scoring route checks it
            try:
                scoring_arguments(body)
            except ScoringRequestError as exc:
                exchange.send_error(400, str(exc))
                return
        self._answer(exchange, self.faults.next(index, body))

    @staticmethod
    def _answer(exchange: Exchange, fault: Fault | None) -> None:
        if fault is None:
            exchange.answer()
        else:
            FAULT_KINDS[fault.kind].handler(exchange, fault)

    # -- what the emulated server states -----------------------------------------------------
    def _serve_extra(self, handler: _Handler, route: Callable[[dict[str, Any]], dict[str, Any] | None],
                     body: dict[str, Any] | None) -> None:
        exchange = Exchange(handler, self._stopping)
        if self._api_key is not None and handler.headers.get("Authorization") != f"Bearer {self._api_key}":
            exchange.send_error(401, "Incorrect API key provided.")
            return
        if route == self._models_payload and self.models_status != 200:
            exchange.send_error(self.models_status, f"{handler.command} {handler.path} is not served here")
            return
        payload = route(body if body is not None else {})
        if payload is None:
            exchange.send_error(404, f"no route for {handler.command} {handler.path}")
        else:
            exchange.send_json(200, payload)

    def _models_payload(self, body: dict[str, Any] | None = None) -> dict[str, Any]:
        model: dict[str, Any] = {"id": "local-model", "object": "model", "created": 0,
                                 "owned_by": self.profile.owned_by}
        if self.profile.max_model_len and self.context_window is not None:
            model["max_model_len"] = self.context_window
        return {"object": "list", "data": [model]}

    def _props(self, body: dict[str, Any]) -> dict[str, Any] | None:
        if not self.profile.props:
            return None
        return {"default_generation_settings": {"n_ctx": self.context_window or 4096}, "total_slots": 1}

    def _apply_template(self, body: dict[str, Any]) -> dict[str, Any] | None:
        """llama.cpp's template rendering: one role word before each message (so its words are the usage count)."""
        messages = body.get("messages")
        if not self.profile.apply_template or not isinstance(messages, list):
            return None
        return {"prompt": "\n".join(f"<|{m.get('role')}|> {message_text(m)}" for m in messages if isinstance(m, dict))}

    def _tokenize(self, body: dict[str, Any]) -> dict[str, Any] | None:
        """The tokenizer: one token per whitespace-separated word (as the usage counts)."""
        assert self.profile.tokenize is not None
        text = body.get(self.profile.tokenize[1])
        if not isinstance(text, str):
            return None
        return {"tokens": [len(word) for word in text.split()]}


def _error_body(status: int, message: str, kind: str, code: str | None = None) -> dict[str, Any]:
    return {"error": {"message": message, "type": kind, "param": None, "code": code or str(status)}}
