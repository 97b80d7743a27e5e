"""Structured output from free text: find the right JSON object and repair common breakage.

LLMs wrap JSON in prose and code fences and break it in a handful of usual ways. Repairing
the text of one object (trailing commas, single quotes, bare keys, Python literals
``True``/``False``/``None``, comments, stray escapes) is done by `json-repair
<https://pypi.org/project/json-repair/>`_ (:func:`repair_json`). This module adds what it
lacks:

* picking the object: fenced code blocks (```` ```json ... ``` ````) first, then the text;
  the first balanced ``{...}`` that parses wins, and an inner object of a broken outer one is
  never taken for the answer (json-repair reads prose with several objects as a list);
* refusing guesses: a truncated object (no closing brace) and an unquoted word in a value
  position (``{"action": go north}``) are reported, not guessed at;
* required keys, and a result that says whether repairs were needed.

It never raises: a failure is reported in the result, so a policy can fall back gracefully.

Example:
    >>> parse_json_object("Sure! ```json\\n{'action': 'go north',}\\n```").value
    {'action': 'go north'}
    >>> parse_json_object("no json here").ok
    False
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from json_repair import repair_json

_FENCE = re.compile(r"```[A-Za-z0-9_-]*[ \t]*\n?(.*?)```", re.DOTALL)
_CLOSERS = {"{": "}", "[": "]"}
#: Strings, comments and numbers (skipped), or a bare word and the ``:`` that makes it a key.
_TOKEN = re.compile(
    r""""(?:\\.|[^"\\])*"?|'(?:\\.|[^'\\])*'?|//[^\n]*|/\*.*?(?:\*/|$)|[-+]?\d[\w.+-]*"""
    r"""|([A-Za-z_]\w*)(\s*:)?""",
    re.DOTALL,
)
#: Bare words that are values in JSON or Python (``NaN``/``Infinity`` are read by :func:`json.loads`).
_LITERALS = frozenset({"true", "false", "null", "True", "False", "None", "NaN", "Infinity"})
#: Errors of a parser given text it cannot read (too deep nesting included).
_PARSE_ERRORS = (ValueError, RecursionError)
MAX_CANDIDATES = 64


@dataclass(frozen=True)
class ParseResult:
    """The outcome of :func:`parse_json_object`.

    Attributes:
        value: The parsed object, or ``None`` on failure.
        error: Why parsing failed (``None`` on success).
        repaired: True when the object only parsed after repairs.
        snippet: The text of the object that was parsed (or tried first).

    Example:
        >>> r = parse_json_object('{"a": 1}')
        >>> r.ok, r.value, r.error
        (True, {'a': 1}, None)
    """

    value: dict[str, Any] | None
    error: str | None = None
    repaired: bool = False
    snippet: str | None = None

    @property
    def ok(self) -> bool:
        """True when an object was parsed."""
        return self.value is not None


def parse_json_object(text: Any, *, required: Iterable[str] = ()) -> ParseResult:
    """Extracts and parses the first JSON object in ``text``; never raises.

    Fenced code blocks are searched before the surrounding text. Each ``{`` is tried in
    order until one yields an object (as-is or after repair).

    Args:
        text: Free text from a model (anything else is reported as an error).
        required: Keys the object must have; a missing key is a failure.

    Returns:
        A :class:`ParseResult`; ``.ok`` tells whether ``.value`` holds the object.

    Example:
        >>> parse_json_object('{"a": 1}', required=["b"]).error
        "JSON object lacks required key(s): 'b'"
    """
    if not isinstance(text, str):
        return ParseResult(None, error=f"expected text, got {type(text).__name__}")
    result = _first_object(text)
    missing = [key for key in required if result.value is not None and key not in result.value]
    if missing:
        listed = ", ".join(repr(key) for key in missing)
        return ParseResult(None, f"JSON object lacks required key(s): {listed}", result.repaired, result.snippet)
    return result


