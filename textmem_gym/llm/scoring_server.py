"""Prompt scoring on a local GGUF model, right and fast: the route ``textmem-gym serve-llm`` adds.

SayCan needs the log-probability of each candidate command after a prompt: a (legacy)
``/v1/completions`` request with ``echo: true``, ``logprobs: N`` and ``max_tokens`` 0 (or 1), answered in
OpenAI's legacy shape (``choices[i].logprobs`` with ``tokens``, ``token_logprobs``, ``text_offset`` and
``top_logprobs``), as vLLM and OpenAI's completion models answer it. llama-cpp-python's own server
(0.3.36) answers it too slowly (it sorts the whole vocabulary in Python for every prompt token) and
wrongly for a model without a BOS token (its values are one token off).

:class:`PromptScorer` computes it through llama-cpp-python's low-level evaluation:

* the text is tokenized (with the BOS token when the model's tokenizer adds one, or as ``add_bos`` says);
* the KV cache keeps the last text evaluated; a new text is evaluated only from the prefix it shares
  with it (the KV cache is rewound there with ``llama_memory_seq_rm``), so a prompt followed by many
  candidates is evaluated once, then a few tokens per candidate;
* logits are asked only for the rows needed (the rows before the tokens not yet scored), token *i*'s
  log-probability is read from the logits at row *i - 1*, and the log-softmax is computed with numpy
  on those rows only; per token only its log-probability (and its top ``N`` alternatives) is kept,
  never a vocabulary-sized row.

:class:`ScoringServer` is what ``textmem-gym serve-llm`` runs: llama.cpp's server (a child
:class:`~textmem_gym.llm.llama_server.LlamaCppServer`, for chat, structured outputs and generation)
behind a front on 127.0.0.1 that answers the scoring requests itself (several prompts in one request
are scored in order, one choice each: the batch form of the same route) and forwards everything else.
A malformed scoring request gets a 400 naming the problem; a text longer than the context window
gets OpenAI's context-length message.

Example (needs the ``local-llm`` extra and the model)::

    scorer = PromptScorer(smollm2_path())
    answer = scorer.complete({"prompt": "You see a door.\\n> open door", "echo": True,
                              "max_tokens": 0, "logprobs": 1})
    answer["choices"][0]["logprobs"]["token_logprobs"]  # [None, -3.1, ...]
"""

from __future__ import annotations

import ctypes
import json
import threading
import time
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import numpy as np

from textmem_gym.llm.llama_server import (
    DEFAULT_N_CTX,
    LlamaCppServer,
    LocalEndpoint,
    close_server,
    free_port,
    serve_in_thread,
    smollm2_path,
)

#: Top alternatives per token a scoring request may ask for (OpenAI's legacy limit).
MAX_TOP_LOGPROBS = 20
#: Rows of logits decoded (and log-softmaxed) at once.
DEFAULT_N_BATCH = 256
#: Largest request body accepted (bytes).
MAX_BODY = 16 * 1024 * 1024


class ScoringRequestError(ValueError):
    """A scoring request the route cannot answer (a 400, with this message)."""


class ContextWindowError(ScoringRequestError):
    """The text does not fit the context window (a 400 in OpenAI's words, read as a context-length error)."""


@dataclass
class _Scored:
    """What the cache keeps of one token: its log-probability and its top alternatives (never a full row)."""

    logprob: float | None
    top: dict[str, float] | None
    top_n: int


def is_scoring_request(body: Mapping[str, Any]) -> bool:
    """True for the completions requests the scoring route answers: those with ``echo`` set.

    Example:
        >>> is_scoring_request({"prompt": "a", "echo": True, "max_tokens": 0, "logprobs": 1})
        True
        >>> is_scoring_request({"prompt": "a", "max_tokens": 5})
        False
    """
    return bool(body.get("echo"))


