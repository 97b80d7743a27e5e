"""The local parts Graphiti is given: the shipped MiniLM embeddings, a reranker over them, a private event loop.

Graphiti asks three clients of its caller: an LLM client (here graphiti's own ``OpenAIGenericClient`` on
the OpenAI-compatible endpoint, sending schemas as the server takes them: :class:`SchemaModeClient`), an
:class:`~graphiti_core.embedder.client.EmbedderClient` and a
:class:`~graphiti_core.cross_encoder.client.CrossEncoderClient`. The two last would call OpenAI by
default; :class:`MiniLMEmbedder` and :class:`MiniLMReranker` answer them on the CPU from the shipped
all-MiniLM-L6-v2 weights (:func:`~textmem_gym.memory.embeddings.minilm_embedder`), so nothing but the
endpoint is ever asked.

Graphiti is asynchronous; a memory is called synchronously, possibly from a thread that already runs
an event loop (an MCP server, a web app). :class:`EventLoopThread` owns one private loop in a daemon
thread and runs every coroutine of one memory there, so Graphiti's HTTP connections and Kuzu's
asynchronous connection always live on the loop that made them.

Example:
    >>> loop = EventLoopThread()
    >>> async def double(x):
    ...     return 2 * x
    >>> loop.run(double(21))
    42
    >>> loop.close()
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Coroutine, Iterable, Mapping
from contextvars import ContextVar
from typing import Any, TypeVar

import numpy as np
from graphiti_core.cross_encoder.client import CrossEncoderClient
from graphiti_core.embedder.client import EmbedderClient, EmbedderConfig
from graphiti_core.llm_client.client import is_server_or_retry_error
from graphiti_core.llm_client.config import DEFAULT_MAX_TOKENS, ModelSize
from graphiti_core.llm_client.openai_generic_client import OpenAIGenericClient
from graphiti_core.prompts.models import Message
from pydantic import BaseModel
from tenacity import AsyncRetrying, retry_if_exception, stop_after_attempt, wait_random_exponential

from textmem_gym.llm.request import request_params
from textmem_gym.memory.retrieval import Embedder

#: Dimensions of the shipped MiniLM embeddings.
EMBEDDING_DIMS = 384

T = TypeVar("T")


class MiniLMEmbedder(EmbedderClient):
    """Graphiti's embedder on the shipped MiniLM model (unit vectors, 384 dimensions).

    Args:
        embed: ``texts -> (n, 384)`` vectors (default: :func:`~textmem_gym.memory.embeddings.minilm_embedder`).

    Example:
        >>> import asyncio
        >>> fake = MiniLMEmbedder(lambda texts: np.ones((len(texts), EMBEDDING_DIMS)))
        >>> len(asyncio.run(fake.create("a kitchen"))), len(asyncio.run(fake.create_batch(["a", "b"])))
        (384, 2)
    """

    def __init__(self, embed: Embedder | None = None) -> None:
        if embed is None:
            from textmem_gym.memory.embeddings import minilm_embedder

            embed = minilm_embedder()
        self.embed = embed
        self.config = EmbedderConfig(embedding_dim=EMBEDDING_DIMS)

    async def create(self, input_data: str | list[str] | Iterable[int] | Iterable[Iterable[int]]) -> list[float]:
        """The vector of one text (the first, when given a list)."""
        texts = [input_data] if isinstance(input_data, str) else [str(item) for item in input_data]
        return [float(x) for x in np.asarray(self.embed(texts[:1]))[0]]

    async def create_batch(self, input_data_list: list[str]) -> list[list[float]]:
        """The vectors of many texts, in one model call."""
        if not input_data_list:
            return []
        return np.asarray(self.embed(list(input_data_list)), dtype=float).tolist()


class MiniLMReranker(CrossEncoderClient):
    """Graphiti's reranker as cosine similarity of MiniLM vectors (a bi-encoder standing in for a
    cross-encoder: no model call, no network).

    Example:
        >>> import asyncio
        >>> table = {"lamp": [1.0, 0.0], "a lamp": [0.9, 0.1], "a door": [0.0, 1.0]}
        >>> reranker = MiniLMReranker(lambda texts: np.array([table[t] for t in texts]))
        >>> [passage for passage, _ in asyncio.run(reranker.rank("lamp", ["a door", "a lamp"]))]
        ['a lamp', 'a door']
    """

    def __init__(self, embed: Embedder | None = None) -> None:
        if embed is None:
            from textmem_gym.memory.embeddings import minilm_embedder

            embed = minilm_embedder()
        self.embed = embed

    async def rank(self, query: str, passages: list[str]) -> list[tuple[str, float]]:
        """``passages`` with their similarity to ``query``, most similar first."""
        if not passages:
            return []
        vectors = np.asarray(self.embed([query, *passages]), dtype=float)
        scores = vectors[1:] @ vectors[0]
        return sorted(zip(passages, (float(s) for s in scores)), key=lambda pair: -pair[1])


#: The finish reasons of the answers to the call being made (one list per call, in its task), or ``None`` outside
#: one: set by :class:`SchemaModeClient`, filled by :func:`note_finish_reasons` from the HTTP response.
_FINISHED: ContextVar[list[str] | None] = ContextVar("textmem_graphiti_finished", default=None)


class CutAnswer(json.JSONDecodeError):
    """An answer that stopped at its completion limit (``finish_reason`` ``length``) before its JSON ended.

    Counted as its own cause (the update's failure says the cap cut it, not that the model wrote bad JSON); a
    :class:`json.JSONDecodeError` still, so whatever handles those handles it.

    Example:
        >>> cut = CutAnswer("the answer stopped at max_tokens=256 before its JSON ended", '{"a": "b', 6)
        >>> isinstance(cut, json.JSONDecodeError), str(cut)
        (True, 'the answer stopped at max_tokens=256 before its JSON ended: line 1 column 7 (char 6)')
    """


def note_finish_reasons(payload: Mapping[str, Any]) -> None:
    """Notes the finish reasons of a chat completion's body for the call being made (nothing outside a call).

    Example:
        >>> note_finish_reasons({"choices": [{"finish_reason": "length"}]})  # no call being made: nothing noted
    """
    noted = _FINISHED.get()
    if noted is not None:
        noted.extend(str(choice.get("finish_reason")) for choice in payload.get("choices") or []
                     if isinstance(choice, dict))


#: How the schema of an answer is sent: a mode of :mod:`textmem_gym.llm.request`, or ``json_object``
#: (Graphiti's own fallback: any JSON object, the schema written into the prompt).
SCHEMA_MODES = ("json_schema", "json_object_schema", "json_object")


class SchemaModeClient(OpenAIGenericClient):
    r"""Graphiti's OpenAI-compatible client, sending each answer's schema the way the server takes it.

    Graphiti sends ``json_schema`` (or, in its ``json_object`` mode, no schema at all). llama-cpp-python's
    server (what ``textmem-gym serve-llm`` runs) takes neither a ``json_schema`` format nor constrains a bare
    ``json_object`` to the answer's fields; it constrains ``{"type": "json_object", "schema": ...}``. The
    request shapes are :func:`textmem_gym.llm.request.request_params`'s, so this client and the library's
    own client ask a server alike.

    Every call asks at most the client's ``max_tokens`` (the memory's): Graphiti's own larger asks (16,384 for
    edge extraction, 8,192 for a saga summary) are lowered to it, so the memory's ``max_tokens`` is the cap of
    each of its calls on any server. An answer that stopped there before its JSON ended (``finish_reason``
    ``length``, noted by the memory's response hook through :func:`note_finish_reasons`) raises
    :class:`CutAnswer`, a :class:`json.JSONDecodeError`.

    Graphiti retries an answer that is not JSON up to 4 times, waiting 5 to 120 s between attempts; at
    temperature 0 the same prompt gives the same answer, so this client does not retry it (the call fails as
    the last attempt would have: the update is counted as failed by the memory). Other errors Graphiti
    retries (rate limits, server errors, empty answers) are retried as Graphiti does.

    Args:
        mode: One of :data:`SCHEMA_MODES`.
        kwargs: Graphiti's ``OpenAIGenericClient`` arguments (``max_tokens``: the cap of every call).

    Example:
        >>> from pydantic import BaseModel
        >>> class Answer(BaseModel):
        ...     name: str
        >>> client = SchemaModeClient("json_object_schema", client=object())
        >>> client._build_response_format(Answer)["schema"]["required"]
        ['name']
        >>> client._strip_code_fences('```json\n{"name": "a\tb"}\n```')
        '{"name": "a\\tb"}'

    """

    def __init__(self, mode: str, **kwargs: Any) -> None:
        if mode not in SCHEMA_MODES:
            raise ValueError(f"unknown schema mode {mode!r}; choose from {sorted(SCHEMA_MODES)}")
        super().__init__(structured_output_mode="json_object" if mode == "json_object" else "json_schema", **kwargs)
        self.mode = mode

    @staticmethod
    def _strip_code_fences(text: str) -> str:
        """Graphiti's fence stripping, then raw control characters inside strings escaped (small models write
        new lines into JSON strings, which a strict ``json.loads`` refuses); other text is left as it is."""
        stripped = OpenAIGenericClient._strip_code_fences(text)
        try:
            return json.dumps(json.loads(stripped, strict=False))
        except json.JSONDecodeError:
            return stripped

    def retried(self, error: BaseException) -> bool:
        """Whether Graphiti's retry applies to ``error``: its own rule, except an answer that was not JSON
        from a deterministic model (temperature 0), which a retry would only repeat.

        Example:
            >>> from graphiti_core.llm_client.config import LLMConfig
            >>> unreadable = json.JSONDecodeError("Unterminated string", "{", 1)
            >>> SchemaModeClient("json_object", config=LLMConfig(temperature=0.0), client=object()).retried(unreadable)
            False
            >>> SchemaModeClient("json_object", config=LLMConfig(temperature=0.7), client=object()).retried(unreadable)
            True
        """
        if self.temperature == 0 and isinstance(error, json.JSONDecodeError):
            return False
        return bool(is_server_or_retry_error(error))

    async def _generate_response_with_retry(  # type: ignore[override]  # Graphiti's is a tenacity wrapper object
            self, messages: list[Message], response_model: type[BaseModel] | None = None,
            max_tokens: int = DEFAULT_MAX_TOKENS,
            model_size: ModelSize = ModelSize.medium, *, model: str | None = None) -> dict[str, Any]:
        """Graphiti's call with its retries (4 attempts, the same waits), under :meth:`retried`'s rule, asking at
        most the client's ``max_tokens``."""
        overrides = {"model": model} if model is not None else {}
        limit = min(max_tokens, self.max_tokens)
        async for attempt in AsyncRetrying(stop=stop_after_attempt(4), reraise=True,
                                           wait=wait_random_exponential(multiplier=10, min=5, max=120),
                                           retry=retry_if_exception(self.retried)):
            with attempt:
                return await self._answer(messages, response_model, limit, model_size, overrides)
        raise AssertionError("unreachable: the last attempt returns or raises")

    async def _answer(self, messages: list[Message], response_model: type[BaseModel] | None, max_tokens: int,
                      model_size: ModelSize, overrides: dict[str, Any]) -> dict[str, Any]:
        """One attempt; an answer cut at ``max_tokens`` before its JSON ended raises :class:`CutAnswer`."""
        noted: list[str] = []
        token = _FINISHED.set(noted)
        try:
            return await self._generate_response(messages, response_model, max_tokens, model_size, **overrides)
        except json.JSONDecodeError as error:
            if "length" not in noted or isinstance(error, CutAnswer):
                raise
            raise CutAnswer(f"the answer stopped at max_tokens={max_tokens} before its JSON ended ({error.msg})",
                            error.doc, error.pos) from error
        finally:
            _FINISHED.reset(token)

    def _build_response_format(self, response_model: type[BaseModel] | None) -> dict[str, Any]:
        if response_model is None or self.mode == "json_object":
            return {"type": "json_object"}
        params = request_params(self.mode, response_model.model_json_schema(), response_model.__name__)
        return dict(params["response_format"])


