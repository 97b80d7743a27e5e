"""Episode tasks: what a worker needs to play episodes, built from specs (never shared objects).

An evaluation is planned as :class:`EpisodeTask`\\ s. A task is one episode, or, for a
multi-trial policy (``multi_trial = True``, e.g. Reflexion), every trial of one (env id, game
seed) in order. :func:`run_task` builds a fresh env per episode and a fresh policy per task from
the :class:`RunConfig` (the policy's name or ``module:attr`` and its kwargs), so a task gives the
same results in any process: in the driver (``workers=1``), in a local worker or in a Ray task.

Example:
    >>> config = RunConfig.build("random", {"seed": 0}, max_steps=3)
    >>> tasks = plan_tasks(["TextMem/CookingRL-L1-v0"], [None], episodes=2, seed=7, multi_trial=False)
    >>> [[e.seed for e in t.episodes] for t in tasks]
    [[7], [8]]
    >>> [r["steps"] for r in run_task(config, tasks[0])]
    [3]
"""

from __future__ import annotations

import pickle
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import gymnasium as gym

from textmem_gym.core.episode import EpisodeObserver, play_episode
from textmem_gym.core.policy import FullPolicy, Info, adapt_policy
from textmem_gym.core.registry import make_policy, policy_parameters
from textmem_gym.llm.slots import RequestLimits
from textmem_gym.results import EpisodeKey, episode_key
from textmem_gym.trajectories import EpisodeRecorder, trajectory_path

ResultCallback = Callable[[dict[str, Any]], None]
StepCallback = Callable[[int, str, Any, float, Info], None]
#: Policy kwargs never written to a trajectory header.
_HIDDEN_KWARGS = frozenset({"api_key", "client"})


@dataclass(frozen=True)
class Episode:
    """One planned episode: its place in the plan and its results key."""

    env_id: str
    game_seed: int | None
    seed: int
    index: int
    policy: str
    #: Id of the policy configuration (:func:`textmem_gym.results.config_id`), part of the key.
    config: str | None = None

    @property
    def meta(self) -> dict[str, Any]:
        """The identity fields of its results row."""
        return {"env_id": self.env_id, "policy": self.policy, "seed": self.seed, "episode": self.index,
                "game_seed": self.game_seed}

    @property
    def key(self) -> EpisodeKey:
        """Its results key (see :func:`textmem_gym.results.episode_key`)."""
        return (*episode_key(self.meta)[:5], self.config)


@dataclass(frozen=True)
class EpisodeTask:
    """Episodes one worker plays in order with one policy object (several only for multi-trial policies)."""

    episodes: tuple[Episode, ...]

    @property
    def keys(self) -> list[EpisodeKey]:
        """The results keys of its episodes."""
        return [e.key for e in self.episodes]


@dataclass(frozen=True)
class RunConfig:
    """Everything but the episodes: how to build the policy and the envs, where trajectories go.

    ``payload`` holds the pickled policy kwargs, env kwargs and ``wrap`` callable; it is unpickled
    inside the worker after ``import_paths`` are on ``sys.path`` (so ``module:attr`` policies and
    wrappers of the driver's working directory import there too).
    """

    policy: str
    payload: bytes
    max_steps: int | None = None
    trajectories: str | None = None
    trajectory_prompts: str = "full"
    import_paths: tuple[str, ...] = field(default_factory=tuple)
    #: The unpickled parts when the episodes run in this process (nothing to send: no pickling needed).
    local: dict[str, Any] | None = field(default=None, compare=False, repr=False)

    @classmethod
    def build(cls, policy: str, policy_kwargs: dict[str, Any] | None = None, *, max_steps: int | None = None,
              env_kwargs: dict[str, Any] | None = None, wrap: Callable[[gym.Env], gym.Env] | None = None,
              trajectories: str | Path | None = None, trajectory_prompts: str = "full",
              in_process: bool = False) -> RunConfig:
        """A config for ``policy`` (a name or ``module:attr``) and its arguments (``in_process``: the
        episodes run in this process, so the parts are kept as they are instead of pickled).

        Raises:
            ValueError: The kwargs or ``wrap`` cannot be sent to a worker (not picklable: a lambda,
                a local function, an open client...).
        """
        parts = {"policy_kwargs": dict(policy_kwargs or {}), "env_kwargs": dict(env_kwargs or {}), "wrap": wrap}
        trajectory_dir = None if trajectories is None else str(trajectories)
        if in_process:
            return cls(policy, b"", max_steps, trajectory_dir, trajectory_prompts, local=parts)
        try:
            payload = pickle.dumps(parts)
        except (pickle.PicklingError, TypeError, AttributeError) as error:
            raise ValueError(f"policy kwargs, env kwargs and wrap must be picklable to reach the workers "
                             f"(use module-level functions and plain values): {error}") from None
        return cls(policy, payload, max_steps, trajectory_dir, trajectory_prompts, tuple(p for p in sys.path if p))

    def parts(self) -> dict[str, Any]:
        """The unpickled policy kwargs, env kwargs and wrap (after making ``import_paths`` importable)."""
        for path in self.import_paths:
            if path not in sys.path and Path(path).exists():
                sys.path.append(path)
        if self.local is not None:
            return self.local
        parts: dict[str, Any] = pickle.loads(self.payload)
        return parts


