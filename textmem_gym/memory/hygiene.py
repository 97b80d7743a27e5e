"""Memory hygiene: what enters a memory comes from the game's text.

Two rules, applied by :class:`~textmem_gym.memory.graph_memory.GraphMemory` to every step of every
architecture (AriGraph, STMA, DAVIS) and every extractor that reads text (``rules``, ``llm``; the
privileged ``oracle`` reads facts and is left alone):

1. **A refused command teaches nothing.** An observation made only of the parser's refusals
   ("You can't see any such thing.", "That's not a verb I recognise.", ``I don't know the word
   "dragon".``, "No known action matches that input.") is not read at all: the memory keeps the
   step as an episode and counts the failure (:attr:`Hygiene.failures`, command per location),
   nothing else. A refusal followed by real text (a game that re-describes the room after
   "You can't go up from here!") has only the text after the refusal read.
2. **No entity the game never mentioned.** Each entity of an extracted triple must have been
   printed by the game in this episode (any observation so far, or the task text), as a phrase
   (``wooden door``; a plural ``s`` allowed), unless it is structural vocabulary (``inventory``,
   ``agent``, compass directions) or a name the backend's text parser builds from its text
   (NetHack's positions, :meth:`~textmem_gym.memory.extractors.base.TextParser.builds`). A phrase
   joining mentioned names with a preposition (``apple in fridge``, an action's object) counts as
   mentioned. Objects of value relations (``is`` open, ``needs to be`` sliced, ``says`` <text>) are
   values, not entities. Names the player typed (``examine dragon``) never pass on their own.

Refusals are recognised by their sentences (:data:`REFUSALS`, the usual parser messages of
Inform, Infocom and TextWorld games, ScienceWorld, TextWorld Express, the NetHack env and games
whose narrator speaks in character); the list is data, not a rule per game.

Example:
    >>> hygiene = Hygiene()
    >>> hygiene.read("-= Kitchen =-\\nYou see a table. A knife is on the table.", "look", {})
    '-= Kitchen =-\\nYou see a table. A knife is on the table.'
    >>> hygiene.read("You can't see any such thing.", "examine dragon", {}) is None
    True
    >>> hygiene.keep([("knife", "is on", "table"), ("dragon", "is at", "kitchen"), ("table", "is", "sturdy")])
    [('knife', 'is on', 'table'), ('table', 'is', 'sturdy')]
    >>> hygiene.failures, hygiene.dropped
    (1, 1)
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Any

from textmem_gym.memory.semantic import DIRECTIONS, INVENTORY, IS, TripleKey, normalize

#: Sentences a game prints when it refused or did not understand a command (matched whole,
#: case-insensitive, after the sentence's closing punctuation is removed).
REFUSALS: tuple[str, ...] = (
    r"you can'?t see any(?:thing| such thing| \S.*? here)",
    r"you (?:can'?t|cannot|don'?t|do not) see (?:that|it|them|any such thing)(?: here)?",
    r"(?:that'?s|that is) not (?:a verb|something) (?:I|you) (?:recogni[sz]e|can \S.*)",
    r"I don'?t know the word .+",
    r"I (?:didn'?t|did not|don'?t|do not) understand(?: that| what you mean| your command)?(?: sentence)?",
    r"I only understood you as far as .+",
    r"you used the word .+ in a way that I don'?t understand",
    r"I beg your pardon",
    r"you can'?t go (?:that way|\S+(?: from)? here)",
    r"there is no way to go \S+(?: from here)?",
    r"no known action matches that input",
    r"unknown action:? .*",
    r"I'?m not sure what you mean",
    r"(?:those things|that|it|they) (?:aren'?t|isn'?t|are not|is not) here",
    r"what do you want to .+",
    r"you (?:aren'?t|are not|'re not) holding (?:that|it|them|the .+)",
    r"you (?:need|have) to be holding .+ first",
    r"you don'?t have (?:that|it|them|any such thing)",
    r"you seem to want to talk to someone, but I can'?t see whom",
    r"you can'?t use multiple objects with that verb",
    r"(?:it'?s|it is) not clear what you'?re referring to",
    r"\w+ not (?:see|know|understand)\b.*",
    r"skill '[^']*' \(0 keys\): stopped: .*",
)
#: Refusals that go on with help text (every sentence after them belongs to the refusal).
REFUSAL_MESSAGES: tuple[str, ...] = (
    r"'[^']*' is not an? \S+ command\b.*",
)
_REFUSAL = re.compile(r"^(?:" + "|".join(REFUSALS) + r")$", re.I)
_MESSAGE = re.compile(r"^(?:" + "|".join(REFUSAL_MESSAGES) + r")$", re.I | re.S)
_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
_CLOSING = re.compile(r"[\s.!?\"']+$")
#: Names every memory may use without the game printing them.
VOCABULARY: frozenset[str] = frozenset({INVENTORY, "agent", "you", "player", "me", "itself", "here", "i", "p",
                                        *DIRECTIONS})
#: Relations whose object is a value (a state, a property, a text), not an entity.
VALUE_RELATIONS: frozenset[str] = frozenset({IS, "needs to be", "says", "is said to be", "increased score by"})
_JOINERS = re.compile(r"\s+(?:in|into|on|onto|from|with|to|at|of|under|inside|using)\s+(?:the\s+|a\s+|an\s+)?")
_ARTICLE = re.compile(r"^(?:the|a|an|some)\s+")


def refusal_sentences(observation: str) -> tuple[int, str]:
    """``(refused sentences at the start, the text after them)``.

    Example:
        >>> refusal_sentences("You can't go up from here! << Outside >> You are outside.")
        (1, '<< Outside >> You are outside.')
        >>> refusal_sentences('I don\\'t know the word "dragon".')
        (1, '')
    """
    text = observation.strip()
    if _MESSAGE.match(text):
        return 1, ""
    count = 0
    while text:
        parts = _SENTENCE.split(text, maxsplit=1)
        if not _REFUSAL.match(_CLOSING.sub("", parts[0].strip())):
            break
        count += 1
        text = parts[1].strip() if len(parts) > 1 else ""
    return count, text


def is_refusal(observation: str) -> bool:
    """Whether ``observation`` is nothing but the parser's refusal.

    Example:
        >>> is_refusal("That's not a verb I recognise."), is_refusal("Taken.")
        (True, False)
    """
    count, rest = refusal_sentences(observation)
    return count > 0 and not rest


class Hygiene:
    """Keeps refusals and never-mentioned names out of a memory (see the module docstring).

    Args:
        builds: Names the backend's text parser builds from its text (``name -> bool``;
            default: none).

    Attributes:
        failures: Steps whose observation was a refusal (this episode).
        failed: Location -> commands the game refused there (this episode), in order.
        dropped: Triples dropped for naming an entity the game never mentioned (this episode).
    """

    def __init__(self, builds: Callable[[str], bool] | None = None) -> None:
        self.builds = builds
        self.reset()

    def reset(self) -> None:
        """New episode: forgets the text seen and the counts."""
        self._text: list[str] = []
        self._mentioned: set[str] = set(VOCABULARY)
        self.failures = self.dropped = 0
        self.failed: dict[str, list[str]] = {}

    def read(self, observation: str, action: str, info: dict[str, Any], location: str | None = None) -> str | None:
        """The part of ``observation`` an extractor may read (``None``: a refusal, nothing to
        read; the failure is counted at ``location``); the text joins what the game said."""
        objective = info.get("objective")
        if objective and not self._text:
            self._text.append(_flat(str(objective)))
        count, rest = refusal_sentences(observation)
        if count and not rest:
            self.failures += 1
            self.failed.setdefault(location or "", []).append(action)
            return None
        self._text.append(_flat(rest))
        return observation if not count else rest

    def know(self, names: Iterable[str]) -> None:
        """Accepts ``names`` as mentioned (the entities of a memory loaded from a file)."""
        self._mentioned.update(normalize(n) for n in names)

    def mentioned(self, name: str) -> bool:
        """Whether the game printed ``name`` (or it is vocabulary, or the parser builds it)."""
        name = normalize(name)
        if name in self._mentioned:
            return True
        found = self._printed(name) or bool(self.builds and self.builds(name)) or self._joined(name)
        if found:
            self._mentioned.add(name)
        return found

    def _printed(self, name: str) -> bool:
        bare = _ARTICLE.sub("", name)
        if not bare:
            return False
        pattern = re.compile(rf"(?<![\w-]){re.escape(bare)}(?:e?s)?(?![\w-])")
        return any(pattern.search(text) for text in reversed(self._text))

    def _joined(self, name: str) -> bool:
        parts = [p for p in _JOINERS.split(name) if p]
        return len(parts) > 1 and all(self._printed(p) or p in self._mentioned for p in parts)

    def keep(self, triples: Iterable[TripleKey]) -> list[TripleKey]:
        """The triples whose entities the game mentioned; the others are counted in :attr:`dropped`."""
        kept = []
        for subject, relation, obj in triples:
            entities = (subject,) if normalize(relation) in VALUE_RELATIONS else (subject, obj)
            if all(self.mentioned(e) for e in entities):
                kept.append((subject, relation, obj))
            else:
                self.dropped += 1
        return kept


def _flat(text: str) -> str:
    """Lower case, spaces collapsed within each line (a name never spans two lines)."""
    return "\n".join(" ".join(line.split()) for line in text.lower().splitlines())
