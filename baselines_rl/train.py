"""The training loop both algorithms share: vectorized envs, logs, evaluation, saving.

The scripts (:mod:`baselines_rl.ppo`, :mod:`baselines_rl.dqn`) only say how to build their
model; :func:`run_training` does the rest and returns a :class:`TrainResult`.
"""

from __future__ import annotations

import dataclasses
import json
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import tyro

from baselines_rl.callbacks import TrainingLog, TrainingProgress
from baselines_rl.common import CommonArgs, make_vec_env
from baselines_rl.storage import save_model


@dataclass
class TrainResult:
    """What a training run produced.

    Attributes:
        model: The trained SB3 model.
        model_path: The saved model file (``run_dir/model.zip``).
        run_dir: Directory with ``episodes.csv``, ``eval.csv``, ``args.json``, checkpoints.
        steps_per_second: Training throughput in env steps per second (evaluations excluded).
        final_eval: Mean normalized score and success rate of the final greedy policy.
        eval_history: Every evaluation row (``timesteps``, ``mean_normalized_score``, ...).
    """

    model: Any
    model_path: Path
    run_dir: Path
    steps_per_second: float
    final_eval: dict[str, float] = field(default_factory=dict)
    eval_history: list[dict[str, float]] = field(default_factory=list)

    def first_reaching(self, threshold: float) -> int | None:
        """Env steps at the first evaluation whose mean normalized score reached ``threshold``."""
        for row in self.eval_history:
            if row["mean_normalized_score"] >= threshold:
                return int(row["timesteps"])
        return None


def prepare_run(args: CommonArgs) -> tuple[Any, Path]:
    """What every trainer does first: checks the arguments, sets torch's threads, makes the run
    directory and writes ``args.json`` there; returns the env spec and the run directory."""
    import torch

    check_common(args)
    torch.set_num_threads(args.torch_threads)
    run_dir = Path(args.out_dir)
    run_dir.mkdir(parents=True, exist_ok=True)
    (run_dir / "args.json").write_text(json.dumps(dataclasses.asdict(args), indent=1))
    return args.env_spec(), run_dir


def check_common(args: CommonArgs) -> None:
    """Rejects bad argument values with a message naming them (and an ``out_dir`` that cannot be
    written, before any env is made)."""
    from textmem_gym.paths import check_writable

    check_writable(args.out_dir, folder=True)
    for name in ("total_timesteps", "n_envs", "max_commands", "hash_size", "torch_threads"):
        value = getattr(args, name)
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            raise ValueError(f"{name} must be a positive int, got {value!r}")
    for name in ("eval_freq", "eval_episodes", "checkpoint_freq"):
        if getattr(args, name) < 0:
            raise ValueError(f"{name} must be >= 0, got {getattr(args, name)!r}")
    if args.model not in {"drrn", "mlp"}:
        raise ValueError(f"model must be 'drrn' or 'mlp', got {args.model!r}")
    if args.model == "drrn" and args.vocabulary is not None:
        raise ValueError("model='drrn' scores the admissible-command slots; use model='mlp' with a vocabulary")


def run_training(args: CommonArgs, algorithm: str, build: Callable[[Any], Any]) -> TrainResult:
    """Trains the model ``build(vec_env)`` returns, per ``args``; saves and evaluates it.

    Args:
        args: The run's arguments.
        algorithm: Registered algorithm name (stored in the model file).
        build: Makes the SB3 model for a vectorized env.
    """

    spec, run_dir = prepare_run(args)
    vec_env = make_vec_env(spec, args.n_envs, args.seed, args.subprocess)
    log = TrainingLog(run_dir, spec, algorithm, args.eval_freq, args.eval_episodes,
                      args.checkpoint_freq, args.seed, args.stop_score)
    try:
        model = build(vec_env)
        callbacks: list[Any] = [log] + ([TrainingProgress(args.total_timesteps, log)] if args.progress else [])
        if args.novelty_bonus and args.novelty_decay_steps:
            from baselines_rl.exploration import NoveltyAnnealing

            callbacks.append(NoveltyAnnealing(args.novelty_bonus, args.novelty_decay_steps))
        model.learn(total_timesteps=args.total_timesteps, callback=callbacks)
    finally:
        vec_env.close()
    speed = log.training_speed()
    log.num_timesteps = model.num_timesteps
    done_already = log.eval_history and log.eval_history[-1]["timesteps"] == model.num_timesteps
    final = log.eval_history[-1] if done_already else log.evaluate() if args.eval_episodes > 0 else {}
    path = save_model(model, run_dir / "model.zip", algorithm, spec,
                      extra={"args": dataclasses.asdict(args), "steps_per_second": round(speed, 2)})
    return TrainResult(model, path, run_dir, speed, final, log.eval_history)


def script_main(args_class: type[CommonArgs], train: Callable[[Any], TrainResult], prog: str,
                argv: Sequence[str] | None = None) -> int:
    """The command line of a training script: parse ``argv`` into ``args_class`` (tyro), train, print
    :func:`summary_line`. A bad value or an unwritable ``--out-dir`` is one line on stderr and
    status 2; Ctrl-C is one line and status 130 (nothing is saved)."""
    args = tyro.cli(args_class, args=argv, prog=prog)
    try:
        result = train(args)
    except ValueError as error:
        print(f"{prog}: error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"{prog}: interrupted: the model was not saved (checkpoints and logs so far: {args.out_dir})",
              file=sys.stderr)
        return 130
    print(summary_line(result))
    return 0


def summary_line(result: TrainResult) -> str:
    """One line for the console."""
    score = result.final_eval.get("mean_normalized_score", float("nan"))
    return (f"saved {result.model_path} | {result.steps_per_second:.0f} env steps/s | "
            f"final greedy mean normalized score {score:.2f} | "
            f"evaluations {[round(r['mean_normalized_score'], 2) for r in result.eval_history]} | "
            f"best {np.max([r['mean_normalized_score'] for r in result.eval_history] or [np.nan]):.2f}")

