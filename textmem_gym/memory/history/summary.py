"""``SummaryMemory``: an LLM running summary and the last steps.

After every update a model rewrites the summary from the goal (``info["objective"]`` when the
game gives one), the last ``recent`` steps, the current observation and the previous summary
(``prompts/summary.txt``, the summarizer prompt of the AriGraph paper's baselines). A step whose
summary call gives nothing keeps the previous summary and is counted in :attr:`failures`. Its
context is the summary first, then the last steps newest first, within the budget; it offers
``reset``, ``build_cost`` (the summary calls' tokens) and ``close``.

Example:
    >>> sorted(PROMPTS.template("summary").get_identifiers())
    ['goal', 'history', 'observation', 'summary']
"""

from __future__ import annotations

from typing import Any

from textmem_gym.llm import LLMCalls, Trimmable
from textmem_gym.llm.prompts import PromptFolder
from textmem_gym.memory.budget import fit_budget
from textmem_gym.memory.history.memory import FullHistoryMemory

#: The summary prompt (``textmem_gym/memory/history/prompts/summary.txt``).
PROMPTS = PromptFolder("textmem_gym.memory.history")
#: Prompt kind of a summary update (accounting key).
KIND_SUMMARY = "summary"


class SummaryMemory(FullHistoryMemory):
    """An LLM running summary plus the last ``recent`` steps.

    Args:
        model, base_url, api_key: The endpoint (else ``$OPENAI_MODEL``, ``$OPENAI_BASE_URL``, ``$OPENAI_API_KEY``).
        client_options: Further :class:`~textmem_gym.llm.LLMClient` arguments (``timeout``...).
        recent: Steps shown besides the summary (and given to each summary update).
        max_tokens: Completion limit of a summary.

    Attributes:
        failures: Updates whose summary call gave nothing (the summary was kept).

    Raises:
        ValueError: No model is given and ``$OPENAI_MODEL`` is not set (one line).
    """

    name = "summary"

    def __init__(self, *, model: str | None = None, base_url: str | None = None, api_key: str | None = None,
                 client_options: dict[str, Any] | None = None, recent: int = 5, max_tokens: int = 256) -> None:
        super().__init__()
        self.llm = LLMCalls(model, base_url, api_key, client_options=client_options)
        self.llm.client  # noqa: B018 -- built now, so a missing model fails here in one line
        self.recent, self.max_tokens = recent, max_tokens
        self.reset()

    def reset(self) -> None:
        """Forgets the steps and the summary."""
        super().reset()
        self.summary, self.goal, self.failures = "none yet", "", 0

    def update(self, observation: str, action: str, info: dict[str, Any]) -> None:
        """Keeps the step and rewrites the summary (kept as it was when the model gives none)."""
        self.goal = self.goal or " ".join(str(info.get("objective", "")).split())
        history = Trimmable("history", self.lines[-self.recent:], sep="\n")
        super().update(observation, action, info)
        answer = self.llm.ask(KIND_SUMMARY, lambda: PROMPTS.render(
            "summary", goal=self.goal or "unknown", history=history.text(), summary=self.summary,
            observation=self.lines[-1]), max_tokens=self.max_tokens, trim=[history])
        if answer is None or not answer.strip():
            self.failures += 1
            return
        self.summary = " ".join(answer.split())

    def context(self, question: str, budget: int) -> list[str]:
        """The summary, then the last steps newest first, within ``budget`` tokens."""
        return fit_budget([f"Summary of the game so far: {self.summary}", *self.lines[-self.recent:][::-1]], budget)

    def build_tokens(self) -> dict[str, int]:
        """The summary updates' tokens."""
        usage = self.llm.client.usage.as_dict()
        return {"prompt_tokens": int(usage["prompt_tokens"]), "completion_tokens": int(usage["completion_tokens"])}

    def close(self) -> None:
        """Closes the client."""
        self.llm.close()


__all__ = ["KIND_SUMMARY", "PROMPTS", "SummaryMemory"]
