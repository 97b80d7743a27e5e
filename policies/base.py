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

import gymnasium as gym

Info = dict[str, Any]


@runtime_checkable
class Policy(Protocol):
    """What the runner needs from an agent (LLM, heuristic or RL alike).

    The four episode methods are the agent; ``name``, ``privileged``, ``seed``, ``wrap_env`` and
    ``episode_stats`` are hooks the runner calls on every policy. :class:`BasePolicy` gives them
    defaults, so a new policy subclasses it and writes ``act`` (and whatever else it needs).
    """

    name: str
    privileged: frozenset[str]
    multi_trial: bool

    def seed(self, seed: int | None) -> None:
        """Seeds the policy's randomness for the next episode."""

    def policy_config(self) -> dict[str, Any]:
        """The policy's full configuration, recorded in every results row."""

    def take_llm_calls(self) -> list[dict[str, Any]]:
        """The LLM calls made since the last call (for the trajectory)."""

    def wrap_env(self, env: gym.Env) -> gym.Env:
        """The env this policy plays (e.g. ``env`` inside a memory wrapper it needs)."""

    def episode_stats(self) -> dict[str, Any]:
        """Numbers recorded with the episode's result (tokens, calls, fallbacks by cause...)."""

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
        multi_trial: True if the policy learns across trials of one game (in ``end_episode``):
            the runner then plays every trial of one (env id, game seed) in order with one
            policy object, in one worker. Otherwise each episode gets a fresh policy.
    """

    name: ClassVar[str] = "base"
    privileged: ClassVar[frozenset[str]] = frozenset()
    multi_trial: ClassVar[bool] = False

    def seed(self, seed: int | None) -> None:
        """Seeds the policy's randomness for the next episode (the runner calls it per episode)."""

    def wrap_env(self, env: gym.Env) -> gym.Env:
        """The env this policy plays: ``env`` unchanged (override to add a wrapper it needs)."""
        return env

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

    def policy_config(self) -> dict[str, Any]:
        """The policy's full configuration (its settings with defaults filled in: extractor,
        similarity, prompt style, strict...), recorded in every results row so that tables never mix
        variants. Policies keep it in ``self.config``; others have none."""
        config = getattr(self, "config", None)
        return dict(config) if isinstance(config, dict) else {}

    def take_llm_calls(self) -> list[dict[str, Any]]:
        """The LLM calls made since the last call (the runner takes them after each step for the
        trajectory; see :mod:`textmem_gym.trajectories`). Policies keeping their
        :class:`~policies.llm_calls.LLMCalls` as ``self.llm`` get them from it; others have none."""
        take = getattr(getattr(self, "llm", None), "take_step_calls", None)
        return list(take()) if take is not None else []


def check_policy(policy: Any) -> Policy:
    """``policy`` if it implements the whole :class:`Policy` protocol.

    Raises:
        TypeError: A member is missing (the message names it and suggests :class:`BasePolicy`).
    """
    missing = [member for member in ("name", "privileged", "multi_trial", "seed", "wrap_env", "reset", "act",
                                     "observe", "end_episode", "episode_stats", "policy_config", "take_llm_calls")
               if not hasattr(policy, member)]
    if missing:
        raise TypeError(f"{type(policy).__name__} is not a Policy: it lacks {missing}; subclass "
                        "policies.BasePolicy for the defaults of the optional hooks")
    return policy