def plan_tasks(env_ids: Sequence[str], game_seeds: Iterable[int | None], *, episodes: int, seed: int,
               multi_trial: bool, policy: str = "", config: str | None = None) -> list[EpisodeTask]:
    """The tasks of an evaluation, in plan order (id, game seed, episode).

    Episode ``i`` uses reset seed ``seed + i``. A multi-trial policy gets one task per (id, game
    seed) holding its trials in order; any other policy one task per episode. ``config`` is the
    id of the policy's configuration (:func:`textmem_gym.results.config_id`): part of each key.
    """
    tasks = []
    for env_id in env_ids:
        for game_seed in game_seeds:
            group = tuple(Episode(env_id, game_seed, seed + i, i, policy, config) for i in range(episodes))
            tasks.extend([EpisodeTask(group)] if multi_trial else [EpisodeTask((e,)) for e in group])
    return tasks


def run_episode(env: gym.Env, policy: Any, *, seed: int | None = None,
                on_step: StepCallback | None = None, trajectory: str | Path | None = None,
                trajectory_prompts: str = "full", trajectory_header: dict[str, Any] | None = None) -> dict[str, Any]:
    """Plays one episode of ``policy`` in ``env``, recording its trajectory if asked.

    Example:
        >>> import gymnasium as gym, textmem_gym
        >>> env = gym.make("TextMem/CookingRL-L1-v0", max_episode_steps=5)
        >>> run_episode(env, make_policy("random"), seed=0)["steps"]
        5

    Args:
        env: A TextMem env (possibly wrapped); its step limit ends the episode.
        policy: Any object with ``act(observation, info) -> str`` (see :mod:`textmem_gym.core.policy`).
        seed: Seed for ``env.reset`` and ``policy.seed``.
        on_step: Called as ``on_step(step, action, observation, reward, info)`` after each step.
        trajectory: Write the episode's trajectory to this JSONL file (see
            :mod:`textmem_gym.trajectories`; an unfinished file there is replaced).
        trajectory_prompts: ``"full"`` keeps each LLM call's prompt and answer, ``"keys"`` only their keys.
        trajectory_header: More header fields for the trajectory (results key, policy kwargs...).

    Returns:
        The result of :func:`textmem_gym.core.episode.play_episode`; with ``trajectory``, also
        ``trajectory`` (its path).
    """
    agent = adapt_policy(policy)
    observers: list[EpisodeObserver] = []
    if trajectory is not None:
        observers.append(EpisodeRecorder(trajectory, env, agent, seed, trajectory_prompts, trajectory_header))
    if on_step is not None:
        observers.append(_StepCallback(on_step))
    return play_episode(env, agent, seed=seed, observers=observers)


@dataclass
class _StepCallback:
    """An :class:`~textmem_gym.core.episode.EpisodeObserver` calling ``on_step`` after each step."""

    on_step: StepCallback

    def reset(self, observation: Any, info: Info) -> None:
        """Nothing to do at the reset."""

    def step(self, step: int, action: str, observation: Any, reward: float, terminated: bool, truncated: bool,
             info: Info) -> None:
        """Calls ``on_step``."""
        self.on_step(step, action, observation, reward, info)

    def finish(self, result: dict[str, Any]) -> None:
        """Nothing to do at the end."""


