"""The settings every LLM policy shares: its endpoint, its :class:`~textmem_gym.llm.LLMClient` options, ``strict``.

Each LLM policy's settings dataclass extends :class:`LLMConfig` (Ariadne's
:class:`~policies.ariadne.AriadneConfig`, STMA's :class:`~policies.stma.STMAConfig`...), so one
``--policy-arg timeout=30`` or ``make_policy(name, cache="record")`` works for all of them. The
client fields are ``LLMClient.__init__``'s keywords with its defaults; results rows record the chat
``model`` (the argument, else ``$OPENAI_MODEL``) and none of the others but ``structured_output``,
``context_window`` and ``seed`` when set (and ``strict``, and ``prompt_layout`` when it is not ``"paper"``).

Example:
    >>> config = LLMConfig(model="m", timeout=5.0, structured_output="off")
    >>> config.client_options()["timeout"], config.recorded()
    (5.0, {'structured_output': 'off', 'strict': False, 'model': 'm'})
    >>> "api_key" in repr(LLMConfig(api_key="sk-secret"))  # never shown
    False
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from types import MappingProxyType
from typing import Any

from textmem_gym.core.policy import RECORDED_UNLESS_DEFAULT, UNRECORDED, PolicyConfig
from textmem_gym.llm import LLMCalls, LLMClient, RequestLimits
from textmem_gym.llm.client import ENV_MODEL
from textmem_gym.llm.prompts import layout_named

#: Field metadata of an :class:`~textmem_gym.llm.LLMClient` keyword, not recorded in results rows.
CLIENT: Mapping[str, Any] = MappingProxyType({"client": True, "record": "never"})
#: Field metadata of an :class:`~textmem_gym.llm.LLMClient` keyword recorded when set (not ``None``).
CLIENT_RECORDED_WHEN_SET: Mapping[str, Any] = MappingProxyType({"client": True, "record": "when set"})


@dataclass(frozen=True, kw_only=True)
class LLMConfig(PolicyConfig):
    """The endpoint, the client options and ``strict``: the fields every LLM policy's settings share."""

    model: str | None = field(default=None, metadata=UNRECORDED)
    """Chat model (default: ``$OPENAI_MODEL``)."""
    base_url: str | None = field(default=None, metadata=UNRECORDED)
    """OpenAI-compatible server URL ending in ``/v1`` (default: ``$OPENAI_BASE_URL``, then OpenAI)."""
    api_key: str | None = field(default=None, repr=False, metadata=UNRECORDED)
    """API key (default: ``$OPENAI_API_KEY``; local servers need none). Never shown nor recorded."""
    timeout: float = field(default=60.0, metadata=CLIENT)
    """Seconds allowed for each HTTP attempt."""
    max_retries: int = field(default=5, metadata=CLIENT)
    """Retries after the first attempt (timeouts, connection errors, HTTP 408/429/5xx, malformed answers)."""
    concurrency: int = field(default=8, metadata=CLIENT)
    """Most requests in flight at once."""
    cache: str = field(default="off", metadata=CLIENT)
    """Response cache: ``"off"``, ``"record"``, ``"replay"`` or ``"readwrite"``."""
    cache_path: str | Path | None = field(default=None, metadata=CLIENT)
    """SQLite file (or its directory) of the response cache (default: the user cache dir's ``llm/``)."""
    prices: Mapping[str, tuple[float, float]] | None = field(default=None, metadata=CLIENT)
    """Model -> (USD per 1M prompt tokens, USD per 1M completion tokens), for the runs' cost."""
    seed: int | None = field(default=None, metadata=CLIENT_RECORDED_WHEN_SET)
    """Sent as the ``seed`` sampling parameter when set."""
    embedding_model: str | None = field(default=None, metadata=CLIENT)
    """Embedding model (default: ``$OPENAI_EMBEDDING_MODEL``, then ``text-embedding-3-small``)."""
    backoff_base: float = field(default=0.5, metadata=CLIENT)
    """First retry wait in seconds (doubles each retry, with jitter)."""
    backoff_max: float = field(default=30.0, metadata=CLIENT)
    """Longest retry wait in seconds."""
    retry_empty: bool = field(default=False, metadata=CLIENT)
    """Also retry answers with empty content."""
    structured_output: str | None = field(default=None, metadata=CLIENT_RECORDED_WHEN_SET)
    """How answer schemas are sent: ``"auto"`` (the way the server takes), ``"on"``, ``"off"`` (free text)
    or a mode name; ``None``: the client's default (``"auto"``)."""
    context_window: int | None = field(default=None, metadata=CLIENT_RECORDED_WHEN_SET)
    """The model's context window in tokens (default: what the server states)."""
    limits: RequestLimits | None = field(default=None, repr=False, metadata=CLIENT)
    """The run's shared request limits (the runner sets them for parallel runs; not recorded)."""
    prompt_layout: str = field(default="paper", metadata=RECORDED_UNLESS_DEFAULT)
    """Order of the sections of each prompt (:data:`~textmem_gym.llm.prompts.LAYOUTS`): ``"paper"`` (as the
    paper's prompts give them) or ``"cache"`` (what never changes first: instructions, goal, rules; then what
    changes slowly: memory, plan; then what is new: observation, recent history, actions; the answer cue
    stays last), so that a server's prefix cache reuses more of every prompt. Only the order changes, never
    a section's text. Recorded in results rows when it is not ``"paper"``."""
    strict: bool = False
    """End the episode at the first fallback (:class:`~textmem_gym.fallbacks.FallbackError`)."""

    def __post_init__(self) -> None:
        super().__post_init__()
        layout_named(self.prompt_layout)  # a ValueError naming the layouts

    def recorded(self) -> dict[str, Any]:
        """The recorded settings, with the chat ``model`` the policy talks to (the argument, else
        ``$OPENAI_MODEL``) when one is known: two models never share a resume key."""
        record = super().recorded()
        model = self.model or os.environ.get(ENV_MODEL) or None
        return {**record, "model": model} if model else record

    def client_options(self) -> dict[str, Any]:
        """The :class:`~textmem_gym.llm.LLMClient` keywords of these settings (``None`` ones left to the client)."""
        return {item.name: getattr(self, item.name) for item in fields(self)
                if item.metadata.get("client") and getattr(self, item.name) is not None}

    def calls(self, client: LLMClient | None = None) -> LLMCalls:
        """The policy's :class:`~textmem_gym.llm.LLMCalls` for these settings (``client``: an existing
        client to use instead of one built from them on first use)."""
        return LLMCalls(self.model, self.base_url, self.api_key, client=client, client_options=self.client_options(),
                        strict=self.strict)
