"""The player's commands as the Jericho parser and its ground truth read them: the verb and the object."""

from __future__ import annotations

import re

#: Verbs that put a thing somewhere (``put X in Y``, ``drop X``).
PUT_VERBS = frozenset({"put", "place", "insert", "throw", "toss", "drop"})
#: Verbs that tie a thing to something.
TIE_VERBS = frozenset({"tie", "attach", "fasten", "hang"})


def command_verb(action: str) -> str:
    """The verb of a command, lower case (``look at`` for ``l in``/``look under``...).

    Example:
        >>> command_verb("Take lamp"), command_verb("look in the case"), command_verb("")
        ('take', 'look at', '')
    """
    words = action.strip().lower().split()
    if len(words) > 1 and words[0] in ("look", "l") and words[1] in ("at", "in", "inside", "under", "on"):
        return "look at"
    return words[0] if words else ""


def command_object(action: str) -> str:
    """The direct object of a command (``take the lamp from the case`` -> ``the lamp``).

    Example:
        >>> command_object("take the lamp from the case"), command_object("pick up rope"), command_object("look")
        ('the lamp', 'rope', '')
        >>> command_object("take wedding ring off"), command_object("put trenchcoat down")
        ('wedding ring', 'trenchcoat')
    """
    words = action.strip().split(maxsplit=1)
    if len(words) < 2:
        return ""
    rest = words[1]
    if words[0].lower() == "pick":
        rest = re.sub(r"^(?:up|down|on|off|in|out)\s+", "", rest, flags=re.I)
    rest = re.sub(r"\s+(?:off|on|up|down|out|away)$", "", rest, flags=re.I)  # "take ring off": the ring
    return re.split(r"\s+(?:from|in|into|on|onto|with|to|under|off|out of)\s+", rest, maxsplit=1, flags=re.I)[0]


#: An object naming several things (``vial, calendar and matchbook``, ``all``).
_SEVERAL = re.compile(r",|\band\b|^(?:all|everything)\b", re.I)
#: Objects that name no thing by themselves.
_PRONOUNS = frozenset({"it", "them", "him", "her", "all", "everything"})


class Pronoun:
    """Reads a direct object ``it`` as the object of the last command that named one thing, as the
    game's own parser does (``read matchbook``, then ``put it in receptacle``: ``put matchbook in
    receptacle``). The parser and its ground truth read commands through one.

    Example:
        >>> pronoun = Pronoun()
        >>> pronoun.resolve("read matchbook"), pronoun.resolve("put it in receptacle"), pronoun.resolve("look")
        ('read matchbook', 'put matchbook in receptacle', 'look')
    """

    def __init__(self) -> None:
        self.last_object = ""

    def resolve(self, action: str) -> str:
        """``action`` with ``it`` read; the one thing it names is remembered."""
        obj = command_object(action)
        if obj.lower() == "it" and self.last_object:
            verb, rest = action.strip().split(maxsplit=1)
            return f"{verb} " + re.sub(r"\bit\b", self.last_object, rest, count=1, flags=re.I)
        if obj and not _SEVERAL.search(obj) and obj.lower() not in _PRONOUNS:
            self.last_object = obj
        return action
