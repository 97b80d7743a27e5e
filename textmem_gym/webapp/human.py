"""A person's episode, recorded like an agent's: a trajectory (:mod:`textmem_gym.trajectories`)
written step by step, and a results row (policy ``human``) when the episode ends.

Example:
    >>> import tempfile, textmem_gym
    >>> runs = tempfile.mkdtemp()
    >>> episode = HumanEpisode("TextMem/Cooking-v0", runs_dir=runs)
    >>> episode.command("go south")["location"]
    'kitchen'
    >>> row = episode.finish()
    >>> row["policy"], row["steps"], read_trajectory(row["trajectory"]).steps[0]["action"]
    ('human', 1, 'go south')
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from textmem_gym.results import ResultsFile
from textmem_gym.serving.session import GameSession
from textmem_gym.trajectories import TrajectoryWriter, read_trajectory, trajectory_path

#: Policy name of human episodes in results and trajectories.
HUMAN = "human"
#: Results file of human episodes inside the runs directory.
RESULTS_FILE = "human.jsonl"

__all__ = ["HUMAN", "RESULTS_FILE", "HumanEpisode", "read_trajectory"]


class HumanEpisode:
    """One recorded human episode.

    Args:
        env_id: Any TextMem id (or Jericho game name).
        seed: Reset seed.
        memory: Memory shown beside the game (belief text and graph).
        runs_dir: Where ``human.jsonl`` and ``trajectories/`` are written.
    """

    def __init__(self, env_id: str, *, seed: int = 0, memory: str = "arigraph", runs_dir: str | Path = "runs") -> None:
        self.game = GameSession(env_id, memory=memory, seed=seed)
        self.results = ResultsFile(Path(runs_dir) / RESULTS_FILE)
        done = [r for r in self.results.read() if r["env_id"] == self.game.env_id and r["policy"] == HUMAN
                and r["seed"] == seed]
        self.key = {"env_id": self.game.env_id, "policy": HUMAN, "seed": seed, "episode": len(done),
                    "game_seed": self.game.env_kwargs.get("game_seed")}
        self.path = trajectory_path(Path(runs_dir) / "trajectories", self.key)
        self.writer = TrajectoryWriter(self.path)
        self.writer.header(**self.key, env_kwargs=self.game.env_kwargs, policy_class="human", memory=memory)
        self.writer.reset(self._observation(), self.game.info)
        self.started, self.reward = time.perf_counter(), 0.0
        self.row: dict[str, Any] | None = None

    def _observation(self) -> dict[str, str]:
        return {"observation": self.game.observation, "belief": self.game.belief()}

    @property
    def over(self) -> bool:
        """The game ended or the episode was finished."""
        return self.row is not None or self.game.done or self.game.truncated

    def command(self, text: str) -> dict[str, Any]:
        """Plays one command and records it; the episode is finished when the game ends."""
        status = self.game.play(text)
        self.reward += status["reward"]
        self.writer.step(self.game.steps, text.strip(), self._observation(), status["reward"], self.game.done,
                         self.game.truncated, self.game.info)
        if self.game.done or self.game.truncated:
            self.finish()
        return status

    def finish(self) -> dict[str, Any]:
        """Ends the episode (idempotent): the results row is appended and the trajectory closed."""
        if self.row is None:
            s = self.game.status()
            steps = self.game.info.get("steps", {})
            row: dict[str, Any] = {
                "score": s["score"], "max_score": s["max_score"], "normalized_score": s["normalized_score"],
                "won": s["won"], "lost": s["lost"], "terminated": bool(self.game.done),
                "truncated": bool(self.game.truncated), "steps": self.game.steps,
                "primitive_steps": int(steps.get("primitive", self.game.steps)), "moves": s["moves"],
                "reward": self.reward, "wall_time_s": round(time.perf_counter() - self.started, 4),
                "policy_stats": {}, **self.key, "trajectory": str(self.path)}
            export = self.game.adopted.export
            self.writer.finish(row, memory_graph=export.to_json() if export is not None else None)
            self.results.append(row)
            self.row = row
        return self.row

    def close(self) -> None:
        """Finishes the episode and closes the game."""
        if self.game.env is not None:
            self.finish()
            self.game.close()
