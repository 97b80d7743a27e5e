"""LLM access for textmem_gym: an OpenAI-compatible client and a local server for tests.

* :class:`LLMClient` -- chat (sync/async), embeddings and a preflight check (:mod:`.client`): a
  pipeline of small steps it composes, each of its own concern: building the request, its
  structured output, the life of one call and its token and cost accounting (:class:`UsageTotals`,
  :mod:`.request`), retries with backoff (:class:`RetryPolicy`, :mod:`.retry`), request slots and the
  run's shared :class:`RequestLimits` (:mod:`.slots`), and a SQLite response cache (:mod:`.cache`).
* :class:`LLMCalls` -- a policy's calls: prompts from templates (:class:`PromptFolder`, laid out by
  how often each section changes, their reusable prefix measured, :mod:`.prompts`), fitted to the
  context window, counted per episode (:mod:`.calls`, with :class:`Trimmable` sections and the
  memories' :class:`ClientAsk`).
* :class:`ChatResult` -- what a chat call returns; :func:`parse_answer`, :func:`parse_json_object` --
  the one free-text parser (:mod:`.answers`).
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

from textmem_gym.llm.answers import Answer, ChatResult, ParseResult, parse_answer, parse_json_object
from textmem_gym.llm.cache import CACHE_MODES, ResponseCache
from textmem_gym.llm.calls import ClientAsk, LLMCalls
from textmem_gym.llm.client import LLMClient, preflight
from textmem_gym.llm.errors import CacheMissError, ContextLengthError, EndpointDown, EndpointUnavailable, LLMError
from textmem_gym.llm.llama_server import LlamaCppServer, LocalModelMissingError, smollm2_path
from textmem_gym.llm.prompts import PromptFolder, Trimmable, estimate_prompt_tokens
from textmem_gym.llm.request import DEFAULT_PRICES, STRUCTURED_SETTINGS, PriceTable, UsageTotals
from textmem_gym.llm.retry import RetryPolicy
from textmem_gym.llm.server_info import EndpointWarning, ServerInfo
from textmem_gym.llm.slots import RequestLimits
from textmem_gym.llm.testing.faults import FAULT_KINDS, Fault
from textmem_gym.llm.testing.server import LocalOpenAIServer

__all__ = [
    "Answer",
    "CACHE_MODES",
    "ClientAsk",
    "EndpointDown",
    "EndpointUnavailable",
    "EndpointWarning",
    "LLMCalls",
    "PromptFolder",
    "Trimmable",
    "estimate_prompt_tokens",
    "parse_answer",
    "preflight",
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
    "RequestLimits",
    "ResponseCache",
    "RetryPolicy",
    "STRUCTURED_SETTINGS",
    "ServerInfo",
    "UsageTotals",
    "parse_json_object",
    "smollm2_path",
]