def scoring_arguments(body: Mapping[str, Any]) -> tuple[list[str], int, int]:
    """The prompts, the top-``N`` count and the tokens to generate (0 or 1) of a scoring request.

    Raises:
        ScoringRequestError: The request asks for something the route does not do (the message says what).

    Example:
        >>> scoring_arguments({"prompt": ["a b", "a c"], "echo": True, "max_tokens": 0, "logprobs": 2})
        (['a b', 'a c'], 2, 0)
        >>> scoring_arguments({"prompt": "a", "echo": True, "max_tokens": 16})
        Traceback (most recent call last):
        ...
        textmem_gym.llm.scoring_server.ScoringRequestError: echo scores the prompt: max_tokens must be 0 or 1, not 16
    """
    prompt = body.get("prompt")
    prompts = [prompt] if isinstance(prompt, str) else prompt
    if not isinstance(prompts, list) or not prompts or not all(isinstance(p, str) for p in prompts):
        raise ScoringRequestError("prompt must be a string or a non-empty list of strings")
    generate = body.get("max_tokens", 16)
    if isinstance(generate, bool) or not isinstance(generate, int) or generate not in (0, 1):
        raise ScoringRequestError(f"echo scores the prompt: max_tokens must be 0 or 1, not {generate!r}")
    top = body.get("logprobs")
    top = 0 if top is None else top
    if isinstance(top, bool) or not isinstance(top, int) or not 0 <= top <= MAX_TOP_LOGPROBS:
        raise ScoringRequestError(f"logprobs must be an integer from 0 to {MAX_TOP_LOGPROBS}, not {top!r}")
    if body.get("stream"):
        raise ScoringRequestError("echo with stream is not supported: send stream false")
    if int(body.get("n") or 1) != 1 or int(body.get("best_of") or 1) != 1:
        raise ScoringRequestError("echo scores the prompt once: n and best_of must be 1")
    return prompts, top, generate


def log_softmax(rows: np.ndarray) -> np.ndarray:
    """Row-wise log-softmax (float64 sums of float32 logits).

    Example:
        >>> np.round(np.exp(log_softmax(np.array([[0.0, 0.0], [0.0, np.log(3.0)]], dtype=np.float32))), 3)
        array([[0.5 , 0.5 ],
               [0.25, 0.75]])
    """
    peak = rows.max(axis=1, keepdims=True)
    shifted = rows.astype(np.float64) - peak
    return shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))


