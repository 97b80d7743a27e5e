"""RLlib PPO (new API stack) on a TextMem env, on one machine or a Ray cluster; only admissible commands are sampled.

Run it::

    python -m baselines_rl.rllib_ppo --env-id TextMem/CookingRL-L1-v0 --total-timesteps 50000 \\
        --n-envs 2 --out-dir runs/rllib-l1
    python -m baselines_rl.rllib_ppo --env-id TextMem/CookingRL-L3-v0 --memory arigraph   # belief in the observation
    ray start --head --port=6379                                           # on the head machine
    ray start --address=HEAD_IP:6379                                       # on every other machine
    python -m baselines_rl.rllib_ppo --address HEAD_IP:6379 --n-envs 16 --out-dir runs/rllib-l1

or from Python::

    from baselines_rl.rllib_ppo import RLlibPPOArgs, train
    result = train(RLlibPPOArgs(total_timesteps=50_000, out_dir="runs/rllib-l1"))
    print(result.final_eval, result.model_path)

The arguments are the SB3 MaskablePPO script's (:class:`baselines_rl.ppo.PPOArgs`) plus
``--address``: ``--n-envs`` env runners (Ray actors, one env each, anywhere in the cluster), each
building its env, memory wrapper and text encoding from the run's
:class:`~baselines_rl.common.EnvSpec` (:func:`baselines_rl.rllib_module.make_rllib_env`);
``n_steps * n_envs`` env steps per PPO update, in minibatches of ``batch_size``. The learner and
the greedy evaluations run in this process. A run directory holds what the SB3 scripts write
(``episodes.csv``, ``eval.csv``, ``args.json``) and RLlib checkpoints (``checkpoint/`` at the end,
``checkpoints/checkpoint_<steps>/`` every ``--checkpoint-freq`` steps), each with the env spec in
``textmem.json``. A failed env runner (its process killed, its node lost) is restarted by RLlib
(``restart_failed_env_runners``) and training goes on.
"""

from __future__ import annotations

import dataclasses
import json
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from baselines_rl.callbacks import EPISODE_FIELDS, EVAL_FIELDS, CSVWriter
from baselines_rl.common import EnvSpec
from baselines_rl.ppo import PPOArgs
from baselines_rl.storage import METADATA_ENTRY, evaluate_model
from baselines_rl.train import TrainResult, prepare_run, script_main

ALGORITHM = "rllib_ppo"
#: Metrics key under which env runners report finished episodes (one ``episodes.csv`` row each).
EPISODES_KEY = "textmem_episodes"


@dataclass
class RLlibPPOArgs(PPOArgs):
    """Arguments of an RLlib PPO run: MaskablePPO's (``--n-envs`` env runners), then the cluster's."""

    out_dir: str = "runs/rllib-ppo"
    """Where checkpoints and CSV logs go."""
    address: str | None = None
    """Ray cluster to join (``HOST:PORT`` of a ``ray start --head``, or ``auto``); ``None``: a local Ray."""
    num_cpus_per_env_runner: int = 1
    """CPUs each env runner reserves (Ray places runners where CPUs are free)."""


def episode_row(info: dict[str, Any]) -> dict[str, Any]:
    """An ``episodes.csv`` row (without ``timesteps``/``env``) from an episode's last ``info``."""
    return {"steps": info.get("episode_steps", 0), "reward": info.get("episode_reward", 0.0),
            "score": info.get("score", 0), "normalized_score": info.get("normalized_score", 0.0),
            "won": int(bool(info.get("won", False))), "invalid_actions": info.get("episode_invalid_actions", 0)}


def _callbacks_class() -> type:
    from ray.rllib.callbacks.callbacks import RLlibCallback

    class EpisodeRows(RLlibCallback):
        """Sends each finished episode's row to the driver through the env runner's metrics."""

        def on_episode_end(self, *, episode: Any, metrics_logger: Any = None, env_runner: Any = None,
                           **kwargs: Any) -> None:
            row = {**episode_row(episode.get_infos(-1)), "env": getattr(env_runner, "worker_index", 0)}
            metrics_logger.log_value(EPISODES_KEY, row, reduce="item_series")

    return EpisodeRows


