"""The settings several policies share, each written once: its meaning (doc) and how results rows record it.

A policy's settings dataclass declares a shared setting where its results rows record it, with its
paper's default: ``max_tokens: int = MAX_TOKENS.field(800)``. The doc, one name for one idea and the
recording come from here, so that ``--policy-arg max_tokens=...`` means the same for every policy
and :func:`~textmem_gym.core.policy.config_fields` documents it alike; the default and the place in
the row stay the policy's (each paper's value; rows keep their key order, byte for byte).

Example:
    >>> import dataclasses
    >>> from textmem_gym.core.policy import PolicyConfig, config_fields
    >>> @dataclasses.dataclass(frozen=True, kw_only=True)
    ... class TalkConfig(PolicyConfig):
    ...     max_tokens: int = MAX_TOKENS.field(50)
    ...     history_steps: int = HISTORY_STEPS.field(3, recorded_as="history")
    >>> [(f.name, f.default) for f in config_fields(TalkConfig)]
    [('max_tokens', 50), ('history_steps', 3)]
    >>> config_fields(TalkConfig)[0].doc == MAX_TOKENS.doc, TalkConfig(history_steps=4).recorded()
    (True, {'max_tokens': 50, 'history': 4})
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any


@dataclasses.dataclass(frozen=True)
class SharedSetting:
    """A setting several policies' configs have.

    Attributes:
        doc: What it sets (the field's doc wherever it is declared).
        metadata: Its field metadata (how rows record it: see
            :class:`~textmem_gym.core.policy.PolicyConfig`; ``None``: recorded always).
    """

    doc: str
    metadata: Mapping[str, Any] | None = None

    def field(self, default: Any, *, recorded_as: str | None = None,
              metadata: Mapping[str, Any] | None = None) -> Any:
        """The dataclass field of this setting with a policy's ``default``.

        Args:
            default: The policy's default (its paper's value).
            recorded_as: The key rows record it under when it is not the field's name (a setting that
                was renamed to this one: rows written before keep their resume keys).
            metadata: Metadata replacing this setting's own for this policy (how its rows record it).
        """
        record = {**(metadata or self.metadata or {}), **({"recorded_as": recorded_as} if recorded_as else {})}
        return dataclasses.field(default=default, metadata={**record, "doc": self.doc})


#: The completion limit of a policy's calls.
MAX_TOKENS = SharedSetting("Completion limit in tokens of the policy's model calls (short fixed-purpose calls, "
                           "such as a yes/no check, keep their own).")
#: The sampling temperature of a policy's calls.
TEMPERATURE = SharedSetting("Sampling temperature of the policy's model calls (extraction and other fixed-purpose "
                            "calls keep their own).")
#: How much of each observation a prompt shows.
OBSERVATION_CHARS = SharedSetting("Characters kept of each observation shown in the policy's prompts (past ones; "
                                  "the current one as the policy's docstring says).")
#: How many recent steps a prompt shows.
HISTORY_STEPS = SharedSetting("Recent steps (action and what the game answered) shown in the policy's prompts, "
                              "oldest trimmed first when the context window is short.")
#: Whether a ``go to`` macro is one step.
MACRO_COUNTS_AS_ONE_STEP = SharedSetting(
    "A ``go to <room>`` macro counts as one step against the episode's step limit (AriGraph's accounting) "
    "instead of one per primitive move; passed to the MemoryGraphWrapper the policy adds (an env that already "
    "has one keeps its own). A policy that plays without the wrapper's macro takes it too, so that one "
    "``--policy-arg`` works across policies: every decision is then one step either way.")
