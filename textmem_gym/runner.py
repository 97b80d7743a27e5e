"""Running policies on envs: one episode, or a resumable evaluation over ids x seeds.

Example:
    >>> import gymnasium as gym, textmem_gym
    >>> from policies import make_policy
    >>> env = gym.make("TextMem/CookingRL-L1-v0", max_episode_steps=5)
    >>> result = run_episode(env, make_policy("random"), seed=0)
    >>> result["steps"]
    5
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import gymnasium as gym

from textmem_gym.results import ResultsFile, episode_key
from textmem_gym.trajectories import EpisodeRecorder

if TYPE_CHECKING:
    from policies.base import Policy

StepCallback = Callable[[int, str, Any, float, dict[str, Any]], None]


def run_episode(env: gym.Env, policy: Policy, *, seed: int | None = None,
                on_step: StepCallback | None = None, trajectory: str | Path | None = None,
                trajectory_prompts: str = "full", trajectory_header: dict[str, Any] | None = None) -> dict[str, Any]:
    """Plays one episode of ``policy`` in ``env`` until it terminates or is truncated.

    Args:
        env: A TextMem env (possibly wrapped); its step limit ends the episode.
        policy: An object implementing :class:`policies.Policy` (subclass :class:`policies.BasePolicy`
            for the optional hooks' defaults).
        seed: Seed for ``env.reset`` and ``policy.seed``.
        on_step: Called as ``on_step(step, action, observation, reward, info)`` after each step.
        trajectory: Write the episode's trajectory to this JSONL file (see
            :mod:`textmem_gym.trajectories`; an unfinished file there is replaced).
        trajectory_prompts: ``"full"`` keeps each LLM call's prompt and answer, ``"keys"`` only their keys.
        trajectory_header: More header fields for the trajectory (results key, policy kwargs...).

    Returns:
        The episode's result: score, max_score, normalized_score, won, lost, terminated,
        truncated, steps (agent decisions), primitive_steps (commands sent to the game: more
        than steps when macro actions such as ``go to X`` expand), moves (the game's own move
        counter), reward, wall_time_s and policy_stats; with ``trajectory``, also its path.
    """
    start = time.perf_counter()
    recorder = None if trajectory is None else EpisodeRecorder(trajectory, env, policy, seed, trajectory_prompts,
                                                                 trajectory_header)
    policy.seed(seed)
    observation, info = env.reset(seed=seed)
    policy.reset(observation, info)
    if recorder is not None:
        recorder.reset(observation, info)
    steps, total_reward, terminated, truncated = 0, 0.0, False, False
    while not (terminated or truncated):
        action = policy.act(observation, info)
        observation, reward, terminated, truncated, info = env.step(action)
        steps += 1
        total_reward += float(reward)
        policy.observe(action, observation, reward, terminated, truncated, info)
        if recorder is not None:
            recorder.step(steps, action, observation, float(reward), terminated, truncated, info)
        if on_step is not None:
            on_step(steps, action, observation, float(reward), info)
    policy.end_episode(info)
    stats = policy.episode_stats()
    result = {
        "score": info.get("score", 0), "max_score": info.get("max_score", 0),
        "normalized_score": float(info.get("normalized_score", 0.0)),
        "won": bool(info.get("won", False)), "lost": bool(info.get("lost", False)),
        "terminated": bool(terminated), "truncated": bool(truncated),
        "steps": steps, "primitive_steps": _primitive_steps(info, steps), "moves": int(info.get("moves", 0)),
        "reward": total_reward, "wall_time_s": round(time.perf_counter() - start, 4),
        "policy_stats": dict(stats),
    }
    if recorder is not None:
        result["trajectory"] = recorder.finish(result)
    return result


def _primitive_steps(info: dict[str, Any], decisions: int) -> int:
    """Primitive commands sent, as reported by macro-action wrappers (``info["steps"]``)."""
    steps = info.get("steps")
    return int(steps["primitive"]) if isinstance(steps, dict) and "primitive" in steps else decisions


def _resolve_policy(policy: str | Policy, policy_kwargs: dict[str, Any]) -> tuple[Policy, str]:
    from policies import check_policy, make_policy

    if isinstance(policy, str):
        return make_policy(policy, **policy_kwargs), policy
    return check_policy(policy), policy.name


def evaluate(env_ids: str | Sequence[str], policy: str | Policy, *, episodes: int = 1, seed: int = 0,
             max_steps: int | None = None, out: str | Path | None = None,
             game_seeds: Iterable[int | None] = (None,), env_kwargs: dict[str, Any] | None = None,
             policy_kwargs: dict[str, Any] | None = None, wrap: Callable[[gym.Env], gym.Env] | None = None,
             progress: bool = False) -> list[dict[str, Any]]:
    """Evaluates one policy over env ids x game seeds x episodes, resumably.

    Episode ``i`` uses reset seed ``seed + i``. With ``out``, each finished episode is appended
    to that JSONL file and episodes already in it are skipped, so an interrupted evaluation
    continues where it stopped.

    Args:
        env_ids: One id or several.
        policy: A registry name (see ``policies.POLICIES``) or a Policy object.
        episodes: Episodes per (id, game seed).
        seed: First reset seed.
        max_steps: Overrides each id's step limit.
        out: JSONL results file (resumable).
        game_seeds: Game instances to evaluate (``None`` = each id's default game).
        env_kwargs: Extra ``gym.make`` arguments.
        policy_kwargs: Constructor arguments when ``policy`` is a name.
        wrap: Applied to each env after ``gym.make`` (e.g. a MemoryGraphWrapper). A policy with
            that needs a wrapper gets it from its ``wrap_env(env)``, applied last (after ``wrap``).
        progress: Show a progress bar.

    Returns:
        The results of every episode of this evaluation (recorded earlier or run now).
    """
    env_ids = [env_ids] if isinstance(env_ids, str) else list(env_ids)
    agent, policy_name = _resolve_policy(policy, dict(policy_kwargs or {}))
    store = ResultsFile(out) if out is not None else None
    previous = {episode_key(r): r for r in store.read()} if store else {}
    plan = [(e, g, seed + i) for e in env_ids for g in game_seeds for i in range(episodes)]
    results = []
    from tqdm import tqdm

    for env_id, game_seed, episode_seed in tqdm(plan, disable=not progress, desc=policy_name):
        meta = {"env_id": env_id, "policy": policy_name, "seed": episode_seed, "episode": episode_seed - seed,
                "game_seed": game_seed}
        key = episode_key(meta)
        if key in previous:
            results.append(previous[key])
            continue
        env = _make_env(env_id, agent, max_steps, game_seed, env_kwargs, wrap)
        try:
            result = run_episode(env, agent, seed=episode_seed)
        finally:
            env.close()
        result.update(meta)
        if store is not None:
            store.append(result)
        results.append(result)
    return results


def _make_env(env_id: str, agent: Policy, max_steps: int | None, game_seed: int | None,
              env_kwargs: dict[str, Any] | None, wrap: Callable[[gym.Env], gym.Env] | None) -> gym.Env:
    kwargs = dict(env_kwargs or {})
    privileged = frozenset(agent.privileged)
    if privileged:
        kwargs["privileged"] = sorted(privileged | set(kwargs.get("privileged") or ()))
    if game_seed is not None:
        kwargs["game_seed"] = game_seed
    if max_steps is not None:
        kwargs["max_episode_steps"] = max_steps
    env = gym.make(env_id, **kwargs)
    env = wrap(env) if wrap is not None else env
    return agent.wrap_env(env)  # policies that need a wrapper (e.g. a memory graph) add it here