class PromptScorer:
    """The log-probability of every token of a text, on a GGUF model, evaluating only what is new.

    Args:
        model: GGUF file; defaults to :func:`~textmem_gym.llm.llama_server.smollm2_path`.
        n_ctx: Context window in tokens.
        n_batch: Tokens decoded at once (also the most rows of logits held at once).
        threads: CPU threads (llama-cpp-python's default when ``None``).
        add_bos: Put the BOS token first; ``None``: as the model's tokenizer says (SmolLM2: no).
        model_alias: Model name in the answers; defaults to the file name without ``.gguf``.

    Attributes:
        evaluated_tokens: Tokens decoded so far (the cost; a shared prefix is not counted twice).
    """

    def __init__(self, model: str | Path | None = None, *, n_ctx: int = DEFAULT_N_CTX,
                 n_batch: int = DEFAULT_N_BATCH, threads: int | None = None, add_bos: bool | None = None,
                 model_alias: str | None = None) -> None:
        import llama_cpp  # the local-llm extra: imported only when a scorer is made

        self._api = llama_cpp
        self.model_path = Path(model) if model is not None else smollm2_path()
        self.model_alias = model_alias or self.model_path.name.removesuffix(".gguf")
        self.n_ctx, self.n_batch = n_ctx, n_batch
        options: dict[str, Any] = {"n_threads": threads, "n_threads_batch": threads} if threads else {}
        self.llama = llama_cpp.Llama(str(self.model_path), n_ctx=n_ctx, n_batch=n_batch, n_ubatch=n_batch,
                                     logits_all=False, verbose=False, **options)
        vocab = llama_cpp.llama_model_get_vocab(self.llama.model)
        self.bos = int(llama_cpp.llama_vocab_bos(vocab))
        self.add_bos = bool(llama_cpp.llama_vocab_get_add_bos(vocab)) if add_bos is None else add_bos
        self.n_vocab = int(self.llama.n_vocab())
        self._ctx = self.llama.ctx
        self._memory = llama_cpp.llama_get_memory(self._ctx)
        self._batch = llama_cpp.llama_batch_init(n_batch, 0, 1)
        self._tokens: list[int] = []  # what the KV cache holds
        self._scored: list[_Scored] = []  # per cached token (scored ones: those read from a row)
        self._pieces: dict[int, bytes] = {}
        self._lock = threading.Lock()
        self.evaluated_tokens = 0

    def close(self) -> None:
        """Frees the batch and the model."""
        if self._batch is not None:
            self._api.llama_batch_free(self._batch)
            self._batch = None
        self.llama.close()

    # -- tokens ----------------------------------------------------------------------------------
    def tokenize(self, text: str) -> list[int]:
        """``text``'s tokens, the BOS token first when :attr:`add_bos` is set."""
        tokens = self.llama.tokenize(text.encode("utf-8"), add_bos=False, special=False)
        return [self.bos, *tokens] if self.add_bos else tokens

    def piece(self, token: int) -> bytes:
        """The bytes of one token (cached)."""
        if token not in self._pieces:
            buffer = ctypes.create_string_buffer(64)
            vocab = self._api.llama_model_get_vocab(self.llama.model)
            size = self._api.llama_token_to_piece(vocab, token, buffer, 64, 0, False)
            self._pieces[token] = bytes(buffer.raw[:max(size, 0)])
        return self._pieces[token]

    # -- evaluation ------------------------------------------------------------------------------
    def _rewind(self, keep: int) -> None:
        """Drops every cached token from position ``keep`` on (KV cache and scores)."""
        if keep < len(self._tokens):
            self._api.llama_memory_seq_rm(self._memory, 0, keep, -1)
            del self._tokens[keep:]
            del self._scored[keep:]

    def _decode(self, tokens: Sequence[int], start: int, wanted: set[int]) -> dict[int, np.ndarray]:
        """Decodes ``tokens`` at positions ``start``...; the log-softmax rows of the positions in ``wanted``."""
        rows: dict[int, np.ndarray] = {}
        batch = self._batch
        for first in range(0, len(tokens), self.n_batch):
            chunk = tokens[first:first + self.n_batch]
            outputs: list[int] = []
            for i, token in enumerate(chunk):
                position = start + first + i
                batch.token[i], batch.pos[i], batch.n_seq_id[i] = token, position, 1
                batch.seq_id[i][0] = 0
                batch.logits[i] = position in wanted
                if position in wanted:
                    outputs.append(i)
            batch.n_tokens = len(chunk)
            code = self._api.llama_decode(self._ctx, batch)
            if code != 0:
                raise RuntimeError(f"llama_decode returned {code}")
            self.evaluated_tokens += len(chunk)
            if outputs:
                logits = np.stack([np.ctypeslib.as_array(self._api.llama_get_logits_ith(self._ctx, i),
                                                         shape=(self.n_vocab,)) for i in outputs])
                for i, row in zip(outputs, log_softmax(logits)):
                    rows[start + first + i] = row
        return rows

    def _top(self, row: np.ndarray, n: int) -> dict[str, float]:
        best = np.argpartition(row, -n)[-n:]
        best = best[np.argsort(-row[best])]
        return {self.piece(int(t)).decode("utf-8", errors="replace"): float(row[t]) for t in best}

    def score_tokens(self, tokens: Sequence[int], top: int = 0, generate: int = 0
                     ) -> tuple[list[_Scored], tuple[int, _Scored] | None]:
        """Each token's log-probability given the tokens before it (``None`` for the first), and the
        greedy next token when ``generate`` is 1.

        Raises:
            ContextWindowError: The tokens (and the generated one) do not fit the context window.
        """
        n = len(tokens)
        if n == 0:
            raise ScoringRequestError("the prompt has no tokens")
        if n + generate > self.n_ctx:
            raise ContextWindowError(f"This model's maximum context length is {self.n_ctx} tokens. However, you "
                                     f"requested {n + generate} tokens ({n} in the prompt, {generate} in the "
                                     "completion). Please reduce the length of the prompt.")
        with self._lock:
            common = 0
            limit = min(n, len(self._tokens))
            while common < limit and self._tokens[common] == tokens[common] and (
                    common == 0 or top <= self._scored[common].top_n):
                common += 1
            wanted = {i - 1 for i in range(max(common, 1), n)}
            if generate:
                wanted.add(n - 1)
            start = min(min(wanted) if wanted else n, common)
            scored = self._scored[:common] or [_Scored(None, None, MAX_TOP_LOGPROBS)]
            self._rewind(start)
            try:
                rows = self._decode(tokens[start:], start, wanted) if start < n else {}
            except BaseException:  # the KV cache may hold part of the text: start afresh next time
                self._api.llama_memory_seq_rm(self._memory, 0, 0, -1)
                self._tokens, self._scored = [], []
                raise
            for i in range(len(scored), n):
                row = rows[i - 1]
                scored.append(_Scored(float(row[tokens[i]]), self._top(row, top) if top else None, top))
            self._tokens = list(tokens)
            self._scored = scored
            generated = None
            if generate:
                row = rows[n - 1]
                token = int(np.argmax(row))
                generated = (token, _Scored(float(row[token]), self._top(row, top) if top else None, top))
            return list(scored), generated

    # -- the OpenAI shape ------------------------------------------------------------------------
    def choice(self, prompt: str, top: int, generate: int, index: int = 0) -> tuple[dict[str, Any], int]:
        """One ``choices`` entry of the legacy shape for ``prompt`` (echoed), and its prompt token count."""
        tokens = self.tokenize(prompt)
        scored, generated = self.score_tokens(tokens, top, generate)
        skip = 1 if self.add_bos else 0  # the BOS token is context, not text
        pieces = [self.piece(t) for t in tokens[skip:]]
        items = scored[skip:]
        if generated is not None:
            pieces.append(self.piece(generated[0]))
            items.append(generated[1])
        joined = b"".join(pieces)
        text = joined.decode("utf-8", errors="replace")
        lead = 1 if text.startswith(" ") and not prompt.startswith(" ") else 0  # SentencePiece's space prefix
        offsets, used = [], b""
        for piece in pieces:
            offsets.append(max(0, len(used.decode("utf-8", errors="ignore")) - lead))
            used += piece
        echoed = prompt + (self.piece(generated[0]).decode("utf-8", errors="replace") if generated else "")
        logprobs = {"tokens": [p.decode("utf-8", errors="replace") for p in pieces],
                    "token_logprobs": [s.logprob for s in items], "text_offset": offsets,
                    "top_logprobs": [s.top if top else None for s in items] if top else None}
        return ({"index": index, "text": echoed, "logprobs": logprobs,
                 "finish_reason": "length"}, len(tokens))

    def complete(self, body: Mapping[str, Any]) -> dict[str, Any]:
        """The answer to a scoring request (see :func:`scoring_arguments`), in OpenAI's legacy shape.

        Raises:
            ScoringRequestError: The request is malformed or too long (a 400).
        """
        prompts, top, generate = scoring_arguments(body)
        choices, prompt_tokens = [], 0
        for index, prompt in enumerate(prompts):
            choice, count = self.choice(prompt, top, generate, index)
            choices.append(choice)
            prompt_tokens += count
        completion = generate * len(prompts)
        return {"id": f"cmpl-score-{uuid.uuid4().hex[:12]}", "object": "text_completion", "created": int(time.time()),
                "model": body.get("model") or self.model_alias, "choices": choices,
                "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion,
                          "total_tokens": prompt_tokens + completion}}


