"""DRRN-style model: score each admissible command against the state (He et al., 2016).

The state (observation text, belief text when present, and the mean of the current commands)
and each command are embedded with one shared word-embedding table over the hashed token ids
of :mod:`textmem_gym.wrappers.text_encoding`; a small MLP scores every (state, command) pair.
Slots that hold no command are masked out.

The same network serves both algorithms:

* :class:`DRRNActorCriticPolicy`: MaskablePPO policy; the scores are the action logits and a
  value head reads the state.
* :class:`MaskedQNetwork` with ``head="drrn"``: the scores are Q-values (the original DRRN).

Example:
    >>> import gymnasium as gym, textmem_gym, torch
    >>> from textmem_gym.wrappers import TextEncodingWrapper
    >>> from stable_baselines3.common.preprocessing import preprocess_obs
    >>> env = TextEncodingWrapper(gym.make("TextMem/CookingRL-L1-v0"))
    >>> obs, _ = env.reset(seed=0)
    >>> net = DRRNEncoder(env.observation_space)
    >>> batch = {k: torch.as_tensor(v)[None].float() for k, v in obs.items()}
    >>> scores = DRRNScorer(net.hidden_dim, net.max_commands)(net(batch))
    >>> scores.shape, bool(torch.isinf(scores[0, len(env.commands):]).all())
    (torch.Size([1, 64]), True)
    >>> env.close()
"""

from __future__ import annotations

from typing import Any

import torch
from gymnasium import spaces
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from torch import nn

#: Observation keys read as text (in this order) when present.
TEXT_KEYS = ("observation", "belief")


def _pool_tokens(embedding: nn.Embedding, ids: torch.Tensor) -> torch.Tensor:
    """Mean embedding of the non-padding ids along the last axis (zeros when all padding)."""
    ids = ids.long()
    present = (ids > 0).float().unsqueeze(-1)
    summed = (embedding(ids) * present).sum(dim=-2)
    return summed / present.sum(dim=-2).clamp(min=1.0)


def _pool_counts(embedding: nn.Embedding, counts: torch.Tensor) -> torch.Tensor:
    """Count-weighted mean embedding of a bag-of-words vector."""
    counts = counts.float()
    return counts @ embedding.weight / counts.sum(dim=-1, keepdim=True).clamp(min=1.0)


class DRRNEncoder(BaseFeaturesExtractor):
    """Embeds the state and the ``K`` commands of an encoded observation.

    Output: one vector per sample, ``[state (hidden), command_1 (hidden), ..., command_K,
    mask (K)]`` (the layout :class:`DRRNScorer` reads), so it fits SB3's features-extractor slot.

    Args:
        observation_space: The ``Dict`` space of a slot-mode ``TextEncodingWrapper``.
        embedding_dim: Word-embedding size (shared by states and commands).
        hidden_dim: Size of the state and command representations.
    """

    def __init__(self, observation_space: spaces.Dict, embedding_dim: int = 64, hidden_dim: int = 128):
        if not isinstance(observation_space, spaces.Dict) or "commands" not in observation_space.spaces:
            raise ValueError("the DRRN model needs slot-mode observations (a 'commands' key); "
                             "use the mlp model with a command vocabulary")
        commands, mask = observation_space["commands"], observation_space["action_mask"]
        if not isinstance(commands, spaces.Box) or not isinstance(mask, spaces.Box):
            raise ValueError("the DRRN model needs Box 'commands' and 'action_mask' observations")
        self.max_commands = int(mask.shape[0])
        features_dim = hidden_dim * (1 + self.max_commands) + self.max_commands
        super().__init__(observation_space, features_dim)
        self.hidden_dim = hidden_dim
        self.hash_size = int(commands.high.max()) + 1
        self.command_tokens = int(commands.shape[0]) // self.max_commands
        self.text_keys = [k for k in TEXT_KEYS if k in observation_space.spaces]
        self.bag_of_words = {k: observation_space[k].dtype == "uint8" for k in self.text_keys}
        self.embedding = nn.Embedding(self.hash_size, embedding_dim, padding_idx=0)
        self.state_net = nn.Sequential(
            nn.Linear(embedding_dim * (len(self.text_keys) + 1), hidden_dim), nn.ReLU())
        self.command_net = nn.Sequential(nn.Linear(embedding_dim, hidden_dim), nn.ReLU())

    def _text(self, key: str, value: torch.Tensor) -> torch.Tensor:
        pool = _pool_counts if self.bag_of_words[key] else _pool_tokens
        return pool(self.embedding, value)

    def forward(self, observations: dict[str, torch.Tensor]) -> torch.Tensor:
        batch = observations["action_mask"].shape[0]
        mask = observations["action_mask"].float()
        ids = observations["commands"].reshape(batch, self.max_commands, self.command_tokens)
        words = _pool_tokens(self.embedding, ids)                      # (B, K, E)
        mean_command = (words * mask.unsqueeze(-1)).sum(1) / mask.sum(1, keepdim=True).clamp(min=1.0)
        texts = [self._text(k, observations[k]) for k in self.text_keys]
        state = self.state_net(torch.cat([*texts, mean_command], dim=-1))
        commands = self.command_net(words)                             # (B, K, H)
        return torch.cat([state, commands.reshape(batch, -1), mask], dim=-1)


