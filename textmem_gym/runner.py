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
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import gymnasium as gym

from textmem_gym.fallbacks import FallbackError
from textmem_gym.results import ResultsFile, config_id, episode_key
from textmem_gym.trajectories import EpisodeRecorder

if TYPE_CHECKING:
    from policies.base import Policy
    from textmem_gym.execution.tasks import EpisodeTask, RunConfig

StepCallback = Callable[[int, str, Any, float, dict[str, Any]], None]
#: More fields for each results row, per (env id, game seed): a mapping or ``f(env_id, game_seed)``.
RowExtra = Mapping[tuple[str, int | None], Mapping[str, Any]] | Callable[[str, int | None], Mapping[str, Any]]


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
        counter), reward, wall_time_s and policy_stats, plus the env's headline numbers
        (``info["metrics"]``, e.g. NetHack's ``max_dungeon_level``), ``policy_config`` (the policy's
        full configuration, see ``BasePolicy.policy_config``); with ``trajectory``, also its path.
        A policy in strict mode that falls back (:class:`~textmem_gym.fallbacks.FallbackError`)
        ends the episode there: the result then has ``error`` (``{"cause", "step", "message"}``)
        and is left out of the means by :func:`textmem_gym.results.summarize`.
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
    error: dict[str, Any] | None = None
    while not (terminated or truncated):
        try:
            action = policy.act(observation, info)
        except FallbackError as failure:
            error = {"cause": failure.cause, "step": steps + 1, "message": str(failure)}
            break
        observation, reward, terminated, truncated, info = env.step(action)
        steps += 1
        total_reward += float(reward)
        policy.observe(action, observation, float(reward), terminated, truncated, info)
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
    result["policy_config"] = policy.policy_config()
    if error is not None:
        result["error"] = error
    # a backend's headline numbers (NetHack: max_dungeon_level...) at top level, for tables and reports
    result.update({k: v for k, v in (info.get("metrics") or {}).items() if k not in result})
    if recorder is not None:
        result["trajectory"] = recorder.finish(result)
    return result


def _primitive_steps(info: dict[str, Any], decisions: int) -> int:
    """Primitive commands sent, as reported by macro-action wrappers (``info["steps"]``)."""
    steps = info.get("steps")
    return int(steps["primitive"]) if isinstance(steps, dict) and "primitive" in steps else decisions


