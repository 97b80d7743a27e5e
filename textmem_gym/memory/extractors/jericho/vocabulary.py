"""The game's own words (``info["vocabulary"]``): which words can name a thing, never where one is."""

from __future__ import annotations

import re
from collections.abc import Iterable

#: Words before a noun that leave it the game's whole name (``coil of rope``: ``rope``).
NAME_STARTS = frozenset({"", "a", "an", "the", "some", "of", "your", "his", "her", "its", "their", "two", "three",
                         "four", "five", "six", "several", "many"})
#: Nouns of a place about a room rather than a thing in it (``on the ground``, ``in the corner``).
PLACE_NOUNS = frozenset({"ground", "floor", "wall", "walls", "ceiling", "corner", "branch", "room", "sky",
                          "air", "shore", "bank", "north", "south", "east", "west", "here", "there"})


class Vocabulary:
    """The words the game's parser knows (``info["vocabulary"]`` at reset: the story file's dictionary,
    words cut as its version stores them, ``info["vocabulary_letters"]``: 6 Z-characters in versions 1-3,
    9 later, :func:`~textmem_gym.envs.jericho.dictionary.word_letters`). Not privileged: any player can type
    any word; it tells which words can name a thing, never where a thing is.

    Args:
        words: The dictionary's words.
        letters: Z-characters the dictionary keeps of a word; ``None`` (the version unknown): 9 when a
            word is longer than 6 Z-characters (only later versions store one), else 6.

    Example:
        >>> words = Vocabulary(["a", "bird", "birds", "brass", "lanter", "nest", "hand-", "pump"])
        >>> words.knows("brass lantern"), words.knows("battery-powered brass lantern"), words.knows("bird's nest")
        (True, False, True)
        >>> words.game_words("battery-powered brass lantern"), Vocabulary([]).knows("anything")
        ('brass lantern', True)
        >>> words.game_words("copy of a lantern")  # a name's middle is no name
        ''
        >>> words.cut, Vocabulary(["lantern"]).cut, Vocabulary(["lanter"], letters=9).knows("lanterns")
        (6, 9, False)
    """

    def __init__(self, words: Iterable[str], letters: int | None = None) -> None:
        self.words = frozenset(w.lower() for w in words)
        longest = max((_z_length(w) for w in self.words), default=0)
        self.cut = letters if letters is not None else (_LATER_LETTERS if longest > _EARLY_LETTERS else _EARLY_LETTERS)

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


#: Z-characters a dictionary keeps of a word in story file versions 1-3, and later.
_EARLY_LETTERS, _LATER_LETTERS = 6, 9


def _z_length(word: str) -> int:
    """Z-characters ``word`` takes (a lower-case letter one, any other character two)."""
    return sum(1 if "a" <= char <= "z" else 2 for char in word)


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

