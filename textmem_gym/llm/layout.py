"""The import path ``textmem_gym.llm.layout`` of the prompt layouts, which live in :mod:`textmem_gym.llm.prompts`.

Kept only while ``policies/`` imports them from here; new code imports them from
:mod:`textmem_gym.llm.prompts` (or :mod:`textmem_gym.llm`).

Example:
    >>> from textmem_gym.llm import prompts
    >>> LayoutFolder is prompts.LayoutFolder
    True
"""

from textmem_gym.llm.prompts import (
    CHANGES,
    FIXED,
    LAYOUTS,
    SLOW,
    STEP,
    Changing,
    Layout,
    LayoutFolder,
    Section,
    TemplatePart,
    arrange_template,
    layout_named,
    template_fields,
    template_parts,
)

__all__ = ["CHANGES", "FIXED", "LAYOUTS", "SLOW", "STEP", "Changing", "Layout", "LayoutFolder", "Section",
           "TemplatePart", "arrange_template", "layout_named", "template_fields", "template_parts"]
