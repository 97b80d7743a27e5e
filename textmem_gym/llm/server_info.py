"""What an OpenAI-compatible server is and what it tells about its model: kind, context window, tokens.

:func:`check_endpoint` is the preflight check: one ``GET {base_url}/models`` with a short timeout,
raising :class:`~textmem_gym.llm.errors.EndpointUnavailable` (one line) only for what cannot work:
nothing answers, the key is refused, neither the model list nor the chat route exists (a base URL
without its ``/v1``), or a server that lists every model it serves (OpenAI, vLLM, Ollama) does not
list the model. Single-model servers (llama.cpp, llama-cpp-python) answer for any model name, so
theirs is not checked. Serving the model list is not part of every OpenAI-compatible server: one
that answers it with an error (``501 Not Implemented``...) but has a chat route is used, with one
:class:`EndpointWarning`.

:func:`probe_server` asks the server once (the client keeps the answer):

* ``GET {base_url}/models``: the ``owned_by`` of the models names the server kind (``vllm``;
  ``me`` for llama-cpp-python's server; ``llamacpp`` for llama.cpp's own server; ``openai`` /
  ``system``; ``library`` for Ollama); vLLM also states ``max_model_len`` there.
* ``GET {root}/props`` (llama.cpp's own server): ``n_ctx`` or ``default_generation_settings.n_ctx``.

llama-cpp-python's server states no context window (its ``/v1/models`` has only ids); its
context-length errors do state it, and :class:`~textmem_gym.llm.LlamaCppServer` knows the
``--n_ctx`` it started the server with.

:func:`count_tokens` counts a prompt with the server's tokenizer where it has one: llama.cpp
renders the messages with the model's own chat template (``POST /apply-template``) and then
tokenizes them (``POST /tokenize``): exact. llama-cpp-python tokenizes (``POST
/extras/tokenize``, special tokens parsed) the messages rendered in ChatML, the template of
SmolLM2, Qwen and many small instruct models: exact for those models, a close count for others
(a template's markers differ by a few tokens per message). Elsewhere it gives ``None`` and the
client estimates (:func:`~textmem_gym.llm.prompts.estimate_with_margin`).

Example:
    >>> from textmem_gym.llm import LocalOpenAIServer
    >>> import openai
    >>> with LocalOpenAIServer(profile="vllm", context_window=4096) as server:
    ...     sdk = openai.OpenAI(base_url=server.base_url, api_key="unused")
    ...     info = probe_server(sdk, server.base_url)
    >>> info.kind, info.context_window
    ('vllm', 4096)
    >>> count_tokens(None, ServerInfo("unknown"), "", [{"role": "user", "content": "x" * 400}]) is None
    True
"""

from __future__ import annotations

import logging
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import openai

from textmem_gym.llm.errors import EndpointUnavailable, safe_url
from textmem_gym.llm.prompts import chatml

logger = logging.getLogger("textmem_gym.llm")

#: Seconds allowed for each probe or tokenizer request.
PROBE_TIMEOUT = 10.0
#: ``owned_by`` of a model in ``/v1/models`` -> server kind.
OWNERS: dict[str, str] = {
    "vllm": "vllm", "me": "llama-cpp-python", "llamacpp": "llama.cpp", "openai": "openai",
    "system": "openai", "openai-internal": "openai", "library": "ollama", "ollama": "ollama",
}
KINDS = ("openai", "vllm", "llama.cpp", "llama-cpp-python", "ollama", "unknown")
#: Server kinds whose ``/v1/models`` lists every model they serve (the preflight checks the model there).
LISTS_ITS_MODELS = frozenset({"openai", "vllm", "ollama"})
#: Models named in a preflight error, at most.
MODELS_SHOWN = 8

Messages = Sequence[Mapping[str, Any]]


class EndpointWarning(UserWarning):
    """The preflight check could not check everything but goes on (a server without a model list)."""


@dataclass(frozen=True)
class ServerInfo:
    """What the server said about itself.

    Attributes:
        kind: One of :data:`KINDS`.
        context_window: Tokens of the model's context window, when the server states it.
        models: Model ids it lists.
    """

    kind: str
    context_window: int | None = None
    models: tuple[str, ...] = ()


def server_root(base_url: str) -> str:
    """The server's root URL (``base_url`` without its trailing ``/v1``).

    Example:
        >>> server_root("http://127.0.0.1:8080/v1/")
        'http://127.0.0.1:8080'
    """
    url = base_url.rstrip("/")
    return url[: -len("/v1")] if url.endswith("/v1") else url


def _request(sdk: Any, method: str, url: str, body: Any = None) -> Any:
    """The JSON answer of one request to an absolute URL, or ``None`` when the server has no such route."""
    options = {"timeout": PROBE_TIMEOUT}
    try:
        if method == "GET":
            return sdk.get(url, cast_to=object, options=options)
        return sdk.post(url, cast_to=object, body=body, options=options)
    except openai.APIError as exc:  # no such route, or no server: the caller falls back
        logger.debug("%s %s: %s", method, urlsplit(url).path, type(exc).__name__)
        return None


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def probe_server(sdk: Any, base_url: str) -> ServerInfo:
    """Asks the server at ``base_url`` what it is (see the module docstring); never raises for API errors."""
    models = _listed(_request(sdk, "GET", base_url.rstrip("/") + "/models"))
    kind = _kind(models, base_url)
    window = next((_int(m.get("max_model_len")) for m in models if _int(m.get("max_model_len"))), None)
    if kind in ("llama.cpp", "unknown") and window is None:
        props = _request(sdk, "GET", server_root(base_url) + "/props")
        if isinstance(props, dict):
            settings = props.get("default_generation_settings")
            nested = settings.get("n_ctx") if isinstance(settings, dict) else None
            window = _int(props.get("n_ctx")) or _int(nested)
            kind = "llama.cpp" if window is not None or kind == "llama.cpp" else kind
    ids = tuple(str(m.get("id")) for m in models if m.get("id") is not None)
    return ServerInfo(kind=kind, context_window=window, models=ids)


