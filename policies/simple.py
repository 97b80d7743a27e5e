"""Policies that need no model: ``random`` and the privileged ``walkthrough`` oracle."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any, ClassVar

from textmem_gym.core.policy import UNRECORDED, ConfiguredPolicy, Info, PolicyConfig

#: Sent when a policy has nothing better to do.
SAFE_COMMAND = "look"


@dataclass(frozen=True, kw_only=True)
class RandomConfig(PolicyConfig):
    """Settings of :class:`RandomPolicy`."""

    seed: int | None = field(default=0, metadata=UNRECORDED)
    """Seed used until the runner re-seeds it per episode (so not recorded)."""


class RandomPolicy(ConfiguredPolicy):
    """uniform over the admissible commands (seeded)

    Chooses uniformly among ``info["admissible_commands"]``; seeded per episode.

    Args:
        config: Its settings (default: :class:`RandomConfig`'s).
        **fields: Settings to change (``seed``).

    Example:
        >>> policy = RandomPolicy(seed=0)
        >>> policy.act("", {"admissible_commands": ["look", "go north"]}) in {"look", "go north"}
        True
    """

    name: ClassVar[str] = "random"
    config_class: ClassVar[type[RandomConfig]] = RandomConfig
    config: RandomConfig

    def __init__(self, config: RandomConfig | None = None, **fields: Any) -> None:
        super().__init__(config, **fields)
        self._rng = random.Random(self.config.seed)

    def seed(self, seed: int | None) -> None:
        self._rng = random.Random(seed)

    def act(self, observation: Any, info: Info) -> str:
        commands = list(info.get("admissible_commands") or [])
        return self._rng.choice(commands) if commands else SAFE_COMMAND


@dataclass(frozen=True, kw_only=True)
class WalkthroughConfig(PolicyConfig):
    """Settings of :class:`WalkthroughPolicy`: none (it replays the walkthrough)."""


class WalkthroughPolicy(ConfiguredPolicy):
    """PRIVILEGED ORACLE: replays the game's walkthrough (upper bound, not an agent)

    PRIVILEGED ORACLE: replays ``info["walkthrough"]``; an upper bound, not an agent.

    The runner makes the env with ``privileged={"walkthrough"}`` for it. After the walkthrough
    is exhausted it sends ``look``.

    Example:
        >>> policy = WalkthroughPolicy()
        >>> policy.reset("", {"walkthrough": ["go north", "take key"]})
        >>> [policy.act("", {}) for _ in range(3)]
        ['go north', 'take key', 'look']
    """

    name: ClassVar[str] = "walkthrough"
    privileged: ClassVar[frozenset[str]] = frozenset({"walkthrough"})
    config_class: ClassVar[type[WalkthroughConfig]] = WalkthroughConfig
    config: WalkthroughConfig

    def __init__(self, config: WalkthroughConfig | None = None) -> None:
        super().__init__(config)
        self._commands: list[str] = []
        self._next = 0

    def reset(self, observation: Any, info: Info) -> None:
        if "walkthrough" not in info:
            raise ValueError("the walkthrough policy needs an env made with privileged=True")
        self._commands = list(info["walkthrough"])
        self._next = 0

    def act(self, observation: Any, info: Info) -> str:
        if self._next >= len(self._commands):
            return SAFE_COMMAND
        self._next += 1
        return self._commands[self._next - 1]
