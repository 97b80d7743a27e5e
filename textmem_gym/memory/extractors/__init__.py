"""Extractors turn a step's text into triples; found by name in the entry-point group ``textmem_gym.extractors``.

``rules`` (deterministic, no LLM), ``llm`` (the AriGraph prompts through an LLM client) and
``oracle`` (privileged ground truth, for ablations only): the library declares them in its
``setup.cfg`` exactly as another package declares its own (:data:`ENTRY_POINT_GROUP`); a
``"package.module:Class"`` names any extractor without a declaration.

Example:
    >>> type(make_extractor("rules")).__name__
    'RulesExtractor'
    >>> from textmem_gym.memory.extractors import EXTRACTORS  # read from the entry points when imported
    >>> EXTRACTORS["oracle"]
    'textmem_gym.memory.extractors.oracle:OracleExtractor'
"""

from __future__ import annotations

from typing import Any

from textmem_gym.loading import declared_targets, load_declared
from textmem_gym.memory.extractors.base import BaseExtractor, Extraction, Extractor, TextParser
from textmem_gym.memory.semantic import exclusive_conflicts

#: The entry-point group through which packages (the library included) add extractor names
#: (value ``"module:Class"``, imported on use, so optional parts stay optional).
ENTRY_POINT_GROUP = "textmem_gym.extractors"


def __getattr__(name: str) -> Any:
    """``EXTRACTORS``: every extractor name -> ``"module:Class"``, read from the installed packages' metadata
    when asked for (so ``import`` stays fast, and a package installed since is seen)."""
    if name == "EXTRACTORS":
        return declared_targets("extractor", ENTRY_POINT_GROUP)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def make_extractor(extractor: str | Extractor = "rules", **options: Any) -> Extractor:
    """Builds an extractor by name or ``"module:Class"`` (an extractor object is returned unchanged)."""
    if not isinstance(extractor, str):
        if options:
            raise ValueError("extractor options only apply when the extractor is given by name")
        return extractor
    built: Extractor = load_declared("extractor", extractor, ENTRY_POINT_GROUP)(**options)
    return built


__all__ = ["ENTRY_POINT_GROUP", "BaseExtractor", "Extraction", "Extractor", "TextParser", "exclusive_conflicts",
           "make_extractor"]
