"""Answer recall and first-mention accuracy of a probe question at a token budget, with no model.

The context a memory returns for the question within ``B`` tokens is cut to ``B``
(:func:`~textmem_gym.memory.budget.fit_budget`) and read as :mod:`textmem_gym.qa.recall` reads it
(normalised text, whole words). By kind:

- **most kinds**: recalled iff the context holds one of the question's targets
  (:attr:`~textmem_gym.qa.probes.questions.ProbeQuestion.targets`: the gold answer or an alias; for
  answers listing things, every thing listed);
- **counting** (a number is no evidence): recalled iff at least ``count`` lines of the context
  mention the event: the room's name for ``enter``, ``open <thing>`` for ``open``. It is an upper
  bound: it asks whether the evidence could be there, not whether the lines are the events;
- **abstention** (the thing was never seen; the answer is "unknown"): recalled iff no line of the
  context that names the thing also names a place of the game (any room or holder of the true
  state). A memory that never invents the thing is recalled at every budget; one that puts it
  somewhere is not.

**First-mention accuracy** (:func:`first_mentioned`) reads the same cut context with
:func:`~textmem_gym.qa.recall.mentioned_first` over the question's
:attr:`~textmem_gym.qa.probes.questions.ProbeQuestion.candidates`: right when the first candidate
named is a gold one (for an answer listing things, when every one is named before any rival),
skipping the question's :attr:`~textmem_gym.qa.probes.questions.ProbeQuestion.neutral` names. An
``abstention`` question is right when no line of the cut context that names the thing names a
candidate (or "unknown" first): a reader takes a place for the thing only from a line about it, so a
memory that lists the current state beside its answer is not punished for naming rooms elsewhere. A
question with no rival (``actions``, ``changes``, ``recipe``, ``path``, ``counting``, and a thing
that has had one holder in a game where no other place was named) has nothing to be misled by:
its first-mention accuracy is its answer recall.

Example:
    >>> from textmem_gym.qa.probes.questions import ProbeQuestion
    >>> where = ProbeQuestion("abstention:key", "abstention", 5, "Where is the key?", ("unknown",),
    ...                       {"thing": "key", "places": ["kitchen", "table"]})
    >>> probe_recall(where, ["the key is on the table"], (256,)), probe_recall(where, ["a table"], (256,))
    ({'256': False}, {'256': True})
    >>> where = ProbeQuestion("abstention:key", "abstention", 5, "Where is the key?", ("unknown",),
    ...                       {"thing": "key", "places": ["kitchen", "table"]},
    ...                       candidates=("unknown", "kitchen", "table"))
    >>> probe_first_mention(where, ["you are in the kitchen", "a table"], (256,))
    {'256': True}
    >>> probe_first_mention(where, ["the key is on the table"], (256,))
    {'256': False}
    >>> count = ProbeQuestion("counting:open:fridge", "counting", 9, "How many...", ("2", "two"),
    ...                       {"event": "open", "target": "fridge", "count": 2})
    >>> probe_recall(count, ["> open fridge: You open the fridge.", "> open fridge: ok"], (256, 4))
    {'256': True, '4': False}
    >>> knife = ProbeQuestion("location:knife", "location", 5, "Where is the knife?", ("fridge", "in fridge"),
    ...                       {"thing": "knife"}, candidates=("fridge", "in fridge", "table"), neutral=("knife",))
    >>> lines = ["the knife was on the table", "the knife is in the fridge"]
    >>> probe_recall(knife, lines, (256,)), probe_first_mention(knife, lines, (256,))
    ({'256': True}, {'256': False})
"""

from __future__ import annotations

from collections.abc import Sequence

from textmem_gym.memory.budget import TokenCounter, fit_budget
from textmem_gym.qa.probes.questions import ProbeQuestion
from textmem_gym.qa.recall import BUDGETS, answer_recalled, contains, mentioned_first


def _abstained(lines: Sequence[str], question: ProbeQuestion) -> bool:
    thing = question.args["thing"]
    places = [p for p in question.args.get("places", ()) if p != thing]
    return not any(contains(line, thing) and any(contains(line, place) for place in places) for line in lines)


def _counted(lines: Sequence[str], question: ProbeQuestion) -> bool:
    target = question.args["target"]
    phrase = target if question.args["event"] == "enter" else f"open {target}"
    return sum(contains(line, phrase) for line in lines) >= int(question.args["count"])


def recalled(lines: Sequence[str], question: ProbeQuestion, budget: int, counter: TokenCounter | None = None) -> bool:
    """Whether ``question`` is recalled from ``lines`` cut to ``budget`` tokens (see the module docstring)."""
    if question.kind == "abstention":
        return _abstained(fit_budget(lines, budget, counter), question)
    if question.kind == "counting":
        return _counted(fit_budget(lines, budget, counter), question)
    return answer_recalled(lines, question.targets, budget, counter)


def probe_recall(question: ProbeQuestion, lines: Sequence[str], budgets: Sequence[int] = BUDGETS,
                 counter: TokenCounter | None = None) -> dict[str, bool]:
    """``str(budget) -> recalled`` for each budget, all read from the same ``lines``.

    The probe asks the memory once per budget and calls :func:`recalled` on each context; this
    form reads one context at several budgets.
    """
    return {str(budget): recalled(lines, question, budget, counter) for budget in budgets}


def first_mentioned(lines: Sequence[str], question: ProbeQuestion, budget: int,
                    counter: TokenCounter | None = None) -> bool:
    """Whether the first candidate ``lines`` cut to ``budget`` tokens name is gold (see the module docstring)."""
    abstains = question.kind == "abstention"
    if not abstains and (question.kind == "counting" or not question.rivals):
        return recalled(lines, question, budget, counter)
    if abstains:  # a reader takes a place for the thing only from a line that names the thing
        thing = question.args["thing"]
        lines = [line for line in fit_budget(lines, budget, counter) if contains(line, thing)]
    return mentioned_first(lines, question.gold, question.rivals, budget, counter, neutral=question.neutral,
                           every=bool(question.parts), none_right=abstains)


def probe_first_mention(question: ProbeQuestion, lines: Sequence[str], budgets: Sequence[int] = BUDGETS,
                        counter: TokenCounter | None = None) -> dict[str, bool]:
    """``str(budget) -> first mentioned`` for each budget, all read from the same ``lines``."""
    return {str(budget): first_mentioned(lines, question, budget, counter) for budget in budgets}


__all__ = ["first_mentioned", "probe_first_mention", "probe_recall", "recalled"]
