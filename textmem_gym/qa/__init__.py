"""Multi-hop QA over documents: official-format readers, sampling, scoring and a shipped set.

Example:
    >>> from textmem_gym.qa import QAExample, Paragraph
    >>> Paragraph("T", "x", ("x",), False).is_supporting
    False
"""

from __future__ import annotations

from textmem_gym.qa.data import Paragraph, QAExample

__all__ = ["Paragraph", "QAExample"]
