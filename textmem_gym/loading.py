"""The one ``"module:attr"`` loader every registry uses (envs, generators, memories, extractors,
policies, RL algorithms).

Example:
    >>> load_object("collections:OrderedDict").__name__
    'OrderedDict'
"""

from __future__ import annotations

import importlib
from typing import Any


def load_object(spec: str) -> Any:
    """The object named by ``"package.module:attr"`` (``attr`` may be dotted: ``"mod:Class.method"``).

    Raises:
        ValueError: ``spec`` is not of the form ``"module:attr"``.
        ImportError: The module cannot be imported (the message names ``spec``).
        AttributeError: The module has no such attribute (the message names ``spec``).
    """
    module_name, sep, attr = spec.partition(":")
    if not sep or not module_name or not attr:
        raise ValueError(f"expected 'module:attr', got {spec!r}")
    try:
        target: Any = importlib.import_module(module_name)
    except ImportError as error:
        raise ImportError(f"cannot import {module_name!r} (from {spec!r}): {error}") from error
    for part in attr.split("."):
        try:
            target = getattr(target, part)
        except AttributeError:
            raise AttributeError(f"{module_name!r} has no attribute {attr!r} (from {spec!r})") from None
    return target
