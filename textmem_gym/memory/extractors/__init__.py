"""Extractors turn a step's text into triples; found by name in :data:`EXTRACTORS`.

``rules`` (deterministic, no LLM), ``llm`` (the AriGraph prompts through an LLM client) and
``oracle`` (privileged ground truth, for ablations only).

Example:
    >>> type(make_extractor("rules")).__name__
    'RulesExtractor'
"""

from __future__ import annotations

from typing import Any

from textmem_gym.loading import load_named
from textmem_gym.memory.extractors.base import BaseExtractor, Extraction, Extractor, TextParser
from textmem_gym.memory.semantic import exclusive_conflicts

#: Extractor name -> ``"module:Class"`` (imported on use, so optional parts stay optional).
EXTRACTORS: dict[str, str] = {
    "rules": "textmem_gym.memory.extractors.rules:RulesExtractor",
    "llm": "textmem_gym.memory.arigraph.extraction:LLMExtractor",
    "oracle": "textmem_gym.memory.extractors.oracle:OracleExtractor",
}


def make_extractor(extractor: str | Extractor = "rules", **options: Any) -> Extractor:
    """Builds an extractor by name (an extractor object is returned unchanged)."""
    if not isinstance(extractor, str):
        if options:
            raise ValueError("extractor options only apply when the extractor is given by name")
        return extractor
    return load_named("extractor", extractor, EXTRACTORS)(**options)


__all__ = ["EXTRACTORS", "BaseExtractor", "Extraction", "Extractor", "TextParser", "exclusive_conflicts",
           "make_extractor"]
