"""MaskablePPO (sb3-contrib) on a TextMem env: only admissible commands are ever sampled.

Run it::

    python -m baselines_rl.ppo --env-id TextMem/CookingRL-L1-v0 --total-timesteps 50000 \\
        --out-dir runs/ppo-l1
    textmem-gym eval TextMem/CookingRL-L1-v0 --policy rl:runs/ppo-l1/model.zip

or from Python::

    from baselines_rl.ppo import PPOArgs, train
    result = train(PPOArgs(total_timesteps=50_000, out_dir="runs/ppo-l1"))
    print(result.final_eval, result.model_path)

With ``model="drrn"`` (default) the policy scores each admissible command against the state
(:class:`baselines_rl.drrn.DRRNActorCriticPolicy`); ``model="mlp"`` uses SB3's
``MultiInputPolicy`` (an MLP over the flattened encoding), the natural choice with a fixed
command vocabulary.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from baselines_rl.common import CommonArgs
from baselines_rl.train import TrainResult, run_training, script_main

ALGORITHM = "maskable_ppo"


@dataclass
class PPOArgs(CommonArgs):
    """Arguments of a MaskablePPO run (the common ones, then PPO's)."""

    out_dir: str = "runs/ppo"
    """Where the model, checkpoints and CSV logs go."""
    learning_rate: float = 1e-3
    """Adam learning rate."""
    n_steps: int = 128
    """Steps collected per env between updates (rollout = ``n_steps * n_envs``)."""
    batch_size: int = 64
    """Minibatch size of the updates."""
    n_epochs: int = 4
    """Passes over each rollout."""
    gamma: float = 0.95
    """Discount factor."""
    gae_lambda: float = 0.95
    """GAE lambda."""
    clip_range: float = 0.2
    """PPO clipping range."""
    ent_coef: float = 0.01
    """Entropy bonus (exploration)."""


def build_model(args: PPOArgs, vec_env: Any) -> Any:
    """The MaskablePPO model ``args`` describe, on ``vec_env``."""
    from sb3_contrib import MaskablePPO

    from baselines_rl.drrn import DRRNActorCriticPolicy

    policy: Any
    policy_kwargs: dict[str, Any]
    if args.model == "drrn":
        policy = DRRNActorCriticPolicy
        policy_kwargs = {"features_extractor_kwargs": {"embedding_dim": args.embedding_dim,
                                                       "hidden_dim": args.hidden_dim}}
    else:
        policy, policy_kwargs = "MultiInputPolicy", {"net_arch": [args.hidden_dim, args.hidden_dim]}
    return MaskablePPO(policy, vec_env, learning_rate=args.learning_rate, n_steps=args.n_steps,
                       batch_size=args.batch_size, n_epochs=args.n_epochs, gamma=args.gamma,
                       gae_lambda=args.gae_lambda, clip_range=args.clip_range, ent_coef=args.ent_coef,
                       policy_kwargs=policy_kwargs, seed=args.seed, device=args.device, verbose=args.verbose)


def train(args: PPOArgs) -> TrainResult:
    """Trains MaskablePPO per ``args``; saves ``model.zip`` and CSV logs in ``args.out_dir``."""
    return run_training(args, ALGORITHM, lambda vec_env: build_model(args, vec_env))


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry point (``python -m baselines_rl.ppo --help``); ``argv`` defaults to ``sys.argv``."""
    return script_main(PPOArgs, train, "python -m baselines_rl.ppo", argv)


if __name__ == "__main__":
    sys.exit(main())
