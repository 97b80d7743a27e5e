"""LLM access for textmem_gym: an OpenAI-compatible client and a local server for tests.

* :class:`LLMClient` -- chat (sync/async), embeddings, retries with backoff, a concurrency
  limit, token and cost accounting (:class:`UsageTotals`) and a SQLite response cache.
* :func:`parse_json_object` -- structured output from free text, never raising.
* :class:`LocalOpenAIServer` -- a real HTTP server speaking the OpenAI API on 127.0.0.1 with
  scripted answers and injectable :class:`Fault` s.
* :class:`LlamaCppServer` -- llama.cpp's OpenAI-compatible server (``llama-cpp-python[server]``)
  on a local GGUF model, e.g. :func:`smollm2_path` (the ``local-llm`` extra).

Example:
    >>> from textmem_gym.llm import LLMClient, LocalOpenAIServer
    >>> with LocalOpenAIServer(script=['{"action": "open fridge"}']) as server:
    ...     client = LLMClient(model="local", base_url=server.base_url)
    ...     client.chat([{"role": "user", "content": "next?"}]).json().value
    {'action': 'open fridge'}
"""

from textmem_gym.llm.accounting import DEFAULT_PRICES, PriceTable, UsageTotals
from textmem_gym.llm.cache import CACHE_MODES, ResponseCache
from textmem_gym.llm.client import LLMClient
from textmem_gym.llm.errors import CacheMissError, ContextLengthError, LLMError
from textmem_gym.llm.jsonparse import ParseResult, parse_json_object
from textmem_gym.llm.llama_server import LlamaCppServer, LocalModelMissingError, smollm2_path
from textmem_gym.llm.results import ChatResult
from textmem_gym.llm.retry import RetryPolicy
from textmem_gym.llm.server_info import ServerInfo
from textmem_gym.llm.structured import STRUCTURED_SETTINGS
from textmem_gym.llm.testing.faults import FAULT_KINDS, Fault
from textmem_gym.llm.testing.server import LocalOpenAIServer

__all__ = [
    "CACHE_MODES",
    "DEFAULT_PRICES",
    "FAULT_KINDS",
    "CacheMissError",
    "ChatResult",
    "ContextLengthError",
    "Fault",
    "LLMClient",
    "LLMError",
    "LlamaCppServer",
    "LocalModelMissingError",
    "LocalOpenAIServer",
    "ParseResult",
    "PriceTable",
    "ResponseCache",
    "RetryPolicy",
    "STRUCTURED_SETTINGS",
    "ServerInfo",
    "UsageTotals",
    "parse_json_object",
    "smollm2_path",
]
