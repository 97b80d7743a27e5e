"""``textmem-gym play ID``: a person plays an env in the terminal."""

from __future__ import annotations

import argparse
import sys
from typing import Any, TextIO

import gymnasium as gym

from textmem_gym.cli.arguments import check_env_kwargs, env_kwargs
from textmem_gym.cli.checks import NON_NEGATIVE, check_env_ids, check_env_resources

PLAY_HELP = """Commands: type any game command.
  admissible  list the commands the game accepts now
  help        show this help
  quit        leave the game"""


def _score_line(info: dict[str, Any], steps: int) -> str:
    return f"[score {info['score']:g}/{info['max_score']:g} | moves {info['moves']} | steps {steps}]"


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
    check_env_ids([args.env_id])
    kwargs = check_env_kwargs(args.env_id, env_kwargs(args))
    check_env_resources([args.env_id], kwargs)
    env = gym.make(args.env_id, **kwargs)
    try:
        play(env, seed=args.seed)
    finally:
        env.close()
    return 0


def add_commands(sub: argparse._SubParsersAction) -> None:
    """Adds ``play``."""
    play_p = sub.add_parser("play", help="play an environment in the terminal")
    play_p.add_argument("env_id")
    play_p.add_argument("--seed", type=NON_NEGATIVE, default=0, help="reset seed")
    play_p.add_argument("--game-seed", type=NON_NEGATIVE, default=None, help="another instance of the id")
    play_p.add_argument("--env-arg", action="append", metavar="KEY=VALUE", help="extra gym.make argument")
    play_p.set_defaults(handler=cmd_play)
