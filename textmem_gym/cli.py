"""The ``textmem-gym`` command: list ids, play in the terminal, evaluate policies, summarize.

Example:
    $ textmem-gym list
    $ textmem-gym play TextMem/Cooking-v0
    $ textmem-gym eval TextMem/Cooking-Hard-v0 --policy random --episodes 3 --out runs/r.jsonl
    $ textmem-gym summary runs/r.jsonl
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from typing import Any, TextIO

import gymnasium as gym

PLAY_HELP = """Commands: type any game command.
  admissible  list the commands the game accepts now
  help        show this help
  quit        leave the game"""


def cmd_list(args: argparse.Namespace) -> int:
    """Prints every registered id with a one-line description, then the policies."""
    from policies import DESCRIPTIONS, POLICIES
    from textmem_gym.envs.registration import ENV_IDS

    width = max(len(i) for i in ENV_IDS)
    print("Environments:")
    for env_id, entry in ENV_IDS.items():
        needs = f" (needs {', '.join(entry.needs)})" if entry.needs else ""
        print(f"  {env_id:<{width}}  {entry.description}{needs}")
    print("\nPolicies:")
    for name in POLICIES:
        print(f"  {name:<12}  {DESCRIPTIONS.get(name, '')}")
    return 0


def _score_line(info: dict[str, Any], steps: int) -> str:
    return f"[score {info['score']}/{info['max_score']} | moves {info['moves']} | steps {steps}]"


def play(env: gym.Env, stdin: TextIO = sys.stdin, stdout: TextIO = sys.stdout, seed: int = 0) -> dict[str, Any]:
    """Lets a person play ``env`` in the terminal; returns the last ``info``.

    Reads one command per line from ``stdin``; ``help``, ``admissible`` and ``quit`` are handled
    here, anything else goes to the game. End of input quits.
    """
    observation, info = env.reset(seed=seed)
    steps = 0
    print(f"{observation}\n{_score_line(info, steps)}\n(type 'help' for help)", file=stdout)
    while True:
        print("> ", end="", file=stdout, flush=True)
        line = stdin.readline()
        command = line.strip()
        if not line or command.lower() in {"quit", "exit"}:
            break
        if command.lower() == "help":
            print(PLAY_HELP, file=stdout)
            continue
        if command.lower() == "admissible":
            print("\n".join(f"  {c}" for c in info["admissible_commands"]), file=stdout)
            continue
        observation, _, terminated, truncated, info = env.step(command)
        steps += 1
        print(f"{observation}\n{_score_line(info, steps)}", file=stdout)
        if terminated or truncated:
            print("*** " + ("You won!" if info["won"] else "Game over." if terminated else
                            "Step limit reached.") + " ***", file=stdout)
            break
    return info


def cmd_play(args: argparse.Namespace) -> int:
    """Plays an id interactively."""
    env = gym.make(args.env_id, **_env_kwargs(args))
    try:
        play(env, seed=args.seed)
    finally:
        env.close()
    return 0


def _env_kwargs(args: argparse.Namespace) -> dict[str, Any]:
    kwargs: dict[str, Any] = {}
    if getattr(args, "game_seed", None) is not None:
        kwargs["game_seed"] = args.game_seed
    kwargs.update(_parse_pairs(getattr(args, "env_arg", None)))
    return kwargs


def _parse_pairs(items: list[str] | None) -> dict[str, Any]:
    """``KEY=VALUE`` items -> a dict, each value parsed as JSON when it is JSON."""
    return {key: _parse_value(value) for key, _, value in (item.partition("=") for item in items or [])}


def _parse_value(value: str) -> Any:
    import json

    try:
        return json.loads(value)
    except ValueError:
        return value


def cmd_eval(args: argparse.Namespace) -> int:
    """Evaluates a policy on ids and prints the summary table."""
    from textmem_gym.results import format_table, summarize
    from textmem_gym.runner import evaluate

    policy_kwargs = _parse_pairs(args.policy_arg)
    for name in ("model", "base_url"):
        if getattr(args, name):
            policy_kwargs[name] = getattr(args, name)
    results = evaluate(args.env_ids, args.policy, episodes=args.episodes, seed=args.seed,
                       max_steps=args.max_steps, out=args.out, env_kwargs=_env_kwargs(args),
                       policy_kwargs=policy_kwargs, progress=not args.quiet,
                       game_seeds=args.game_seeds or (None,))
    print(format_table(summarize(results)))
    if args.out:
        print(f"\nresults: {args.out}")
    return 0


def cmd_summary(args: argparse.Namespace) -> int:
    """Summarizes a JSONL results file."""
    from textmem_gym.results import ResultsFile, format_table, summarize

    print(format_table(summarize(ResultsFile(args.results).read())))
    return 0


COMMANDS: dict[str, Callable[[argparse.Namespace], int]] = {
    "list": cmd_list, "play": cmd_play, "eval": cmd_eval, "summary": cmd_summary,
}


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``textmem-gym``."""
    parser = argparse.ArgumentParser(prog="textmem-gym", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("list", help="list environment ids and policies")
    play_p = sub.add_parser("play", help="play an environment in the terminal")
    play_p.add_argument("env_id")
    play_p.add_argument("--seed", type=int, default=0)
    play_p.add_argument("--game-seed", type=int, default=None, help="another instance of the id")
    play_p.add_argument("--env-arg", action="append", metavar="KEY=VALUE", help="extra gym.make argument")
    ev = sub.add_parser("eval", help="evaluate a policy on one or more ids")
    ev.add_argument("env_ids", nargs="+")
    ev.add_argument("--policy", required=True, help="policy name (see `textmem-gym list`)")
    ev.add_argument("--episodes", type=int, default=1)
    ev.add_argument("--seed", type=int, default=0, help="first reset seed (episode i uses seed+i)")
    ev.add_argument("--max-steps", type=int, default=None, help="override the ids' step limit")
    ev.add_argument("--out", default=None, help="JSONL results file (resumable)")
    ev.add_argument("--game-seeds", type=int, nargs="+", default=None, help="game instances to use")
    ev.add_argument("--env-arg", action="append", metavar="KEY=VALUE", help="extra gym.make argument")
    ev.add_argument("--policy-arg", action="append", metavar="KEY=VALUE", help="policy constructor argument")
    ev.add_argument("--model", default=None, help="LLM model name (LLM policies; else OPENAI_MODEL)")
    ev.add_argument("--base-url", default=None, help="OpenAI-compatible endpoint (else OPENAI_BASE_URL)")
    ev.add_argument("--quiet", action="store_true", help="no progress bar")
    summ = sub.add_parser("summary", help="summarize a JSONL results file")
    summ.add_argument("results")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``textmem-gym`` console script."""
    import textmem_gym  # noqa: F401  (registers ids)

    args = build_parser().parse_args(argv)
    try:
        return COMMANDS[args.command](args)
    except (ValueError, TypeError, gym.error.Error) as error:
        print(f"textmem-gym: error: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