def evaluate(env_ids: str | Sequence[str], policy: str | Policy, *, episodes: int = 1, seed: int = 0,
             max_steps: int | None = None, out: str | Path | None = None,
             game_seeds: Iterable[int | None] = (None,), env_kwargs: dict[str, Any] | None = None,
             policy_kwargs: dict[str, Any] | None = None, wrap: Callable[[gym.Env], gym.Env] | None = None,
             progress: bool = False, workers: int = 1, backend: str = "local", ray_address: str | None = None,
             max_concurrent_requests: int | None = None, trajectories: str | Path | None = None,
             trajectory_prompts: str = "full", max_retries: int = 3,
             ray_task_cpus: float = 1.0, row_extra: RowExtra | None = None) -> list[dict[str, Any]]:
    """Evaluates one policy over env ids x game seeds x episodes, resumably, in parallel if asked.

    Episode ``i`` uses reset seed ``seed + i``. With ``out``, each finished episode is appended
    to that JSONL file by this process alone, and episodes already in it are skipped, so an
    interrupted evaluation continues where it stopped and no episode is written twice.

    Each episode (each (id, game seed) group of trials for a multi-trial policy such as
    Reflexion, played in order) gets a policy freshly built from its spec, in whichever process
    plays it: the same seeds give the same results with any number of workers or backend.

    Args:
        env_ids: One id or several.
        policy: A policy name or ``"module:Factory"`` (see :func:`policies.make_policy`), or a
            Policy object (``workers=1`` on the local backend only: workers build their own).
        episodes: Episodes per (id, game seed).
        seed: First reset seed.
        max_steps: Overrides each id's step limit.
        out: JSONL results file (resumable).
        game_seeds: Game instances to evaluate (``None`` = each id's default game).
        env_kwargs: Extra ``gym.make`` arguments.
        policy_kwargs: Constructor arguments when ``policy`` is a name.
        wrap: Applied to each env after ``gym.make`` (e.g. a MemoryGraphWrapper; with workers it
            must be picklable: a class or module-level function). A policy that needs a wrapper
            gets it from its ``wrap_env(env)``, applied last (after ``wrap``).
        progress: Show a progress bar (done/total, ETA, running mean score, tokens, cost).
        workers: Episodes played at once (worker processes, or Ray tasks in flight).
        backend: ``"local"`` (processes of this machine) or ``"ray"`` (see
            :mod:`textmem_gym.execution.ray_backend`).
        ray_address: An existing Ray cluster (``"auto"``, ``"HOST:PORT"``); ``None`` starts a local one.
        max_concurrent_requests: Requests in flight allowed per LLM endpoint across all workers
            (default: the policy's ``concurrency`` kwarg, else the LLM client's default).
        trajectories: Folder for one trajectory JSONL per episode, named by its results key.
        trajectory_prompts: ``"full"`` or ``"keys"`` (see :mod:`textmem_gym.trajectories`).
        max_retries: Times a task is played again after its worker process died.
        ray_task_cpus: CPUs each Ray task asks for.
        row_extra: More fields for the results rows, per (env id, game seed): a mapping
            ``{(env_id, game_seed): {field: value}}`` or a callable ``row_extra(env_id, game_seed)``
            (e.g. an instance's ``walkthrough_steps`` and ``winnable`` from
            :func:`~textmem_gym.envs.instances.instance_info`). Computed and added by this process
            (the driver) when it writes a row, never sent to a worker nor shown to the policy; a
            field the episode's result already has is kept as it is. Rows recorded earlier get
            them in the returned list (the file is not rewritten).

    Returns:
        The results of every episode of this evaluation (recorded earlier or run now), in plan order.

    Raises:
        ValueError: Bad arguments (a Policy object with workers, an unknown backend, kwargs that
            cannot reach the workers...).
        textmem_gym.execution.EpisodeFailed: An episode raised an exception in a worker.
    """
    from textmem_gym.execution import BACKENDS, Progress, RunConfig, plan_tasks, run_task
    from textmem_gym.llm.limits import EndpointLimits, default_request_limit, installed
    from textmem_gym.loading import load_object

    env_ids = [env_ids] if isinstance(env_ids, str) else list(env_ids)
    if not isinstance(workers, int) or workers < 1:
        raise ValueError(f"workers must be an int >= 1, got {workers!r}")
    if backend not in BACKENDS:
        raise ValueError(f"unknown backend {backend!r}; choose one of {sorted(BACKENDS)}")
    policy_kwargs = dict(policy_kwargs or {})
    agent, policy_name, multi_trial, config_key = _policy_spec(policy, policy_kwargs,
                                                               parallel=workers > 1 or backend != "local")
    limit = max_concurrent_requests if max_concurrent_requests is not None else default_request_limit(policy_kwargs)
    in_process = backend == "local" and workers == 1
    config = RunConfig.build(policy_name, policy_kwargs, max_steps=max_steps, env_kwargs=env_kwargs, wrap=wrap,
                             trajectories=trajectories, trajectory_prompts=trajectory_prompts, in_process=in_process)
    store = ResultsFile(out) if out is not None else None
    recorded = store.by_key() if store is not None else {}
    tasks = plan_tasks(env_ids, list(game_seeds), episodes=episodes, seed=seed, multi_trial=multi_trial,
                       policy=policy_name, config=config_key)
    planned = [key for task in tasks for key in task.keys]
    pending = [task for task in tasks if any(key not in recorded for key in task.keys)]
    bar = Progress(len(planned), [recorded[k] for k in planned if k in recorded], desc=policy_name, enabled=progress)

    def record(row: dict[str, Any]) -> None:
        key = episode_key(row)
        if key in recorded:  # a replayed trial of a multi-trial group, or a retried task
            return
        row = _with_extra(row, row_extra)
        if store is not None:
            store.append(row)
        recorded[key] = row
        bar.add(row)

    try:
        if in_process:
            with installed(EndpointLimits(limit), "driver"):
                for task in pending:
                    run_task(config, task, on_result=record, agent=agent)
        elif pending:
            if backend == "local":
                _warm_up(config, pending)
            runner = load_object(BACKENDS[backend])(config, workers, request_limit=limit, max_retries=max_retries,
                                                    **({"address": ray_address, "task_cpus": ray_task_cpus}
                                                       if backend == "ray" else {}))
            for _task, rows in runner.run(pending):
                for row in rows:
                    record(row)
    finally:
        bar.close()
    return [_with_extra(recorded[key], row_extra) for key in planned]


def _with_extra(row: dict[str, Any], row_extra: RowExtra | None) -> dict[str, Any]:
    """``row`` plus the fields ``row_extra`` gives its (env id, game seed) that it does not have yet."""
    if row_extra is None:
        return row
    where = (row["env_id"], row.get("game_seed"))
    extra = row_extra(*where) if callable(row_extra) else row_extra.get(where, {})
    missing = {k: v for k, v in (extra or {}).items() if k not in row}
    return {**row, **missing} if missing else row


def _policy_spec(policy: str | Policy, policy_kwargs: dict[str, Any], *,
                 parallel: bool) -> tuple[Policy | None, str, bool, str | None]:
    """The policy object to share (only a given object), the name results record, whether it is
    multi-trial, and the id of its configuration (part of every results key: two configurations of
    one policy in one results file are different episodes).

    A spec is built once here (bad names and kwargs fail before any worker starts) and dropped.
    """
    from policies import check_policy, make_policy

    if isinstance(policy, str):
        probe = make_policy(policy, **policy_kwargs)
        return None, policy, probe.multi_trial, config_id(probe.policy_config())
    if parallel:
        raise ValueError(f"a Policy object ({type(policy).__name__}) can only be evaluated with workers=1 on the "
                         "local backend; give its spec instead (a name or 'module:Factory' plus policy_kwargs), "
                         "so that each worker builds its own")
    agent = check_policy(policy)
    return agent, agent.name, agent.multi_trial, config_id(agent.policy_config())


def _warm_up(config: RunConfig, tasks: Sequence[EpisodeTask]) -> None:
    """Makes one env of each id in the driver before workers fork: games are generated once and the
    env backends are imported once (forked workers start warm); bad ids or env kwargs fail here."""
    from policies import make_policy
    from textmem_gym.execution.tasks import make_env

    parts = config.parts()
    agent = make_policy(config.policy, **parts["policy_kwargs"])
    seen: set[str] = set()
    for task in tasks:
        episode = task.episodes[0]
        if episode.env_id not in seen:
            seen.add(episode.env_id)
            make_env(episode.env_id, agent, config.max_steps, episode.game_seed, parts["env_kwargs"],
                     parts["wrap"]).close()
