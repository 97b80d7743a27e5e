"""A two-method memory whose factory takes an endpoint (as summary, HippoRAG and Mem0 do)."""

from __future__ import annotations

from typing import Any


class EndpointNotes:
    """Keeps every update; remembers the endpoint it was built with."""

    def __init__(self, *, model: str | None = None, base_url: str | None = None, keep: int = 10) -> None:
        self.model, self.base_url, self.keep = model, base_url, keep
        self.lines: list[str] = []

    def update(self, observation: str, action: str, info: dict[str, Any]) -> None:
        self.lines.append(observation)

    def context(self, question: str, budget: int) -> list[str]:
        return self.lines[-self.keep:]