def build_config(args: RLlibPPOArgs, spec: EnvSpec) -> Any:
    """The ``PPOConfig`` of a run: env runners, masked RLModule, MaskablePPO's hyperparameters."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    from baselines_rl.rllib_module import ENV_NAME, MaskedCommandModule

    remote = args.subprocess
    return (
        PPOConfig()
        .environment(ENV_NAME, env_config={"spec": spec.to_dict()})
        .env_runners(num_env_runners=args.n_envs if remote else 0, num_envs_per_env_runner=1 if remote else args.n_envs,
                     num_cpus_per_env_runner=args.num_cpus_per_env_runner, rollout_fragment_length=args.n_steps)
        .learners(num_learners=0)
        .training(lr=args.learning_rate, train_batch_size_per_learner=args.n_steps * args.n_envs,
                  minibatch_size=args.batch_size, num_epochs=args.n_epochs, gamma=args.gamma,
                  lambda_=args.gae_lambda, clip_param=args.clip_range, entropy_coeff=args.ent_coef,
                  vf_loss_coeff=0.5, grad_clip=0.5, use_kl_loss=False, vf_clip_param=float("inf"))
        .rl_module(rl_module_spec=RLModuleSpec(module_class=MaskedCommandModule, model_config={
            "model": args.model, "embedding_dim": args.embedding_dim, "hidden_dim": args.hidden_dim}))
        .callbacks(_callbacks_class())
        .fault_tolerance(restart_failed_env_runners=True)
        .debugging(seed=args.seed)
    )


def set_novelty_bonus(env_runner: Any, bonus: float) -> None:
    """Sets the novelty bonus of an env runner's envs (the driver's local runner may have none)."""
    if env_runner.env is not None:  # RLlib's vector env, under its DictInfoToList wrapper
        env_runner.env.unwrapped.call("set_novelty_bonus", bonus)


def start_ray(address: str | None, num_cpus: int) -> bool:
    """Joins the cluster at ``address`` or starts a local Ray with ``num_cpus``; whether this call started it."""
    import ray

    if ray.is_initialized():
        return False
    if address is None:
        ray.init(num_cpus=num_cpus, include_dashboard=False, log_to_driver=False)
    else:
        ray.init(address=address, log_to_driver=False)
    return True


def save_checkpoint(algo: Any, path: Path, spec: EnvSpec, extra: dict[str, Any]) -> Path:
    """``algo.save_to_path(path)`` plus the env spec in ``path/textmem.json``."""
    algo.save_to_path(str(path.resolve()))
    (path / METADATA_ENTRY).write_text(json.dumps({"algorithm": ALGORITHM, "env_spec": spec.to_dict(), **extra},
                                                  indent=1))
    return path


def evaluate(algo: Any, spec: EnvSpec, episodes: int, seed: int) -> list[dict[str, Any]]:
    """Greedy episodes of the learner's module on fresh envs of ``spec`` (as the SB3 scripts evaluate)."""
    from baselines_rl.rllib_module import GreedyModule

    return evaluate_model(GreedyModule(algo.get_module()), spec, episodes, seed)


def train(args: RLlibPPOArgs) -> TrainResult:
    """Trains RLlib PPO per ``args``; writes the run directory (see the module docstring)."""
    import ray
    from ray.rllib.utils.metrics import ENV_RUNNER_RESULTS, NUM_ENV_STEPS_SAMPLED_LIFETIME
    from ray.tune.registry import register_env

    from baselines_rl.rllib_module import ENV_NAME, make_rllib_env

    spec, run_dir = prepare_run(args)
    episodes, evals = CSVWriter(run_dir / "episodes.csv", EPISODE_FIELDS), CSVWriter(run_dir / "eval.csv", EVAL_FIELDS)
    started = start_ray(args.address, num_cpus=args.n_envs + 1)
    register_env(ENV_NAME, make_rllib_env)
    algo = build_config(args, spec).build_algo()
    history: list[dict[str, float]] = []
    start, eval_time, steps = time.perf_counter(), 0.0, 0
    next_eval, next_checkpoint = args.eval_freq, args.checkpoint_freq

    def speed() -> float:
        return steps / max(time.perf_counter() - start - eval_time, 1e-9)

    def run_eval() -> dict[str, float]:
        nonlocal eval_time
        began = time.perf_counter()
        results = evaluate(algo, spec, args.eval_episodes, args.seed)
        eval_time += time.perf_counter() - began
        row = {"timesteps": steps, "mean_normalized_score": float(np.mean([r["normalized_score"] for r in results])),
               "success_rate": float(np.mean([r["won"] for r in results])),
               "mean_steps": float(np.mean([r["steps"] for r in results])),
               "wall_time_s": round(time.perf_counter() - start, 2), "steps_per_second": round(speed(), 2)}
        evals.write(row)
        history.append(row)
        return row

    try:
        while steps < args.total_timesteps:
            if args.novelty_bonus and args.novelty_decay_steps:
                bonus = args.novelty_bonus * max(0.0, 1.0 - steps / args.novelty_decay_steps)
                algo.env_runner_group.foreach_env_runner(lambda runner, b=bonus: set_novelty_bonus(runner, b))
            result = algo.train()
            runners = result.get(ENV_RUNNER_RESULTS) or {}  # empty when every runner failed this iteration
            steps = int(runners.get(NUM_ENV_STEPS_SAMPLED_LIFETIME, steps))
            for row in runners.get(EPISODES_KEY) or []:
                episodes.write({**row, "timesteps": steps, "wall_time_s": round(time.perf_counter() - start, 2)})
            if args.eval_freq and args.eval_episodes and steps >= next_eval:
                run_eval()
                next_eval += args.eval_freq * (1 + (steps - next_eval) // args.eval_freq)
            if args.checkpoint_freq and steps >= next_checkpoint:
                save_checkpoint(algo, run_dir / "checkpoints" / f"checkpoint_{steps}", spec, {})
                next_checkpoint += args.checkpoint_freq * (1 + (steps - next_checkpoint) // args.checkpoint_freq)
            if args.stop_score is not None and history and history[-1]["mean_normalized_score"] >= args.stop_score:
                break
        train_speed = speed()
        final = history[-1] if history and history[-1]["timesteps"] == steps else \
            run_eval() if args.eval_episodes > 0 else {}
        path = save_checkpoint(algo, run_dir / "checkpoint", spec,
                               {"args": dataclasses.asdict(args), "steps_per_second": round(train_speed, 2)})
    finally:
        algo.stop()
        if started:
            ray.shutdown()
    return TrainResult(algo, path, run_dir, train_speed, final, history)


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry point (``python -m baselines_rl.rllib_ppo --help``); ``argv`` defaults to ``sys.argv``."""
    return script_main(RLlibPPOArgs, train, "python -m baselines_rl.rllib_ppo", argv)


if __name__ == "__main__":
    sys.exit(main())
