"""Arguments shared by several commands: ``--env-arg`` / ``--policy-arg`` ``KEY=VALUE`` pairs.

Each pair is checked before anything is built: its key against the keywords the env class (plus
``gym.make``'s own) or the policy's factory accepts, its value against their annotations. A bad
one is a ``ValueError`` naming it (the command prints one line and exits with status 2). A number
or ``true``/``false`` given where only text is accepted stays text (``--env-arg game=905``).

Example:
    >>> parse_pairs(["top_k=3", "extractor=llm"])
    {'top_k': 3, 'extractor': 'llm'}
    >>> check_policy_kwargs("random", {"sead": 1})
    Traceback (most recent call last):
    ...
    ValueError: policy 'random' does not accept 'sead'; it accepts: ['seed', 'config']
    >>> check_env_kwargs("TextMem/Cooking-v0", {"skill_cap": 5})
    Traceback (most recent call last):
    ...
    ValueError: env 'TextMem/Cooking-v0' does not accept 'skill_cap'; it accepts: ['default_game_seed', ...]
    >>> check_env_kwargs("TextMem/Cooking-v0", {"generator_options": 5})
    Traceback (most recent call last):
    ...
    ValueError: --env-arg generator_options=5: env 'TextMem/Cooking-v0' expects generator_options as Mapping[...
    >>> check_env_kwargs("TextMem/Cooking-v0", {"objective": 42})
    {'objective': '42'}
"""

from __future__ import annotations

import argparse
import json
import os
import types
import typing
from collections.abc import Iterable, Mapping
from typing import Any

#: Keywords ``gym.make`` takes itself (not passed to the env class) and their annotations.
GYM_MAKE_KEYWORDS: dict[str, Any] = {"max_episode_steps": int | None, "disable_env_checker": bool | None}


def env_kwargs(args: argparse.Namespace) -> dict[str, Any]:
    """The ``gym.make`` keywords of ``--game-seed`` and ``--env-arg`` (not yet checked)."""
    kwargs: dict[str, Any] = {}
    if getattr(args, "game_seed", None) is not None:
        kwargs["game_seed"] = args.game_seed
    kwargs.update(parse_pairs(getattr(args, "env_arg", None)))
    return kwargs


def parse_pairs(items: list[str] | None) -> dict[str, Any]:
    """``KEY=VALUE`` items -> a dict, each value parsed as JSON when it is JSON.

    Raises:
        ValueError: An item has no ``=`` or no key.
    """
    pairs: dict[str, Any] = {}
    for item in items or []:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise ValueError(f"expected KEY=VALUE, got {item!r}")
        pairs[key.strip()] = parse_value(value)
    return pairs


def parse_value(value: str) -> Any:
    """``value`` parsed as JSON (``3``, ``true``, ``{"a": 1}``), else the string itself."""
    try:
        return json.loads(value)
    except ValueError:
        return value


def check_env_kwargs(env_id: str, kwargs: Mapping[str, Any]) -> dict[str, Any]:
    """Checks ``--env-arg`` keywords against what ``gym.make(env_id, ...)`` accepts, before it runs.

    The accepted keywords are ``gym.make``'s own (:data:`GYM_MAKE_KEYWORDS`) and those of the id's
    entry point (its class's ``__init__``).

    Returns:
        ``kwargs``, with a number or boolean given for a text-only keyword turned back into text.

    Raises:
        ValueError: A keyword the env does not accept (the message names it and the accepted
            ones), or a value whose type its annotation rules out.
        gymnasium.error.Error: ``env_id`` is not registered.
    """
    import gymnasium as gym

    from textmem_gym.core.registry import factory_parameters
    from textmem_gym.loading import load_object

    spec = gym.spec(env_id)
    creator = load_object(spec.entry_point) if isinstance(spec.entry_point, str) else spec.entry_point
    parameters = factory_parameters(creator) if creator is not None else None
    if parameters is None:  # no signature to read: gym.make decides
        return dict(kwargs)
    annotations = {**parameters.annotations, **GYM_MAKE_KEYWORDS}
    unknown = [key for key in kwargs if key not in annotations and not parameters.open_ended]
    if unknown:
        listed = ", ".join(repr(key) for key in unknown)
        raise ValueError(f"env {env_id!r} does not accept {listed}; it accepts: {sorted(annotations)}")
    return _check_values("--env-arg", f"env {env_id!r}", kwargs, annotations)


