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
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

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


def paragraph_recall(ranked: Sequence[int], supporting: set[int] | frozenset[int], k: int) -> float | None:
    """Share of ``supporting`` paragraph indices among the first ``k`` of ``ranked`` (``None``: no supporting)."""
    if not supporting:
        return None
    return len(set(ranked[:k]) & set(supporting)) / len(supporting)


__all__ = ["BUDGETS", "PARAGRAPH_KS", "Targets", "answer_recalled", "contains", "paragraph_recall",
           "recall_at_budgets", "targets_of"]
