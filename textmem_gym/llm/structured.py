"""Structured output: how the JSON schema of an answer is sent to each kind of server.

Each way is a *mode*: ``json_schema`` (``response_format={"type": "json_schema", ...}``: OpenAI,
llama.cpp's server, Ollama, vLLM), ``json_object_schema`` (``response_format={"type": "json_object",
"schema": ...}``: llama-cpp-python's server), ``guided_json`` (vLLM's extra parameter) and ``none``
(free text, read by the free-text parser). The ``structured_output`` setting of a client chooses
(:class:`StructuredChoice`): ``"auto"`` takes the mode that suits the server kind (found by
:mod:`textmem_gym.llm.server_info`; on an unknown server ``json_schema`` first) and drops a mode the
server rejects with HTTP 400/422 (:func:`is_rejection`) for the next, down to ``none``; ``"on"``
never drops (a rejection is an error), ``"off"`` is always ``none``, a mode name forces it.

Example:
    >>> body = request_params("json_object_schema", {"type": "object"}, "decision")
    >>> body["response_format"]["type"], mode_of_body(body)
    ('json_object', 'json_object_schema')
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from typing import Any

#: Mode name -> ``(schema, name, strict) -> request parameters`` that constrain the answer.
MODE_PARAMS: dict[str, Callable[[dict[str, Any], str, bool], dict[str, Any]]] = {
    "json_schema": lambda schema, name, strict: {
        "response_format": {"type": "json_schema", "json_schema": {"name": name, "schema": schema, "strict": strict}}},
    "json_object_schema": lambda schema, name, strict: {"response_format": {"type": "json_object", "schema": schema}},
    "guided_json": lambda schema, name, strict: {"guided_json": schema},
    "none": lambda schema, name, strict: {},
}
MODES = tuple(MODE_PARAMS)
STRUCTURED_SETTINGS = ("auto", "on", "off", *MODES)
#: Server kind (see :mod:`textmem_gym.llm.server_info`) -> the modes to try, best first.
KIND_MODES: dict[str, tuple[str, ...]] = {
    "openai": ("json_schema",),
    "vllm": ("json_schema", "guided_json"),
    "llama-cpp-python": ("json_object_schema",),
    "llama.cpp": ("json_schema", "json_object_schema"),
    "ollama": ("json_schema",),
    "unknown": ("json_schema", "json_object_schema", "guided_json"),
}
#: HTTP statuses with which a server rejects a request shape it does not know.
REJECTION_STATUSES = frozenset({400, 422})
#: Words of such a rejection's message (a 400 for another reason does not drop a mode).
REJECTION_WORDS = ("response_format", "json_schema", "json_object", "guided", "schema", "grammar")
DEFAULT_SCHEMA_NAME = "answer"


def request_params(mode: str, schema: Mapping[str, Any], name: str | None = None) -> dict[str, Any]:
    """The chat request parameters that send ``schema`` in ``mode``."""
    schema = dict(schema)
    return MODE_PARAMS[mode](schema, _safe_name(name), is_strict_schema(schema))


def mode_of_body(body: Mapping[str, Any]) -> str:
    """The mode a chat request body was sent in (``"none"`` when it carries no schema)."""
    if "guided_json" in body or "guided_json" in (body.get("extra_body") or {}):
        return "guided_json"
    response_format = body.get("response_format")
    if not isinstance(response_format, Mapping):
        return "none"
    if response_format.get("type") == "json_schema":
        return "json_schema"
    if response_format.get("type") == "json_object" and "schema" in response_format:
        return "json_object_schema"
    return "none"


def is_strict_schema(schema: Any) -> bool:
    """True when ``schema`` meets OpenAI's strict mode (every object closed, every property required).

    Example:
        >>> is_strict_schema({"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"],
        ...                   "additionalProperties": False})
        True
        >>> is_strict_schema({"type": "object", "properties": {"a": {"type": "string"}}})
        False
    """
    if isinstance(schema, list):
        return all(is_strict_schema(item) for item in schema)
    if not isinstance(schema, Mapping):
        return True
    if schema.get("type") == "object" or "properties" in schema:
        properties = schema.get("properties") or {}
        if schema.get("additionalProperties") is not False or set(schema.get("required") or ()) != set(properties):
            return False
    return all(is_strict_schema(value) for key, value in schema.items() if key not in ("enum", "const", "required"))


def _safe_name(name: str | None) -> str:
    """OpenAI wants ``[a-zA-Z0-9_-]{1,64}``."""
    cleaned = "".join(c if c.isalnum() or c in "_-" else "_" for c in (name or DEFAULT_SCHEMA_NAME))
    return cleaned[:64] or DEFAULT_SCHEMA_NAME


def is_rejection(status: int | None, message: str) -> bool:
    """True when an HTTP error says the server does not take a schema in the shape it was sent.

    Example:
        >>> is_rejection(400, "Invalid parameter: 'response_format' of type 'json_schema' is not supported")
        True
        >>> is_rejection(400, "you must provide a model parameter")
        False
    """
    lowered = message.lower()
    return status in REJECTION_STATUSES and any(word in lowered for word in REJECTION_WORDS)


def check_setting(setting: str) -> str:
    """Returns ``setting`` or raises a ValueError naming the valid ones."""
    if setting not in STRUCTURED_SETTINGS:
        raise ValueError(f"structured_output={setting!r}: expected one of {', '.join(STRUCTURED_SETTINGS)}")
    return setting


class StructuredChoice:
    """Which mode a client's schema calls use, decided once per client and thread-safe.

    Args:
        setting: ``auto``, ``on``, ``off`` or a mode name.

    Example:
        >>> choice = StructuredChoice("auto")
        >>> choice.resolve("unknown")
        'json_schema'
        >>> choice.rejected("json_schema"), choice.current
        (True, 'json_object_schema')
        >>> choice.accepted("json_object_schema"); choice.rejected("json_object_schema")
        False
    """

    def __init__(self, setting: str) -> None:
        self.setting = check_setting(setting)
        self._lock = threading.Lock()
        self._candidates: list[str] | None = None
        self._confirmed = False
        if setting == "off":
            self._candidates = ["none"]
        elif setting in MODES:
            self._candidates = [setting]

    @property
    def needs_server_kind(self) -> bool:
        """True until the modes to try are known (``auto``/``on`` need the server kind)."""
        return self._candidates is None

    @property
    def current(self) -> str | None:
        """The mode the next schema call uses (``None`` before :meth:`resolve`)."""
        with self._lock:
            return self._candidates[0] if self._candidates else None

    def resolve(self, server_kind: str) -> str:
        """Fixes the candidates from the server kind (first call only); returns the current mode."""
        with self._lock:
            if self._candidates is None:
                modes = KIND_MODES.get(server_kind, KIND_MODES["unknown"])
                self._candidates = list(modes[:1] if self.setting == "on" else (*modes, "none"))
            return self._candidates[0]

    def rejected(self, mode: str) -> bool:
        """The server rejected ``mode``: drops it when ``auto`` may; returns True to send again."""
        with self._lock:
            if self.setting != "auto" or self._confirmed or not self._candidates or self._candidates[0] != mode:
                return False
            if len(self._candidates) == 1:
                return False
            self._candidates.pop(0)
            return True

    def accepted(self, mode: str) -> None:
        """The server answered a call sent in ``mode``: the decision is final."""
        with self._lock:
            if self._candidates and self._candidates[0] == mode:
                self._confirmed = True


__all__ = ["KIND_MODES", "MODES", "MODE_PARAMS", "STRUCTURED_SETTINGS", "StructuredChoice", "check_setting",
           "is_rejection", "is_strict_schema", "mode_of_body", "request_params"]
