"""Memory probes: what a memory knows, asked directly, over recorded game episodes.

A recorded episode is replayed in its env made with privileged facts; at chosen steps, questions
generated from the true state and the trajectory (where is X, what is in or on Y, how to get from
A to B, what did I do in R, what changed since step k, what does the recipe need, where was X
before it moved, how many times did I..., something never seen, a fact seen long ago, a chain of
two facts) are asked of every memory under test. Any memory (:mod:`textmem_gym.memory.protocol`:
``update`` and ``context``) is probed: a name of the ``textmem_gym.memories`` entry points,
``"module:Class"`` or an object. Each question gets answer recall at each token budget (no
model), a structural answer from the memory's optional parts where it offers them, and, given a
model, the model's answer over the memory's context. Rows are scored with the QA scorer.

- :mod:`.replay`: :class:`RecordedEpisode` (plain data; the CLI reads trajectories into it) and the replay.
- :mod:`.questions`: the question generators (:data:`GENERATORS`) and :func:`generate_questions`.
- :mod:`.recall`: answer recall of a probe question at a budget (abstention and counting defined there).
- :mod:`.answering`: answers with the QA answering machinery, and structural answers.
- :mod:`.run`: :func:`probe_episode`, results rows (resumable) and tables.
- :mod:`.testing`: a rule-driven stand-in model for tests and offline demos.

Example:
    >>> from textmem_gym.qa.probes import GENERATORS  # read from the entry points when asked for
    >>> sorted(GENERATORS)  # doctest: +NORMALIZE_WHITESPACE
    ['abstention', 'actions', 'changes', 'contents', 'counting', 'location', 'long-horizon', 'path', 'recipe',
     'state-history', 'two-hop']
"""

from __future__ import annotations

from typing import Any

from textmem_gym.qa.probes.questions import ProbeQuestion, build_timeline, generate_questions, question_generators
from textmem_gym.qa.probes.replay import RecordedEpisode, ReplayMismatch, replay_episode
from textmem_gym.qa.probes.run import (
    ROW_KIND,
    ProbeConfig,
    build_memory,
    format_probe_tables,
    probe_episode,
    recall_table,
    summarize_probes,
)


def __getattr__(name: str) -> Any:
    """``GENERATORS``: the question generators, read from the entry points when asked for (a package
    installed since is seen; :func:`~textmem_gym.qa.probes.questions.question_generators`)."""
    if name == "GENERATORS":
        return question_generators()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["GENERATORS", "ROW_KIND", "ProbeConfig", "ProbeQuestion", "RecordedEpisode", "ReplayMismatch",
           "build_memory", "build_timeline", "format_probe_tables", "generate_questions", "probe_episode",
           "question_generators", "recall_table", "replay_episode", "summarize_probes"]
