"""Training callbacks: per-episode and per-evaluation CSV logs (no TensorBoard), checkpoints.

Files written in the run directory:

* ``episodes.csv``: one row per finished training episode (``timesteps, env, steps, reward,
  score, normalized_score, won, invalid_actions, wall_time_s``).
* ``eval.csv``: one row per evaluation of the greedy policy (``timesteps, mean_normalized_score,
  success_rate, mean_steps, wall_time_s, steps_per_second``).
* ``checkpoints/model_<timesteps>.zip``: every ``checkpoint_freq`` steps.
"""

from __future__ import annotations

import csv
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from stable_baselines3.common.callbacks import BaseCallback

from baselines_rl.common import EnvSpec
from baselines_rl.storage import evaluate_model, save_model

EPISODE_FIELDS = ("timesteps", "env", "steps", "reward", "score", "normalized_score", "won",
                  "invalid_actions", "wall_time_s")
EVAL_FIELDS = ("timesteps", "mean_normalized_score", "success_rate", "mean_steps", "wall_time_s",
               "steps_per_second")


class CSVWriter:
    """Appends dict rows to a CSV file, writing the header once."""

    def __init__(self, path: Path, fields: tuple[str, ...]):
        self.path, self.fields = path, fields
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("w", newline="") as handle:
            csv.writer(handle).writerow(fields)

    def write(self, row: dict[str, Any]) -> None:
        """Appends one row (missing fields left empty)."""
        with self.path.open("a", newline="") as handle:
            csv.writer(handle).writerow([row.get(f, "") for f in self.fields])


def read_csv(path: str | Path) -> list[dict[str, float]]:
    """Rows of a log written here, numbers as floats."""
    with Path(path).open() as handle:
        return [{k: float(v) for k, v in row.items() if v != ""} for row in csv.DictReader(handle)]


class TrainingLog(BaseCallback):
    """Logs episodes to ``episodes.csv``, evaluates to ``eval.csv``, saves checkpoints.

    Args:
        run_dir: The run directory.
        spec: Env spec (evaluations build a fresh env from it; checkpoints store it).
        algorithm: Algorithm name stored with checkpoints.
        eval_freq: Evaluate every this many env steps (0: never during training).
        eval_episodes: Episodes per evaluation.
        checkpoint_freq: Checkpoint every this many env steps (0: never).
        seed: First reset seed of evaluation episodes.
        stop_score: End training once an evaluation's mean normalized score reaches it.
    """

    def __init__(self, run_dir: Path, spec: EnvSpec, algorithm: str, eval_freq: int = 0,
                 eval_episodes: int = 3, checkpoint_freq: int = 0, seed: int = 0,
                 stop_score: float | None = None):
        super().__init__()
        self.run_dir, self.spec, self.algorithm = run_dir, spec, algorithm
        self.eval_freq, self.eval_episodes, self.checkpoint_freq = eval_freq, eval_episodes, checkpoint_freq
        self.eval_seed, self.stop_score = seed, stop_score
        self.episodes = CSVWriter(run_dir / "episodes.csv", EPISODE_FIELDS)
        self.evals = CSVWriter(run_dir / "eval.csv", EVAL_FIELDS)
        self.eval_history: list[dict[str, float]] = []
        self._next_eval = eval_freq
        self._next_checkpoint = checkpoint_freq
        self._start = time.perf_counter()
        self._eval_time = 0.0
        self._running: dict[int, list[float]] = {}

    def _on_step(self) -> bool:
        infos: list[dict[str, Any]] = self.locals["infos"]
        for index, (info, done) in enumerate(zip(infos, self.locals["dones"])):
            totals = self._running.setdefault(index, [0.0, 0, 0])
            totals[0] += float(self.locals["rewards"][index])
            totals[1] += 1
            totals[2] += int(info.get("invalid_action", False))
            if done:
                self._log_episode(index, info, totals)
                self._running[index] = [0.0, 0, 0]
        self._maybe(self._next_eval, self.eval_freq, self.evaluate, "_next_eval")
        self._maybe(self._next_checkpoint, self.checkpoint_freq, self.checkpoint, "_next_checkpoint")
        return not self.reached_stop_score()

    def reached_stop_score(self) -> bool:
        """Whether the last evaluation reached ``stop_score``."""
        return self.stop_score is not None and bool(self.eval_history) and \
            self.eval_history[-1]["mean_normalized_score"] >= self.stop_score

    def _maybe(self, due: int, every: int, action: Callable[[], Any], attr: str) -> None:
        if every > 0 and self.num_timesteps >= due:
            action()
            setattr(self, attr, due + every * (1 + (self.num_timesteps - due) // every))

    def _log_episode(self, index: int, info: dict[str, Any], totals: list[float]) -> None:
        self.episodes.write({
            "timesteps": self.num_timesteps, "env": index, "steps": totals[1], "reward": totals[0],
            "score": info.get("score", 0), "normalized_score": info.get("normalized_score", 0.0),
            "won": int(bool(info.get("won", False))), "invalid_actions": totals[2],
            "wall_time_s": round(time.perf_counter() - self._start, 2)})

    def training_speed(self) -> float:
        """Env steps per second of training so far (evaluation time excluded)."""
        elapsed = time.perf_counter() - self._start - self._eval_time
        return self.num_timesteps / max(elapsed, 1e-9)

    def evaluate(self) -> dict[str, float]:
        """Evaluates the greedy policy now and logs it."""
        start = time.perf_counter()
        results = evaluate_model(self.model, self.spec, self.eval_episodes, self.eval_seed)
        self._eval_time += time.perf_counter() - start
        row = {"timesteps": self.num_timesteps,
               "mean_normalized_score": float(np.mean([r["normalized_score"] for r in results])),
               "success_rate": float(np.mean([r["won"] for r in results])),
               "mean_steps": float(np.mean([r["steps"] for r in results])),
               "wall_time_s": round(time.perf_counter() - self._start, 2),
               "steps_per_second": round(self.training_speed(), 2)}
        self.evals.write(row)
        self.eval_history.append(row)
        return row

    def checkpoint(self) -> Path:
        """Saves ``checkpoints/model_<timesteps>.zip``."""
        path = self.run_dir / "checkpoints" / f"model_{self.num_timesteps}.zip"
        return save_model(self.model, path, self.algorithm, self.spec)


class TrainingProgress(BaseCallback):
    """A progress bar on stderr over the run's env steps: done of total, steps per second, time left,
    and the latest evaluation's mean normalized score (tqdm, so it also shows in a log file).

    Args:
        total_timesteps: The run's env steps (the bar's end).
        log: The run's :class:`TrainingLog`, whose evaluations the bar shows.
    """

    def __init__(self, total_timesteps: int, log: TrainingLog | None = None):
        super().__init__()
        self.total_timesteps, self.log = total_timesteps, log
        self.bar: Any = None

    def _on_training_start(self) -> None:
        from tqdm import tqdm

        self.bar = tqdm(total=self.total_timesteps, desc="training", unit="step", dynamic_ncols=True)

    def _on_step(self) -> bool:
        self.bar.update(max(0, min(self.model.num_timesteps, self.total_timesteps) - self.bar.n))
        if self.log is not None and self.log.eval_history:
            score = self.log.eval_history[-1]["mean_normalized_score"]
            self.bar.set_postfix_str(f"eval score={score:.2f}", refresh=False)
        return True

    def _on_training_end(self) -> None:
        self.bar.close()
