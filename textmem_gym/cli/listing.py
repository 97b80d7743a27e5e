"""``textmem-gym list [WORD ...]``: every env id and policy name, or those matching the words.

Example:
    $ textmem-gym list
    $ textmem-gym list cooking hard
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence


def cmd_list(args: argparse.Namespace) -> int:
    """Prints every registered id with a one-line description, then the policies and the shipped
    memory-bench trajectories; with words, only the lines whose name or description holds every word (any case)."""
    from textmem_gym.envs.registration import ENV_IDS

    words = [word.lower() for word in args.words]
    ids = [(env_id, entry.description + (f" (needs {', '.join(entry.needs)})" if entry.needs else ""))
           for env_id, entry in ENV_IDS.items()]
    from textmem_gym.qa.bench.trajectories import load_trajectories

    bench = [(t.name, f"memory-bench trajectory: {t.describe()}") for t in load_trajectories()]
    sections = [(title, matching(rows, words)) for title, rows in
                (("Environments", ids), ("Policies", policy_rows()), ("Memory-bench trajectories", bench))]
    if not any(rows for _, rows in sections):
        raise ValueError(f"list: no id or policy matches {' '.join(args.words)!r} (`textmem-gym list` shows all)")
    print("\n\n".join(format_section(title, rows) for title, rows in sections if rows))
    return 0


def matching(rows: Sequence[tuple[str, str]], words: Sequence[str]) -> list[tuple[str, str]]:
    """The ``(name, description)`` rows holding every (lower-case) word in their name or description.

    Example:
        >>> matching([("TextMem/Cooking-v0", "a cooking game"), ("random", "random actions")], ["cook"])
        [('TextMem/Cooking-v0', 'a cooking game')]
    """
    return [row for row in rows if all(word in f"{row[0]} {row[1]}".lower() for word in words)]


def format_section(title: str, rows: Sequence[tuple[str, str]]) -> str:
    """``Title:`` then one indented ``name  description`` line per row, names aligned."""
    width = max(len(name) for name, _ in rows)
    return "\n".join([f"{title}:"] + [f"  {name:<{width}}  {description}" for name, description in rows])


def policy_rows() -> list[tuple[str, str]]:
    """One row per policy name: built-in ones, those of installed packages (marked), then patterns."""
    from textmem_gym.core.registry import PREFIXED_POLICIES, available_policies, describe_target

    rows = [(name, entry.description + (f"  [from package {entry.package}]" if entry.package else ""))
            for name, entry in available_policies().items()]
    rows += [(f"{prefix}:...", describe_target(target)) for prefix, target in PREFIXED_POLICIES.items()]
    rows.append(("module:Factory", "any importable callable returning a Policy, e.g. mypkg.agents:MyPolicy"))
    return rows


def add_commands(sub: argparse._SubParsersAction) -> None:
    """Adds ``list``."""
    listing = sub.add_parser("list", help="list environment ids and policies (those matching WORDs, if given)")
    listing.add_argument("words", nargs="*", metavar="WORD",
                         help="show only ids and policies whose name or description holds every word (any case)")
    listing.set_defaults(handler=cmd_list)
