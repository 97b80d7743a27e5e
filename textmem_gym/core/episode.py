"""The episode loop: one policy plays one env until it terminates or is truncated.

:func:`play_episode` is the one loop every run goes through (the evaluation runner, protocols,
the web app's replays). What watches an episode (the trajectory recorder, a progress callback)
is an :class:`EpisodeObserver`; the loop knows nothing else of them.

Example:
    >>> import gymnasium as gym, textmem_gym
    >>> class Look:
    ...     def act(self, observation, info):
    ...         return "look"
    >>> env = gym.make("TextMem/CookingRL-L1-v0", max_episode_steps=3)
    >>> result = play_episode(env, Look(), seed=0)
    >>> result["steps"], result["truncated"]
    (3, True)
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any, Protocol

import gymnasium as gym

from textmem_gym.core.info import step_info
from textmem_gym.core.policy import FullPolicy, Info, adapt_policy
from textmem_gym.fallbacks import FallbackError


class EpisodeObserver(Protocol):
    """Something that watches an episode (e.g. the trajectory recorder)."""

    def reset(self, observation: Any, info: Info) -> None:
        """Sees the first observation."""

    def step(self, step: int, action: str, observation: Any, reward: float, terminated: bool,
             truncated: bool, info: Info) -> None:
        """Sees one decision and its outcome."""

    def finish(self, result: dict[str, Any]) -> None:
        """Sees the episode's result (it may add fields to it)."""


def play_episode(env: gym.Env, policy: Any, *, seed: int | None = None,
                 observers: Sequence[EpisodeObserver] = ()) -> dict[str, Any]:
    """Plays one episode of ``policy`` in ``env``.

    Args:
        env: A TextMem env (possibly wrapped); its step limit ends the episode.
        policy: Any object with ``act(observation, info) -> str`` (the optional hooks are adapted,
            see :func:`~textmem_gym.core.policy.adapt_policy`).
        seed: Seed for ``env.reset`` and ``policy.seed``.
        observers: Told of the reset, of every step and of the result, in this order.

    Returns:
        The episode's result: score, max_score, normalized_score, won, lost, terminated,
        truncated, steps (agent decisions), primitive_steps (commands sent to the game: more
        than steps when macro actions such as ``go to X`` expand), moves (the game's own move
        counter), reward, wall_time_s, policy_stats and policy_config, plus the env's headline
        numbers (``info["metrics"]``, e.g. NetHack's ``max_dungeon_level``). A policy in strict
        mode that falls back (:class:`~textmem_gym.fallbacks.FallbackError`) ends the episode
        there: the result then has ``error`` (``{"cause", "step", "message"}``).

    Raises:
        textmem_gym.core.errors.RunAborted: Raised by the policy when going on is pointless (a dead
            LLM endpoint); the episode has no result.
    """
    agent = adapt_policy(policy)
    start = time.perf_counter()
    agent.seed(seed)
    observation, raw = env.reset(seed=seed)
    info = step_info(raw)
    agent.reset(observation, info)
    for observer in observers:
        observer.reset(observation, info)
    steps, total_reward, terminated, truncated = 0, 0.0, False, False
    error: dict[str, Any] | None = None
    while not (terminated or truncated):
        try:
            action = agent.act(observation, info)
        except FallbackError as failure:
            error = {"cause": failure.cause, "step": steps + 1, "message": str(failure)}
            break
        observation, reward, terminated, truncated, raw = env.step(action)
        info = step_info(raw)
        steps += 1
        total_reward += float(reward)
        agent.observe(action, observation, float(reward), terminated, truncated, info)
        for observer in observers:
            observer.step(steps, action, observation, float(reward), terminated, truncated, info)
    agent.end_episode(info)
    result = episode_result(agent, info, steps, total_reward, (terminated, truncated), time.perf_counter() - start,
                            error)
    for observer in observers:
        observer.finish(result)
    return result


def episode_result(agent: FullPolicy, info: Info, steps: int, reward: float, done: tuple[bool, bool],
                   seconds: float, error: dict[str, Any] | None = None) -> dict[str, Any]:
    """The results row's episode fields, read from the last ``info`` and the policy's hooks
    (``done`` is ``(terminated, truncated)``)."""
    terminated, truncated = done
    result: dict[str, Any] = {
        "score": info.get("score", 0), "max_score": info.get("max_score", 0),
        "normalized_score": float(info.get("normalized_score", 0.0)),
        "won": bool(info.get("won", False)), "lost": bool(info.get("lost", False)),
        "terminated": bool(terminated), "truncated": bool(truncated),
        "steps": steps, "primitive_steps": _primitive_steps(info, steps), "moves": int(info.get("moves", 0)),
        "reward": reward, "wall_time_s": round(seconds, 4),
        "policy_stats": dict(agent.episode_stats()),
    }
    result["policy_config"] = agent.policy_config()
    if error is not None:
        result["error"] = error
    # a backend's headline numbers (NetHack: max_dungeon_level...) at top level, for tables and reports
    result.update({k: v for k, v in (info.get("metrics") or {}).items() if k not in result})
    return result


def _primitive_steps(info: Info, decisions: int) -> int:
    """Primitive commands sent, as reported by macro-action wrappers (``info["steps"]``)."""
    steps = info.get("steps")
    return int(steps["primitive"]) if isinstance(steps, dict) and "primitive" in steps else decisions