def make_env(env_id: str, agent: FullPolicy, max_steps: int | None, game_seed: int | None,
             env_kwargs: dict[str, Any] | None, wrap: Callable[[gym.Env], gym.Env] | None) -> gym.Env:
    """The env an episode is played in: ``gym.make`` with the policy's privileged keys, ``wrap``, then
    the policy's own ``wrap_env``."""
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


def play(config: RunConfig, episode: Episode, agent: FullPolicy, env_kwargs: dict[str, Any] | None,
         wrap: Callable[[gym.Env], gym.Env] | None, policy_kwargs: dict[str, Any] | None = None) -> dict[str, Any]:
    """Plays one planned episode with ``agent``; returns its results row (result + identity)."""
    trajectory_args: dict[str, Any] = {}
    if config.trajectories is not None:
        trajectory_args = {"trajectory": trajectory_path(config.trajectories, episode.key),
                           "trajectory_prompts": config.trajectory_prompts,
                           "trajectory_header": {"episode": episode.index, "game_seed": episode.game_seed,
                                                 "policy_kwargs": _shown_kwargs(policy_kwargs)}}
    env = make_env(episode.env_id, agent, config.max_steps, episode.game_seed, env_kwargs, wrap)
    try:
        result = run_episode(env, agent, seed=episode.seed, **trajectory_args)
    finally:
        env.close()
    result.update(episode.meta)
    if episode_key(result) != episode.key:
        raise RuntimeError(f"policy {episode.policy!r} ended an episode with another configuration than it was "
                           f"planned with ({result.get('policy_config')!r}): policy_config() must be fixed when "
                           "the policy is built, as results are keyed by it")
    return result


def _limits_for(policy: str, limits: RequestLimits | None) -> dict[str, RequestLimits]:
    """``{"limits": limits}`` when the factory of ``policy`` names a ``limits`` keyword, else nothing."""
    if limits is None:
        return {}
    parameters = policy_parameters(policy)
    return {"limits": limits} if parameters is not None and "limits" in parameters.annotations else {}


def _shown_kwargs(policy_kwargs: dict[str, Any] | None) -> dict[str, Any]:
    """Policy kwargs fit for a trajectory header: no API key, no client object."""
    return {k: v for k, v in (policy_kwargs or {}).items() if k not in _HIDDEN_KWARGS}


def run_task(config: RunConfig, task: EpisodeTask, on_result: ResultCallback | None = None,
             agent: FullPolicy | None = None, limits: RequestLimits | None = None) -> list[dict[str, Any]]:
    """Plays a task's episodes in order with one policy (built from ``config`` unless ``agent`` is given).

    Args:
        config: How to build the policy and the envs.
        task: The episodes.
        on_result: Called with each results row as soon as its episode ends.
        agent: A policy object to use instead (``workers=1`` with a Policy object only).
        limits: The run's shared request limits, passed to the policy built from ``config`` as its
            ``limits`` keyword when its factory names one (an LLM policy hands them to its
            :class:`~textmem_gym.llm.LLMClient`); recorded neither in results nor in trajectories.

    Returns:
        The results rows, in the task's order.
    """
    parts = config.parts()
    if agent is None:
        agent = make_policy(config.policy, **{**_limits_for(config.policy, limits), **parts["policy_kwargs"]})
    rows = []
    for episode in task.episodes:
        row = play(config, episode, agent, parts["env_kwargs"], parts["wrap"], parts["policy_kwargs"])
        if on_result is not None:
            on_result(row)
        rows.append(row)
    return rows


def warm_up(config: RunConfig, tasks: Iterable[EpisodeTask]) -> None:
    """Makes one env of each id of ``tasks`` in this process, before workers fork: games are
    generated once and the env backends imported once (forked workers start warm); bad ids or env
    kwargs fail here, before any episode is played."""
    parts = config.parts()
    agent = make_policy(config.policy, **parts["policy_kwargs"])
    seen: set[str] = set()
    for task in tasks:
        episode = task.episodes[0]
        if episode.env_id not in seen:
            seen.add(episode.env_id)
            make_env(episode.env_id, agent, config.max_steps, episode.game_seed, parts["env_kwargs"],
                     parts["wrap"]).close()


__all__ = ["Episode", "EpisodeTask", "RunConfig", "make_env", "plan_tasks", "play", "run_episode", "run_task",
           "warm_up"]
