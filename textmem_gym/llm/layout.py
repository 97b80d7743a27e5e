"""Prompt layouts: the order of a prompt's sections, by how often each one changes.

Prefix caches (OpenAI's and Anthropic's cached input, vLLM's prefix caching, llama.cpp's KV cache)
only pay for the start of a prompt that the server has processed before, so what stays the same
should come first. A prompt is a list of sections, each declared once with how often its text
changes (:data:`CHANGES`):

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
* the **parts of a prompt template** (one template syntax, :class:`string.Template`, one loader,
  :class:`~textmem_gym.llm.prompts.PromptFolder`): :class:`LayoutFolder` renders a package's templates
  in a layout, its parts ordered by the change the policy declares for each placeholder
  (:func:`template_parts` says how a template divides into parts).

Example:
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

import functools
import string
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import NamedTuple, Protocol, TypeVar

from textmem_gym.llm.prompts import PromptFolder, Trimmable

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
        text: Its text (a :class:`~textmem_gym.llm.prompts.Trimmable` when the context budget may trim it).
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


__all__ = ["CHANGES", "FIXED", "LAYOUTS", "SLOW", "STEP", "Changing", "Layout", "LayoutFolder", "Section",
           "TemplatePart", "arrange_template", "layout_named", "template_fields", "template_parts"]

