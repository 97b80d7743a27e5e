"""examples/llm_local_server.py runs as a script and shows a retried call and a parsed action."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from textmem_gym.llm import LLMClient

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


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_server_runs_from_the_command_line(tmp_path: Path) -> None:
    script = tmp_path / "answers.json"
    script.write_text(json.dumps(["go east", "take lamp"]))
    port = _free_port()
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    process = subprocess.Popen([sys.executable, "-m", "textmem_gym.llm", "--port", str(port), "--script", str(script)],
                               env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        banner = process.stdout.readline()
        assert f"serving on http://127.0.0.1:{port}/v1" in banner, process.stderr.read() if process.stderr else ""
        client = LLMClient(model="local", base_url=f"http://127.0.0.1:{port}/v1", timeout=10)
        texts = [client.chat([{"role": "user", "content": "next?"}]).text for _ in range(2)]
    finally:
        process.terminate()
        process.wait(timeout=10)
    assert texts == ["go east", "take lamp"]
