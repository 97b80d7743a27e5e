"""Token budgets: how many tokens a line costs, and the lines that fit a budget.

Tokens are counted with the reader's tokenizer where one is known (any callable ``text -> int``,
e.g. a Hugging Face tokenizer's ``lambda t: len(tok.encode(t))``), otherwise with the project's
documented approximation, :func:`approx_tokens`: ``ceil(characters / 4)``, the same rule the LLM
client uses to estimate prompts (about right for English text under GPT-style BPE tokenizers).

:func:`fit_budget` keeps lines in the order given (most relevant first) while they fit; the
first line that does not fit whole is cut to the tokens left (so an answer near its end may be
cut off by the budget, as a reader with that budget would lose it) and nothing after it is kept.
Each line costs its tokens plus one for the newline that joins it to the next.

Example:
    >>> approx_tokens("where is the knife?")
    5
    >>> fit_budget(["knife, is on, table", "apple, is in, fridge"], 7)
    ['knife, is on, table']
    >>> fit_budget(["knife, is on, table", "apple, is in, fridge"], 9)
    ['knife, is on, table', 'apple, i']
    >>> fit_budget(["a line"], 0)
    []
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from textmem_gym.llm.prompts import CHARS_PER_TOKEN
from textmem_gym.llm.prompts import estimate_tokens as approx_tokens

#: Tokens a line costs besides its text (the newline joining it to the next).
LINE_OVERHEAD = 1

#: A token counter: ``text -> tokens``.
TokenCounter = Callable[[str], int]


def count_tokens(text: str, counter: TokenCounter | None = None) -> int:
    """Tokens of ``text`` with ``counter`` (the reader's tokenizer), else :func:`approx_tokens`."""
    return (counter or approx_tokens)(text)


def fit_budget(lines: Sequence[str], budget: int, counter: TokenCounter | None = None) -> list[str]:
    """The leading ``lines`` that fit in ``budget`` tokens, the first that does not cut to fit.

    Args:
        lines: Most relevant first.
        budget: Tokens available (``<= 0``: nothing).
        counter: The reader's token counter (default :func:`approx_tokens`).
    """
    kept: list[str] = []
    left = budget
    for line in lines:
        cost = count_tokens(line, counter) + LINE_OVERHEAD
        if cost <= left:
            kept.append(line)
            left -= cost
            continue
        cut = _cut(line, left - LINE_OVERHEAD, counter)
        if cut:
            kept.append(cut)
        break
    return kept


def _cut(line: str, tokens: int, counter: TokenCounter | None) -> str:
    """The longest prefix of ``line`` that costs at most ``tokens`` (binary search on characters)."""
    if tokens <= 0:
        return ""
    low, high = 0, len(line)
    while low < high:
        middle = (low + high + 1) // 2
        if count_tokens(line[:middle], counter) <= tokens:
            low = middle
        else:
            high = middle - 1
    return line[:low]


__all__ = ["CHARS_PER_TOKEN", "LINE_OVERHEAD", "TokenCounter", "approx_tokens", "count_tokens", "fit_budget"]
