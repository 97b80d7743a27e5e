"""examples/memory_wrapper.py runs as a script: go-to macro, belief text, accuracy, exports."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_memory_wrapper_example_runs(tmp_path: Path) -> None:
    env = {key: value for key, value in os.environ.items() if not key.startswith("OPENAI_")}
    env["PYTHONPATH"] = str(REPO)
    done = subprocess.run([sys.executable, str(REPO / "examples" / "memory_wrapper.py"), str(tmp_path / "out")],
                          env=env, capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "macro: go south > go west > go west" in done.stdout
    assert "Current location: kitchen" in done.stdout
    assert json.loads((tmp_path / "out" / "memory.json").read_text())["location"] == "kitchen"
    assert (tmp_path / "out" / "memory.png").read_bytes().startswith(b"\x89PNG")