def _first_object(text: str) -> ParseResult:
    first_failure: ParseResult | None = None
    saw_unterminated = False
    for snippet in _candidates(text):
        if snippet is None:
            saw_unterminated = True
            continue
        result = _parse_snippet(snippet)
        if result.ok:
            return result
        first_failure = first_failure or result
    if first_failure is not None:
        return first_failure
    if saw_unterminated:
        return ParseResult(None, error="unterminated JSON object (output truncated?)")
    return ParseResult(None, error="no JSON object found in text")


def _candidates(text: str) -> Iterator[str | None]:
    """Yields balanced ``{...}`` snippets (``None`` for an unterminated one), fences first.

    Braces nested inside a balanced snippet are not tried on their own: an inner object of
    a broken outer one is not "the first object" of the text.
    """
    sources = json_sources(text)
    tried = 0
    for source in sources:
        next_start = 0
        for start in (i for i, ch in enumerate(source) if ch == "{"):
            if start < next_start:
                continue
            if tried >= MAX_CANDIDATES:
                return
            tried += 1
            end = matching_end(source, start)
            next_start = start if end is None else end + 1
            yield None if end is None else source[start : end + 1]


def json_sources(text: str) -> list[str]:
    """Where JSON is looked for in a model's answer, in order: each fenced code block's content
    (```` ```json ... ``` ````), then the whole text.

    Example:
        >>> json_sources('Here: ```json {"a": 1}``` done')
        ['{"a": 1}', 'Here: ```json {"a": 1}``` done']
    """
    return [m.group(1) for m in _FENCE.finditer(text)] + [text]


def matching_end(text: str, start: int) -> int | None:
    """The index of the bracket closing the one at ``start`` (strings honoured), ``None`` when it
    never closes or a wrong bracket closes it.

    Example:
        >>> matching_end('x {"a": "}", "b": [1]} y', 2)
        21
        >>> matching_end('{"a": 1', 0) is None
        True
    """
    stack: list[str] = []
    quote: str | None = None
    i = start
    while i < len(text):
        ch = text[i]
        if quote is not None:
            if ch == "\\":
                i += 1
            elif ch == quote:
                quote = None
        elif ch in "\"'":
            quote = ch
        elif ch in _CLOSERS:
            stack.append(_CLOSERS[ch])
        elif ch in "}]":
            if not stack or stack.pop() != ch:
                return None
            if not stack:
                return i
        i += 1
    return None


def _parse_snippet(snippet: str) -> ParseResult:
    try:
        return _as_object(json.loads(snippet), snippet, repaired=False)
    except _PARSE_ERRORS as exc:
        problem = f"{exc.msg} at char {exc.pos}" if isinstance(exc, json.JSONDecodeError) else type(exc).__name__
    failed = ParseResult(None, error=f"invalid JSON object: {problem}", snippet=snippet)
    bare = unquoted_value(snippet)
    if bare is not None:
        return ParseResult(None, error=f"{failed.error} (unquoted value {bare!r})", snippet=snippet)
    try:
        return _as_object(repair_json(snippet, return_objects=True), snippet, repaired=True)
    except _PARSE_ERRORS:
        return failed


def unquoted_value(snippet: str) -> str | None:
    """The first bare word standing where a value belongs (json-repair would guess it a string).

    Keys may be bare (``{action: "look"}``); JSON and Python literals are values.

    Example:
        >>> unquoted_value('{"action": go north}'), unquoted_value("{action: 'look', done: True}")
        ('go', None)
    """
    for token in _TOKEN.finditer(snippet):
        word, colon = token.group(1), token.group(2)
        if word is not None and colon is None and word not in _LITERALS:
            return str(word)
    return None


def _as_object(value: Any, snippet: str, *, repaired: bool) -> ParseResult:
    if not isinstance(value, dict):
        return ParseResult(None, error=f"expected a JSON object, got {type(value).__name__}", snippet=snippet)
    return ParseResult(value, repaired=repaired, snippet=snippet)


__all__ = ["MAX_CANDIDATES", "ParseResult", "json_sources", "matching_end", "parse_json_object", "repair_json",
           "unquoted_value"]
