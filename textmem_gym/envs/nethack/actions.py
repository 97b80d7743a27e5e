"""Words an agent types for NetHack, and the keys they press (a registry, no if/elif).

Moves are compass words (``north``, ``far east`` runs until something interesting); commands
are plain words (``search``, ``pick up``, ``eat``, ``kick``, ``up``/``down`` stairs, ``esc``);
single letters, digits and a few symbols press that key, for menus and prompts (``y``/``n``
answer questions, ``f`` picks item f). ``go north``/``move north`` mean ``north``.

Example:
    >>> key_for("far north"), key_for("Pick  up"), key_for("go west"), key_for("f")
    (75, 44, 104, 102)
    >>> key_for("dance") is None
    True
"""

from __future__ import annotations

import re
import string

_COMPASS: dict[str, tuple[str, str]] = {  # word -> (step key, run key)
    "north": ("k", "K"), "east": ("l", "L"), "south": ("j", "J"), "west": ("h", "H"),
    "northeast": ("u", "U"), "southeast": ("n", "N"), "southwest": ("b", "B"), "northwest": ("y", "Y"),
}


def _meta(key: str) -> int:
    return 0x80 | ord(key)


def _ctrl(key: str) -> int:
    return 0x1F & ord(key)


#: Direction word -> key (one step, and ``far <direction>``: run).
MOVES: dict[str, int] = {
    **{word: ord(step) for word, (step, _) in _COMPASS.items()},
    **{f"far {word}": ord(run) for word, (_, run) in _COMPASS.items()},
}

#: Command word -> key.
COMMANDS: dict[str, int] = {
    "wait": ord("."), "search": ord("s"), "up": ord("<"), "down": ord(">"),
    "pick up": ord(","), "eat": ord("e"), "open": ord("o"), "close": ord("c"), "kick": _ctrl("d"),
    "inventory": ord("i"), "look": ord(":"), "drop": ord("d"), "wield": ord("w"), "wear": ord("W"),
    "take off": ord("T"), "put on": ord("P"), "remove": ord("R"), "quaff": ord("q"), "read": ord("r"),
    "zap": ord("z"), "apply": ord("a"), "throw": ord("t"), "fire": ord("f"), "cast": ord("Z"),
    "engrave": ord("E"), "pay": ord("p"), "fight": ord("F"), "swap weapons": ord("x"),
    "pray": _meta("p"), "loot": _meta("l"), "force": _meta("f"), "sit": _meta("s"),
    "chat": _meta("c"), "jump": _meta("j"), "untrap": _meta("u"), "offer": _meta("o"),
    "travel": ord("_"), "quit": _meta("q"), "esc": 27, "more": 13, "space": ord(" "),
}

#: Single characters pressed as themselves (menu letters, ``y``/``n`` answers, counts).
KEYS: dict[str, int] = {ch: ord(ch) for ch in string.ascii_letters + string.digits + "$-*+.,<>"}

#: Every word -> key, longest registry last so that e.g. ``n`` is the key n (answer "no").
WORDS: dict[str, int] = {**KEYS, **COMMANDS, **MOVES, "yes": ord("y"), "no": ord("n")}

_PREFIX = re.compile(r"^(?:go|move|walk|run) (?=\S)")
_SPACES = re.compile(r"\s+")
_ALIASES = {"north east": "northeast", "north west": "northwest", "south east": "southeast",
            "south west": "southwest", "pickup": "pick up", "escape": "esc", "stairs up": "up",
            "stairs down": "down", "go up": "up", "go down": "down", "descend": "down", "ascend": "up"}


def normalize(command: str) -> str:
    """Canonical form of a command word: spaces collapsed, lower case except single letters."""
    command = _SPACES.sub(" ", command).strip()
    if len(command) == 1:
        return command
    command = command.lower()
    for alias, word in _ALIASES.items():
        command = command.replace(alias, word) if alias in command else command
    if command.startswith("run "):
        command = "far " + command[4:]
    return _PREFIX.sub("", command)


def key_for(command: str) -> int | None:
    """The key of a command word, or ``None`` if it is not a known word."""
    return WORDS.get(normalize(command))


def prompt_keys(message: str, menu: str) -> list[str]:
    """Single-key answers offered by a prompt (``[ynq]``, ``[fgh or ?*]``) or a menu (``a - ...``)."""
    options: list[str] = []
    for choices in re.findall(r"\[([^\]]*)\]", message):
        for first, last, single in re.findall(r"(\w)-(\w)|(\S)", choices.split(" or ")[0]):
            span = range(ord(first), ord(last) + 1) if first else [ord(single)]
            options += [chr(c) for c in span if chr(c) in KEYS]
    options += re.findall(r"^\s*([a-zA-Z$]) - ", menu, flags=re.MULTILINE)
    return list(dict.fromkeys(options))