class DRRNScorer(nn.Module):
    """Scores every command slot from :class:`DRRNEncoder` features; empty slots get ``-inf``.

    Args:
        hidden_dim: The encoder's ``hidden_dim``.
        max_commands: ``K``.
    """

    def __init__(self, hidden_dim: int, max_commands: int):
        super().__init__()
        self.hidden_dim, self.max_commands = hidden_dim, max_commands
        self.net = nn.Sequential(nn.Linear(3 * hidden_dim, hidden_dim), nn.ReLU(), nn.Linear(hidden_dim, 1))

    def split(self, features: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """``(state (B, H), commands (B, K, H), mask (B, K))`` from encoder features."""
        h, k = self.hidden_dim, self.max_commands
        state = features[:, :h]
        commands = features[:, h: h + h * k].reshape(-1, k, h)
        return state, commands, features[:, h + h * k:]

    def forward(self, features: torch.Tensor) -> torch.Tensor:
        state, commands, mask = self.split(features)
        pairs = torch.cat([state.unsqueeze(1).expand_as(commands), commands,
                           state.unsqueeze(1) * commands], dim=-1)
        scores = self.net(pairs).squeeze(-1)
        return scores.masked_fill(mask < 0.5, float("-inf"))


class DRRNHeads(nn.Module):
    """SB3 ``mlp_extractor`` slot: actor latent = command scores (``K``), critic latent = state."""

    def __init__(self, hidden_dim: int, max_commands: int):
        super().__init__()
        self.scorer = DRRNScorer(hidden_dim, max_commands)
        self.latent_dim_pi, self.latent_dim_vf = max_commands, hidden_dim

    def forward(self, features: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return self.forward_actor(features), self.forward_critic(features)

    def forward_actor(self, features: torch.Tensor) -> torch.Tensor:
        # -inf logits of empty slots become a large negative number: MaskablePPO masks them
        # anyway, and finite logits keep the categorical distribution's arithmetic NaN-free.
        return self.scorer(features).clamp(min=-1e8)

    def forward_critic(self, features: torch.Tensor) -> torch.Tensor:
        return features[:, : self.scorer.hidden_dim]


class DRRNActorCriticPolicy(MaskableActorCriticPolicy):
    """MaskablePPO policy whose action logits are DRRN scores of the admissible commands.

    Use it as ``MaskablePPO(DRRNActorCriticPolicy, env, policy_kwargs={"features_extractor_kwargs":
    {"embedding_dim": 64, "hidden_dim": 128}})`` on a slot-mode ``TextEncodingWrapper`` env.
    """

    def __init__(self, *args: Any, **kwargs: Any):
        kwargs.setdefault("features_extractor_class", DRRNEncoder)
        kwargs.setdefault("ortho_init", False)
        super().__init__(*args, **kwargs)

    def _build_mlp_extractor(self) -> None:
        extractor = self.features_extractor
        assert isinstance(extractor, DRRNEncoder)
        # SB3 types the slot as its MlpExtractor; DRRNHeads has the same interface.
        self.mlp_extractor = DRRNHeads(extractor.hidden_dim, extractor.max_commands)  # type: ignore[assignment]

    def _build(self, lr_schedule: Any) -> None:
        super()._build(lr_schedule)
        self.action_net = nn.Identity()  # the scores are the logits
        self.optimizer = self.optimizer_class(  # type: ignore[call-arg]  # as SB3 builds it
            self.parameters(), lr=lr_schedule(1), **self.optimizer_kwargs)
