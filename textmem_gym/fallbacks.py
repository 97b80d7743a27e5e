"""Fallbacks: env actions a policy sent that did not come from its model as asked.

Every LLM policy counts them per episode by cause (``episode_stats()["fallbacks"]``) next to the
share of env actions its model chose (``episode_stats()["model_actions"]``); results tables show
both. With ``strict=True`` a policy raises :class:`FallbackError` at its first fallback instead;
the runner ends the episode there and records it as an error with its cause (excluded from the
means, counted in the table).

Example:
    >>> error = FallbackError("unparseable", "no action in the answer")
    >>> error.cause, str(error)
    ('unparseable', 'strict mode: fallback (unparseable): no action in the answer')
"""

from __future__ import annotations

#: Cause -> what happened (every policy uses these names).
FALLBACK_CAUSES: dict[str, str] = {
    "llm_error": "the LLM call failed after the client's retries (a heuristic acted)",
    "context_overflow": "the prompt did not fit the context window, even trimmed and sent once more",
    "unparseable": "the answer held no action the parser could read (a heuristic acted)",
    "invalid_mapped": "the model's action was not admissible: the most similar admissible command was sent",
    "invalid_defaulted": "the model's action was not admissible and nothing was close: a default was sent",
    "critic_substitution": "the heuristic critic replaced the model's action",
    "loop_guard": "the loop guard replaced the model's action",
    "plans_rejected": "every plan of the decision was rejected (replan limit): a heuristic acted",
    "no_logprobs": "the endpoint gave no log-probabilities to score commands with: the model chose by chat instead",
}


class FallbackError(RuntimeError):
    """Raised by a policy in strict mode at its first fallback.

    Attributes:
        cause: A key of :data:`FALLBACK_CAUSES`.
    """

    def __init__(self, cause: str, detail: str = "") -> None:
        self.cause, self.detail = cause, detail
        super().__init__(f"strict mode: fallback ({cause})" + (f": {detail}" if detail else ""))
