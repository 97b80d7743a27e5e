"""What one registered id is: :class:`EnvEntry`, the leaf every id table depends on.

The id tables (``envs/<backend>/ids.py``, and any installed package's) build entries of this class
and import no env code; :mod:`textmem_gym.envs.registration` finds the tables through the
entry-point group ``textmem_gym.env_backends`` and registers them, never the reverse.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class EnvEntry:
    """One registered id.

    Attributes:
        entry_point: ``"module:Class"`` of the env.
        kwargs: Constructor arguments of this variant.
        max_episode_steps: Step limit (``truncated`` after it).
        description: One line for ``textmem-gym list`` and the README.
        expected_max_score: The maximum score the paper reports, when it does.
        needs: Constructor arguments the user must supply (e.g. ``game_file``).
        walkthrough_known_failure: Why the privileged walkthrough of this id does not win
            (an engine quirk), or ``None`` when it wins; the generic tests expect exactly this.
    """

    entry_point: str
    kwargs: dict[str, Any]
    max_episode_steps: int
    description: str
    expected_max_score: float | None = None
    needs: tuple[str, ...] = field(default_factory=tuple)
    walkthrough_known_failure: str | None = None