class ScoringServer(LocalEndpoint):
    """``textmem-gym serve-llm``: llama.cpp's server with the scoring route in front, on one URL.

    Scoring requests (``/v1/completions`` with ``echo``) are answered by a :class:`PromptScorer`;
    every other request goes to the child :class:`~textmem_gym.llm.llama_server.LlamaCppServer` unchanged.

    Args:
        model: GGUF file; defaults to SmolLM2-135M-Instruct.
        n_ctx: Context window in tokens (of both).
        port: Port of the front; 0 picks a free one.
        threads: CPU threads of each model (llama-cpp-python's default when ``None``).
        add_bos: The scorer's BOS setting (``None``: the tokenizer's).
        **options: Further :class:`~textmem_gym.llm.llama_server.LlamaCppServer` arguments.
    """

    def __init__(self, model: str | Path | None = None, *, n_ctx: int = DEFAULT_N_CTX, port: int = 0,
                 threads: int | None = None, add_bos: bool | None = None, **options: Any) -> None:
        self.backend = LlamaCppServer(model, n_ctx=n_ctx, threads=threads, **options)
        self.model_path, self.model_alias = self.backend.model_path, self.backend.model_alias
        self.n_ctx, self.host, self._port = n_ctx, "127.0.0.1", port
        self.threads, self.add_bos = threads, add_bos
        self._api_key: str | None = options.get("api_key")
        self.scorer: PromptScorer | None = None
        self._front: ThreadingHTTPServer | None = None

    @property
    def process(self) -> Any:
        """The child llama.cpp server's process."""
        return self.backend.process

    def start(self) -> ScoringServer:
        """Starts llama.cpp's server, loads the scorer and opens the front."""
        try:
            self.backend.start()
            self.scorer = PromptScorer(self.model_path, n_ctx=self.n_ctx, threads=self.threads, add_bos=self.add_bos,
                                       model_alias=self.model_alias)
            if self._port == 0:
                self._port = free_port(self.host)
            self._front = serve_in_thread((self.host, self._port), _front_handler(self))
        except BaseException:
            self.stop()
            raise
        return self

    def stop(self) -> None:
        """Stops the front, frees the scorer and stops llama.cpp's server."""
        close_server(self._front)
        self._front = None
        if self.scorer is not None:
            self.scorer.close()
            self.scorer = None
        self.backend.stop()

    def __enter__(self) -> ScoringServer:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()


