"""What the page generators of ``docs/_scripts`` share: where a page goes, how it is written, table cells.

Each generator (every script here whose name does not start with ``_``) defines ``render() -> str``
and ends with ``write_page(render, "NAME.md")``; ``make docs`` runs them all before Sphinx and
``tests/docs/test_docs.py`` runs each again into a temporary file and compares, so no page can drift
from the code it is generated from.

Example:
    >>> cell("a | b\\n  c")
    'a \\\\| b c'
    >>> summary(cell)
    'A Markdown table cell: pipes escaped, whitespace collapsed.'
"""

from __future__ import annotations

import inspect
import re
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

#: The folder of the generated reference pages.
REFERENCE = Path(__file__).resolve().parents[1] / "reference"


def write_page(render: Callable[[], str], page: str, argv: Sequence[str] | None = None) -> Path:
    """Writes ``render()`` to the path ``argv[0]`` when given (a test's temporary file), else to
    ``docs/reference/<page>``.

    Args:
        render: Builds the page's Markdown.
        page: The page's file name under :data:`REFERENCE`.
        argv: The command-line arguments (default ``sys.argv[1:]``).

    Returns:
        The path written.
    """
    arguments = sys.argv[1:] if argv is None else argv
    out = Path(arguments[0]) if arguments else REFERENCE / page
    out.write_text(render(), encoding="utf-8")
    return out


def cell(text: object) -> str:
    """A Markdown table cell: pipes escaped, whitespace collapsed."""
    return " ".join(str(text).split()).replace("|", "\\|")


def summary(obj: object) -> str:
    """The first paragraph of ``obj``'s docstring as one table cell, Sphinx roles and double
    backquotes shown as plain code (``""`` without a docstring)."""
    first = (inspect.getdoc(obj) or "").split("\n\n")[0]
    first = re.sub(r":\w+:`~?([\w.]+)`", lambda m: f"`{m.group(1).rsplit('.', 1)[-1]}`", first)
    return cell(first.replace("``", "`"))