def _listed(listing: Any) -> list[dict[str, Any]]:
    """The model entries of a ``/models`` answer."""
    data = listing.get("data") if isinstance(listing, dict) else None
    return [m for m in data if isinstance(m, dict)] if isinstance(data, list) else []


def _kind(models: list[dict[str, Any]], base_url: str) -> str:
    """The server kind that the ``owned_by`` of its models (or OpenAI's host name) names."""
    if urlsplit(base_url).hostname == "api.openai.com":
        return "openai"
    owners = [str(m.get("owned_by", "")).lower() for m in models]
    return next((OWNERS[owner] for owner in owners if owner in OWNERS), "unknown")


def _count_llama_cpp(sdk: Any, root: str, messages: Messages) -> int | None:
    rendered = _request(sdk, "POST", root + "/apply-template", {"messages": [dict(m) for m in messages]})
    prompt = rendered.get("prompt") if isinstance(rendered, dict) else None
    answer = _request(sdk, "POST", root + "/tokenize",
                      {"content": prompt if isinstance(prompt, str) else chatml(messages), "add_special": True})
    tokens = answer.get("tokens") if isinstance(answer, dict) else None
    return len(tokens) if isinstance(tokens, list) else None


def _count_llama_cpp_python(sdk: Any, root: str, messages: Messages) -> int | None:
    answer = _request(sdk, "POST", root + "/extras/tokenize", {"input": chatml(messages)})
    tokens = answer.get("tokens") if isinstance(answer, dict) else None
    return len(tokens) if isinstance(tokens, list) else None


#: Server kind -> ``(sdk, root, messages) -> token count or None`` with the server's tokenizer.
TOKENIZERS = {"llama.cpp": _count_llama_cpp, "llama-cpp-python": _count_llama_cpp_python}


def count_tokens(sdk: Any, info: ServerInfo, base_url: str, messages: Messages) -> int | None:
    """Prompt tokens of ``messages`` from the server's tokenizer, or ``None`` when it has none."""
    tokenizer = TOKENIZERS.get(info.kind)
    return tokenizer(sdk, server_root(base_url), messages) if tokenizer is not None and sdk is not None else None


def check_endpoint(sdk: Any, base_url: str, model: str, *, timeout: float, key_given: bool) -> ServerInfo:
    """The preflight check (see the module docstring): what ``GET {base_url}/models`` says, else one line.

    Args:
        sdk: An ``openai.OpenAI`` client of the endpoint (built with ``max_retries=0``).
        base_url: The endpoint.
        model: The model the calls will ask for.
        timeout: Seconds allowed for the request.
        key_given: Whether an API key was configured (named in the message when the key is refused).

    Raises:
        EndpointUnavailable: Nothing answers, the key is refused, there is neither a model list nor a
            chat route, or a server that lists its models does not list ``model``.

    Warns:
        EndpointWarning: The model list answered an error but the chat route is there: the model is
            not checked (one line naming the URL and the status).
    """
    try:
        listing = sdk.get(base_url.rstrip("/") + "/models", cast_to=object, options={"timeout": timeout})
    except openai.APIError as exc:
        status = getattr(exc, "status_code", None)
        if status is None or status in (401, 403) or not _has_chat_route(sdk, base_url, timeout):
            raise EndpointUnavailable(base_url, _problem(exc, timeout, key_given)) from None
        warnings.warn(EndpointWarning(f"LLM endpoint {safe_url(base_url)}: GET /models answered HTTP {status} (no "
                                      f"model list), so model {model!r} is not checked; going on"), stacklevel=2)
        return ServerInfo(kind=_kind([], base_url))
    models = _listed(listing)
    ids = tuple(str(m.get("id")) for m in models if m.get("id") is not None)
    kind = _kind(models, base_url)
    if kind in LISTS_ITS_MODELS and ids and model not in ids:
        shown = ", ".join(ids[:MODELS_SHOWN]) + (", ..." if len(ids) > MODELS_SHOWN else "")
        raise EndpointUnavailable(base_url, f"model {model!r} is not served here (it lists: {shown})")
    return ServerInfo(kind=kind, models=ids)


def _has_chat_route(sdk: Any, base_url: str, timeout: float) -> bool:
    """Whether ``POST {base_url}/chat/completions`` exists: an empty request (nothing is generated)
    answered with anything but 404."""
    try:
        sdk.post(base_url.rstrip("/") + "/chat/completions", cast_to=object, body={}, options={"timeout": timeout})
    except openai.APIStatusError as exc:
        return exc.status_code != 404
    except openai.APIError:
        return False
    return True


def _problem(exc: openai.APIError, timeout: float, key_given: bool) -> str:
    """What an API error of the model-list request says about the endpoint, in a few words."""
    if isinstance(exc, openai.APITimeoutError):
        return f"no answer within {timeout:g} s"
    if isinstance(exc, openai.APIConnectionError):
        cause = exc.__cause__ or exc
        return f"nothing answers ({type(cause).__name__}: {' '.join(str(cause).split()) or 'connection failed'})"
    status = getattr(exc, "status_code", None)
    if status in (401, 403):
        hint = "" if key_given else " (no API key is set: pass api_key= or set $OPENAI_API_KEY)"
        return f"the API key is refused (HTTP {status}){hint}"
    if status == 404:
        return "no GET /models route (HTTP 404): is this the OpenAI-compatible base URL, usually ending in /v1?"
    return f"GET /models failed (HTTP {status}): {' '.join(str(exc).split())[:200]}"
