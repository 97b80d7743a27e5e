"""Memory probes: what a memory knows, asked directly, over recorded game episodes.

A recorded episode is replayed in its env made with privileged facts; at chosen steps, questions
generated from the true state and the trajectory (where is X, what is in or on Y, how to get from
A to B, what did I do in R, what changed since step k, what does the recipe need) are asked of
every memory under test with the same model, answer prompt and token budget, and, where the
memory keeps beliefs, answered structurally too. Rows are scored with the QA scorer.

- :mod:`.replay`: :class:`RecordedEpisode` (plain data; the CLI reads trajectories into it) and the replay.
- :mod:`.questions`: the question generators (:data:`GENERATORS`) and :func:`generate_questions`.
- :mod:`.memories`: the memories probed (:data:`PROBE_MEMORIES`: arigraph, stma, davis, full-history,
  summary, oracle).
- :mod:`.answering`: answers with the QA answering machinery, and structural answers.
- :mod:`.run`: :func:`probe_episode`, results rows (resumable) and tables.
- :mod:`.testing`: a rule-driven stand-in model for tests and offline demos.

Example:
    >>> sorted(GENERATORS), sorted(PROBE_MEMORIES)[:3]
    (['actions', 'changes', 'contents', 'location', 'path', 'recipe'], ['arigraph', 'davis', 'full-history'])
"""

from __future__ import annotations

from textmem_gym.qa.probes.memories import PROBE_MEMORIES, ProbeMemory, make_probe_memory
from textmem_gym.qa.probes.questions import GENERATORS, ProbeQuestion, build_timeline, generate_questions
from textmem_gym.qa.probes.replay import RecordedEpisode, ReplayMismatch, replay_episode
from textmem_gym.qa.probes.run import ROW_KIND, ProbeConfig, format_probe_tables, probe_episode, summarize_probes

__all__ = ["GENERATORS", "PROBE_MEMORIES", "ROW_KIND", "ProbeConfig", "ProbeMemory", "ProbeQuestion",
           "RecordedEpisode", "ReplayMismatch", "build_timeline", "format_probe_tables", "generate_questions",
           "make_probe_memory", "probe_episode", "replay_episode", "summarize_probes"]