def schema_mode(base_url: str, api_key: str) -> str:
    """The schema mode that suits the server at ``base_url`` (what it says it is; ``json_schema`` when unknown).

    Example:
        >>> schema_mode("http://127.0.0.1:9/v1", "none")  # nothing answers there: an unknown server
        'json_schema'
    """
    import openai

    from textmem_gym.llm.request import KIND_MODES
    from textmem_gym.llm.server_info import probe_server

    with openai.OpenAI(base_url=base_url, api_key=api_key, max_retries=0) as sdk:
        kind = probe_server(sdk, base_url).kind
    return next((mode for mode in KIND_MODES.get(kind, ()) if mode in SCHEMA_MODES), "json_schema")


class EventLoopThread:
    """One private asyncio loop in a daemon thread; :meth:`run` waits for a coroutine run there."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="textmem-graphiti-loop", daemon=True)
        self.thread.start()

    def run(self, coroutine: Coroutine[Any, Any, T]) -> T:
        """Runs ``coroutine`` on the private loop and returns its result (its exception is raised here)."""
        if self.loop.is_closed():
            coroutine.close()
            raise RuntimeError("the memory is closed")
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result()

    def close(self) -> None:
        """Stops the loop and its thread (idempotent)."""
        if self.loop.is_closed():
            return
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(timeout=10)
        self.loop.close()


__all__ = ["EMBEDDING_DIMS", "SCHEMA_MODES", "CutAnswer", "EventLoopThread", "MiniLMEmbedder", "MiniLMReranker",
           "SchemaModeClient", "note_finish_reasons", "schema_mode"]
