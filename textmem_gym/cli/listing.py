"""``textmem-gym list``: every env id and policy name."""

from __future__ import annotations

import argparse


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


def add_commands(sub: argparse._SubParsersAction) -> None:
    """Adds ``list``."""
    sub.add_parser("list", help="list environment ids and policies").set_defaults(handler=cmd_list)
