"""A rule-driven stand-in model for memory probes, served by the real
:class:`~textmem_gym.llm.LocalOpenAIServer` (tests, offline demos).

:class:`ProbeReader` answers the two prompt kinds a probe sends:

* **answers** (the QA answer prompt): by the QA stand-in
  (:class:`~textmem_gym.qa.testing.ContextReader`): a question's gold answer or alias when the
  context the prompt shows holds it, else ``Unknown``. So its EM measures whether a memory put the
  answer in front of the model within the budget; it is no model of reading;
* **summary updates** (``textmem_gym/memory/history/prompts/summary.txt``): the previous summary followed by the current
  step's command and first sentence, cut to its last ``keep`` characters.

Example:
    >>> from textmem_gym.qa.probes.questions import ProbeQuestion
    >>> question = ProbeQuestion("location:knife", "location", 3, "Where is the knife?", ("table",))
    >>> reader = ProbeReader([question])
    >>> prompt = ('question: "Where is the knife?"\\nRelevant texts:\\nknife, is on, table\\n'
    ...           'Answer with a chain of thoughts, then a direct answer.')
    >>> reader([{"role": "user", "content": prompt}])
    '{"chain_of_thought": "the context says table", "direct_answer": "table"}'
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from textmem_gym.qa.probes.questions import ProbeQuestion
from textmem_gym.qa.testing import ContextReader

#: What only the summary update prompt holds.
SUMMARY_MARK = "Your summary:"


class ProbeReader:
    """``messages -> answer`` by the rules of the module docstring.

    Args:
        questions: The questions that will be asked (their gold answers are given only when the
            context holds them).
        keep: Longest summary, in characters.

    Attributes:
        summaries: Summary updates answered.
    """

    def __init__(self, questions: Iterable[ProbeQuestion], keep: int = 1500) -> None:
        self.reader = ContextReader(q.as_example() for q in questions)
        self.keep, self.summaries = keep, 0

    def __call__(self, messages: list[dict[str, Any]]) -> str:
        prompt = str(messages[-1]["content"])
        if SUMMARY_MARK in prompt:
            return self._summary(prompt)
        return self.reader(messages)

    def _summary(self, prompt: str) -> str:
        self.summaries += 1
        previous = _field(prompt, "4. Your previous summary:")
        current = re.sub(r"^step \d+:\s*", "", _field(prompt, "3. Your current observation:"))
        first = re.split(r"(?<=[.!?])\s", current, maxsplit=1)[0]
        summary = first if previous in ("", "none yet") else f"{previous} {first}"
        return summary[-self.keep:]


def _field(prompt: str, label: str) -> str:
    return prompt.split(label, 1)[-1].split("\n", 1)[0].strip() if label in prompt else ""


__all__ = ["SUMMARY_MARK", "ProbeReader"]
