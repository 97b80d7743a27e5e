"""One step budget, the game restarted after each win or loss, scored by the best score reached (TALES).

TALES (microsoft/tale-suite) plays each game for a fixed number of commands; when the game ends
(won or lost) before the budget is spent and not with the maximum score, it starts again and the
agent plays on, the observation joining the last one, ``-= Restarting =-`` and the new start. A
game's result is the highest score reached over the whole budget. :class:`RestartWithinBudget`
turns a TextMem env into that: one Gymnasium episode is one budget, so the runner, results rows,
resumption and workers work unchanged.

Example:
    >>> import gymnasium as gym, textmem_gym
    >>> env = RestartWithinBudget(gym.make("TextMem/TWX-CoinCollector-v0", max_episode_steps=6, numLocations=1))
    >>> obs, info = env.reset(seed=0)
    >>> obs, reward, terminated, truncated, info = env.step("take coin")
    >>> info["won"], info["score"], terminated       # won with the maximum score: the budget ends here
    (True, 100.0, True)
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym

#: Put between the last observation of a game and the first of the restarted one (as TALES does).
RESTART_MARK = "\n\n-= Restarting =-\n"


class RestartWithinBudget(gym.Wrapper):
    """A budget of ``budget`` commands over restarts of the same game, scored by the best score.

    Observation, action space and reward are the wrapped env's (the reward is the game's score
    change). On a win with the maximum score the episode terminates; on any other win or loss
    before the budget is spent the game is reset (``reset()`` without a seed: the same game) and
    the step's observation is ``last + RESTART_MARK + first observation of the new game``, with
    ``terminated=False`` and ``info["restarted"] = True``. The episode is truncated when the
    budget is spent.

    ``info`` is the current game's, except: ``score`` and ``normalized_score`` are the best
    reached in the budget so far (``game_score`` is the current game's), ``won`` / ``lost``
    say whether any game of the budget was won / lost with none won, and ``metrics`` (copied to
    results rows by the runner) adds ``wins``, ``losses`` and ``restarts``.

    Args:
        env: A TextMem env (made by ``gym.make``).
        budget: Commands in the budget (``None``: the env's ``max_episode_steps``).

    Raises:
        ValueError: Without a budget (none given and no step limit on the env).
    """

    def __init__(self, env: gym.Env, budget: int | None = None):
        super().__init__(env)
        limit = budget if budget is not None else getattr(env.spec, "max_episode_steps", None)
        if not isinstance(limit, int) or limit < 1:
            raise ValueError(f"RestartWithinBudget needs a budget >= 1 (or an env with max_episode_steps), "
                             f"got {limit!r}")
        self.budget = limit
        self._steps = self._wins = self._losses = self._restarts = 0
        self._best: float = 0

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Any, dict[str, Any]]:
        """Starts a budget: the game from its start, nothing spent."""
        observation, info = self.env.reset(seed=seed, options=options)
        self._steps = self._wins = self._losses = self._restarts = 0
        self._best = info.get("score", 0)
        return observation, self._scored(info)

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """One command of the budget; restarts the game when it ended short of the maximum score."""
        observation, reward, terminated, truncated, info = self.env.step(action)
        self._steps += 1
        self._best = max(self._best, info.get("score", 0))
        self._wins += bool(info.get("won"))
        self._losses += bool(info.get("lost")) and not info.get("won")
        perfect = bool(info.get("won")) and 0 < info.get("max_score", 0) <= self._best
        if terminated and not perfect and self._steps < self.budget:
            first, info = self.env.reset()
            observation = f"{observation}{RESTART_MARK}{first}"
            self._restarts += 1
            terminated, truncated = False, False
            info = {**info, "restarted": True}
        truncated = bool(truncated or (self._steps >= self.budget and not terminated))
        return observation, float(reward), terminated, truncated, self._scored(info)

    def _scored(self, info: dict[str, Any]) -> dict[str, Any]:
        """``info`` with the budget's best score, outcome and counts."""
        max_score = info.get("max_score", 0)
        metrics = {**(info.get("metrics") or {}), "wins": self._wins, "losses": self._losses,
                   "restarts": self._restarts}
        return {**info, "game_score": info.get("score", 0), "score": float(self._best),
                "normalized_score": self._best / max_score if max_score > 0 else 0.0,
                "won": self._wins > 0, "lost": self._wins == 0 and self._losses > 0, "metrics": metrics}


__all__ = ["RESTART_MARK", "RestartWithinBudget"]
