"""Wrappers over TextMem envs: :class:`MemoryGraphWrapper` (memory belief + ``go to`` macros).

Example:
    >>> from textmem_gym.wrappers import MemoryGraphWrapper
    >>> MemoryGraphWrapper.__name__
    'MemoryGraphWrapper'
"""

from __future__ import annotations

from textmem_gym.wrappers.memory_graph import (
            MacroResult,
            MemoryGraphWrapper,
            find_wrapper,
            parse_goto,
            plan_route,
            run_goto,
)

__all__ = ["MacroResult", "MemoryGraphWrapper", "find_wrapper", "parse_goto", "plan_route", "run_goto"]

# RL encodings (text to arrays, commands to masked discrete actions); see the RL baselines issue.
from textmem_gym.wrappers.action_encoding import CommandVocabulary, select_commands  # noqa: E402
from textmem_gym.wrappers.encodings import TextEncodingWrapper  # noqa: E402
from textmem_gym.wrappers.text_encoding import BagOfWords, HashTokenizer, TokenIds, make_text_encoder  # noqa: E402

__all__ += ["BagOfWords", "CommandVocabulary", "HashTokenizer", "TextEncodingWrapper", "TokenIds",
            "make_text_encoder", "select_commands"]
