"""Where textmem_gym keeps files it makes: the user cache directory.

The cache holds generated games, downloaded ROMs and LLM response caches. It defaults to the
platform's user cache directory (``~/.cache/textmem_gym`` on Linux) and is overridden by the
``TEXTMEM_CACHE_DIR`` environment variable.

Example:
    >>> from textmem_gym.paths import cache_dir
    >>> cache_dir().name != ""
    True
"""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs

CACHE_ENV = "TEXTMEM_CACHE_DIR"


def cache_dir(*parts: str) -> Path:
    """Returns (and creates) a directory inside the textmem_gym cache.

    Args:
        *parts: Sub-directory names below the cache root (e.g. ``"games"``).

    Returns:
        The directory path; it exists when this function returns.
    """
    root = os.environ.get(CACHE_ENV) or platformdirs.user_cache_dir("textmem_gym")
    path = Path(root).expanduser().joinpath(*parts)
    path.mkdir(parents=True, exist_ok=True)
    return path
