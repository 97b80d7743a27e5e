"""A local OpenAI-compatible HTTP server with scripted answers and injectable faults.

:class:`LocalOpenAIServer` speaks ``POST /v1/chat/completions``, ``POST /v1/embeddings`` and
``GET /v1/models`` closely enough for the real ``openai`` client (and any other
OpenAI-compatible client) to work against it. It binds to 127.0.0.1 on a random free port and
is used by every LLM test, so no test needs a key or the internet. Answers come from a
callable ``messages -> text`` or a script (a list of answers given in order); faults
(see :mod:`textmem_gym.llm.testing.faults`) are injected by schedule or by the responder itself.

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

from textmem_gym.llm.testing.exchange import ChatExchange, EmbeddingExchange, Exchange, ScriptResponder, echo_responder
from textmem_gym.llm.testing.faults import FAULT_KINDS, Fault, FaultLike, FaultRule, FaultSchedule

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
    ) -> None:
        if responder is not None and script is not None:
            raise ValueError("give either responder= or script=, not both")
        self.responder: Responder = ScriptResponder(script) if script is not None else responder or echo_responder
        self.embedder = embedder
        self.embedding_dim = embedding_dim
        self.faults = FaultSchedule(faults)
        self.latency = latency
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
        }

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
        if (method, path) == ("GET", "/v1/models"):
            Exchange(handler, self._stopping).send_json(200, self._models_payload())
            return
        route = self._routes.get((method, path))
        body = self._read_json(handler)
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
        fault = self.faults.next(index, body)
        if fault is None or FAULT_KINDS[fault.kind].needs_answer:
            reply = exchange.call_responder(self.responder, messages)
            if reply is None:
                return
            fault = reply if isinstance(reply, Fault) else fault
        self._answer(exchange, fault)

    def _embeddings(self, handler: _Handler, body: dict[str, Any], index: int) -> None:
        exchange = EmbeddingExchange(handler, self._stopping, body, self.embedder, self.embedding_dim)
        if exchange.inputs is None:
            exchange.send_error(400, "'input' must be a string or a list of strings")
            return
        self._answer(exchange, self.faults.next(index, body))

    @staticmethod
    def _answer(exchange: Exchange, fault: Fault | None) -> None:
        if fault is None:
            exchange.answer()
        else:
            FAULT_KINDS[fault.kind].handler(exchange, fault)

    @staticmethod
    def _models_payload() -> dict[str, Any]:
        model = {"id": "local-model", "object": "model", "created": 0, "owned_by": "textmem_gym"}
        return {"object": "list", "data": [model]}
