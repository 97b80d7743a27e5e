"""Context budgets: prompt sections that lose items, by a stated priority, until a prompt fits.

Every LLM call of the library (a policy's own prompts through ``policies.llm_calls.LLMCalls``, a
memory's extraction or summary prompts through an :data:`Ask`) is fitted the same way: the
prompt is built from a template and some :class:`Trimmable` sections; while its token count is
above the limit (the context window less the completion limit and :data:`RESERVE_TOKENS`),
items are dropped from the first section that still can lose one, in the order the caller lists
the sections, and the prompt is built again. Parts that are not :class:`Trimmable` (instructions,
the goal, the current observation) are never touched. :func:`fit_prompt` returns the fitted
prompt and the number of items each section lost, so callers count the trims.

Example:
    >>> history = Trimmable("history", [f"turn {i}: looked around" for i in range(40)], sep="\\n")
    >>> count = lambda text: len(text) // 4  # an estimate; clients count with the server's tokenizer
    >>> text, dropped = fit_prompt(count, lambda: f"Play well.\\n{history}\\nWhat next?", [history], limit=60)
    >>> count(text) <= 60, dropped
    (True, {'history': 33})
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any, Protocol

from textmem_gym.llm.errors import LLMError

#: Tokens kept free besides the completion limit (chat template tokens, counting slack).
RESERVE_TOKENS = 32
#: A context-length error: the prompt is trimmed to this share of what was sent, then sent once more.
RETRY_SHARE = 0.75
#: Rounds of count-then-trim before :func:`fit_prompt` gives up (each round drops ~ the excess).
MAX_ROUNDS = 12
_PIECE = re.compile(r"[^.!?\n]*(?:[.!?]+|\n|$)\s*")


class Trimmable:
    """A prompt section whose items can be dropped to fit the context window.

    Args:
        name: Counted under this name in ``context_trims``.
        items: The section's items, in the order they are shown.
        drop: ``"first"`` drops the first item first (oldest history), ``"last"`` the last
            (least relevant memory, when items are shown best first).
        keep: Items never dropped.
        sep, empty: How :meth:`text` joins the items, and what it shows when there are none.
        render: Renders the remaining items instead (overrides ``sep``/``empty``).
        order: The order the items are shown in, when it is not the drop order (``items`` ranked
            most worth keeping first, ``order`` as the prompt lists them: e.g. commands cut by
            relevance but listed as the game gives them); ``None``: as in ``items``.

    Example:
        >>> history = Trimmable("history", ["> look -> a room", "> go east -> a hall"], sep=" | ")
        >>> history.drop_one(), history.text()
        (18, '> go east -> a hall')
        >>> actions = Trimmable("actions", ["take knife", "look", "go east"], drop="last", order=["go east", "look",
        ...                     "take knife"])
        >>> actions.drop_one(), actions.text()
        (9, 'look; take knife')
    """

    def __init__(self, name: str, items: Sequence[str], *, drop: str = "first", keep: int = 0, sep: str = "; ",
                 empty: str = "none", render: Callable[[list[str]], str] | None = None,
                 order: Sequence[str] | None = None) -> None:
        if drop not in ("first", "last"):
            raise ValueError(f"drop must be 'first' or 'last', got {drop!r}")
        self.name, self.items, self.drop, self.keep = name, list(items), drop, keep
        self.sep, self.empty, self.render = sep, empty, render
        self.order = list(order) if order is not None else None

    def shown(self) -> list[str]:
        """The items left, in the order the prompt shows them."""
        if self.order is None:
            return list(self.items)
        left = set(self.items)
        return [item for item in self.order if item in left]

    def text(self) -> str:
        """The section as the prompt shows it now."""
        shown = self.shown()
        if self.render is not None:
            return self.render(shown)
        return self.sep.join(shown) if shown else self.empty

    def __str__(self) -> str:
        return self.text()

    def can_drop(self) -> bool:
        """True while more than ``keep`` items remain."""
        return len(self.items) > self.keep

    def drop_one(self) -> int:
        """Drops one item; returns about how many characters the prompt lost."""
        item = self.items.pop(0 if self.drop == "first" else -1)
        return len(item) + 2


def text_pieces(text: str) -> list[str]:
    """``text`` cut after each sentence end and line break, the whitespace that follows kept with
    the piece (``"".join`` gives ``text`` back): the items of a section made of running text.

    Example:
        >>> text_pieces("You see a cup. It is empty.\\nA door.")
        ['You see a cup. ', 'It is empty.\\n', 'A door.']
    """
    return [part for part in _PIECE.findall(text) if part]


def prompt_limit(window: int | None, max_tokens: int | None) -> int | None:
    """Prompt tokens allowed in a context window of ``window`` tokens (``None`` when unknown).

    Example:
        >>> prompt_limit(8192, 512), prompt_limit(None, 512)
        (7648, None)
    """
    return None if not window else window - (max_tokens or 0) - RESERVE_TOKENS


def fit_prompt(count: Callable[[str], int], build: Callable[[], str], trim: Sequence[Trimmable],
               limit: int | None) -> tuple[str, dict[str, int]]:
    """``build()`` with items of ``trim`` dropped (first section first) until ``count`` is at most ``limit``.

    Returns the prompt and the items dropped per section name (empty when nothing was trimmed).
    A prompt that still does not fit once no section can lose an item is returned as it is (the
    server's context-length error then tells).
    """
    text = build()
    dropped: dict[str, int] = {}
    if not trim or limit is None:
        return text, dropped
    for _ in range(MAX_ROUNDS):
        tokens = count(text)
        if tokens <= limit:
            break
        excess_chars = (tokens - limit) * len(text) / max(tokens, 1) * 1.1 + 1
        removed = 0.0
        while removed < excess_chars:
            section = next((t for t in trim if t.can_drop()), None)
            if section is None:
                break
            removed += section.drop_one()
            dropped[section.name] = dropped.get(section.name, 0) + 1
        if not removed:
            break
        text = build()
    return text, dropped


class Ask(Protocol):
    """One LLM call of a memory: ``ask(kind, prompt, trim=...)`` -> the answer, ``None`` when the call failed.

    ``prompt`` is the text or a function building it from the current items of ``trim`` (the
    sections that may lose items to fit the context window, in trim order). A policy passes its
    ``LLMCalls.ask`` (so the call is fitted, counted by kind and recorded in the trajectory);
    :class:`ClientAsk` makes one over a bare client.
    """

    def __call__(self, kind: str, prompt: str | Callable[[], str], *,
                 trim: Sequence[Trimmable] = ()) -> str | None: ...


class ClientAsk:
    """An :class:`Ask` over a bare :class:`~textmem_gym.llm.LLMClient` (a memory used without a policy).

    Prompts are fitted to the client's context window (when known) with its token counter; a
    call that failed after the client's retries (:class:`~textmem_gym.llm.LLMError`) gives
    ``None`` and is counted in :attr:`failures`; other exceptions are bugs and propagate.

    Args:
        client: The client.
        max_tokens: Completion limit per call.

    Attributes:
        trims: Items dropped per section name, over this asker's life.
        failures: Calls that failed, by kind.

    Example:
        >>> from textmem_gym.llm import LLMClient, LocalOpenAIServer
        >>> with LocalOpenAIServer(script=["apple, is on, table"]) as server:
        ...     ask = ClientAsk(LLMClient(model="m", base_url=server.base_url))
        ...     ask("triplets", "An apple lies on the table.")
        'apple, is on, table'
    """

    def __init__(self, client: Any, max_tokens: int = 1024) -> None:
        self.client, self.max_tokens = client, max_tokens
        self.trims: dict[str, int] = {}
        self.failures: dict[str, int] = {}

    def __call__(self, kind: str, prompt: str | Callable[[], str], *,
                 trim: Sequence[Trimmable] = ()) -> str | None:
        def count(text: str) -> int:
            return int(self.client.count_tokens([{"role": "user", "content": text}])[0])

        build = prompt if callable(prompt) else (lambda: prompt)
        text, dropped = fit_prompt(count, build, trim, prompt_limit(self.client.context_window, self.max_tokens))
        for name, items in dropped.items():
            self.trims[name] = self.trims.get(name, 0) + items
        try:
            answer = self.client.chat([{"role": "user", "content": text}], temperature=0.0,
                                      max_tokens=self.max_tokens).text
        except LLMError:
            self.failures[kind] = self.failures.get(kind, 0) + 1
            return None
        return str(answer)
