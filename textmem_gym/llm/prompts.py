"""Prompt templates, their layouts, the context budget and answer schemas: what every LLM call is built from.

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

Example:
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

import copy
import functools
import json
import re
import string
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
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


__all__ = ["CHANGES", "FIXED", "LAYOUTS", "MAX_ENUM", "MAX_ROUNDS", "MIN_ACTIONS", "RESERVE_TOKENS", "SLOW", "STEP",
           "Changing", "Layout", "LayoutFolder", "PromptFolder", "Section", "TemplatePart", "Trimmable",
           "arrange_template", "fit_prompt", "layout_named", "prompt_limit", "rank_commands", "template_fields",
           "template_parts", "text_pieces", "wire_schema", "with_actions"]
