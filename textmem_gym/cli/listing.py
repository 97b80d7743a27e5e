"""``textmem-gym list``: every env id and policy name."""

from __future__ import annotations

import argparse


def cmd_list(args: argparse.Namespace) -> int:
    """Prints every registered id with a one-line description, then the policies."""
    from textmem_gym.envs.registration import ENV_IDS

    width = max(len(i) for i in ENV_IDS)
    print("Environments:")
    for env_id, entry in ENV_IDS.items():
        needs = f" (needs {', '.join(entry.needs)})" if entry.needs else ""
        print(f"  {env_id:<{width}}  {entry.description}{needs}")
    print("\nPolicies:")
    print_policies()
    return 0


def print_policies() -> None:
    """One line per policy name: built-in ones, those of installed packages (marked), then patterns."""
    from textmem_gym.core.registry import DESCRIPTIONS, PREFIXED_POLICIES, available_policies

    rows = [(name, entry.description + (f"  [from package {entry.package}]" if entry.package else ""))
            for name, entry in available_policies().items()]
    rows += [(f"{prefix}:...", DESCRIPTIONS.get(prefix, "")) for prefix in PREFIXED_POLICIES]
    rows.append(("module:Factory", "any importable callable returning a Policy, e.g. mypkg.agents:MyPolicy"))
    width = max(len(name) for name, _ in rows)
    for name, description in rows:
        print(f"  {name:<{width}}  {description}")


def add_commands(sub: argparse._SubParsersAction) -> None:
    """Adds ``list``."""
    sub.add_parser("list", help="list environment ids and policies").set_defaults(handler=cmd_list)
