"""Prompt templates: one loader, one template syntax.

The rule: every prompt is a text file ``prompts/<name>.txt`` in the package of the module that
sends it, written with :class:`string.Template` placeholders (``$name`` or ``${name}``; ``$$`` is a
literal dollar sign, braces are plain text so JSON examples need no escaping). A package reads its
folder through one :class:`PromptFolder`; rendering fails loudly when a placeholder is not given.

Example:
    >>> prompts = PromptFolder("textmem_gym.memory.stma")
    >>> "$trajectory" in prompts.template("summarizer").template
    True
    >>> prompts.render("relation_aggregator", triples="a, in, b")[:0]
    ''
"""

from __future__ import annotations

import functools
import json
import string
from importlib import resources
from typing import Any


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
