"""examples/llm_local_server.py runs as a script and shows a retried call and a parsed action."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.llm
REPO = Path(__file__).resolve().parents[2]


def test_local_server_example_runs(tmp_path: Path) -> None:
    env = {key: value for key, value in os.environ.items() if not key.startswith("OPENAI_")}
    env.update({"PYTHONPATH": str(REPO), "TEXTMEM_CACHE_DIR": str(tmp_path)})
    done = subprocess.run([sys.executable, str(REPO / "examples" / "llm_local_server.py")], env=env,
                          capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    lines = dict(line.split(": ", 1) for line in done.stdout.splitlines())
    assert lines["action"] == "open fridge"
    assert lines["server"].endswith("(2 requests)")
    assert "retries: 1" in lines["tokens"]
