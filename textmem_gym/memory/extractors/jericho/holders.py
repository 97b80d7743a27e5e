"""Supporters and containers as the text shows them (:class:`HolderKinds`)."""

from __future__ import annotations

import re

from textmem_gym.memory.semantic import IN, ON, normalize


class HolderKinds:
    """Which holders the text shows as supporters (``on the table``) and which as containers (``the
    case contains``, ``in the basket``): the Z-machine does not tell them apart, the text does; a holder
    ever shown as a container is one.

    Example:
        >>> kinds = HolderKinds(); kinds.read("sitting on the pedestal is a torch. the basket contains:")
        >>> kinds.relation("pedestal", IN), kinds.relation("basket", ON), kinds.relation("box", ON)
        ('is on', 'is in', 'is on')
        >>> kinds.read("you can see a metal table (on which are a torch and a landmine) here.")
        >>> kinds.relation("metal table", IN)
        'is on'
    """

    _ON = re.compile(r"\b(?:on|onto|upon) (?:the|a|an) ([\w' -]+?)(?=[.,:;!?]| is\b| are\b| (?:sits|lies)\b|$)"
                     r"|\b(?:the|a|an) ([\w' -]+?) \(on which (?:is|are)\b", re.M)  # Inform: "a table (on which is"
    _IN = re.compile(r"\b(?:the|your) ([\w' -]+?) contains?\b|\bopening the ([\w' -]+?) reveals\b"
                     r"|\byou open the ([\w' -]+?), revealing\b"
                     r"|\bin (?:the|a|an) ([\w' -]+?)(?=[.,:;!?]| is\b| are\b|$)"
                     r"|\b(?:the|a|an) ([\w' -]+?) \(in which (?:is|are)\b", re.M)

    def __init__(self) -> None:
        self.supporters: set[str] = set()
        self.containers: set[str] = set()

    def read(self, text: str) -> None:
        """Learns from one text (lower case)."""
        self.supporters |= {g.strip() for groups in self._ON.findall(text) for g in groups if g}
        self.containers |= {g.strip() for groups in self._IN.findall(text) for g in groups if g}

    def relation(self, holder: str, default: str) -> str:
        """``is in`` for a container, ``is on`` for a supporter, else ``default``."""
        holder = normalize(holder)
        if holder in self.containers:
            return IN
        return ON if holder in self.supporters else default

