"""Game names a client may type: a TextMem id, an id without its ``TextMem/`` prefix, or a
Jericho game name as the course harness passes it in ``GAME`` (``zork1``).

Example:
    >>> import textmem_gym
    >>> resolve_game("zork1"), resolve_game("Cooking-v0")
    ('TextMem/Jericho-Zork1-v0', 'TextMem/Cooking-v0')
"""

from __future__ import annotations


class GameError(ValueError):
    """A request a game session cannot serve (bad argument, unknown game, full server...).

    Servers turn it into a tool error that names the problem; the session keeps serving.
    """


def resolve_game(name: str) -> str:
    """The TextMem id of ``name`` (see the module docstring).

    Raises:
        GameError: ``name`` is empty or names no id and no Jericho game.
    """
    from textmem_gym.envs.jericho.ids import GAMES, env_id
    from textmem_gym.envs.registration import ENV_IDS

    name = (name or "").strip()
    if not name:
        raise GameError("no game given: pass an id such as TextMem/Cooking-v0 or a Jericho game such as zork1 "
                        "(or set GAME)")
    for candidate in (name, f"TextMem/{name}"):
        if candidate in ENV_IDS:
            return candidate
    if name.lower() in GAMES:
        return env_id(name.lower())
    raise GameError(f"unknown game {name!r}: use a TextMem id (`textmem-gym list`) or a Jericho game "
                    f"({', '.join(sorted(GAMES)[:8])}, ...)")


def list_games(contains: str = "") -> list[str]:
    """``id: description`` lines of every id whose id or description contains ``contains``."""
    from textmem_gym.envs.registration import ENV_IDS

    needle = contains.strip().lower()
    return [f"{env_id}: {entry.description}" + (f" (needs {', '.join(entry.needs)})" if entry.needs else "")
            for env_id, entry in ENV_IDS.items()
            if needle in env_id.lower() or needle in entry.description.lower()]
