"""Shared test settings: the suite's own cache directory, and the ROM directory default for local runs.

Every cache and file the suite makes goes under ``.test-cache/`` in the checkout (git-ignored, so
generated games are reused between runs), never the user's ``~/.cache/textmem_gym``: the variable
is set here, at import, so every test and every process a test starts inherits it. A test that
needs an empty cache still points ``TEXTMEM_CACHE_DIR`` at its own ``tmp_path``.
"""

from __future__ import annotations

import os
from pathlib import Path

TEST_CACHE = Path(__file__).resolve().parents[1] / ".test-cache"
os.environ["TEXTMEM_CACHE_DIR"] = str(TEST_CACHE)

_SHARED_ROMS = Path(__file__).resolve().parents[2] / "shared" / "jericho-roms"
if "TEXTMEM_ROMS_DIR" not in os.environ and _SHARED_ROMS.is_dir():
    os.environ["TEXTMEM_ROMS_DIR"] = str(_SHARED_ROMS)
