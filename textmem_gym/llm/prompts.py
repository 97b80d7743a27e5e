"""Prompt templates, the context budget and answer schemas: what every LLM call of the library is built from.

**Templates.** Every prompt is a text file ``prompts/<name>.txt`` in the package of the module that
sends it, written with :class:`string.Template` placeholders (``$name`` or ``${name}``; ``$$`` is a
literal dollar sign, braces are plain text so JSON examples need no escaping), its answer schema
beside it (``prompts/<name>.schema.json``). A package reads its folder through one
:class:`PromptFolder`; rendering fails loudly when a placeholder is not given.

**The budget**: sections that lose items by a stated priority. Every LLM call (a policy's own
prompts through :class:`~textmem_gym.llm.calls.LLMCalls`, a memory's through an
:class:`~textmem_gym.llm.calls.Ask`) is fitted the same way: the prompt is built from a template and
some :class:`Trimmable` sections; while its token count is above the limit (the context window less
the completion limit and :data:`RESERVE_TOKENS`), items are dropped from the first section that still
can lose one, in the order the caller lists the sections, and the prompt is built again. Parts that
are not :class:`Trimmable` (instructions, the goal, the current observation) are never touched.
:func:`fit_prompt` returns the fitted prompt and the number of items each section lost, so callers
count the trims.

**Schemas and action lists.** :func:`with_actions` fills a schema's action enum, :func:`wire_schema`
drops the ``x-`` keys the parser reads before a schema is sent, and :func:`rank_commands` is the
stated rule for cutting a long action list.

Example:
    >>> history = Trimmable("history", [f"turn {i}: looked around" for i in range(40)], sep="\\n")
    >>> count = lambda text: len(text) // 4  # an estimate; clients count with the server's tokenizer
    >>> text, dropped = fit_prompt(count, lambda: f"Play well.\\n{history}\\nWhat next?", [history], limit=60)
    >>> count(text) <= 60, dropped
    (True, {'history': 33})
    >>> prompts = PromptFolder("textmem_gym.memory.stma")
    >>> "$trajectory" in prompts.template("summarizer").template
    True
"""

from __future__ import annotations

import copy
import functools
import json
import re
import string
from collections.abc import Callable, Mapping, Sequence
from importlib import resources
from typing import Any

#: Tokens kept free besides the completion limit (chat template tokens, counting slack).
RESERVE_TOKENS = 32
#: Rounds of count-then-trim before :func:`fit_prompt` gives up (each round drops ~ the excess).
MAX_ROUNDS = 12
#: An action list is never cut below this many commands.
MIN_ACTIONS = 20
#: Admissible lists longer than this are not sent as a schema enum (the prompt still lists them).
MAX_ENUM = 400
_PIECE = re.compile(r"[^.!?\n]*(?:[.!?]+|\n|$)\s*")


# -- templates: one loader, one syntax ----------------------------------------------------------------
@functools.cache
def _read(package: str, name: str) -> string.Template:
    path = resources.files(package).joinpath("prompts", f"{name}.txt")
    if not path.is_file():
        raise ValueError(f"no prompt {name!r} in {package}/prompts/")
    return string.Template(path.read_text(encoding="utf-8"))


@functools.cache
def _read_schema(package: str, name: str) -> dict[str, Any]:
    path = resources.files(package).joinpath("prompts", f"{name}.schema.json")
    if not path.is_file():
        raise ValueError(f"no answer schema {name!r} in {package}/prompts/")
    loaded: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return loaded


class PromptFolder:
    """The ``prompts/`` folder of one package.

    Args:
        package: Dotted name of the package holding ``prompts/`` (a module's ``__package__``).
    """

    def __init__(self, package: str) -> None:
        self.package = package

    def template(self, name: str) -> string.Template:
        """The template ``<package>/prompts/<name>.txt`` (read once per process)."""
        return _read(self.package, name)

    def schema(self, name: str) -> dict[str, Any]:
        """The JSON schema of prompt ``name``'s answer, ``<package>/prompts/<name>.schema.json`` (read once
        per process: copy it before changing it)."""
        return _read_schema(self.package, name)

    def render(self, name: str, /, **fields: Any) -> str:
        """Fills template ``name``; every placeholder must be given (``KeyError`` names the missing one)."""
        return self.template(name).substitute({key: str(value) for key, value in fields.items()})


# -- fitting a prompt to the context budget ---------------------------------------------------------------
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


def with_actions(schema: Mapping[str, Any], actions: Sequence[str] | None = None) -> dict[str, Any]:
    """A copy of answer ``schema`` whose properties marked ``"x-enum": "actions"`` get ``actions`` as
    their enum (when given, non-empty and at most :data:`MAX_ENUM` long). ``x-`` keys stay (the
    parser reads ``x-aliases``); :func:`wire_schema` drops them before the schema is sent.

    Example:
        >>> schema = {"type": "object", "properties": {"action": {"type": "string", "x-enum": "actions"}}}
        >>> with_actions(schema, ["look", "go east"])["properties"]["action"]["enum"]
        ['look', 'go east']
    """
    filled = copy.deepcopy(dict(schema))
    enum = list(dict.fromkeys(actions)) if actions and len(actions) <= MAX_ENUM else None

    def fill(node: Any) -> None:
        if isinstance(node, dict):
            if node.get("x-enum") == "actions" and enum:
                node["enum"] = enum
            for value in node.values():
                fill(value)
        elif isinstance(node, list):
            for value in node:
                fill(value)

    fill(filled)
    return filled


def wire_schema(schema: Any) -> Any:
    """``schema`` without its ``x-`` keys (what the server gets).

    Example:
        >>> wire_schema({"type": "string", "x-aliases": ["a"]})
        {'type': 'string'}
    """
    if isinstance(schema, dict):
        return {k: wire_schema(v) for k, v in schema.items() if not str(k).startswith("x-")}
    if isinstance(schema, list):
        return [wire_schema(v) for v in schema]
    return schema


def rank_commands(commands: Sequence[str], context: str) -> list[str]:
    """The stated rule for cutting a long action list: commands sharing more words with ``context``
    (goal, observation, plan) first, then movement (``go``/compass words), then the rest, each
    group in the original order. A cut list keeps the best-ranked ones.

    Example:
        >>> rank_commands(["examine rug", "go east", "take knife"], "You need the knife")
        ['take knife', 'go east', 'examine rug']
    """
    words = set(re.findall(r"[a-z]+", context.lower())) - {"the", "a", "an", "to", "of", "and", "you", "in", "on"}
    moves = {"go", "north", "south", "east", "west", "up", "down", "n", "s", "e", "w"}

    def key(pair: tuple[int, str]) -> tuple[int, int, int]:
        index, command = pair
        tokens = command.lower().split()
        shared = sum(t in words for t in tokens[1:] or tokens)
        return (-shared, 0 if tokens[:1] and tokens[0] in moves else 1, index)

    return [c for _, c in sorted(enumerate(commands), key=key)]


__all__ = ["MAX_ENUM", "MAX_ROUNDS", "MIN_ACTIONS", "RESERVE_TOKENS", "PromptFolder", "Trimmable", "fit_prompt",
           "prompt_limit", "rank_commands", "text_pieces", "wire_schema", "with_actions"]
