"""Server kinds that :class:`~textmem_gym.llm.LocalOpenAIServer` can pass for, and schema-constrained answers.

A :class:`ServerProfile` holds what tells one OpenAI-compatible server from another, as far as
the client cares: the ``owned_by`` of its models, the ways it takes a JSON schema (and the HTTP
status it rejects the others with), where it states the context window, its tokenizer route,
and the wording of its context-length error (each copied from the real server's source).

:func:`constrain` emulates constrained decoding for a rule-driven answer: a JSON answer valid
for the schema goes out as it is; otherwise the server builds a valid one from it (enum fields
take the allowed value the answer names, else the first).

Example:
    >>> schema = {"type": "object", "properties": {"action": {"type": "string", "enum": ["look", "open fridge"]}},
    ...           "required": ["action"]}
    >>> constrain("I think I should open fridge now.", schema)
    '{"action": "open fridge"}'
    >>> constrain('{"action": "look"}', schema)
    '{"action": "look"}'
    >>> PROFILES["llama-cpp-python"].owned_by
    'me'
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import jsonschema

from textmem_gym.llm.answers import parse_json_object

ALL_MODES = frozenset({"json_schema", "json_object_schema", "guided_json"})
_OPENAI_CONTEXT = ("This model's maximum context length is {window} tokens. However, you requested {requested} "
                   "tokens ({prompt} in the messages, {completion} in the completion). Please reduce the length "
                   "of the messages or completion.")


@dataclass(frozen=True)
class ServerProfile:
    """What the local server passes for.

    Attributes:
        owned_by: ``owned_by`` of the model in ``GET /v1/models``.
        structured: The structured-output modes it takes (see :mod:`textmem_gym.llm.request`).
        rejection_status: HTTP status answering a mode it does not take.
        props: Serves llama.cpp's ``GET /props`` (with ``n_ctx``).
        max_model_len: States vLLM's ``max_model_len`` in ``GET /v1/models``.
        tokenize: ``(route, body field)`` of its tokenizer, or ``None``.
        apply_template: Serves llama.cpp's ``POST /apply-template``.
        context_error: Message of its context-length error (``str.format`` with ``window``,
            ``requested``, ``prompt``, ``completion``).
        context_error_code: The ``code`` of that error.
    """

    owned_by: str
    structured: frozenset[str] = ALL_MODES
    rejection_status: int = 400
    props: bool = False
    max_model_len: bool = False
    tokenize: tuple[str, str] | None = None
    apply_template: bool = False
    context_error: str = _OPENAI_CONTEXT
    context_error_code: str = "context_length_exceeded"


#: Profile name -> profile (``local`` is the server as it always was: every mode, no extras).
PROFILES: dict[str, ServerProfile] = {
    "local": ServerProfile("textmem_gym"),
    "openai": ServerProfile("system", structured=frozenset({"json_schema"})),
    "vllm": ServerProfile(
        "vllm", structured=frozenset({"json_schema", "guided_json"}), max_model_len=True,
        context_error=("This model's maximum context length is {window} tokens. However, you requested "
                       "{requested} tokens ({prompt} in the messages, {completion} in the completion). "
                       "Please reduce the length of the messages or completion."),
        context_error_code="400"),
    "llama.cpp": ServerProfile(
        "llamacpp", structured=frozenset({"json_schema", "json_object_schema"}), props=True,
        tokenize=("/tokenize", "content"), apply_template=True,
        context_error="the request exceeds the available context size, try increasing it",
        context_error_code="exceed_context_size_error"),
    "llama-cpp-python": ServerProfile(
        "me", structured=frozenset({"json_object_schema"}), rejection_status=422,
        tokenize=("/extras/tokenize", "input")),
}


def request_schema(body: dict[str, Any], mode: str) -> dict[str, Any]:
    """The JSON schema a chat request body carries in ``mode``."""
    if mode == "guided_json":
        schema = body.get("guided_json") or (body.get("extra_body") or {}).get("guided_json")
    elif mode == "json_schema":
        schema = body["response_format"].get("json_schema", {}).get("schema")
    else:
        schema = body["response_format"].get("schema")
    return schema if isinstance(schema, dict) else {}


def constrain(text: str, schema: dict[str, Any]) -> str:
    """``text`` as a JSON document valid for ``schema`` (see the module docstring)."""
    parsed = parse_json_object(text).value
    if parsed is not None and jsonschema.Draft202012Validator(schema).is_valid(parsed):
        return json.dumps(parsed)
    return json.dumps(_instance(schema, parsed, text))


def _instance(schema: dict[str, Any], value: Any, text: str) -> Any:
    """A value valid for ``schema``, taken from ``value`` (parsed JSON) or ``text`` where they fit."""
    for combinator in ("anyOf", "oneOf", "allOf"):
        if schema.get(combinator):
            return _instance(schema[combinator][0], value, text)
    if "const" in schema:
        return schema["const"]
    if "enum" in schema:
        return _enum_choice(schema["enum"], value, text)
    kind = schema.get("type", "object" if "properties" in schema else "string")
    kind = next((k for k in kind if k != "null"), "null") if isinstance(kind, list) else kind
    if kind == "object":
        fields = value if isinstance(value, dict) else {}
        properties = schema.get("properties") or {}
        keys = [key for key in properties if key in (schema.get("required") or ()) or key in fields]
        return {key: _instance(properties[key], fields.get(key), text) for key in keys}
    if kind == "array":
        items = value if isinstance(value, list) else []
        item_schema = schema.get("items") or {}
        built = [_instance(item_schema, item, str(item)) for item in items]
        missing = max(0, int(schema.get("minItems", 0)) - len(built))
        return built + [_instance(item_schema, None, text) for _ in range(missing)]
    scalars: dict[str, tuple[type | tuple[type, ...], Any]] = {
        "string": (str, text.strip()), "integer": (int, 0), "number": ((int, float), 0),
        "boolean": (bool, False), "null": (type(None), None)}
    expected, default = scalars.get(kind, (str, text.strip()))
    return value if isinstance(value, expected) else default


def _enum_choice(options: list[Any], value: Any, text: str) -> Any:
    if value in options:
        return value
    lowered = (value if isinstance(value, str) else text).lower()
    named = [option for option in options if isinstance(option, str) and option.lower() in lowered]
    return max(named, key=len) if named else options[0]
