"""A model's answers: what one call returns, and the one free-text parser that reads the fields of an
answer schema from what a model wrote.

A chat call returns a :class:`ChatResult` (the text, its tokens, cost and how it was sent; its
:meth:`ChatResult.json` reads the first JSON object of the text), a scored prompt a
:class:`PromptLogprobs`.

Every prompt kind of the policies has a JSON schema for its answer (``policies/prompts/<kind>.schema.json``).
When the endpoint constrains output to it, the answer is that JSON; otherwise models write
anything around it. :func:`parse_answer` reads each property of the schema, tolerating:

* code fences, prose around JSON, several JSON objects (a property is taken from the first
  object that has a real value for it: format echoes such as ``"..."`` are skipped);
* truncated JSON (``{"reason_for_action": "x", "action_to_take": "go to kitchen"`` gives
  ``go to kitchen``: a cut-off object is read when its last value is complete, and every
  complete ``"key": value`` pair is read, whichever key comes first);
* wrong or missing keys: keys match whatever their case, spacing, underscores or markdown
  (``Action to take``, ``**ACTION**``), and each property can name aliases (``x-aliases``);
* ``Label: value`` lines (``ACTION: go north``, ``Action Suitability: True``, YAML blocks);
* numbered or bulleted lists (``1. "go east"``, ``- take knife``, ``Step 2) open fridge``)
  for array properties, under their label or, failing that, anywhere in the answer;
* a bare answer (``True``, ``7``, ``take the knife``) for a one-property schema, or for the
  property marked ``"x-bare": true`` when nothing else was found.

Commands are then read by :func:`clean_command` (quotes, backticks, list markers, trailing
punctuation, case) and matched to the admissible commands by :func:`match_command`, which also
drops articles (``chop the carrot with the knife`` -> ``chop carrot with knife``).

JSON objects in free text (:func:`parse_json_object`): LLMs wrap JSON in prose and code fences
and break it in a handful of usual ways. Repairing the text of one object (trailing commas,
single quotes, bare keys, Python literals ``True``/``False``/``None``, comments, stray escapes) is
done by `json-repair <https://pypi.org/project/json-repair/>`_ (:func:`repair_json`). The parser
adds what it lacks:

* picking the object: fenced code blocks (```` ```json ... ``` ````) first, then the text;
  the first balanced ``{...}`` that parses wins, and an inner object of a broken outer one is
  never taken for the answer (json-repair reads prose with several objects as a list);
* refusing guesses: a truncated object (no closing brace) and an unquoted word in a value
  position (``{"action": go north}``) are reported, not guessed at;
* required keys, and a result that says whether repairs were needed.

It never raises: a failure is reported in the result, so a policy can fall back gracefully.

Example:
    >>> schema = {"type": "object", "properties": {"reason_for_action": {"type": "string"},
    ...           "action_to_take": {"type": "string", "x-aliases": ["action"]}}}
    >>> parse_answer('{"reason_for_action": "x", "action_to_take": "go to kitchen"', schema).get("action_to_take")
    'go to kitchen'
    >>> parse_answer("Sure!\\n**Action:** Take the knife.", schema).get("action_to_take")
    'Take the knife.'
    >>> match_command("Take the knife.", ["take knife from table", "look"])
    ('take knife from table', 'completed')
    >>> parse_json_object("Sure! ```json\\n{'action': 'go north',}\\n```").value
    {'action': 'go north'}
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from json_repair import repair_json


# -- what a call returns --------------------------------------------------------------------------------
@dataclass(frozen=True)
class ChatResult:
    """One chat completion: the text and what it cost.

    Attributes:
        text: The assistant message ("" when the server sent no content).
        prompt_tokens: Prompt tokens (from the server's ``usage``, else estimated).
        completion_tokens: Completion tokens (from the server's ``usage``, else estimated).
        tokens_estimated: True when the token counts are an estimate (server sent no usage).
        latency_s: Wall time of this call, retries and backoff included (cache lookup time
            for a cache hit).
        model: The model that answered, as the server named it.
        cached: True when the answer came from the response cache.
        retries: Attempts retried after faults before this answer.
        finish_reason: The server's finish reason (``"length"`` means truncated output).
        cost_usd: Cost of this call (0 for a cache hit, ``None`` when the model has no price).
        structured: How the answer's JSON schema was sent (a structured-output mode:
            ``json_schema``, ``json_object_schema``, ``guided_json``), or ``none`` for free text.

    Example:
        >>> ChatResult("hi", 1, 1, False, 0.1, "m", False, 0, finish_reason="length").truncated
        True
    """

    text: str
    prompt_tokens: int
    completion_tokens: int
    tokens_estimated: bool
    latency_s: float
    model: str
    cached: bool
    retries: int
    finish_reason: str | None = None
    cost_usd: float | None = None
    structured: str = "none"

    @property
    def total_tokens(self) -> int:
        """Prompt plus completion tokens."""
        return self.prompt_tokens + self.completion_tokens

    @property
    def truncated(self) -> bool:
        """True when the server stopped at the token limit (``finish_reason == "length"``)."""
        return self.finish_reason == "length"

    def json(self, *, required: tuple[str, ...] = ()) -> ParseResult:
        """Parses the first JSON object in :attr:`text` (see :func:`parse_json_object`)."""
        return parse_json_object(self.text, required=required)

    def as_dict(self) -> dict[str, Any]:
        """Returns the fields as a JSON-serialisable dict."""
        return asdict(self)


@dataclass(frozen=True)
class PromptLogprobs:
    """The log-probabilities of a prompt's own tokens (a completions request with ``echo`` and ``logprobs``).

    Attributes:
        tokens: The prompt's tokens as the server split it (then the generated one, if any).
        logprobs: Each token's log-probability given the text before it (``None`` where the server
            gave none: the first token, or every token when the server does not score prompts).
        offsets: Each token's character offset in the prompt.
        prompt_tokens, completion_tokens, tokens_estimated, latency_s, model, cached, retries: As
            for :class:`ChatResult`.

    Example:
        >>> scored = PromptLogprobs(["a", " b", " c"], [None, -1.0, -0.5], [0, 1, 3], 3, 0, False, 0.1, "m", False, 0)
        >>> scored.continuation(1)
        -1.5
        >>> PromptLogprobs(["a"], [None], [0], 1, 0, False, 0.1, "m", False, 0).continuation(1) is None
        True
    """

    tokens: list[str]
    logprobs: list[float | None]
    offsets: list[int]
    prompt_tokens: int
    completion_tokens: int
    tokens_estimated: bool
    latency_s: float
    model: str
    cached: bool
    retries: int

    def continuation(self, start: int, end: int | None = None) -> float | None:
        """The summed log-probability of the tokens starting in ``[start, end)`` (characters of the
        prompt); ``None`` when one of them has no log-probability or none starts there."""
        chosen = [lp for offset, lp in zip(self.offsets, self.logprobs)
                  if offset >= start and (end is None or offset < end)]
        if not chosen or any(lp is None for lp in chosen):
            return None
        return float(sum(lp for lp in chosen if lp is not None))


# -- JSON objects in free text -----------------------------------------------------------------------
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


# -- answers to a schema ------------------------------------------------------------------------------
#: How :func:`match_command` matched: the first two are the model's own command, the others are not.
MATCHES = ("exact", "completed", "mapped", "default")
#: Words dropped when a command is compared with the admissible ones.
ARTICLES = frozenset({"the", "a", "an", "some"})
#: Values that only echo the answer format.
PLACEHOLDERS = frozenset({"", "...", "…", "<...>", "none", "null", "n/a", "<action>", "<command>",
                          "<executable command>", "<one game command, preferably from the valid actions>"})
SAFE_COMMAND = "look"
_ITEM = re.compile(r"^\s*(?:[-*•+]|\d{1,3}[.):]|\(\d{1,3}\)|step\s*\d{1,3}\s*[.):]?)\s+(.+?)\s*$", re.I)
_LABEL = re.compile(r"^\s*(?:[-*#>]+\s*)?\**\s*([A-Za-z][A-Za-z _-]{0,40}?)\s*\**\s*[:=]\s*\**\s*(.*?)\s*$")
_PAIR = re.compile(r"""["']?([A-Za-z][A-Za-z0-9 _-]{0,40})["']?\s*:\s*("(?:\\.|[^"\\])*"|'(?:\\.|[^'\\])*'"""
                   r"""|true\b|false\b|True\b|False\b|-?\d+(?:\.\d+)?)""")
_BOOL_WORDS = {"true": True, "yes": True, "suitable": True, "false": False, "no": False, "unsuitable": False}
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")


#: A numbered-list marker opening an answer ("1. ...", "2) ...").
_LIST_MARKER = re.compile(r"^\d+[.)]\s+\D")

def normalize_key(key: str) -> str:
    """A key as compared: lower case letters and digits only (``Action_To Take`` -> ``actiontotake``)."""
    return re.sub(r"[^a-z0-9]", "", key.lower())


@dataclass
class Answer:
    """What :func:`parse_answer` read.

    Attributes:
        values: Property -> value (only the properties found).
        source: Property -> where it was found (``json``, ``pair``, ``line``, ``list``, ``bare``).
        missing: Required properties not found.
    """

    values: dict[str, Any] = field(default_factory=dict)
    source: dict[str, str] = field(default_factory=dict)
    missing: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        """True when every required property was found."""
        return not self.missing

    def get(self, name: str, default: Any = None) -> Any:
        """The value of ``name`` (``default`` when absent)."""
        return self.values.get(name, default)


def parse_answer(text: str | None, schema: Mapping[str, Any]) -> Answer:
    """Reads the properties of ``schema`` (an object schema) from a model's answer; never raises.

    Args:
        text: The answer (``None`` gives an empty :class:`Answer` with every required property missing).
        schema: ``{"type": "object", "properties": {...}, "required": [...]}``; a property may list
            ``x-aliases`` (other keys that mean it) and be ``x-bare`` (read from a bare answer).

    Returns:
        An :class:`Answer`; values have the property's type (strings stripped, booleans and
        numbers converted, arrays as lists).
    """
    properties: dict[str, Mapping[str, Any]] = dict(schema.get("properties") or {})
    required = tuple(schema.get("required") or ())
    answer = Answer()
    text = text or ""
    names = {name: {normalize_key(name), *(normalize_key(a) for a in spec.get("x-aliases", ()))}
             for name, spec in properties.items()}
    objects = json_objects(text)
    pairs = [(normalize_key(k), _pair_value(v)) for k, v in _PAIR.findall(text)]
    lines = text.splitlines()
    for name, spec in properties.items():
        found = _from_objects(objects, names[name], spec)
        how = "json"
        if found is None:
            found, how = _first_valid((v for k, v in pairs if k in names[name]), spec), "pair"
        if found is None:
            found, how = _from_lines(lines, names[name], spec), "line"
        if found is not None:
            answer.values[name], answer.source[name] = found, how
    bare = [name for name, spec in properties.items() if spec.get("x-bare")] or (
        list(properties) if len(properties) == 1 else [])
    if not answer.values and bare:
        name, spec = bare[0], properties[bare[0]]
        found = _bare(text, spec)
        if found is not None:
            answer.values[name], answer.source[name] = found, "bare"
    for name, spec in properties.items():  # an array nobody labelled: the answer's list, if it has one
        if name not in answer.values and spec.get("type") == "array":
            items = list_items(text)
            if items:
                answer.values[name], answer.source[name] = _convert(items, spec), "list"
    answer.missing = tuple(name for name in required if name not in answer.values)
    return answer


def json_objects(text: str) -> list[dict[str, Any]]:
    """Every JSON object in ``text`` that parses (as-is or repaired): fenced blocks first, then the
    text; objects nested in a parsed one are not listed on their own."""
    found: list[dict[str, Any]] = []
    for source in json_sources(text):
        start = source.find("{")
        while start != -1 and len(found) < 32:
            end = matching_end(source, start)
            if end is None:
                cut = _cut_off_object(source[start:])
                if cut is not None:
                    found.append(cut)
                    break
                start = source.find("{", start + 1)
                continue
            value = _load(source[start:end + 1])
            if isinstance(value, dict):
                found.append(value)
                start = source.find("{", end + 1)
            else:
                start = source.find("{", start + 1)
    return found


def _cut_off_object(tail: str) -> dict[str, Any] | None:
    """An object whose closing brackets never came (the answer hit ``max_tokens``), read only when
    its last value is complete (ends with a quote, bracket, number or literal): a value cut in the
    middle is never guessed at."""
    tail = tail.rstrip().rstrip(",").rstrip()
    if not re.search(r'(["\]}]|\d|true|false|null)$', tail):
        return None
    value = _load(tail)
    return value if isinstance(value, dict) else None


def _load(snippet: str) -> Any:
    try:
        return json.loads(snippet)
    except ValueError:
        pass
    try:
        return repair_json(snippet, return_objects=True)
    except (ValueError, RecursionError):
        return None


def _walk(value: Any) -> Any:
    """Yields every (key, value) of nested dicts (outer first)."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield str(key), item
        for item in value.values():
            if isinstance(item, dict):
                yield from _walk(item)


def _from_objects(objects: list[dict[str, Any]], keys: set[str], spec: Mapping[str, Any]) -> Any:
    return _first_valid((v for obj in objects for k, v in _walk(obj) if normalize_key(k) in keys), spec)


def _first_valid(values: Any, spec: Mapping[str, Any]) -> Any:
    for value in values:
        converted = _convert(value, spec)
        if converted is not None:
            return converted
    return None


def _pair_value(raw: str) -> Any:
    if raw[:1] in "\"'":
        body = raw[1:-1]
        try:
            return json.loads('"' + body.replace('\\\'', "'") + '"') if raw[0] == '"' else body
        except ValueError:
            return body
    if raw.lower() in ("true", "false"):
        return raw.lower() == "true"
    return float(raw)


def _convert(value: Any, spec: Mapping[str, Any]) -> Any:
    """``value`` as the property's type, or ``None`` when it cannot be (or is a placeholder)."""
    kind = spec.get("type")
    if kind == "string":
        if isinstance(value, list) and value and isinstance(value[0], str):
            value = value[0]
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            value = str(value)
        if not isinstance(value, str):
            return None
        value = value.strip()
        return None if value.lower().strip(" \"'`") in PLACEHOLDERS else value
    if kind == "boolean":
        if isinstance(value, bool):
            return value
        if isinstance(value, str):
            word = re.findall(r"[a-z]+", value.lower())
            return _BOOL_WORDS.get(word[0]) if word else None
        return None
    if kind in ("integer", "number"):
        if isinstance(value, bool):
            return None
        if isinstance(value, str):
            match = _NUMBER.search(value)
            value = float(match.group()) if match else None
        if not isinstance(value, (int, float)):
            return None
        return int(round(value)) if kind == "integer" else float(value)
    if kind == "array":
        if isinstance(value, str):
            inner = value.strip()
            parsed = _load(inner) if inner.startswith("[") else None
            value = parsed if isinstance(parsed, list) else ([inner] if inner and inner.lower() not in PLACEHOLDERS
                                                             else None)
        if not isinstance(value, list):
            return None
        items = [_item(v) for v in value]
        items = [v for v in items if v not in (None, "")]
        return items or None
    return value


def _item(value: Any) -> Any:
    if isinstance(value, str):
        text = value.strip().strip("\"'`").strip()
        return None if text.lower() in PLACEHOLDERS else text
    return value


def _from_lines(lines: list[str], keys: set[str], spec: Mapping[str, Any]) -> Any:
    """A ``Label: value`` line (the last one: models restate their final answer), with the list
    items that follow it for an array property."""
    for index in range(len(lines) - 1, -1, -1):
        match = _LABEL.match(lines[index])
        if match is None or normalize_key(match.group(1)) not in keys:
            continue
        rest = match.group(2).strip().strip("*").strip()
        if spec.get("type") == "array":
            items = _items_after(lines[index + 1:])
            if items:
                return _convert(items, spec)
        value = _convert(rest, spec)
        if value is not None:
            return value
    return None


def _items_after(lines: list[str]) -> list[str]:
    items: list[str] = []
    for line in lines:
        stripped = line.strip()
        if not stripped or stripped.startswith("```"):
            if items and stripped.startswith("```"):
                break
            continue
        item = _ITEM.match(line)
        if item is None:
            if items:
                break
            continue
        items.append(item.group(1).split(" #")[0])
    return items


def list_items(text: str) -> list[str]:
    """The items of the first numbered or bulleted list in ``text`` (markers and quotes removed).

    Example:
        >>> list_items('Plan:\\n1. "go east"\\n2. take the knife\\nDone.')
        ['go east', 'take the knife']
    """
    items = _items_after((text or "").splitlines())
    return [i for i in (_item(x) for x in items) if i]


def _bare(text: str, spec: Mapping[str, Any]) -> Any:
    """A one-property answer written bare: ``True``, ``7``, a short one-line command, or a list of
    commands alone (its first item: the model's first choice)."""
    kind = spec.get("type")
    stripped = text.strip()
    if kind in ("boolean", "integer", "number"):
        # "1. The sofa is stable" starts a list: its marker is not the number asked for
        return None if _LIST_MARKER.match(stripped) else _convert(stripped, spec)
    if kind == "string":
        lines = [line for line in stripped.splitlines() if line.strip() and not line.strip().startswith("```")]
        if len(lines) == 1 and "{" not in lines[0] and len(lines[0].split()) <= 12:
            return _convert(lines[0], spec)
        items = list_items(stripped)
        if items and len(items) == len(lines) and len(items[0].split()) <= 12:  # a bare list: its first item
            return _convert(items[0], spec)
    return None


def clean_command(text: str) -> str:
    """A command as the game reads it: list markers, quotes, backticks, markdown, a leading
    ``action:`` label and trailing punctuation removed, whitespace collapsed, lower case.

    Example:
        >>> clean_command('  2. **"Go North."**  ')
        'go north'
    """
    text = " ".join(str(text).split())
    item = _ITEM.match(text)
    text = item.group(1) if item else text
    label = _LABEL.match(text)
    if label and normalize_key(label.group(1)) in {"action", "command", "actiontotake", "nextaction", "skill"}:
        text = label.group(2)
    text = text.strip().strip("*`\"' ").strip()
    text = text.rstrip(".!;,").strip().strip("*`\"' ")
    return " ".join(text.lower().split())


def _without_articles(command: str) -> str:
    return " ".join(w for w in command.split() if w not in ARTICLES)


def match_command(proposed: str, commands: Sequence[str], *, default: str | None = SAFE_COMMAND,
                  threshold: float = 0.6) -> tuple[str, str]:
    """``(command, how)``: the admissible command the model meant, and how it was matched.

    ``how`` is ``exact`` (same command once cleaned, articles aside), ``completed`` (the one
    admissible command extending it: ``take knife`` -> ``take knife from table``) -- both the
    model's own command -- or ``mapped`` (the most similar command, at least ``threshold``) or
    ``default`` (``default``; the cleaned proposal itself when ``default`` is ``None``) -- both
    substitutions, which a policy counts as fallbacks. With no admissible list the cleaned
    proposal is ``exact``.

    Example:
        >>> match_command("chop the carrot with the knife", ["chop carrot with knife", "look"])
        ('chop carrot with knife', 'exact')
        >>> match_command("fly away", ["look", "go north"])
        ('look', 'default')
    """
    wanted = clean_command(proposed)
    if not commands:
        return (wanted or default or SAFE_COMMAND), "exact"
    lowered = {clean_command(c): c for c in commands}
    bare = {_without_articles(low): c for low, c in lowered.items()}
    for table, key in ((lowered, wanted), (bare, _without_articles(wanted))):
        if key in table:
            return table[key], "exact"
    key = _without_articles(wanted)
    longer = {c for low, c in bare.items() if key and low.startswith(key + " ")}
    if len(longer) == 1:
        return longer.pop(), "completed"
    if key:
        best, score = max(((c, _similarity(key, low)) for low, c in bare.items()), key=lambda pair: pair[1])
        if score >= threshold:
            return best, "mapped"
    if default is None:
        return wanted, "default"
    return next((c for low, c in lowered.items() if low == default), default), "default"


_STOP = ARTICLES | {"to", "with", "from", "on", "in", "into", "at"}


def _similarity(wanted: str, command: str) -> float:
    """Character similarity, or the share of the wanted content words found in ``command`` (same verb)."""
    words = [w for w in wanted.split() if w not in _STOP]
    have = set(command.split())
    covered = sum(w in have for w in words) / len(words) if words else 0.0
    same_verb = bool(words) and command.split()[:1] == words[:1]
    return max(difflib.SequenceMatcher(None, wanted, command).ratio(), covered if same_verb else 0.0)


__all__ = ["ARTICLES", "MATCHES", "MAX_CANDIDATES", "Answer", "ChatResult", "ParseResult", "PromptLogprobs",
           "clean_command", "json_objects", "json_sources", "list_items", "match_command", "matching_end",
           "normalize_key", "parse_answer", "parse_json_object", "repair_json", "unquoted_value"]
