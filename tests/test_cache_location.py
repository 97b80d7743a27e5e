"""The suite keeps its files in its own directory, never in the user's cache."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import platformdirs

from tests.conftest import TEST_CACHE
from textmem_gym.paths import cache_dir

REPO = Path(__file__).resolve().parents[1]


def test_cache_dir_is_the_suites_own() -> None:
    """In-process: the cache resolves under the checkout's git-ignored ``.test-cache``."""
    path = cache_dir("games").resolve()
    assert path.is_relative_to(TEST_CACHE.resolve())
    assert not path.is_relative_to(Path(platformdirs.user_cache_dir("textmem_gym")).resolve())
    assert ".test-cache/" in (REPO / ".gitignore").read_text().splitlines()


def test_processes_a_test_starts_inherit_it() -> None:
    """A child process started by a test also writes under ``.test-cache``."""
    code = "from textmem_gym.paths import cache_dir; print(cache_dir('probe'))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert Path(out).resolve().is_relative_to(TEST_CACHE.resolve())


def test_an_isolated_cache_is_the_tests_own_but_shares_what_is_built_from_code(isolated_cache: Path) -> None:
    """``isolated_cache``: LLM responses and downloads in the test's own folder, games from the suite's."""
    assert cache_dir("llm").resolve().is_relative_to(isolated_cache.resolve())
    assert not cache_dir("roms").resolve().is_relative_to(TEST_CACHE.resolve())
    assert cache_dir("games").resolve() == (TEST_CACHE / "games").resolve()
