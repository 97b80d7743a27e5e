"""Evaluating a policy over env ids x game seeds x episodes: resumable, in parallel if asked.

:func:`evaluate` takes the ids, the policy and one :class:`EvalConfig` of run options (as
stable-baselines3's ``evaluate_policy`` takes a model and an env). One episode is
:func:`run_episode` (the core's :func:`~textmem_gym.core.episode.play_episode` plus its trajectory).

Example:
    >>> rows = evaluate("TextMem/CookingRL-L1-v0", "random", EvalConfig(episodes=2, max_steps=3))
    >>> [row["steps"] for row in rows], [row["seed"] for row in rows]
    ([3, 3], [0, 1])
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import gymnasium as gym

from textmem_gym.core.errors import CtrlC, Interrupted
from textmem_gym.core.policy import FullPolicy, adapt_policy
from textmem_gym.core.registry import make_policy
from textmem_gym.execution import Progress, RunConfig, check_run_backend, plan_tasks, run_backend, run_task
from textmem_gym.execution.limits import EndpointLimits, default_request_limit
from textmem_gym.execution.tasks import run_episode
from textmem_gym.llm.slots import RequestLimits
from textmem_gym.paths import check_writable
from textmem_gym.results import ResultsFile, config_id, episode_key

#: More fields for each results row, per (env id, game seed): a mapping or ``f(env_id, game_seed)``.
RowExtra = Mapping[tuple[str, int | None], Mapping[str, Any]] | Callable[[str, int | None], Mapping[str, Any]]


@dataclass(frozen=True)
class EvalConfig:
    """How to run an evaluation (every field has a default: ``EvalConfig()`` plays one episode).

    Attributes:
        episodes: Episodes per (id, game seed); episode ``i`` uses reset seed ``seed + i``.
        seed: First reset seed.
        game_seeds: Game instances to evaluate (``None`` = each id's default game).
        max_steps: Overrides each id's step limit.
        out: JSONL results file (resumable: episodes already in it are skipped).
        overwrite: Play every planned episode again: their rows are first dropped from ``out``
            (the file's other rows stay).
        env_kwargs: Extra ``gym.make`` arguments.
        policy_kwargs: Constructor arguments when the policy is given by name.
        wrap: Applied to each env after ``gym.make`` (e.g. a MemoryGraphWrapper; with workers it
            must be picklable: a class or module-level function). A policy that needs a wrapper
            gets it from its ``wrap_env(env)``, applied last (after ``wrap``).
        workers: Episodes played at once (worker processes, or Ray tasks in flight).
        backend: ``"local"`` (processes of this machine), ``"ray"`` (see
            :mod:`textmem_gym.execution.ray_backend`), or any run backend an installed package adds
            (entry-point group ``textmem_gym.run_backends``) or ``"module:Class"``.
        backend_options: Keyword arguments of the run backend's class, checked against its signature
            before anything is played (``ray``: ``address`` of an existing cluster, ``"auto"`` or
            ``"HOST:PORT"``, and ``task_cpus`` per task).
        max_retries: Times a task is played again after its worker process died.
        max_concurrent_requests: Requests in flight allowed per LLM endpoint across all workers
            (default: the policy's ``concurrency`` kwarg, else the LLM client's default).
        trajectories: Folder for one trajectory JSONL per episode, named by its results key.
        trajectory_prompts: ``"full"`` or ``"keys"`` (see :mod:`textmem_gym.trajectories`).
        progress: Show a progress bar (done/total, ETA, running mean score, tokens, cost).
        notes: Print one-line notes on stderr: the finished episodes a resumed run skips, or
            drops with ``overwrite`` (default: as ``progress``).
        preflight: Ask the policy to check what it needs (an LLM endpoint) before the first episode.
        row_extra: More fields for the results rows, per (env id, game seed): a mapping
            ``{(env_id, game_seed): {field: value}}`` or a callable ``row_extra(env_id, game_seed)``
            (e.g. an instance's ``walkthrough_steps`` from
            :func:`~textmem_gym.envs.instances.instance_info`). Added by the driver when it writes a
            row, never sent to a worker nor shown to the policy; a field the result already has is
            kept. Rows recorded earlier get them in the returned list (the file is not rewritten).
    """

    episodes: int = 1
    seed: int = 0
    game_seeds: Sequence[int | None] = (None,)
    max_steps: int | None = None
    out: str | Path | None = None
    overwrite: bool = False
    env_kwargs: Mapping[str, Any] = field(default_factory=dict)
    policy_kwargs: Mapping[str, Any] = field(default_factory=dict)
    wrap: Callable[[gym.Env], gym.Env] | None = None
    workers: int = 1
    backend: str = "local"
    backend_options: Mapping[str, Any] = field(default_factory=dict)
    max_retries: int = 3
    max_concurrent_requests: int | None = None
    trajectories: str | Path | None = None
    trajectory_prompts: str = "full"
    progress: bool = False
    notes: bool | None = None
    preflight: bool = True
    row_extra: RowExtra | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.workers, int) or self.workers < 1:
            raise ValueError(f"workers must be an int >= 1, got {self.workers!r}")
        if not isinstance(self.episodes, int) or self.episodes < 1:
            raise ValueError(f"episodes must be an int >= 1, got {self.episodes!r}")
        if self.max_steps is not None and (not isinstance(self.max_steps, int) or self.max_steps < 1):
            raise ValueError(f"max_steps must be an int >= 1 or None, got {self.max_steps!r}")
        check_run_backend(self.backend, self.backend_options)
        object.__setattr__(self, "game_seeds", tuple(self.game_seeds))

    @property
    def parallel(self) -> bool:
        """Whether episodes are played outside this process."""
        return self.workers > 1 or self.backend != "local"


def evaluate(env_ids: str | Sequence[str], policy: str | Any, config: EvalConfig | None = None) -> list[dict[str, Any]]:
    """Evaluates one policy over env ids x game seeds x episodes, resumably, in parallel if asked.

    With ``config.out``, each finished episode is appended to that JSONL file by this process
    alone, and episodes already in it are skipped, so an interrupted evaluation continues where it
    stopped and no episode is written twice. ``config.out`` and ``config.trajectories`` are checked
    to be writable before anything is played.

    Each episode (each (id, game seed) group of trials for a multi-trial policy such as
    Reflexion, played in order) gets a policy freshly built from its spec, in whichever process
    plays it: the same seeds give the same results with any number of workers or backend.

    Args:
        env_ids: One id or several.
        policy: A policy name or ``"module:Factory"`` (see :func:`~textmem_gym.core.registry.make_policy`),
            or any object with ``act(observation, info)`` (``workers=1`` on the local backend only:
            workers build their own from a spec).
        config: The run options (default ``EvalConfig()``).

    Returns:
        The results of every episode of this evaluation (recorded earlier or run now), in plan order.

    Raises:
        ValueError: Bad options (a policy object with workers, kwargs that cannot reach the workers...).
        textmem_gym.core.policy.NotAPolicy: ``policy`` has no ``act`` method.
        textmem_gym.core.errors.PolicyNotReady: The policy's preflight failed (a dead LLM endpoint):
            nothing was played or written.
        textmem_gym.core.errors.RunAborted: A policy stopped the run midway (finished rows stay).
        textmem_gym.core.errors.Interrupted: Ctrl-C (a ``KeyboardInterrupt`` saying how many of the
            planned episodes are recorded, and where; finished rows stay).
        textmem_gym.paths.OutputNotWritable: ``out`` or ``trajectories`` cannot be written.
        textmem_gym.execution.EpisodeFailed: An episode raised an exception in a worker.
    """
    config = config or EvalConfig()
    env_ids = [env_ids] if isinstance(env_ids, str) else list(env_ids)
    policy_kwargs = dict(config.policy_kwargs)
    agent, policy_name, probe = _policy_spec(policy, policy_kwargs, parallel=config.parallel)
    limit = (config.max_concurrent_requests if config.max_concurrent_requests is not None
             else default_request_limit(policy_kwargs))
    in_process = not config.parallel
    run = RunConfig.build(policy_name, policy_kwargs, max_steps=config.max_steps, env_kwargs=dict(config.env_kwargs),
                          wrap=config.wrap, trajectories=config.trajectories,
                          trajectory_prompts=config.trajectory_prompts, in_process=in_process)
    for output, folder in ((config.out, False), (config.trajectories, True)):
        if output is not None:
            check_writable(output, folder=folder)
    store = ResultsFile(config.out) if config.out is not None else None
    tasks = plan_tasks(env_ids, list(config.game_seeds), episodes=config.episodes, seed=config.seed,
                       multi_trial=probe.multi_trial, policy=policy_name, config=config_id(probe.policy_config()))
    planned = [key for task in tasks for key in task.keys]
    recorded = _recorded(store, planned, config)
    pending = [task for task in tasks if any(key not in recorded for key in task.keys)]
    if pending and config.preflight:
        probe.preflight()
    bar = Progress(len(planned), [recorded[k] for k in planned if k in recorded], desc=policy_name,
                   enabled=config.progress)

    ctrl_c = CtrlC()

    def record(row: dict[str, Any]) -> None:
        key = episode_key(row)
        if key not in recorded:  # else a replayed trial of a multi-trial group, or a retried task
            row = _with_extra(row, config.row_extra)
            if store is not None:
                store.append(row)
            recorded[key] = row
            bar.add(row)
        ctrl_c.check()  # a Ctrl-C a destructor swallowed stops the run here, the finished episode kept

    try:
        with ctrl_c:
            if in_process:
                limits = RequestLimits(EndpointLimits(limit), owner="driver")
                for task in pending:
                    run_task(run, task, on_result=record, agent=agent, limits=limits)
            elif pending:
                runner = run_backend(config.backend)(run, config.workers, request_limit=limit,
                                                     max_retries=config.max_retries, **config.backend_options)
                for _task, rows in runner.run(pending):
                    for row in rows:
                        record(row)
    except KeyboardInterrupt:
        # the file is the truth: Ctrl-C may land after a row's line was written, before it was noted here
        kept = store.by_key() if store is not None else recorded
        raise Interrupted(sum(1 for key in planned if key in kept), len(planned), config.out) from None
    finally:
        bar.close()
    return [_with_extra(recorded[key], config.row_extra) for key in planned]


def _recorded(store: ResultsFile | None, planned: Sequence[Any], config: EvalConfig) -> dict[Any, dict[str, Any]]:
    """The rows of ``store`` by key, after ``config.overwrite`` dropped the planned ones; notes on
    stderr (when ``config.notes``, else ``config.progress``) say what is skipped or dropped."""
    if store is None:
        return {}
    notes = config.progress if config.notes is None else config.notes
    if config.overwrite:
        dropped = store.drop(set(planned))
        if notes and dropped:
            print(f"overwrite: dropped {dropped} finished episodes of this run from {store.path}; playing them again",
                  file=sys.stderr)
    recorded = store.by_key()
    skipped = sum(1 for key in planned if key in recorded)
    if notes and skipped:
        print(f"skipped {skipped} finished episodes (of {len(planned)} planned) already recorded in {store.path} with "
              "the same ids, policy, configuration and seeds; --overwrite plays them again", file=sys.stderr)
    return recorded


def _with_extra(row: dict[str, Any], row_extra: RowExtra | None) -> dict[str, Any]:
    """``row`` plus the fields ``row_extra`` gives its (env id, game seed) that it does not have yet."""
    if row_extra is None:
        return row
    where = (row["env_id"], row.get("game_seed"))
    extra = row_extra(*where) if callable(row_extra) else row_extra.get(where, {})
    missing = {k: v for k, v in (extra or {}).items() if k not in row}
    return {**row, **missing} if missing else row


def _policy_spec(policy: str | Any, policy_kwargs: dict[str, Any], *,
                 parallel: bool) -> tuple[FullPolicy | None, str, FullPolicy]:
    """The policy object to share (only a given object), the name results record, and a built policy
    to read its settings from (multi-trial or not, its configuration: part of every results key,
    so two configurations of one policy in one results file are different episodes) and to preflight.

    A spec is built once here (bad names and kwargs fail before any worker starts), then dropped.
    """
    if isinstance(policy, str):
        return None, policy, make_policy(policy, **policy_kwargs)
    if parallel:
        raise ValueError(f"a Policy object ({type(policy).__name__}) can only be evaluated with workers=1 on the "
                         "local backend; give its spec instead (a name or 'module:Factory' plus policy_kwargs), "
                         "so that each worker builds its own")
    agent = adapt_policy(policy)
    return agent, agent.name, agent


__all__ = ["EvalConfig", "RowExtra", "evaluate", "run_episode"]
