"""What RLlib needs to train on a TextMem env: the env creator, the masked observation, the RLModule.

* :func:`make_rllib_env` is the env creator registered under :data:`ENV_NAME`
  (``ray.tune.registry.register_env``): each env runner builds its own env, memory wrapper and text
  encoding from the :class:`~baselines_rl.common.EnvSpec` dict in ``env_config["spec"]`` (ids and
  options, never a pickled env).
* :class:`MaskedObservation` reshapes the encoded observation into RLlib's action-masking layout,
  ``{"action_mask": Box(0, 1, (K,)), "observations": {...the other keys...}}`` (as RLlib's
  ``examples/rl_modules/classes/action_masking_rlm.py`` expects).
* :class:`MaskedCommandModule` is the PPO RLModule: the DRRN scorer of :mod:`baselines_rl.drrn`
  (``model="drrn"``) or an MLP over the flattened encoding (``model="mlp"``); commands outside the
  mask get RLlib's ``FLOAT_MIN`` logits, so they are never sampled (MaskablePPO's masks).

Example:
    >>> import torch
    >>> from baselines_rl.common import EnvSpec
    >>> env = make_rllib_env({"spec": EnvSpec("TextMem/CookingRL-L1-v0").to_dict()})
    >>> obs, info = env.reset(seed=0)
    >>> sorted(obs), obs["action_mask"].dtype.name
    (['action_mask', 'observations'], 'float32')
    >>> module = MaskedCommandModule(observation_space=env.observation_space, action_space=env.action_space,
    ...                              model_config={"model": "drrn", "embedding_dim": 8, "hidden_dim": 16})
    >>> action = greedy_action(module, obs)
    >>> bool(obs["action_mask"][action])
    True
    >>> env.close()
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, SupportsFloat

import gymnasium as gym
import numpy as np
import torch
from gymnasium import spaces
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.apis.value_function_api import ValueFunctionAPI
from ray.rllib.core.rl_module.torch.torch_rl_module import TorchRLModule
from ray.rllib.utils.torch_utils import FLOAT_MIN
from torch import nn

from baselines_rl.common import EnvSpec
from baselines_rl.drrn import DRRNEncoder, DRRNScorer

#: Name the env creator is registered under (``register_env(ENV_NAME, make_rllib_env)``).
ENV_NAME = "textmem"


def masked_layout(observation: dict[str, np.ndarray]) -> dict[str, Any]:
    """An encoded observation as ``{"action_mask": float32 mask, "observations": the other keys}``."""
    return {"action_mask": observation["action_mask"].astype(np.float32),
            "observations": {k: v for k, v in observation.items() if k != "action_mask"}}


class MaskedObservation(gym.ObservationWrapper):
    """Encoded TextMem observations in RLlib's action-masking layout, plus episode totals in the last ``info``.

    The final ``info`` of an episode gets ``episode_steps``, ``episode_reward`` (training reward,
    novelty bonus included) and ``episode_invalid_actions``, so an RLlib callback can write the same
    ``episodes.csv`` rows as the SB3 scripts from one ``info``.

    Args:
        env: A ``TextEncodingWrapper`` env (``EnvSpec.make``).
    """

    def __init__(self, env: gym.Env):
        super().__init__(env)
        inner = env.observation_space
        if not isinstance(inner, spaces.Dict) or "action_mask" not in inner.spaces:
            raise ValueError("MaskedObservation wraps a TextEncodingWrapper env (a Dict with 'action_mask')")
        size = spaces.flatdim(inner["action_mask"])
        self.observation_space = spaces.Dict({
            "action_mask": spaces.Box(0.0, 1.0, (size,), np.float32),
            "observations": spaces.Dict({k: v for k, v in inner.spaces.items() if k != "action_mask"})})
        self._totals = [0, 0.0, 0]

    def observation(self, observation: dict[str, np.ndarray]) -> dict[str, Any]:
        """See :func:`masked_layout`."""
        return masked_layout(observation)

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Any, dict[str, Any]]:
        self._totals = [0, 0.0, 0]
        return super().reset(seed=seed, options=options)

    def step(self, action: Any) -> tuple[Any, SupportsFloat, bool, bool, dict[str, Any]]:
        observation, reward, terminated, truncated, info = super().step(action)
        self._totals = [self._totals[0] + 1, self._totals[1] + float(reward),
                        self._totals[2] + int(bool(info.get("invalid_action", False)))]
        if terminated or truncated:
            info = {**info, "episode_steps": self._totals[0], "episode_reward": self._totals[1],
                    "episode_invalid_actions": self._totals[2]}
        return observation, reward, terminated, truncated, info


def make_rllib_env(config: dict[str, Any]) -> gym.Env:
    """The env creator of :data:`ENV_NAME`: ``config["spec"]`` is an ``EnvSpec.to_dict()``.

    Runs inside each env runner; one torch thread, as the SB3 scripts' subprocess envs.
    """
    torch.set_num_threads(1)
    return MaskedObservation(EnvSpec.from_dict(dict(config["spec"])).make())


class MaskedCommandModule(TorchRLModule, ValueFunctionAPI):
    """PPO RLModule scoring the ``K`` command slots; slots outside ``action_mask`` get ``FLOAT_MIN`` logits.

    ``model_config``: ``model`` (``"drrn"`` or ``"mlp"``), ``embedding_dim``, ``hidden_dim``.
    The value head reads the state representation (returned as ``Columns.EMBEDDINGS``, so PPO's
    learner reuses it).
    """

    def setup(self) -> None:
        """Builds the networks for the ``observations`` part of the space."""
        config = self.model_config if isinstance(self.model_config, dict) else {}
        model, hidden = config.get("model", "drrn"), int(config.get("hidden_dim", 128))
        space = self.observation_space
        parts = space.spaces if isinstance(space, spaces.Dict) else {}
        inner = parts.get("observations")
        if not isinstance(space, spaces.Dict) or not isinstance(inner, spaces.Dict) or "action_mask" not in parts:
            raise ValueError(f"MaskedCommandModule needs MaskedObservation's Dict space, got {space}")
        mask_space = space["action_mask"]
        self.model, self.max_commands = model, spaces.flatdim(mask_space)
        if model == "drrn":
            self.encoder: nn.Module = DRRNEncoder(spaces.Dict({**inner.spaces, "action_mask": mask_space}),
                                                  int(config.get("embedding_dim", 64)), hidden)
            self.scorer: nn.Module = DRRNScorer(hidden, self.max_commands)
        elif model == "mlp":
            self.keys = sorted(inner.spaces)
            width = sum(spaces.flatdim(inner[k]) for k in self.keys)
            self.encoder = nn.Sequential(nn.Linear(width, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU())
            self.scorer = nn.Linear(hidden, self.max_commands)
        else:
            raise ValueError(f"model must be 'drrn' or 'mlp', got {model!r}")
        self.value_head = nn.Linear(hidden, 1)
        self.hidden_dim = hidden

    def _state_and_logits(self, obs: dict[str, Any]) -> tuple[torch.Tensor, torch.Tensor]:
        mask, inner = obs["action_mask"].float(), obs["observations"]
        if self.model == "drrn":
            features = self.encoder({**inner, "action_mask": mask})
            state, logits = features[:, : self.hidden_dim], self.scorer(features)
        else:
            flat = torch.cat([inner[k].reshape(mask.shape[0], -1).float() for k in self.keys], dim=-1)
            state = self.encoder(flat)
            logits = self.scorer(state)
        return state, logits.masked_fill(mask < 0.5, FLOAT_MIN)

    def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        state, logits = self._state_and_logits(batch[Columns.OBS])
        return {Columns.ACTION_DIST_INPUTS: logits, Columns.EMBEDDINGS: state}

    def compute_values(self, batch: dict[str, Any], embeddings: Any = None) -> torch.Tensor:
        """Value of each observation (from ``embeddings`` when the forward pass already made them)."""
        if embeddings is None:
            embeddings, _ = self._state_and_logits(batch[Columns.OBS])
        return self.value_head(embeddings).squeeze(-1)


def greedy_action(module: MaskedCommandModule, observation: dict[str, Any]) -> int:
    """The highest-scoring admissible slot for one :class:`MaskedObservation` observation."""
    def batch(value: Any) -> Any:
        return {k: batch(v) for k, v in value.items()} if isinstance(value, dict) else torch.as_tensor(value)[None]

    with torch.no_grad():
        out = module.forward_inference({Columns.OBS: batch(observation)})
    return int(out[Columns.ACTION_DIST_INPUTS][0].argmax())


#: Where an ``Algorithm.save_to_path`` checkpoint keeps the learner's RLModule.
MODULE_IN_CHECKPOINT = ("learner_group", "learner", "rl_module", "default_policy")


class GreedyModule:
    """An RLModule behind SB3's ``predict``/``load`` interface, so :func:`baselines_rl.storage.evaluate_model`
    plays it on ``EnvSpec.make`` envs (``TextEncodingWrapper`` observations) as it plays SB3 models, and
    ``rl:runs/x/checkpoint`` plays a ``baselines_rl.rllib_ppo`` checkpoint in ``textmem-gym eval``."""

    def __init__(self, module: MaskedCommandModule):
        self.module = module

    @classmethod
    def load(cls, path: str | Path, device: str = "cpu") -> GreedyModule:
        """The learner's module of an ``Algorithm.save_to_path`` checkpoint directory (no Ray needed)."""
        from ray.rllib.core.rl_module.rl_module import RLModule

        module = RLModule.from_checkpoint(str(Path(path).joinpath(*MODULE_IN_CHECKPOINT).resolve()))
        if not isinstance(module, MaskedCommandModule):
            raise ValueError(f"{path} holds a {type(module).__name__}, not a baselines_rl.rllib_ppo module")
        module.eval()
        return cls(module.to(device))

    def predict(self, observation: dict[str, np.ndarray], deterministic: bool = True) -> tuple[np.ndarray, None]:
        """Greedy slot for one encoded observation (``deterministic`` is always true here)."""
        return np.asarray(greedy_action(self.module, masked_layout(observation))), None