def _error(message: str, status: int) -> dict[str, Any]:
    kind = "invalid_request_error" if status < 500 else "server_error"
    return {"error": {"message": message, "type": kind, "param": None, "code": None}}


def _front_handler(server: ScoringServer) -> type[BaseHTTPRequestHandler]:
    """The front's handler: scoring requests to the scorer, the rest to llama.cpp's server."""

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self) -> None:  # noqa: N802 -- http.server's name
            self._forward(b"")

        def do_POST(self) -> None:  # noqa: N802
            length = int(self.headers.get("Content-Length") or 0)
            if length > MAX_BODY:
                self._reply(413, _error(f"request body over {MAX_BODY} bytes", 413))
                return
            body = self.rfile.read(length)
            if self.path.rstrip("/").endswith("/completions") and not self.path.endswith("chat/completions"):
                try:
                    request = json.loads(body or b"{}")
                except (json.JSONDecodeError, UnicodeDecodeError) as exc:
                    self._reply(400, _error(f"request body is not JSON: {exc}", 400))
                    return
                if not isinstance(request, dict):
                    self._reply(400, _error("request body must be a JSON object", 400))
                    return
                if is_scoring_request(request):
                    self._score(request)
                    return
            self._forward(body)

        def _score(self, request: dict[str, Any]) -> None:
            if server._api_key and self.headers.get("Authorization") != f"Bearer {server._api_key}":
                self._reply(401, _error("invalid or missing API key", 401))
                return
            scorer = server.scorer
            if scorer is None:
                self._reply(503, _error("the scorer is not loaded", 503))
                return
            try:
                self._reply(200, scorer.complete(request))
            except ScoringRequestError as exc:
                self._reply(400, _error(str(exc), 400))
            except Exception as exc:  # noqa: BLE001 -- reported to the caller, not swallowed
                self._reply(500, _error(f"scoring failed: {type(exc).__name__}: {exc}", 500))

        def _forward(self, body: bytes) -> None:
            backend = server.backend
            headers = {k: v for k, v in self.headers.items() if k.lower() in ("authorization", "content-type")}
            try:
                reply = httpx.request(self.command, f"http://{backend.host}:{backend.port}{self.path}", content=body,
                                      headers=headers, timeout=None)
            except httpx.HTTPError as exc:
                self._reply(502, _error(f"llama.cpp's server did not answer: {exc}", 502))
                return
            self._send(reply.status_code, reply.content, reply.headers.get("content-type", "application/json"))

        def _reply(self, status: int, payload: dict[str, Any]) -> None:
            self._send(status, json.dumps(payload).encode("utf-8"), "application/json")

        def _send(self, status: int, content: bytes, content_type: str) -> None:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(content)))
            self.end_headers()
            self.wfile.write(content)

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 -- quiet
            """No access log."""

    return Handler
