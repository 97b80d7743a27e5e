"""Recall with no model: is the answer in what a memory returns, and are the supporting paragraphs?

**Answer recall at budget B** (probes and QA): a memory's ``context(question, B)`` is cut to
``B`` tokens (:func:`textmem_gym.memory.budget.fit_budget`, the reader's token counter where it is
known, else ``ceil(characters / 4)``), joined with newlines and normalised as the answer scorer
normalises (:func:`textmem_gym.qa.scoring.normalize_answer`: lower case, no punctuation, no
articles, single spaces). The question counts as recalled when one of its **targets** appears in
it as whole words: a target is the gold answer or one of its aliases (normalised the same way),
or, for answers made of several parts (the things in a container), a tuple of parts that must
all appear. Recall at B is the share of questions recalled. A context longer than B (a memory
that ignores its budget) is cut to B before it is read, so no memory gains by overrunning.

**First-mention accuracy at budget B** (probes and QA): recall counts a context that holds a stale
answer and the current one as right; a reader who takes the first answer it meets does not. Among
a question's **candidates** (the gold answer and its aliases, and its **rivals**: the other
answers a context could give, such as the thing's earlier holders and the places named so far),
the context cut to ``B`` tokens is read line by line, left to right, each line normalised as
above; at each place the longest candidate that appears there as whole words is taken (so
``red potion`` never hides ``purple-red potion``, and ``kitchen table`` is not read as
``kitchen``). Names the question itself is about (its **neutral** names: the thing asked about,
the places holding the gold) are read the same way and skipped, so a rival inside them
(``kitchen`` in ``kitchen knife``) does not count. The question is right at ``B`` when the first
candidate named is a gold one (:func:`mentioned_first`); for an answer listing several things,
when every listed thing is named before any rival; when no candidate is named it is wrong, except
for a question whose gold is "not known" (``none_right``), which is right exactly then or when
its gold ("unknown") comes first. A name that normalises like a gold one is gold; a neutral name
is never a rival.

**Supporting-paragraph recall@k** (QA, as HippoRAG reports it): of a question's supporting
paragraphs, the share among the first ``k`` paragraphs a memory ranks for the question (its
optional ``sources(question, k)`` part); a memory that ranks no paragraphs reports "not offered".

Example:
    >>> answer_recalled(["the knife is on the Table."], [("table",)], 256)
    True
    >>> answer_recalled(["the knife is on the table."], [("fridge",), ("counter",)], 256)
    False
    >>> answer_recalled(["apple, fridge", "knife, fridge"], [("apple", "knife")], 256)
    True
    >>> answer_recalled(["x" * 40, "the table"], [("table",)], 8)
    False
    >>> paragraph_recall([3, 1, 7], {1, 2}, 2)
    0.5
    >>> mentioned_first(["knife: was on the table", "knife: in the fridge"], ["fridge"], ["table"], 256)
    False
    >>> mentioned_first(["a purple-red potion is on the altar"], ["altar"], ["red potion"], 256)
    True
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from functools import lru_cache

from textmem_gym.memory.budget import TokenCounter, fit_budget
from textmem_gym.qa.scoring import normalize_answer

#: The budgets (tokens) answer recall is reported at.
BUDGETS: tuple[int, ...] = (256, 512, 1024, 2048)
#: The ``k`` of supporting-paragraph recall@k.
PARAGRAPH_KS: tuple[int, ...] = (2, 5)

#: Alternatives, each a tuple of strings that must all appear.
Targets = Sequence[Sequence[str]]


def targets_of(answers: Iterable[str]) -> list[tuple[str, ...]]:
    """One single-part target per answer and alias (the default targets of a question)."""
    return [(answer,) for answer in answers]


def contains(haystack: str, needle: str) -> bool:
    """Whether normalised ``needle`` appears in normalised ``haystack`` as whole words.

    Example:
        >>> contains("The Fridge is open", "fridge"), contains("refridgerator", "fridge")
        (True, False)
    """
    words = normalize_answer(needle)
    return bool(words) and f" {words} " in f" {normalize_answer(haystack)} "


def answer_recalled(lines: Sequence[str], targets: Targets, budget: int,
                    counter: TokenCounter | None = None) -> bool:
    """Whether a target appears in ``lines`` cut to ``budget`` tokens (see the module docstring)."""
    text = " " + normalize_answer("\n".join(fit_budget(lines, budget, counter))) + " "
    return any(all(_found(text, part) for part in target) and len(target) > 0 for target in targets)


def _found(normalized_text: str, part: str) -> bool:
    words = normalize_answer(part)
    return bool(words) and f" {words} " in normalized_text


def recall_at_budgets(lines: Sequence[str], targets: Targets, budgets: Sequence[int] = BUDGETS,
                      counter: TokenCounter | None = None) -> dict[int, bool]:
    """:func:`answer_recalled` at each budget."""
    return {budget: answer_recalled(lines, targets, budget, counter) for budget in budgets}


def _normal_names(names: Iterable[str]) -> list[str]:
    """The normalised names, non-empty, each once, in the order given."""
    return list(dict.fromkeys(n for n in map(normalize_answer, names) if n))


@lru_cache(maxsize=4096)
def _pattern(names: tuple[str, ...]) -> re.Pattern[str]:
    """Whole-word alternation of normalised ``names``, longest first (leftmost-longest matching)."""
    ordered = sorted(names, key=lambda n: (-len(n), n))
    return re.compile(r"(?<!\S)(?:" + "|".join(map(re.escape, ordered)) + r")(?!\S)")


def mentions(lines: Sequence[str], names: Iterable[str]) -> list[str]:
    """The normalised ``names`` that ``lines`` name, in order of first mention, each once: lines in
    order, each normalised alone and read left to right, the longest name at each place.

    Example:
        >>> mentions(["The purple-red potion; a red potion.", "Red potion!"], ["red potion", "purple-red potion"])
        ['purplered potion', 'red potion']
        >>> mentions(["kitchen table"], ["kitchen", "table"])
        ['kitchen', 'table']
    """
    wanted = tuple(_normal_names(names))
    if not wanted:
        return []
    pattern, found = _pattern(wanted), dict[str, None]()
    for line in lines:
        for match in pattern.finditer(normalize_answer(line)):
            found.setdefault(match.group(0), None)
    return list(found)


def mentioned_first(lines: Sequence[str], gold: Sequence[str], rivals: Iterable[str], budget: int,
                    counter: TokenCounter | None = None, *, neutral: Iterable[str] = (), every: bool = False,
                    none_right: bool = False) -> bool:
    """First-mention accuracy of one question at ``budget`` (see the module docstring).

    Args:
        lines: The memory's context, most relevant first (cut to ``budget`` here).
        gold: The gold answer and its aliases (with ``every``: the things an answer lists, all needed).
        rivals: The other candidates (a rival that normalises like a gold or neutral name is dropped).
        budget: Tokens read.
        counter: The reader's token counter (default ``ceil(characters / 4)``).
        neutral: Names read and skipped (the question's own subject, the places holding the gold).
        every: Every gold name must be named before any rival (an answer listing things).
        none_right: Naming no candidate is right (a question whose gold is "not known").

    Example:
        >>> mentioned_first(["the kitchen knife is on the table"], ["table"], ["kitchen"], 256,
        ...                 neutral=["kitchen knife"])
        True
        >>> mentioned_first(["apple, fridge", "carrot, fridge", "milk, fridge"], ["apple", "milk"], ["carrot"], 256,
        ...                 every=True)
        False
        >>> mentioned_first(["nothing about it"], ["unknown"], ["hall"], 256, none_right=True)
        True
    """
    golds = set(_normal_names(gold))
    skipped = set(_normal_names(neutral)) - golds
    others = set(_normal_names(rivals)) - golds - skipped
    needed = set(golds)
    for name in mentions(fit_budget(lines, budget, counter), [*golds, *skipped, *others]):
        if name in others:
            return False
        if name in golds:
            needed.discard(name)
            if not every or not needed:
                return True
    return none_right and needed == golds


def paragraph_recall(ranked: Sequence[int], supporting: set[int] | frozenset[int], k: int) -> float | None:
    """Share of ``supporting`` paragraph indices among the first ``k`` of ``ranked`` (``None``: no supporting)."""
    if not supporting:
        return None
    return len(set(ranked[:k]) & set(supporting)) / len(supporting)


__all__ = ["BUDGETS", "PARAGRAPH_KS", "Targets", "answer_recalled", "contains", "mentioned_first", "mentions",
           "paragraph_recall", "recall_at_budgets", "targets_of"]
