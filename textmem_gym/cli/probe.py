"""``textmem-gym probe``: ask memories questions about recorded episodes (see :mod:`textmem_gym.qa.probes`).

Every question gets answer recall and first-mention accuracy at each budget (no model);
``--structural`` adds answers from the memories' optional parts, a model (``--model`` or
``$OPENAI_MODEL``, unless ``--recall-only``) the model's answers. A memory is a name of the
``textmem_gym.memories`` entry points or ``module:Class``. The tables list the memories in the order
given, print every score as a percentage and explain their columns under them; ``--out`` rows hold
what each memory returned (the context at the largest budget, the tokens returned at each).

Example:
    $ textmem-gym eval TextMem/Cooking-v0 --policy walkthrough --trajectories runs/t --out runs/w.jsonl
    $ textmem-gym probe runs/t --memory arigraph,stma,davis,full-history,oracle --structural
    $ textmem-gym probe runs/t --memory bm25,my_pkg.notes:Notes --recall-only --budgets 256,1024
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

from textmem_gym.cli.checks import NON_NEGATIVE, POSITIVE, positive_number, writable_file
from textmem_gym.llm.client import ENV_MODEL


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


def _budgets(text: str) -> tuple[int, ...]:
    """``256,1024`` -> ``(256, 1024)``."""
    parts = [p.strip() for p in text.split(",") if p.strip()]
    if not parts or not all(p.isdigit() and int(p) > 0 for p in parts):
        raise ValueError(f"--budgets takes positive token counts separated by commas, got {text!r}")
    return tuple(int(p) for p in parts)


def _options(text: str | None) -> dict[str, dict[str, Any]]:
    """``--memory-options``: a JSON object, memory name -> its options object."""
    if not text:
        return {}
    try:
        options = json.loads(text)
    except json.JSONDecodeError as error:
        raise ValueError(f"--memory-options is not JSON: {error}") from None
    if not isinstance(options, dict) or not all(isinstance(v, dict) for v in options.values()):
        raise ValueError('--memory-options takes a JSON object of objects, e.g. {"bm25": {"k1": 1.5}}')
    return options


def probe_config(args: argparse.Namespace) -> Any:
    """The :class:`~textmem_gym.qa.probes.run.ProbeConfig` of the command line: answer recall always,
    structural answers with ``--structural``, model answers when a model is given (``--model`` or
    ``$OPENAI_MODEL``) unless ``--recall-only``."""
    from textmem_gym.qa.probes.run import ProbeConfig

    model = args.model or os.environ.get(ENV_MODEL)
    if args.recall_only and args.structural:
        raise ValueError("--recall-only asks answer recall only: leave out --structural")
    answers = ("recall",) + (("structural",) if args.structural else ()) + \
        (("llm",) if model and not args.recall_only else ())
    llm: dict[str, Any] = {k: v for k, v in {"model": model, "base_url": args.base_url}.items() if v}
    if args.timeout is not None:
        llm["client_options"] = {"timeout": args.timeout}
    return ProbeConfig(steps=_steps(args.steps), kinds=_names(args.kinds), per_kind=args.per_kind, seed=args.seed,
                       answers=answers, extractor=args.extractor, llm=llm, options=_options(args.memory_options),
                       budget=args.budget, budgets=_budgets(args.budgets), max_tokens=args.max_tokens)


def _check_class(name: str, factory: Any) -> None:
    """A class without ``update`` and ``context`` is refused in one line (other factories are checked
    by what they build)."""
    from textmem_gym.memory.protocol import is_memory_class  # lazy: keeps the command line fast

    if isinstance(factory, type) and not is_memory_class(factory):
        raise ValueError(f"memory {name!r} is {factory.__name__}, which is not a memory: it needs "
                         "update(observation, action, info) and context(question, budget)")


def cmd_probe(args: argparse.Namespace) -> int:
    """Probes every trajectory and prints the tables."""
    from textmem_gym.memory.registry import memory_factory
    from textmem_gym.qa.probes.run import format_probe_tables, probe_episode

    memories = _names(args.memory)
    for name in memories or (args.memory,):
        _check_class(name, memory_factory(name))
    config = probe_config(args)
    episodes = [recorded_episode(path) for path in trajectory_files(args.trajectories)]
    rows = []
    for episode in episodes:
        rows += probe_episode(episode, memories, config, out=args.out)
    print(format_probe_tables(rows, memories))
    if args.out:
        print(f"\nresults: {args.out}")
    return 0


def add_commands(sub: argparse._SubParsersAction) -> None:
    """Adds ``probe``."""
    from textmem_gym.qa.probes.questions import GENERATORS

    probe = sub.add_parser("probe", help="ask memories questions about recorded episodes (replayed with "
                                         "privileged facts); answer recall and first-mention accuracy at token "
                                         "budgets, EM/F1 per memory, question kind and step")
    probe.add_argument("trajectories", nargs="+", metavar="TRAJECTORIES",
                       help="trajectory files or folders of them (eval --trajectories DIR)")
    probe.add_argument("--memory", required=True, metavar="NAMES",
                       help="memories, comma-separated: names (arigraph, stma, davis, full-history, summary, "
                            "oracle, bm25, ...: textmem_gym.memories entry points) or module:Class")
    probe.add_argument("--memory-options", default=None, metavar="JSON",
                       help='options per memory, a JSON object: {"bm25": {"k1": 1.5}}')
    probe.add_argument("--steps", default="end", help="steps to ask at, comma-separated; 'end' is the last "
                                                      "(default: end)")
    probe.add_argument("--kinds", default=None, help=f"question kinds, comma-separated (default: all: "
                                                     f"{', '.join(GENERATORS)})")
    probe.add_argument("--per-kind", type=POSITIVE, default=5, help="most questions of a kind at a step (default 5)")
    probe.add_argument("--seed", type=NON_NEGATIVE, default=0, help="seed of the question draw")
    probe.add_argument("--structural", action="store_true",
                       help="also answer from each memory's optional parts without a model (beliefs, map, history)")
    probe.add_argument("--recall-only", action="store_true",
                       help="answer recall only, no model even if OPENAI_MODEL is set")
    probe.add_argument("--budgets", default="256,512,1024,2048",
                       help="token budgets of answer recall, comma-separated (default 256,512,1024,2048)")
    probe.add_argument("--extractor", default="rules", choices=("rules", "llm"),
                       help="extractor of the graph memories (llm: the papers' prompts through --model)")
    probe.add_argument("--model", default=None, help="LLM answering every memory (else OPENAI_MODEL)")
    probe.add_argument("--base-url", default=None, help="OpenAI-compatible endpoint (else OPENAI_BASE_URL)")
    probe.add_argument("--budget", type=POSITIVE, default=2048,
                       help="prompt tokens every answer is fitted to, the same for every memory (default 2048)")
    probe.add_argument("--max-tokens", type=POSITIVE, default=512, help="completion limit of an answer")
    probe.add_argument("--timeout", type=positive_number, default=None, help="seconds per LLM request (default 60)")
    probe.add_argument("--out", default=None, type=writable_file,
                       help="JSONL results file (one row per question x memory x answer mode, with the "
                            "memory's context at the largest budget; resumable)")
    probe.set_defaults(handler=cmd_probe)


__all__ = ["add_commands", "cmd_probe", "probe_config", "recorded_episode", "trajectory_files"]
