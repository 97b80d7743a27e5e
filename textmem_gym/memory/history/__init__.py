"""Memories over the raw history: every step (``full-history``) and an LLM running summary (``summary``).

- :mod:`.memory`: :class:`~textmem_gym.memory.history.memory.FullHistoryMemory`.
- :mod:`.summary`: :class:`~textmem_gym.memory.history.summary.SummaryMemory` (prompt ``prompts/summary.txt``).
"""
