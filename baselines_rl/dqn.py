"""Masked DQN: SB3's DQN where masked actions are never chosen nor bootstrapped from.

The mask travels in the observation (``action_mask`` of ``TextEncodingWrapper``), so the replay
buffer keeps it with every state: Q-values of masked actions are set to a large negative number
inside the Q-network (greedy actions and the target's ``max`` ignore them), and exploration
(warm-up and epsilon-greedy) samples uniformly among the allowed actions only. With
``model="drrn"`` the Q-network is the DRRN scorer (the original DRRN is a Q-learner).

Run it::

    python -m baselines_rl.dqn --env-id TextMem/CookingRL-L1-v0 --total-timesteps 50000 --out-dir runs/dqn-l1

or ``from baselines_rl.dqn import DQNArgs, train; train(DQNArgs(...))``.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
from stable_baselines3 import DQN
from stable_baselines3.common.torch_layers import CombinedExtractor
from stable_baselines3.dqn.policies import DQNPolicy, QNetwork

from baselines_rl.common import CommonArgs
from baselines_rl.drrn import DRRNEncoder, DRRNScorer
from baselines_rl.train import TrainResult, run_training, script_main

ALGORITHM = "masked_dqn"
#: Q-value given to masked actions (finite, so ``0 * Q`` stays 0 at terminal states).
MASKED_Q = -1e8


@dataclass
class DQNArgs(CommonArgs):
    """Arguments of a masked-DQN run (the common ones, then DQN's)."""

    out_dir: str = "runs/dqn"
    """Where the model, checkpoints and CSV logs go."""
    learning_rate: float = 5e-4
    """Adam learning rate."""
    buffer_size: int = 20_000
    """Replay buffer size (transitions)."""
    learning_starts: int = 1_000
    """Random (allowed) actions before learning starts."""
    batch_size: int = 64
    """Minibatch size."""
    gamma: float = 0.95
    """Discount factor."""
    train_freq: int = 4
    """Env steps (per env) between gradient updates."""
    gradient_steps: int = 1
    """Gradient steps per update."""
    target_update_interval: int = 1_000
    """Env steps between target-network updates."""
    exploration_fraction: float = 0.3
    """Fraction of training over which epsilon decays."""
    exploration_final_eps: float = 0.05
    """Final epsilon."""


class MaskedQNetwork(QNetwork):
    """A Q-network whose masked actions get :data:`MASKED_Q`; ``head="drrn"`` scores command slots."""

    def __init__(self, *args: Any, head: str = "mlp", **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.head = head
        if head == "drrn":
            extractor = self.features_extractor
            if not isinstance(extractor, DRRNEncoder):
                raise ValueError("head='drrn' needs the DRRNEncoder features extractor")
            self.q_net = DRRNScorer(extractor.hidden_dim, extractor.max_commands)  # type: ignore[assignment]

    def forward(self, obs: Any) -> torch.Tensor:
        q_values = self.q_net(self.extract_features(obs, self.features_extractor))
        allowed = obs["action_mask"] > 0.5
        return torch.where(allowed, q_values, torch.full_like(q_values, MASKED_Q))

    def _get_constructor_parameters(self) -> dict[str, Any]:
        return {**super()._get_constructor_parameters(), "head": self.head}


class MaskedDQNPolicy(DQNPolicy):
    """DQN policy with :class:`MaskedQNetwork` (``head`` = ``"mlp"`` or ``"drrn"``)."""

    def __init__(self, *args: Any, head: str = "mlp", **kwargs: Any):
        self.head = head
        kwargs.setdefault("features_extractor_class", DRRNEncoder if head == "drrn" else CombinedExtractor)
        super().__init__(*args, **kwargs)

    def make_q_net(self) -> MaskedQNetwork:
        net_args = self._update_features_extractor(self.net_args, features_extractor=None)
        return MaskedQNetwork(**net_args, head=self.head).to(self.device)

    def _get_constructor_parameters(self) -> dict[str, Any]:
        return {**super()._get_constructor_parameters(), "head": self.head}


def sample_allowed(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One uniformly random allowed action per row of ``masks``."""
    masks = np.atleast_2d(masks)
    return np.array([rng.choice(np.flatnonzero(row > 0)) for row in masks])


class MaskedDQN(DQN):
    """DQN whose exploration samples only allowed actions (see the module docstring).

    Epsilon-greedy is decided per env (SB3's DQN decides once per batch).
    """

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self._explore_rng = np.random.default_rng(self.seed)

    def predict(self, observation: Any, state: Any = None, episode_start: Any = None,
                deterministic: bool = False) -> tuple[np.ndarray, Any]:
        action, state = self.policy.predict(observation, state, episode_start, deterministic)
        if deterministic:
            return action, state
        masks = observation["action_mask"]
        explore = self._explore_rng.random(size=(np.atleast_2d(masks).shape[0],)) < self.exploration_rate
        if explore.any():
            random_actions = sample_allowed(masks, self._explore_rng)
            action = np.where(explore, random_actions, np.atleast_1d(action)).reshape(np.shape(action))
        return action, state

    def _sample_action(self, learning_starts: int, action_noise: Any = None,
                       n_envs: int = 1) -> tuple[np.ndarray, np.ndarray]:
        if self.num_timesteps < learning_starts:
            action = sample_allowed(self._last_obs["action_mask"], self._explore_rng)  # type: ignore[index]
        else:
            action, _ = self.predict(self._last_obs, deterministic=False)
        return action, action


def build_model(args: DQNArgs, vec_env: Any) -> MaskedDQN:
    """The masked DQN ``args`` describe, on ``vec_env``."""
    policy_kwargs: dict[str, Any] = {"head": args.model, "net_arch": [args.hidden_dim, args.hidden_dim]}
    if args.model == "drrn":
        policy_kwargs["features_extractor_kwargs"] = {"embedding_dim": args.embedding_dim,
                                                      "hidden_dim": args.hidden_dim}
    return MaskedDQN(MaskedDQNPolicy, vec_env, learning_rate=args.learning_rate, buffer_size=args.buffer_size,
                     learning_starts=args.learning_starts, batch_size=args.batch_size, gamma=args.gamma,
                     train_freq=args.train_freq, gradient_steps=args.gradient_steps,
                     target_update_interval=args.target_update_interval,
                     exploration_fraction=args.exploration_fraction,
                     exploration_final_eps=args.exploration_final_eps, policy_kwargs=policy_kwargs,
                     seed=args.seed, device=args.device, verbose=args.verbose)


def train(args: DQNArgs) -> TrainResult:
    """Trains the masked DQN per ``args``; saves ``model.zip`` and CSV logs in ``args.out_dir``."""
    return run_training(args, ALGORITHM, lambda vec_env: build_model(args, vec_env))


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry point (``python -m baselines_rl.dqn --help``); ``argv`` defaults to ``sys.argv``."""
    return script_main(DQNArgs, train, "python -m baselines_rl.dqn", argv)


if __name__ == "__main__":
    sys.exit(main())
