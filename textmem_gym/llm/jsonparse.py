"""Structured output from free text: find the first JSON object and repair common breakage.

LLMs wrap JSON in prose and code fences and break it in a handful of usual ways. This module
finds the first ``{...}`` that parses, repairing on the way:

* code fences (```` ```json ... ``` ````) and prose around the object,
* trailing commas before ``}`` or ``]``,
* single-quoted strings and keys, bare (unquoted) keys,
* Python literals ``True``/``False``/``None`` and ``//`` line comments.

It never raises: a failure is reported in the result, so a policy can fall back gracefully.
Truncated objects (no closing brace) are reported, not guessed at.

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

_FENCE = re.compile(r"```[A-Za-z0-9_-]*[ \t]*\n?(.*?)```", re.DOTALL)
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_PY_LITERALS = {"True": "true", "False": "false", "None": "null"}
_CLOSERS = {"{": "}", "[": "]"}
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
    try:
        result = _first_object(text)
    except Exception as exc:  # defensive: the contract is "never raises"
        return ParseResult(None, error=f"internal parse error: {type(exc).__name__}: {exc}")
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
    sources = [m.group(1) for m in _FENCE.finditer(text)] + [text]
    tried = 0
    for source in sources:
        next_start = 0
        for start in (i for i, ch in enumerate(source) if ch == "{"):
            if start < next_start:
                continue
            if tried >= MAX_CANDIDATES:
                return
            tried += 1
            end = _matching_end(source, start)
            next_start = start if end is None else end + 1
            yield None if end is None else source[start : end + 1]


def _matching_end(text: str, start: int) -> int | None:
    """Returns the index of the bracket closing the one at ``start``, honouring strings."""
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
    except json.JSONDecodeError as exc:
        first_error = exc
    try:
        return _as_object(json.loads(repair_json(snippet)), snippet, repaired=True)
    except json.JSONDecodeError:
        return ParseResult(None, error=f"invalid JSON object: {first_error.msg} at char {first_error.pos}", snippet=snippet)


def _as_object(value: Any, snippet: str, *, repaired: bool) -> ParseResult:
    if not isinstance(value, dict):
        return ParseResult(None, error=f"expected a JSON object, got {type(value).__name__}", snippet=snippet)
    return ParseResult(value, repaired=repaired, snippet=snippet)


def repair_json(snippet: str) -> str:
    """Rewrites near-JSON (single quotes, bare keys, trailing commas, ...) into JSON text.

    Example:
        >>> repair_json("{'a': True, b: [1, 2,],}")
        '{"a": true, "b": [1, 2]}'
    """
    out: list[str] = []
    i = 0
    while i < len(snippet):
        i = _repair_step(snippet, i, out)
    return "".join(out)


def _repair_step(s: str, i: int, out: list[str]) -> int:
    """Emits the repaired form of the token at ``s[i]`` into ``out``; returns the next index."""
    ch = s[i]
    if ch in "\"'":
        end, content = _read_string(s, i)
        out.append(json.dumps(content))
        return end
    if ch == "," and s[i + 1 :].lstrip()[:1] in ("}", "]"):
        return i + 1
    if s.startswith("//", i):
        newline = s.find("\n", i)
        return len(s) if newline < 0 else newline
    word = _IDENT.match(s, i)
    if word:
        out.append(_repair_word(word.group(0), s[word.end() :]))
        return word.end()
    out.append(ch)
    return i + 1


def _repair_word(word: str, rest: str) -> str:
    if rest.lstrip().startswith(":"):
        return json.dumps(word)
    return _PY_LITERALS.get(word, word)


def _read_string(s: str, start: int) -> tuple[int, str]:
    """Reads a quoted string at ``start``; returns (index after it, decoded content)."""
    quote = s[start]
    chars: list[str] = []
    i = start + 1
    while i < len(s) and s[i] != quote:
        if s[i] == "\\" and i + 1 < len(s):
            chars.append(_decode_escape(s[i : i + 6]))
            i += 6 if s[i + 1] == "u" else 2
            continue
        chars.append(s[i])
        i += 1
    return i + 1, "".join(chars)


def _decode_escape(escape: str) -> str:
    """Decodes one backslash escape (``\\n``, ``\\'``, ``\\u00e9`` ...); unknown ones stay literal."""
    if escape[1] == "'":
        return "'"
    if escape[1] == "u":
        try:
            return json.loads(f'"{escape}"')
        except json.JSONDecodeError:
            return escape
    try:
        return json.loads(f'"{escape[:2]}"')
    except json.JSONDecodeError:
        return escape[1]
