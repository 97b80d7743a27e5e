"""Answer EM and F1 as the official evaluation scripts compute them.

- Normalisation (both scripts, from SQuAD's): lower case, drop ASCII punctuation
  (``string.punctuation``), drop the words ``a``/``an``/``the``, collapse whitespace.
- Exact match: the normalised strings are equal.
- HotpotQA F1 (``hotpot_evaluate_v1.py``): token F1 over the normalised strings; when either side
  normalises to ``yes``, ``no`` or ``noanswer`` and the two differ, F1 is 0; no shared token -> 0.
- MuSiQue F1 (``metrics/answer.py`` of the MuSiQue repository): token F1; when either side has no
  token, F1 is 1 if both are empty, else 0; no shared token -> 0.
- MuSiQue takes the maximum EM and the maximum F1 over the answer and its ``answer_aliases``
  (``evaluate_v1.0.py``); HotpotQA has one answer.

:func:`score` picks the dataset's rule from :data:`SCORERS` by ``example.dataset``. Scores are
fractions in [0, 1]; the papers' tables show them x 100.

Example:
    >>> normalize_answer("The  Sarl River!")
    'sarl river'
    >>> round(hotpot_f1("the Sarl River in Ossen", "Sarl River"), 4)
    0.6667
    >>> hotpot_f1("yes", "yes sir"), musique_f1("yes", "yes sir")
    (0.0, 0.6666666666666666)
"""

from __future__ import annotations

import re
import string
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Protocol

from textmem_gym.loading import unknown_name

_ARTICLES = re.compile(r"\b(a|an|the)\b", re.UNICODE)
_PUNCTUATION = frozenset(string.punctuation)
_HOTPOT_SPECIAL = ("yes", "no", "noanswer")


class _Example(Protocol):
    """What :func:`score` reads of an example (a :class:`~textmem_gym.qa.data.QAExample`)."""

    @property
    def dataset(self) -> str: ...  # noqa: D102

    @property
    def answers(self) -> tuple[str, ...]: ...  # noqa: D102


def normalize_answer(text: str) -> str:
    """Lower case, no ASCII punctuation, no articles ``a``/``an``/``the``, single spaces.

    Example:
        >>> normalize_answer("An Orvane-Kel  Company.")
        'orvanekel company'
    """
    lowered = text.lower()
    no_punctuation = "".join(ch for ch in lowered if ch not in _PUNCTUATION)
    return " ".join(_ARTICLES.sub(" ", no_punctuation).split())


def exact_match(prediction: str, gold: str) -> float:
    """1.0 if the normalised strings are equal, else 0.0 (both scripts).

    Example:
        >>> exact_match("the Keltrim Glassworks", "Keltrim glassworks.")
        1.0
    """
    return float(normalize_answer(prediction) == normalize_answer(gold))


def _token_f1(prediction_tokens: list[str], gold_tokens: list[str]) -> float:
    shared = sum((Counter(prediction_tokens) & Counter(gold_tokens)).values())
    if shared == 0:
        return 0.0
    precision = shared / len(prediction_tokens)
    recall = shared / len(gold_tokens)
    return 2 * precision * recall / (precision + recall)


def hotpot_f1(prediction: str, gold: str) -> float:
    """Token F1 as ``hotpot_evaluate_v1.py``: yes/no/noanswer must match exactly.

    Example:
        >>> hotpot_f1("no", "No."), hotpot_f1("noanswer", "Ossen")
        (1.0, 0.0)
    """
    pred, truth = normalize_answer(prediction), normalize_answer(gold)
    if (pred in _HOTPOT_SPECIAL or truth in _HOTPOT_SPECIAL) and pred != truth:
        return 0.0
    return _token_f1(pred.split(), truth.split())


def musique_f1(prediction: str, gold: str) -> float:
    """Token F1 as MuSiQue's ``metrics/answer.py``: two empty answers agree (1.0).

    Example:
        >>> musique_f1("", "the"), musique_f1("", "Ossen")
        (1.0, 0.0)
    """
    pred, truth = normalize_answer(prediction).split(), normalize_answer(gold).split()
    if not pred or not truth:
        return float(pred == truth)
    return _token_f1(pred, truth)


@dataclass(frozen=True)
class AnswerScorer:
    """A dataset's official answer metrics: EM and F1 of one prediction against one gold answer."""

    exact_match: Callable[[str, str], float]
    f1: Callable[[str, str], float]


#: Dataset name -> its official EM and F1 (the maximum is taken over ``example.answers``).
SCORERS: dict[str, AnswerScorer] = {
    "hotpotqa": AnswerScorer(exact_match=exact_match, f1=hotpot_f1),
    "musique": AnswerScorer(exact_match=exact_match, f1=musique_f1),
}


def score(prediction: str, example: _Example) -> dict[str, float]:
    """EM and F1 of ``prediction``: the maximum over ``example.answers`` with the dataset's rule.

    Args:
        prediction: The method's answer text.
        example: A :class:`~textmem_gym.qa.data.QAExample` (its ``dataset`` selects the rule).

    Returns:
        ``{"em": ..., "f1": ...}``, each in [0, 1].

    Raises:
        ValueError: ``example.dataset`` has no scorer (the message lists the known datasets).

    Example:
        >>> from textmem_gym.qa.data import QAExample
        >>> ex = QAExample("2hop__1_2", "musique", "Where?", ("Port Ossen", "Ossenhaven"), (), (), 2, "2hop")
        >>> score("Ossenhaven", ex)
        {'em': 1.0, 'f1': 1.0}
    """
    scorer = SCORERS.get(example.dataset)
    if scorer is None:
        raise unknown_name("QA dataset", example.dataset, sorted(SCORERS), detail="no answer scorer")
    answers = example.answers or ("",)
    return {"em": max(scorer.exact_match(prediction, gold) for gold in answers),
            "f1": max(scorer.f1(prediction, gold) for gold in answers)}


def mean_scores(scores: Iterable[Mapping[str, float]]) -> dict[str, float]:
    """The mean of each metric over questions (as the official scripts divide by the count).

    Example:
        >>> mean_scores([{"em": 1.0, "f1": 1.0}, {"em": 0.0, "f1": 0.5}])
        {'em': 0.5, 'f1': 0.75, 'n': 2.0}
    """
    rows = list(scores)
    keys = sorted({key for row in rows for key in row})
    means = {key: sum(row.get(key, 0.0) for row in rows) / len(rows) if rows else 0.0 for key in keys}
    return {**means, "n": float(len(rows))}
