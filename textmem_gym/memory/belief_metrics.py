"""Belief accuracy: precision / recall / F1 of believed triples against observed ground truth.

Per step, the memory's believed triples of the scored relation classes (spatial,
containment, state; see :mod:`textmem_gym.memory.ground_truth`) are compared with the
privileged ground truth restricted to what the agent has observed. Every other believed triple
(a recipe, what a note says, a relation an LLM made up) cannot be checked against the facts: it is
counted as ``unverifiable`` (in ``overall``, with the count per relation in
:attr:`BeliefAccuracy.unverifiable_relations`), never silently dropped, so ``believed`` =
``tp + fp + unverifiable``. Totals are micro-averaged over steps (sum of true positives over sums
of believed / true triples), overall and per class.

Names are matched exactly (normalized), unless the truth tracker declares that its facts name things
by a short name the text may print longer (:class:`AlignsNames`; Jericho's object tree says ``sword``
where the game printed "an elvish sword"): then, before scoring, a believed name is read as the one
truth name it uniquely pairs with (:func:`head_phrase_alignment`). Only the matching changes, never
what the memory believes.

Example:
    >>> truth = {("knife", "is on", "table"), ("table", "is at", "kitchen"), ("fridge", "is", "open")}
    >>> believed = {("knife", "is on", "table"), ("table", "is at", "hall")}
    >>> score = score_beliefs(believed, truth)
    >>> score["overall"].precision, score["overall"].recall
    (0.5, 0.3333333333333333)
    >>> score["state"].recall
    0.0
    >>> score = score_beliefs(believed | {("note", "says", "hello")}, truth)
    >>> score["overall"].unverifiable, score["overall"].believed
    (1, 3)
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from textmem_gym.envs.privileged import FactTriple
from textmem_gym.memory.ground_truth import RELATION_CLASSES, ObservedTruth, Truth, relation_class
from textmem_gym.memory.semantic import TripleKey, normalize


@dataclass
class Counts:
    """True positives, false positives, false negatives and believed triples no fact can check."""

    tp: int = 0
    fp: int = 0
    fn: int = 0
    unverifiable: int = 0

    def __iadd__(self, other: Counts) -> Counts:
        self.tp, self.fp, self.fn = self.tp + other.tp, self.fp + other.fp, self.fn + other.fn
        self.unverifiable += other.unverifiable
        return self

    @property
    def believed(self) -> int:
        """Every believed triple counted: checked (TP + FP) and unverifiable."""
        return self.tp + self.fp + self.unverifiable

    @property
    def precision(self) -> float:
        """TP / believed (1.0 when nothing is believed)."""
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 1.0

    @property
    def recall(self) -> float:
        """TP / true (1.0 when nothing is true)."""
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 1.0

    @property
    def f1(self) -> float:
        """Harmonic mean of precision and recall."""
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0

    def as_dict(self) -> dict[str, float]:
        """Counts and ratios."""
        return {"tp": self.tp, "fp": self.fp, "fn": self.fn, "unverifiable": self.unverifiable,
                "believed": self.believed, "precision": self.precision, "recall": self.recall, "f1": self.f1}


def _normalized(triples: Iterable[TripleKey]) -> set[TripleKey]:
    return {(normalize(s), normalize(r), normalize(o)) for s, r, o in triples}


@runtime_checkable
class ChecksPartly(Protocol):
    """A truth tracker whose facts cannot check some relation classes (the Jericho object tree has no
    open/closed states): believed triples of those classes count as unverifiable, never as wrong."""

    unchecked_classes: frozenset[str]


@runtime_checkable
class AlignsNames(Protocol):
    """A truth tracker whose facts may name a thing by a shorter or longer phrase than the text printed
    (Jericho's object tree: ``sword`` for "an elvish sword"): belief accuracy reads each believed name
    as the truth name :meth:`align_names` pairs it with before scoring (unpaired names stay as they are)."""

    def align_names(self, believed: Collection[str], truth: Collection[str]) -> dict[str, str]:
        """``{believed name: truth name}`` for the believed names (normalized) that denote a truth
        entity of ``truth`` (the entities of the observed truth now) under another name."""
        ...


@runtime_checkable
class PlacesUnknownHolders(Protocol):
    """A truth tracker whose facts lack some holders the text names (Planetfall's ``upper shelf``: the object
    tree has the metal bar in the tool room, no shelf): belief accuracy has it re-read the believed triples
    (:meth:`rehome`) after name alignment, so that a true-to-text belief is not wrong for want of a holder."""

    def rehome(self, believed: set[TripleKey]) -> tuple[set[TripleKey], set[TripleKey]]:
        """``(scored, unverifiable)``: ``believed`` (normalized) with a thing in or on a holder the facts lack
        read as at that holder's believed room, and the triples that cannot be checked for want of it."""
        ...


def _words(name: str) -> tuple[str, ...]:
    """The words of a name; a hyphen splits words (``solid-gold coffin``: solid, gold, coffin)."""
    return tuple(word for word in re.split(r"[\s-]+", name) if word)


def _ends_with(words: tuple[str, ...], tail: tuple[str, ...]) -> bool:
    return 0 < len(tail) <= len(words) and words[len(words) - len(tail):] == tail


def head_phrase_alignment(believed: Collection[str], truth: Collection[str]) -> dict[str, str]:
    """Pairs believed names with truth names denoting the same thing by their head-noun phrase: one
    name's words end with the other's (``elvish sword`` ~ ``sword``, ``large black book`` ~ ``black
    book``, ``solid-gold coffin`` ~ ``gold coffin``; hyphens split words), either name read up to its
    ``of`` (``large bowl of hot porridge`` ~ ``large bowl``). A pair counts only when it
    is unique both ways: the believed name is no truth name and matches exactly one truth name, and
    that truth name matches no other believed name (nor is one itself). Ambiguous names stay unpaired.

    Args:
        believed: The believed entity names (normalized).
        truth: The truth entity names in view (normalized).

    Returns:
        ``{believed name: truth name}`` for the unique pairs, in the believed names' order.

    Example:
        >>> head_phrase_alignment({"elvish sword", "inventory"}, {"sword", "inventory", "lamp"})
        {'elvish sword': 'sword'}
        >>> head_phrase_alignment({"solid-gold coffin"}, {"gold coffin"})
        {'solid-gold coffin': 'gold coffin'}
        >>> head_phrase_alignment({"door"}, {"front door", "trap door"})  # two truth names: ambiguous
        {}
        >>> head_phrase_alignment({"elvish sword", "rusty sword"}, {"sword"})  # two believed names
        {}
        >>> head_phrase_alignment({"sword"}, {"elvish sword"})  # either way round
        {'sword': 'elvish sword'}
        >>> head_phrase_alignment({"large bowl of hot porridge", "small bowl"}, {"large bowl", "small bowl"})
        {'large bowl of hot porridge': 'large bowl'}
        >>> head_phrase_alignment({"bag of crumbs"}, {"bag of gold"})  # one name read up to "of", not both
        {}
    """
    truth_words = {name: _words(name) for name in sorted(truth)}
    believed_words = {name: _words(name) for name in sorted(believed)}

    def same(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
        return any(_ends_with(x, y) or _ends_with(y, x) for x, y in ((a, b), (_before_of(a), b), (a, _before_of(b))))

    matches = {name: [t for t, tw in truth_words.items() if same(words, tw)]
               for name, words in believed_words.items() if name not in truth_words}
    claims = Counter(t for name, words in believed_words.items() for t, tw in truth_words.items()
                     if (name not in truth_words or name == t) and same(words, tw))
    return {name: found[0] for name, found in matches.items() if len(found) == 1 and claims[found[0]] == 1}


def _before_of(words: tuple[str, ...]) -> tuple[str, ...]:
    """The words of a name before its first ``of`` (``bowl of porridge`` -> ``bowl``), all of them without one."""
    return words[:words.index("of")] if "of" in words[1:] else words


def aligned(triples: Iterable[TripleKey], names: Mapping[str, str]) -> set[TripleKey]:
    """The triples with their subjects and objects renamed by ``names`` (others unchanged).

    Example:
        >>> aligned([("elvish sword", "is in", "inventory")], {"elvish sword": "sword"})
        {('sword', 'is in', 'inventory')}
    """
    return {(names.get(s, s), r, names.get(o, o)) for s, r, o in triples}


def _entities(triples: Iterable[TripleKey]) -> set[str]:
    return {name for s, _, o in triples for name in (s, o)}


def _scored(triples: Iterable[TripleKey], unchecked: frozenset[str] = frozenset()) -> set[TripleKey]:
    """The triples normalized, keeping those of a scored relation class (not one of ``unchecked``)."""
    return _checked(_normalized(triples), unchecked)


def _checked(triples: set[TripleKey], unchecked: frozenset[str]) -> set[TripleKey]:
    """The triples (already normalized) of a scored relation class, not one of ``unchecked``."""
    return {triple for triple in triples if relation_class(triple) not in (None, *unchecked)}


def unverifiable(believed: Iterable[TripleKey], unchecked: frozenset[str] = frozenset()) -> set[TripleKey]:
    """The believed triples of no scored relation class, or of a class in ``unchecked`` (no fact can
    check them).

    Example:
        >>> sorted(unverifiable([("recipe", "requires", "apple"), ("apple", "is in", "inventory")]))
        [('recipe', 'requires', 'apple')]
        >>> sorted(unverifiable([("box", "is", "open")], frozenset({"state"})))
        [('box', 'is', 'open')]
    """
    return {triple for triple in _normalized(believed) if relation_class(triple) in (None, *unchecked)}


def score_beliefs(believed: Iterable[TripleKey], truth: Iterable[TripleKey],
                  unchecked: frozenset[str] = frozenset()) -> dict[str, Counts]:
    """Counts per relation class and ``overall`` (believed triples of no class, or of a class in
    ``unchecked``, are counted as ``unverifiable`` in ``overall``)."""
    return _score(_normalized(believed), _normalized(truth), unchecked)


def _score(believed: set[TripleKey], truth: set[TripleKey], unchecked: frozenset[str]) -> dict[str, Counts]:
    """:func:`score_beliefs` of triples already normalized."""
    believed_set, truth_set = _checked(believed, unchecked), _checked(truth, unchecked)
    result = {name: Counts() for name in (*RELATION_CLASSES, "overall")}
    result["overall"].unverifiable = len(believed - believed_set)
    for triple in believed_set | truth_set:
        cls = relation_class(triple)
        assert cls is not None  # _checked keeps scored triples only
        hit = Counts(tp=1) if triple in believed_set and triple in truth_set else (
            Counts(fp=1) if triple in believed_set else Counts(fn=1))
        result[cls] += hit
        result["overall"] += hit
    return result


class BeliefAccuracy:
    """Accumulates belief accuracy along episodes.

    Args:
        truth: The observed-truth tracker of the env's facts (default: TextWorld's predicates,
            :class:`~textmem_gym.memory.ground_truth.ObservedTruth`; a backend's own comes with
            its text parser, :meth:`~textmem_gym.memory.extractors.base.TextParser.observed_truth`).
            A tracker that is :class:`ChecksPartly` leaves its unchecked classes unverifiable; one that
            :class:`AlignsNames` has the believed names of each step read as its names before scoring; one
            that :class:`PlacesUnknownHolders` re-reads what is believed in or on a holder its facts lack.

    Example:
        >>> metric = BeliefAccuracy()
        >>> facts = [("P", "at", "hall"), ("chest", "at", "hall")]
        >>> metric.step(facts, "", [("chest", "is at", "hall")])["overall"].f1
        1.0
        >>> metric.summary()["overall"]["precision"]
        1.0
    """

    def __init__(self, truth: Truth | None = None) -> None:
        self.totals = {name: Counts() for name in (*RELATION_CLASSES, "overall")}
        self.steps = 0
        self.truth: Truth = ObservedTruth() if truth is None else truth
        self.unchecked: frozenset[str] = self.truth.unchecked_classes if isinstance(self.truth, ChecksPartly) \
            else frozenset()
        self.aligner: AlignsNames | None = self.truth if isinstance(self.truth, AlignsNames) else None
        self.rehomer: PlacesUnknownHolders | None = self.truth if isinstance(self.truth, PlacesUnknownHolders) \
            else None
        self.last_errors: dict[str, set[TripleKey]] = {"false_positives": set(), "false_negatives": set(),
                                                       "unverifiable": set()}
        self.unverifiable_relations: Counter[str] = Counter()

    def reset(self) -> None:
        """New episode (totals are kept)."""
        self.truth.reset()

    def step(self, facts: Iterable[FactTriple], action: str, believed: Iterable[TripleKey],
             observation: str | None = None) -> dict[str, Counts]:
        """Scores one step: ``facts`` are the privileged facts after ``action``, ``observation``
        the text the agent saw (it scopes which states count as observed). The believed names are
        aligned to the truth's first when the tracker :class:`AlignsNames`."""
        truth = self.truth.step(facts, action, observation)
        believed = list(believed)
        scored, unchecked = _scored(believed, self.unchecked), unverifiable(believed, self.unchecked)
        truth = _scored(truth, self.unchecked)
        if self.aligner is not None:
            scored = aligned(scored, self.aligner.align_names(_entities(scored), _entities(truth)))
        lacking: set[TripleKey] = set()
        if self.rehomer is not None:
            scored, lacking = self.rehomer.rehome(scored)
        self.last_errors = {"false_positives": scored - truth, "false_negatives": truth - scored,
                            "unverifiable": unchecked | lacking}
        self.unverifiable_relations.update(relation for _, relation, _ in unchecked | lacking)
        score = _score(scored | unchecked, truth, self.unchecked)  # both normalized above
        score["overall"].unverifiable += len(lacking)
        for name, counts in score.items():
            self.totals[name] += counts
        self.steps += 1
        return score

    def summary(self) -> dict[str, dict[str, float]]:
        """Micro-averaged counts and ratios per class and overall (``overall`` also counts the
        ``unverifiable`` believed triples and all ``believed`` ones, summed over steps)."""
        return {name: counts.as_dict() for name, counts in self.totals.items()}
