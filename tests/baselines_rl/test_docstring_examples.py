"""Runs the examples in the docstrings of the ``baselines_rl`` modules (they are documentation)."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import baselines_rl

MODULES = sorted(m.name for m in pkgutil.walk_packages(baselines_rl.__path__, "baselines_rl."))


@pytest.mark.parametrize("module_name", MODULES)
def test_docstring_examples_run(module_name):
    result = doctest.testmod(importlib.import_module(module_name),
                             optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0
