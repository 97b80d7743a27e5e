"""Shared test settings: ROM directory default for local runs."""

from __future__ import annotations

import os
from pathlib import Path

_SHARED_ROMS = Path(__file__).resolve().parents[2] / "shared" / "jericho-roms"
if "TEXTMEM_ROMS_DIR" not in os.environ and _SHARED_ROMS.is_dir():
    os.environ["TEXTMEM_ROMS_DIR"] = str(_SHARED_ROMS)
