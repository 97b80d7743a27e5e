"""The Text Adventure Agent's course harness (Jericho games, 5 trials x 100 steps per game).

The submission names Zork and Lost Pig as its games and runs the course's
``evaluation/evaluate.py -t 5 --max-steps 100``; it publishes no scores.
"""

from __future__ import annotations

from textmem_gym.protocols.base import Cell, Protocol

PROTOCOL = Protocol(
    name="text-adventure-agent",
    title="Text Adventure Agent (course harness): Jericho games, 5 trials x 100 steps",
    cells=(Cell("zork1", "TextMem/Jericho-Zork1-v0", 100), Cell("lostpig", "TextMem/Jericho-Lostpig-v0", 100)),
    attempts=5,
    step_accounting="every command sent to the game counts one step",
    policy_rows={"reflact": "Text Adventure Agent"},
)