def check_policy_kwargs(policy: str, kwargs: Mapping[str, Any]) -> dict[str, Any]:
    """Checks ``--policy-arg`` keywords against what the policy's factory accepts, before any game
    is prepared (keys by :func:`textmem_gym.core.registry.check_policy_arguments`, values by type).

    Returns:
        ``kwargs``, with a number or boolean given for a text-only keyword turned back into text.

    Raises:
        ValueError: Unknown policy, a keyword its factory does not accept (the message names it
            and the accepted ones), or a value whose type its annotation rules out.
    """
    from textmem_gym.core.registry import check_policy_arguments, policy_parameters

    check_policy_arguments(policy, dict(kwargs))
    parameters = policy_parameters(policy)
    if parameters is None:
        return dict(kwargs)
    return _check_values("--policy-arg", f"policy {policy!r}", kwargs, parameters.annotations)


def _check_values(option: str, owner: str, kwargs: Mapping[str, Any],
                  annotations: Mapping[str, Any]) -> dict[str, Any]:
    """``kwargs`` with each value checked against its annotation (a scalar where only text fits
    becomes its text); ValueError naming the first that does not fit."""
    checked = dict(kwargs)
    for key, value in kwargs.items():
        if key not in annotations or value_matches(value, annotations[key]):
            continue
        if isinstance(value, int | float) and value_matches(json.dumps(value), annotations[key]):
            checked[key] = json.dumps(value)  # --env-arg game=905: the text the user typed
            continue
        typed = value if isinstance(value, str) else json.dumps(value)
        raise ValueError(f"{option} {key}={typed}: {owner} expects {key} as "
                         f"{_describe(annotations[key])}, got {type(value).__name__}")
    return checked


def value_matches(value: Any, annotation: Any) -> bool:
    """Whether a value parsed from the command line (a JSON value or a string) can be ``annotation``.

    Lenient where it cannot tell: an annotation it cannot read (text, a type variable, ``Any``)
    matches anything; a string matches a path type; a list matches a tuple; elements of a list are
    checked against a one-argument container's element type.

    Example:
        >>> value_matches(3, int | None), value_matches("3x", int | None), value_matches(True, int)
        (True, False, False)
        >>> value_matches(["a", "b"], Iterable[str]), value_matches({"a": 1}, list)
        (True, False)
    """
    if annotation is Any or isinstance(annotation, str | typing.TypeVar):
        return True
    if annotation is None or annotation is type(None):
        return value is None
    origin = typing.get_origin(annotation)
    if origin is typing.Union or origin is types.UnionType:
        return any(value_matches(value, arg) for arg in typing.get_args(annotation))
    if origin is typing.Literal:
        return value in typing.get_args(annotation)
    base = origin or annotation
    if not isinstance(base, type):
        return True
    if isinstance(value, bool) and base in (int, float):
        return False
    if base is float:
        return isinstance(value, int | float)
    if issubclass(base, os.PathLike):
        return isinstance(value, str)
    if issubclass(base, tuple):
        return isinstance(value, list | tuple)
    if not isinstance(value, base):
        return False
    args = typing.get_args(annotation)
    if isinstance(value, list) and issubclass(base, Iterable) and len(args) == 1:
        return all(value_matches(item, args[0]) for item in value)
    return True


def _describe(annotation: Any) -> str:
    if isinstance(annotation, type) and typing.get_origin(annotation) is None:
        return annotation.__name__
    return str(annotation).replace("typing.", "").replace("collections.abc.", "").replace("pathlib.", "")


__all__ = ["GYM_MAKE_KEYWORDS", "check_env_kwargs", "check_policy_kwargs", "env_kwargs", "parse_pairs",
           "parse_value", "value_matches"]
