"""Arguments shared by several commands: ``--env-arg`` / ``--policy-arg`` ``KEY=VALUE`` pairs."""

from __future__ import annotations

import argparse
import json
from typing import Any


def env_kwargs(args: argparse.Namespace) -> dict[str, Any]:
    kwargs: dict[str, Any] = {}
    if getattr(args, "game_seed", None) is not None:
        kwargs["game_seed"] = args.game_seed
    kwargs.update(parse_pairs(getattr(args, "env_arg", None)))
    return kwargs


def parse_pairs(items: list[str] | None) -> dict[str, Any]:
    """``KEY=VALUE`` items -> a dict, each value parsed as JSON when it is JSON."""
    return {key: parse_value(value) for key, _, value in (item.partition("=") for item in items or [])}


def parse_value(value: str) -> Any:
    try:
        return json.loads(value)
    except ValueError:
        return value


