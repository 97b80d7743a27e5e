"""Multi-hop QA examples read from the official HotpotQA and MuSiQue files.

One :class:`QAExample` per question, the same shape for both datasets, so a QA method or a
protocol never looks at which file a question came from.

Example:
    >>> p = Paragraph("Vellmar Island", "A lighthouse stands here.", ("A lighthouse stands here.",), True)
    >>> ex = QAExample("q1", "hotpotqa", "What stands on Vellmar Island?", ("a lighthouse",), (p,),
    ...                (("Vellmar Island", 0),), 2, "bridge")
    >>> [g.title for g in ex.gold_paragraphs()]
    ['Vellmar Island']
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Paragraph:
    """One context paragraph of a question.

    Attributes:
        title: The paragraph's title (a Wikipedia page title in the official files).
        text: HotpotQA: its sentences joined with ``" "``; MuSiQue: ``paragraph_text``.
        sentences: HotpotQA: its sentences; MuSiQue: ``(paragraph_text,)``.
        is_supporting: HotpotQA: the title appears in ``supporting_facts``; MuSiQue: ``is_supporting``.
    """

    title: str
    text: str
    sentences: tuple[str, ...]
    is_supporting: bool


@dataclass(frozen=True)
class QAExample:
    """One multi-hop question with its paragraphs, read from an official file.

    Attributes:
        id: HotpotQA ``_id``; MuSiQue ``id``.
        dataset: ``"hotpotqa"`` or ``"musique"``.
        question: The question text.
        answers: The answer first, then MuSiQue's ``answer_aliases`` (HotpotQA: just the answer).
        paragraphs: The context paragraphs in file order.
        supporting_facts: HotpotQA ``(title, sentence index)`` pairs; MuSiQue ``(title, 0)`` per
            supporting paragraph.
        hops: MuSiQue ``len(question_decomposition)``; HotpotQA the number of distinct supporting
            titles (2 in the official files; 3 for the shipped synthetic set's three-hop items).
        kind: HotpotQA ``type`` (``"bridge"``/``"comparison"``); MuSiQue the id prefix
            (``"2hop"``, ``"3hop1"``, ...).
    """

    id: str
    dataset: str
    question: str
    answers: tuple[str, ...]
    paragraphs: tuple[Paragraph, ...]
    supporting_facts: tuple[tuple[str, int], ...]
    hops: int | None
    kind: str | None

    def gold_paragraphs(self) -> tuple[Paragraph, ...]:
        """The supporting paragraphs, in file order."""
        return tuple(p for p in self.paragraphs if p.is_supporting)
