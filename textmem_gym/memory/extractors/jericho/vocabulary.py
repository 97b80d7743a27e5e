"""The game's own words (``info["vocabulary"]``): which words can name a thing, never where one is."""

from __future__ import annotations

import re
from collections.abc import Iterable

#: Words before a noun that leave it the game's whole name (``coil of rope``: ``rope``).
NAME_STARTS = frozenset({"", "a", "an", "the", "some", "of", "your", "his", "her", "its", "their"})
#: Nouns of a place about a room rather than a thing in it (``on the ground``, ``in the corner``).
PLACE_NOUNS = frozenset({"ground", "floor", "wall", "walls", "ceiling", "corner", "branch", "room", "sky",
                          "air", "shore", "bank", "north", "south", "east", "west", "here", "there"})


class Vocabulary:
    """The words the game's parser knows (``info["vocabulary"]`` at reset: the story file's dictionary,
    words cut at its length, 6 or 9 letters). Not privileged: any player can type any word; it tells which
    words can name a thing, never where a thing is.

    Example:
        >>> words = Vocabulary(["a", "bird", "birds", "brass", "lanter", "nest", "hand-", "pump"])
        >>> words.knows("brass lantern"), words.knows("battery-powered brass lantern"), words.knows("bird's nest")
        (True, False, True)
        >>> words.game_words("battery-powered brass lantern"), Vocabulary([]).knows("anything")
        ('brass lantern', True)
        >>> words.game_words("copy of a lantern")  # a name's middle is no name
        ''
    """

    def __init__(self, words: Iterable[str]) -> None:
        self.words = frozenset(w.lower() for w in words)
        self.cut = max((len(w) for w in self.words), default=0)

    def knows_word(self, word: str) -> bool:
        """Whether the game's parser reads ``word`` (cut as the dictionary cuts; ``bird's`` as ``birds``)."""
        word = word.lower()
        forms = {word, word.replace("'", ""), re.sub(r"'s$", "", word)}
        return any(self._known(form) for form in forms)

    def _known(self, word: str) -> bool:
        return word in self.words or _cut(word, self.cut) in self.words

    def knows(self, name: str) -> bool:
        """Whether every word of ``name`` is the game's (always, for a game whose words are not known)."""
        return not self.words or all(self.knows_word(w) for w in re.findall(r"[\w'-]+", name))

    def game_words(self, phrase: str) -> str:
        """The end of ``phrase`` made of the game's words (``battery-powered brass lantern`` ->
        ``brass lantern``; ``""`` when its last word is not the game's)."""
        words = phrase.split()
        start = len(words)
        while start > 0 and self.knows(words[start - 1]):
            start -= 1
        if 0 < start < len(words) and words[start].lower() in NAME_STARTS | {"and"}:
            return ""  # the run starts inside a phrase ("copy of the legends"): no name
        return " ".join(words[start:])


def _cut(word: str, length: int) -> str:
    """``word`` as a dictionary of ``length`` Z-characters stores it (a letter takes one, any other
    character two: ``hand-held`` -> ``hand-``).

    Example:
        >>> _cut("lantern", 6), _cut("hand-held", 6), _cut("ab", 6)
        ('lanter', 'hand-', 'ab')
    """
    kept, used = [], 0
    for char in word:
        used += 1 if "a" <= char <= "z" else 2
        if used > length:
            break
        kept.append(char)
    return "".join(kept)

