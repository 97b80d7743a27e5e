"""The Policy protocol every agent implements, and a base class with no-op hooks.

Example:
    >>> class Look(BasePolicy):
    ...     name = "look"
    ...     def act(self, observation, info):
    ...         return "look"
    >>> Look().act("You are in a room.", {})
    'look'
"""

from __future__ import annotations

from typing import Any, ClassVar, Protocol, runtime_checkable

Info = dict[str, Any]


@runtime_checkable
class Policy(Protocol):
    """What the runner needs from an agent (LLM, heuristic or RL alike)."""

    def reset(self, observation: Any, info: Info) -> None:
        """Starts an episode with its first observation."""

    def act(self, observation: Any, info: Info) -> str:
        """Returns the next command."""

    def observe(self, action: str, observation: Any, reward: float, terminated: bool,
                truncated: bool, info: Info) -> None:
        """Sees the outcome of its last action."""

    def end_episode(self, info: Info) -> None:
        """Ends an episode (multi-trial policies such as Reflexion learn here)."""


class BasePolicy:
    """Convenience base: no-op hooks, seeding, per-episode statistics.

    Attributes:
        name: Registry name, recorded in results.
        privileged: Privileged ``info`` keys this policy needs (the runner then makes the env
            with ``privileged=...``). Non-empty only for oracles such as ``walkthrough``.
    """

    name: ClassVar[str] = "base"
    privileged: ClassVar[frozenset[str]] = frozenset()

    def seed(self, seed: int | None) -> None:
        """Seeds the policy's randomness for the next episode (the runner calls it per episode)."""

    def reset(self, observation: Any, info: Info) -> None:
        """Starts an episode."""

    def act(self, observation: Any, info: Info) -> str:
        """Returns the next command."""
        raise NotImplementedError

    def observe(self, action: str, observation: Any, reward: float, terminated: bool,
                truncated: bool, info: Info) -> None:
        """Sees the outcome of its last action."""

    def end_episode(self, info: Info) -> None:
        """Ends an episode."""

    def episode_stats(self) -> dict[str, Any]:
        """Numbers to record with the episode's result (tokens, calls, cost, fallbacks...)."""
        return {}
