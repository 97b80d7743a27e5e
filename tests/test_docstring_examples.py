"""Runs the examples in the docstrings of every library module (they are documentation)."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import policies
import textmem_gym


def _modules() -> list[str]:
    names = []
    for package in (textmem_gym, policies):
        names.append(package.__name__)
        names += [m.name for m in pkgutil.walk_packages(package.__path__, package.__name__ + ".")]
    return sorted(n for n in names if not n.endswith("__main__"))


@pytest.mark.parametrize("module_name", _modules())
def test_docstring_examples_run(module_name):
    module = importlib.import_module(module_name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0
