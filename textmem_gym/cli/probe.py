"""``textmem-gym probe``: ask memories questions about recorded episodes (see :mod:`textmem_gym.qa.probes`).

Example:
    $ textmem-gym eval TextMem/Cooking-v0 --policy walkthrough --trajectories runs/t --out runs/w.jsonl
    $ textmem-gym probe runs/t --memory arigraph,stma,davis,full-history,oracle --structural
    $ textmem-gym probe runs/t --memory arigraph,summary,oracle --steps 10,20,end --model M --base-url URL \\
          --structural --out runs/probes.jsonl
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
from pathlib import Path
from typing import Any

from textmem_gym.cli.checks import NON_NEGATIVE, POSITIVE, positive_number
from textmem_gym.llm.client import ENV_MODEL
from textmem_gym.loading import lookup


def trajectory_files(paths: list[str]) -> list[Path]:
    """The trajectory files named: files as given, folders by their ``*.jsonl`` (sorted).

    Raises:
        ValueError: A path that does not exist, or a folder without trajectories.
    """
    files: list[Path] = []
    for name in paths:
        path = Path(name)
        if path.is_dir():
            found = sorted(path.glob("*.jsonl"))
            if not found:
                raise ValueError(f"no trajectory files (*.jsonl) in {path}")
            files += found
        elif path.is_file():
            files.append(path)
        else:
            raise ValueError(f"no trajectory file or folder {path}")
    return files


def recorded_episode(path: Path) -> Any:
    """The :class:`~textmem_gym.qa.probes.replay.RecordedEpisode` of a trajectory file.

    Raises:
        ValueError: The file is no trajectory, or it has no reset record.
    """
    from textmem_gym.qa.probes.replay import RecordedEpisode
    from textmem_gym.trajectories import read_trajectory

    trajectory = read_trajectory(path)
    if trajectory.reset is None:
        raise ValueError(f"{path} holds no first observation: nothing to replay")
    header = trajectory.header
    ident = hashlib.sha256(json.dumps(header, sort_keys=True, default=str).encode()).hexdigest()[:12]
    return RecordedEpisode(
        env_id=header["env_id"], env_kwargs=dict(header.get("env_kwargs") or {}), seed=header.get("seed"),
        commands=[list(s["commands"]) for s in trajectory.steps],
        observations=[trajectory.reset["observation"], *(s["observation"] for s in trajectory.steps)],
        actions=[str(s["action"]) for s in trajectory.steps], label=str(path), ident=f"{path.stem}@{ident}",
        result=trajectory.result)


def _steps(text: str) -> tuple[int | str, ...]:
    """``10,20,end`` -> ``(10, 20, "end")``."""
    steps: list[int | str] = []
    for part in (p.strip() for p in text.split(",") if p.strip()):
        if part != "end" and not part.isdigit():
            raise ValueError(f"--steps takes step numbers and 'end' separated by commas, got {part!r}")
        steps.append(part if part == "end" else int(part))
    return tuple(steps)


def _names(text: str | None) -> tuple[str, ...]:
    return tuple(p.strip() for p in (text or "").split(",") if p.strip())


def probe_config(args: argparse.Namespace) -> Any:
    """The :class:`~textmem_gym.qa.probes.run.ProbeConfig` of the command line: model answers
    when a model is given (``--model`` or ``$OPENAI_MODEL``), structural ones with ``--structural``."""
    from textmem_gym.qa.probes.run import ProbeConfig

    model = args.model or os.environ.get(ENV_MODEL)
    answers = (("llm",) if model else ()) + (("structural",) if args.structural else ())
    if not answers:
        raise ValueError("nothing to answer with: give --model (or set OPENAI_MODEL) for model answers, or "
                         "--structural for answers from the memories' beliefs")
    llm: dict[str, Any] = {k: v for k, v in {"model": model, "base_url": args.base_url}.items() if v}
    if args.timeout is not None:
        llm["client_options"] = {"timeout": args.timeout}
    return ProbeConfig(steps=_steps(args.steps), kinds=_names(args.kinds), per_kind=args.per_kind, seed=args.seed,
                       answers=answers, extractor=args.extractor, llm=llm, budget=args.budget,
                       max_tokens=args.max_tokens)


def cmd_probe(args: argparse.Namespace) -> int:
    """Probes every trajectory and prints the tables."""
    from textmem_gym.qa.probes.memories import PROBE_MEMORIES
    from textmem_gym.qa.probes.run import format_probe_tables, probe_episode

    memories = _names(args.memory)
    for name in memories or (args.memory,):
        lookup("probe memory", name, PROBE_MEMORIES)
    config = probe_config(args)
    episodes = [recorded_episode(path) for path in trajectory_files(args.trajectories)]
    rows = []
    for episode in episodes:
        rows += probe_episode(episode, memories, config, out=args.out)
    print(format_probe_tables(rows))
    silent = [m for m in memories if not any(r["memory"] == m for r in rows)]
    if silent:
        print(f"\nno answers from {', '.join(silent)}: no beliefs to answer from structurally (give --model)")
    if args.out:
        print(f"\nresults: {args.out}")
    return 0


def add_commands(sub: argparse._SubParsersAction) -> None:
    """Adds ``probe``."""
    from textmem_gym.qa.probes.questions import GENERATORS

    probe = sub.add_parser("probe", help="ask memories questions about recorded episodes (replayed with "
                                         "privileged facts); EM/F1 per memory, question kind and step")
    probe.add_argument("trajectories", nargs="+", metavar="TRAJECTORIES",
                       help="trajectory files or folders of them (eval --trajectories DIR)")
    probe.add_argument("--memory", required=True, metavar="NAMES",
                       help="memories, comma-separated: arigraph, stma, davis, summary, full-history, oracle")
    probe.add_argument("--steps", default="end", help="steps to ask at, comma-separated; 'end' is the last "
                                                      "(default: end)")
    probe.add_argument("--kinds", default=None, help=f"question kinds, comma-separated (default: all: "
                                                     f"{', '.join(GENERATORS)})")
    probe.add_argument("--per-kind", type=POSITIVE, default=5, help="most questions of a kind at a step (default 5)")
    probe.add_argument("--seed", type=NON_NEGATIVE, default=0, help="seed of the question draw")
    probe.add_argument("--structural", action="store_true",
                       help="also answer from each memory's beliefs without a model (location, contents, path)")
    probe.add_argument("--extractor", default="rules", choices=("rules", "llm"),
                       help="extractor of the graph memories (llm: the papers' prompts through --model)")
    probe.add_argument("--model", default=None, help="LLM answering every memory (else OPENAI_MODEL)")
    probe.add_argument("--base-url", default=None, help="OpenAI-compatible endpoint (else OPENAI_BASE_URL)")
    probe.add_argument("--budget", type=POSITIVE, default=2048,
                       help="prompt tokens every answer is fitted to, the same for every memory (default 2048)")
    probe.add_argument("--max-tokens", type=POSITIVE, default=512, help="completion limit of an answer")
    probe.add_argument("--timeout", type=positive_number, default=None, help="seconds per LLM request (default 60)")
    probe.add_argument("--out", default=None, help="JSONL results file (one row per question x memory; resumable)")
    probe.set_defaults(handler=cmd_probe)


__all__ = ["add_commands", "cmd_probe", "probe_config", "recorded_episode", "trajectory_files"]
