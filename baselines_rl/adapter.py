"""A trained model as a :class:`policies.Policy`: ``make_policy("rl:runs/model.zip")``.

The runner gives policies raw text and ``info``; :class:`RLPolicy` encodes them exactly as in
training (the model file stores its :class:`~baselines_rl.common.EnvSpec`), asks the model for
an action among the admissible commands, and returns the command. A model trained with a
memory belief keeps its own memory (rules extractor, fed only what the policy observes, adopted as
the wrapper adopts it: :func:`~textmem_gym.memory.adoption.adopt` with the text parser of the training
env id's backend) when the env is not already wrapped by ``MemoryGraphWrapper``; ``go to X`` macros of
models trained with ``goto`` are then walked one primitive move per step.

Example (CLI)::

    textmem-gym eval TextMem/CookingRL-L1-v0 --policy rl:runs/ppo/model.zip --episodes 3
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from baselines_rl.storage import load_model, predict
from textmem_gym.core.policy import RECORDED_UNLESS_DEFAULT, ConfiguredPolicy, Info, PolicyConfig
from textmem_gym.wrappers.encodings import ObservationEncoder


@dataclass(frozen=True, kw_only=True)
class RLConfig(PolicyConfig):
    """Settings of :class:`RLPolicy` (the model file is its name, ``rl:PATH``, not a setting): each
    recorded in results rows when it is not its default.

    Example:
        >>> RLConfig().recorded(), RLConfig(deterministic=False).recorded()
        ({}, {'deterministic': False})
    """

    deterministic: bool = field(default=True, metadata=RECORDED_UNLESS_DEFAULT)
    """Greedy actions (default) or sampled ones (seeded via :meth:`RLPolicy.seed`)."""
    device: str = field(default="cpu", metadata=RECORDED_UNLESS_DEFAULT)
    """Torch device."""


class RLPolicy(ConfiguredPolicy):
    """Plays a model saved by ``baselines_rl`` (MaskablePPO or masked DQN).

    Args:
        path: The model ``.zip``.
        config: Its settings (default: :class:`RLConfig`'s).
        **fields: Settings to change (``deterministic``, ``device``).
    """

    name: ClassVar[str] = "rl"
    config_class: ClassVar[type[RLConfig]] = RLConfig
    config: RLConfig

    def __init__(self, path: str | Path, config: RLConfig | None = None, **fields: Any) -> None:
        import torch

        super().__init__(config, **fields)
        self.path = str(path)
        self.model, self.algorithm, self.spec = load_model(path, device=self.config.device)
        self.encoding = ObservationEncoder(**self.spec.encoding, with_belief=self.spec.memory is not None)
        self._torch = torch
        self._memory: Any = None
        self._pending: deque[str] = deque()
        self._stats = {"actions": 0, "macro_moves": 0}

    def seed(self, seed: int | None) -> None:
        """Seeds sampling (only matters with ``deterministic=False``)."""
        if seed is not None:
            self._torch.manual_seed(seed)

    def reset(self, observation: Any, info: Info) -> None:
        """Starts an episode (and the policy's own memory when it needs one)."""
        self._pending.clear()
        self._stats = {"actions": 0, "macro_moves": 0}
        self._memory = None
        if self.spec.memory is not None and not isinstance(observation, dict):
            from textmem_gym.memory.adoption import adopt, parser_for
            from textmem_gym.memory.registry import make_memory

            built = make_memory(self.spec.memory, extractor="rules")  # built empty: no reset needed
            self._memory = adopt(built, parser=parser_for(self.spec.env_id))
            self._memory.update(observation, "", info)

    def act(self, observation: Any, info: Info) -> str:
        """The model's command for this observation."""
        if self._pending:
            self._stats["macro_moves"] += 1
            return self._pending.popleft()
        observation, admissible = self._inputs(observation, info)
        encoded = self.encoding.encode(observation, admissible)
        action = int(predict(self.model, encoded, self.encoding.mask, self.config.deterministic))
        self._stats["actions"] += 1
        return self._expand(self.encoding.command_of(action))

    def observe(self, action: str, observation: Any, reward: float, terminated: bool,
                truncated: bool, info: Info) -> None:
        """Feeds the policy's own memory, if any."""
        if self._memory is not None:
            self._memory.update(observation, action, info)

    def episode_stats(self) -> dict[str, Any]:
        """Model decisions and primitive moves spent walking ``go to`` macros."""
        return dict(self._stats)

    # -- own memory (env not wrapped) ------------------------------------------------------
    def _inputs(self, observation: Any, info: Info) -> tuple[Any, list[str]]:
        admissible = list(info.get("admissible_commands") or [])
        if self._memory is None:
            return observation, admissible
        from textmem_gym.wrappers.memory_graph import belief_text, goto_commands

        belief = belief_text(self._memory, observation)  # as MemoryGraphWrapper renders it in training
        if self.spec.goto:
            admissible += goto_commands(self._memory.map)
        return {"observation": observation, "belief": belief}, admissible

    def _expand(self, command: str) -> str:
        from textmem_gym.wrappers.memory_graph import hop_commands, parse_goto, plan_route

        room_map = self._memory.map if self._memory is not None else None  # no map part: no go-to macros
        target = parse_goto(command) if room_map is not None and self.spec.goto else None
        if room_map is None or target is None:
            return command
        hops, _ = plan_route(room_map, target)
        for direction, _, door in hops:
            self._pending.extend(hop_commands(direction, door))
        return self._pending.popleft() if self._pending else self.encoding.safe_command


def make_rl_policy(path: str, **fields: Any) -> RLPolicy:
    """rl:PATH plays a model trained by baselines_rl (MaskablePPO / masked DQN .zip)

    Registry factory for ``rl:PATH`` (``PREFIXED_POLICIES["rl"]``); ``fields`` are :class:`RLConfig`'s
    (the registry records those given, as it records any factory's keywords)."""
    if not path:
        raise ValueError("rl policy needs a model path: rl:PATH")
    return RLPolicy(path, **fields)

