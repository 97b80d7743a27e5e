"""STMA's temporal memory: the history buffer and the summarizer that turns it into the
temporal belief (section 4.1, appendix D.1).

The buffer keeps the last ``n`` (observation, action, feedback) records (25 in the paper). The
summarizer is the appendix D.1 prompt when an LLM is given; without one (or when the LLM fails)
a deterministic summary is written: the goal, the compressed history of the buffer (each action
with the first sentence of its outcome), every movement, the content read (recipes in full)
and the latest critic feedback.

For the context budget, :meth:`HistoryBuffer.record_texts` gives the trajectory one record at a
time (so the oldest records can be dropped).

Example:
    >>> buffer = HistoryBuffer(2)
    >>> buffer.record("-= Hall =-", "")
    >>> buffer.record("-= Kitchen =-\\nYou see a stove.", "go north")
    >>> buffer.record("You take the knife.", "take knife")
    >>> [r.observation[:8] for r in buffer], [r.action for r in buffer]
    (['-= Kitch', 'You take'], ['take knife', ''])
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache

from textmem_gym.memory.extractors.rules import move_direction, room_name

_READ = re.compile(r"^(?:read|examine|x)\b", re.I)


@lru_cache(maxsize=4096)
def first_sentence(text: str, limit: int = 160) -> str:
    """The first sentence of ``text`` (whitespace collapsed), cut to ``limit`` characters (kept per
    text: the summary is rewritten every step from the same records)."""
    flat = " ".join(text.split())
    cut = re.split(r"(?<=[.!?])\s", flat, maxsplit=1)[0]
    return cut if len(cut) <= limit else cut[: limit - 3] + "..."


@dataclass
class Record:
    """One entry of the history buffer: an observation, the action taken after it (``""``
    while not acted upon) and the critic's feedback on that step."""

    observation: str
    action: str = ""
    feedback: str = ""


class HistoryBuffer:
    """First-in-first-out buffer of the last ``size`` records (equation 3)."""

    def __init__(self, size: int = 25):
        if not isinstance(size, int) or isinstance(size, bool) or size < 1:
            raise ValueError(f"history size must be a positive int, got {size!r}")
        self.size = size
        self.records: deque[Record] = deque(maxlen=size)

    def __len__(self) -> int:
        return len(self.records)

    def __iter__(self) -> Iterator[Record]:
        return iter(self.records)

    def record(self, observation: str, action: str) -> None:
        """``action`` (taken after the previous observation) led to ``observation``."""
        if self.records and action:
            self.records[-1].action = action
        self.records.append(Record(observation))

    def note_feedback(self, feedback: str) -> None:
        """Attaches feedback (e.g. the critic's) to the latest record."""
        if self.records:
            self.records[-1].feedback = feedback

    def record_texts(self) -> list[str]:
        """The trajectory one record at a time, oldest first (the last one is the current
        observation); ``"\\n".join`` gives :meth:`trajectory`."""
        texts = []
        for i, r in enumerate(self.records):
            parts = [f"Observation:\n{r.observation.strip()}"]
            if i < len(self.records) - 1:
                if r.feedback:  # critic feedback given before the action was chosen
                    parts.append(f"FeedBack:\n{r.feedback}")
                parts.append(f"Action:\n{r.action or '(none)'}")
            else:
                parts.append(f"FeedBack:\n{r.feedback or '(none)'}")
            texts.append("\n".join(parts))
        return texts

    def trajectory(self) -> str:
        """The appendix D.1 trajectory format (the last record has FeedBack, not Action)."""
        return "\n".join(self.record_texts())


class RuleSummarizer:
    """The deterministic temporal belief: compressed history, movements, read content."""

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        """Forgets the episode."""
        self.read: dict[str, str] = {}
        self.moves: list[str] = []
        self.room: str | None = None

    def observe(self, observation: str, action: str) -> None:
        """Keeps movements and read content (they outlive the buffer)."""
        room = room_name(observation)
        if action and move_direction(action) and room and room != self.room:
            self.moves.append(f"{action} ({self.room or '?'} -> {room})")
        if action and (_READ.match(action) or "Ingredients:" in observation):
            self.read[action] = " ".join(observation.split())
        if room:
            self.room = room

    def summary(self, buffer: HistoryBuffer, goal: str) -> str:
        """The temporal belief text."""
        records = list(buffer)
        done = [f"{r.action} -> {first_sentence(nxt.observation)}" for r, nxt in zip(records, records[1:])]
        feedback = next((r.feedback for r in reversed(records) if r.feedback), "")
        lines = [f"Active goal: {goal or 'unknown'}",
                 f"Current location: {self.room or 'unknown'}",
                 "Completed actions (oldest first): " + ("; ".join(done) or "none yet"),
                 "Movements: " + ("; ".join(self.moves) or "none yet")]
        lines += [f"Read with '{action}' (recorded in detail): {text}" for action, text in self.read.items()]
        if feedback:
            lines.append(f"Latest critic feedback: {feedback}")
        return "\n".join(lines)
