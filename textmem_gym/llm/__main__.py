"""Runs :class:`~textmem_gym.llm.LocalOpenAIServer` by hand, to try LLM code offline.

Answers echo the last user message, or come in order from a JSON list of strings::

    python -m textmem_gym.llm --port 8000 --script answers.json --latency 0.2
    OPENAI_BASE_URL=http://127.0.0.1:8000/v1 OPENAI_MODEL=local textmem-gym eval ...
"""

from __future__ import annotations

import argparse
import json
import threading
from collections.abc import Sequence
from pathlib import Path

from textmem_gym.llm.testing.server import LocalOpenAIServer


def main(argv: Sequence[str] | None = None) -> None:
    """Serves until interrupted (Ctrl-C)."""
    parser = argparse.ArgumentParser(prog="python -m textmem_gym.llm",
                                     description="Local OpenAI-compatible server (echo or scripted answers).")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--script", type=Path, help="JSON file with a list of answers, given in order")
    parser.add_argument("--latency", type=float, default=0.0, help="seconds added to every request")
    args = parser.parse_args(argv)
    script = json.loads(args.script.read_text()) if args.script else None
    with LocalOpenAIServer(script=script, latency=args.latency, port=args.port) as server:
        print(f"serving on {server.base_url} (Ctrl-C to stop)", flush=True)
        try:
            threading.Event().wait()
        except KeyboardInterrupt:
            pass


if __name__ == "__main__":
    main()
