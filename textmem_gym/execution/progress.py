"""The driver's progress bar: episodes done of planned, ETA, running mean score, tokens and cost.

Example:
    >>> progress = Progress(total=2, done=[{"normalized_score": 1.0, "policy_stats": {}}], enabled=False)
    >>> progress.add({"normalized_score": 0.0, "policy_stats": {"prompt_tokens": 90, "completion_tokens": 10,
    ...                                                        "cost_usd": 0.002}})
    >>> progress.postfix()
    'score=0.500 tokens=100 cost=$0.0020'
    >>> progress.close()
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any


class Progress:
    """A tqdm bar over the planned episodes (episodes already recorded count as done).

    Args:
        total: Episodes planned.
        done: Results rows already recorded (a resumed run starts from them).
        desc: The bar's label (the policy).
        enabled: Show the bar (the totals are kept either way).
    """

    def __init__(self, total: int, done: Iterable[dict[str, Any]] = (), *, desc: str = "", enabled: bool = True):
        from tqdm import tqdm

        done = list(done)
        self.count, self.score_sum, self.tokens, self.cost = 0, 0.0, 0, 0.0
        for row in done:
            self._count(row)
        self.bar = tqdm(total=total, initial=len(done), desc=desc, disable=not enabled, unit="episode",
                        dynamic_ncols=True)
        self.bar.set_postfix_str(self.postfix(), refresh=False)

    def _count(self, row: dict[str, Any]) -> None:
        stats = row.get("policy_stats") or {}
        self.count += 1
        self.score_sum += float(row.get("normalized_score", 0.0))
        self.tokens += int(stats.get("prompt_tokens") or 0) + int(stats.get("completion_tokens") or 0)
        self.cost += float(stats.get("cost_usd") or 0.0)

    def postfix(self) -> str:
        """Running mean normalized score, tokens and cost so far."""
        mean = self.score_sum / self.count if self.count else 0.0
        return f"score={mean:.3f} tokens={self.tokens:,} cost=${self.cost:.4f}"

    def add(self, row: dict[str, Any]) -> None:
        """Counts one finished episode."""
        self._count(row)
        self.bar.set_postfix_str(self.postfix(), refresh=False)
        self.bar.update(1)

    def close(self) -> None:
        """Closes the bar."""
        self.bar.close()


__all__ = ["Progress"]
