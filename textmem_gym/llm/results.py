"""The value returned by one chat call.

Example:
    >>> r = ChatResult(text='{"action": "look"}', prompt_tokens=12, completion_tokens=5,
    ...                tokens_estimated=False, latency_s=0.2, model="m", cached=False, retries=0)
    >>> r.total_tokens, r.json().value
    (17, {'action': 'look'})
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from textmem_gym.llm.jsonparse import ParseResult, parse_json_object


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
        structured: How the answer's JSON schema was sent (a mode of :mod:`.structured`:
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
