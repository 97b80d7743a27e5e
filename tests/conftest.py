"""Shared test settings: the suite's own cache directory, one math-library thread per process, and the
ROM directory default for local runs.

Every cache and file the suite makes goes under ``.test-cache/`` in the checkout (git-ignored, so
generated games are reused between runs), never the user's ``~/.cache/textmem_gym``: the variable
is set here, at import, so every test and every process a test starts inherits it. A test that
needs an empty cache still points ``TEXTMEM_CACHE_DIR`` at its own ``tmp_path``; one that needs only
its own LLM response cache and downloads uses :func:`isolated_cache`, which keeps the built artifacts.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

#: ``textmem_gym.paths.CACHE_ENV`` (not imported: conftest runs before the library is imported).
CACHE_ENV = "TEXTMEM_CACHE_DIR"
TEST_CACHE = Path(__file__).resolve().parents[1] / ".test-cache"
os.environ[CACHE_ENV] = str(TEST_CACHE)
# The suite's own home (set before any library is imported; inherited by the processes the tests start):
# what third-party code writes under ``~`` (Ray's ``~/.ray`` auth token and RLlib's ``~/ray_results``, whose
# path Ray fixes when it is imported; matplotlib's font cache) stays in the suite's folder, never the user's.
_HOME = TEST_CACHE / "home"
_HOME.mkdir(parents=True, exist_ok=True)
os.environ["HOME"] = str(_HOME)

#: Cache folders of artifacts built from code, named by what they are built from and written
#: atomically: generated games, DAVIS's rules world models, ScienceWorld's JVM class archive. Every
#: :func:`isolated_cache` shares the suite's: building them again costs seconds per test (a game
#: 5-6 s) and isolates nothing a test checks.
SHARED_BUILDS = ("games", "davis", "scienceworld")

# One math-library thread per process (set before torch is imported; inherited by the processes the
# tests start): ``make test`` runs two xdist workers on two cores, and torch's default of one thread
# per core makes the workers' threads spin against each other: 20 MiniLM encodes took 2.4-5.4 s
# with two threads on a busy machine, 0.3 s with one. A value set by the caller is kept.
for _threads in ("OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_threads, "1")

_SHARED_ROMS = Path(__file__).resolve().parents[2] / "shared" / "jericho-roms"
if "TEXTMEM_ROMS_DIR" not in os.environ and _SHARED_ROMS.is_dir():
    os.environ["TEXTMEM_ROMS_DIR"] = str(_SHARED_ROMS)


@pytest.fixture
def isolated_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The test's own cache root (``tmp_path/cache``: LLM response caches, downloads, QA data...), whose
    :data:`SHARED_BUILDS` folders are the suite's (symbolic links)."""
    cache = tmp_path / "cache"
    cache.mkdir()
    for part in SHARED_BUILDS:
        shared = TEST_CACHE / part
        shared.mkdir(parents=True, exist_ok=True)
        (cache / part).symlink_to(shared, target_is_directory=True)
    monkeypatch.setenv(CACHE_ENV, str(cache))
    return cache
