"""``TextEncodingWrapper``: a TextMem env as arrays in, an integer out, for stable-baselines3.

Observation (a ``Dict`` of ``Box``, no privileged information):

* ``observation``: the game's text, encoded (:mod:`~textmem_gym.wrappers.text_encoding`).
* ``belief``: the memory's belief text, encoded, when the wrapped env is a
  :class:`~textmem_gym.wrappers.MemoryGraphWrapper` with a ``Dict`` observation.
* ``commands`` (slot actions only): token ids of the command in each of the ``K`` slots,
  ``K`` rows of ``command_tokens`` ids flattened to one vector of ``K * command_tokens``
  (SB3 expects 1-D vectors), zeros for empty slots.
* ``action_mask``: ``int8`` ``(K,)``, ``1`` for the actions allowed now.

Action: ``Discrete(K)``. Slot mode: action ``i`` sends the ``i``-th admissible command
(``K = max_commands``, default 64, see :func:`~textmem_gym.wrappers.action_encoding.select_commands`).
Vocabulary mode (``vocabulary=...``): action ``i`` sends ``vocabulary.commands[i]``. A masked
(invalid) action sends the safe command and sets ``info["invalid_action"]``, so random
actions (as in ``check_env``) never crash. :meth:`action_masks` serves sb3-contrib's MaskablePPO.

Example:
    >>> import gymnasium as gym, textmem_gym
    >>> env = TextEncodingWrapper(gym.make("TextMem/CookingRL-L1-v0"))
    >>> obs, info = env.reset(seed=0)
    >>> sorted(obs), obs["commands"].shape, int(env.action_masks().sum()) == len(env.commands)
    (['action_mask', 'commands', 'observation'], (512,), True)
    >>> obs, reward, terminated, truncated, info = env.step(env.commands.index("take knife from table"))
    >>> info["command"], obs["observation"].dtype.name
    ('take knife from table', 'uint8')
    >>> env.close()
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from textmem_gym.wrappers.action_encoding import (
    DEFAULT_MAX_COMMANDS,
    SAFE_COMMAND,
    CommandVocabulary,
    select_commands,
    vocabulary_from,
)
from textmem_gym.wrappers.text_encoding import DEFAULT_HASH_SIZE, TextEncoder, TokenIds, make_text_encoder


def _has_belief(space: spaces.Space) -> bool:
    return isinstance(space, spaces.Dict) and "belief" in space.spaces


class ObservationEncoder:
    """The encoding itself, without an env: text + admissible commands -> arrays, action -> command.

    :class:`TextEncodingWrapper` uses one; so does the ``rl:PATH`` policy adapter, which sees
    the runner's raw observations. Arguments are those of :class:`TextEncodingWrapper`, plus
    ``with_belief`` (whether a ``belief`` key is produced).

    Example:
        >>> encoder = ObservationEncoder(max_commands=4, hash_size=64)
        >>> obs = encoder.encode("You see a door.", ["open door", "look"])
        >>> obs["action_mask"].tolist(), encoder.command_of(0), encoder.command_of(3)
        ([1, 1, 0, 0], 'open door', 'look')
    """

    def __init__(self, *, text: str | dict[str, Any] | TextEncoder = "bow", hash_size: int = DEFAULT_HASH_SIZE,
                 max_tokens: int = 128, max_commands: int = DEFAULT_MAX_COMMANDS, command_tokens: int = 8,
                 vocabulary: CommandVocabulary | str | Path | Sequence[str] | None = None,
                 safe_command: str = SAFE_COMMAND, with_belief: bool = False):
        options = {"hash_size": hash_size, **({"max_length": max_tokens} if text == "tokens" else {})}
        self.encoder = make_text_encoder(text, **options) if isinstance(text, str) else make_text_encoder(text)
        self.command_encoder = TokenIds(self.encoder.hash_size, command_tokens)
        self.vocabulary = vocabulary_from(vocabulary)
        if not isinstance(max_commands, int) or isinstance(max_commands, bool) or max_commands < 1:
            raise ValueError(f"max_commands must be an int >= 1, got {max_commands!r}")
        self.safe_command = self.vocabulary.safe_command if self.vocabulary is not None else safe_command
        self.max_commands = max_commands if self.vocabulary is None else len(self.vocabulary)
        self.with_belief = bool(with_belief)
        self.commands: list[str] = [self.safe_command]
        self.mask = np.zeros(self.max_commands, dtype=bool)

    def space(self) -> spaces.Dict:
        """The ``Dict`` observation space."""
        out: dict[str, spaces.Space] = {"observation": self.encoder.space()}
        if self.with_belief:
            out["belief"] = self.encoder.space()
        if self.vocabulary is None:
            shape = (self.max_commands * self.command_encoder.max_length,)
            out["commands"] = spaces.Box(0, self.encoder.hash_size - 1, shape=shape, dtype=np.int32)
        out["action_mask"] = spaces.Box(0, 1, shape=(self.max_commands,), dtype=np.int8)
        return spaces.Dict(out)

    def config(self) -> dict[str, Any]:
        """JSON-able settings; ``ObservationEncoder(**config)`` rebuilds the same encoding."""
        vocab = list(self.vocabulary.commands[1:]) if self.vocabulary is not None else None
        return {"text": self.encoder.config(), "max_commands": self.max_commands,
                "command_tokens": self.command_encoder.max_length, "vocabulary": vocab,
                "safe_command": self.safe_command}

    def encode(self, observation: Any, admissible: Sequence[str] | None) -> dict[str, np.ndarray]:
        """Encodes an observation (text, or ``{"observation", "belief"}``) and sets the current
        commands and mask from ``admissible``."""
        text, belief = (observation.get("observation", ""), observation.get("belief", "")) \
            if isinstance(observation, dict) else (str(observation), "")
        if self.vocabulary is None:
            self.commands = select_commands(admissible, self.max_commands, self.safe_command)
            self.mask = np.zeros(self.max_commands, dtype=bool)
            self.mask[: len(self.commands)] = True
        else:
            self.mask = self.vocabulary.mask(admissible)
            self.commands = [c for c, ok in zip(self.vocabulary.commands, self.mask) if ok]
        out = {"observation": self.encoder.encode(text)}
        if self.with_belief:
            out["belief"] = self.encoder.encode(belief)
        if self.vocabulary is None:
            out["commands"] = self.command_encoder.encode_many(self.commands, self.max_commands).reshape(-1)
        out["action_mask"] = self.mask.astype(np.int8)
        return out

    def allowed(self, action: int) -> bool:
        """Whether ``action`` is allowed by the current mask."""
        return 0 <= action < self.max_commands and bool(self.mask[action])

    def command_of(self, action: int) -> str:
        """The command ``action`` stands for now (the safe command when it is not allowed)."""
        if not self.allowed(action):
            return self.safe_command
        table = self.vocabulary.commands if self.vocabulary is not None else self.commands
        return table[action]


class TextEncodingWrapper(gym.Wrapper, gym.utils.RecordConstructorArgs):
    """Encodes text observations as arrays and commands as masked ``Discrete`` actions.

    Args:
        env: A TextMem env, optionally inside a ``MemoryGraphWrapper`` (its ``belief`` is then
            encoded too; ``flatten=True`` puts it in ``observation`` instead).
        text: ``"bow"`` (hashed bag-of-words, default), ``"tokens"`` (padded ids), an encoder
            config dict, or a :class:`~textmem_gym.wrappers.text_encoding.TextEncoder`.
        hash_size: Hash buckets / token-id range of the default encoders (1024).
        max_tokens: Length of token-id observations (``text="tokens"``).
        max_commands: ``K``, the number of command slots (slot mode; default 64).
        command_tokens: Token ids kept per command in ``commands`` (8).
        vocabulary: A fixed command vocabulary (object, JSON path or list): vocabulary mode.
        safe_command: Sent when nothing else is allowed or a masked action is chosen.
    """

    def __init__(self, env: gym.Env, *, text: str | dict[str, Any] | TextEncoder = "bow",
                 hash_size: int = DEFAULT_HASH_SIZE, max_tokens: int = 128,
                 max_commands: int = DEFAULT_MAX_COMMANDS, command_tokens: int = 8,
                 vocabulary: CommandVocabulary | str | Path | Sequence[str] | None = None,
                 safe_command: str = SAFE_COMMAND):
        gym.utils.RecordConstructorArgs.__init__(
            self, text=text, hash_size=hash_size, max_tokens=max_tokens, max_commands=max_commands,
            command_tokens=command_tokens, vocabulary=vocabulary, safe_command=safe_command)
        gym.Wrapper.__init__(self, env)
        self.encoding = ObservationEncoder(
            text=text, hash_size=hash_size, max_tokens=max_tokens, max_commands=max_commands,
            command_tokens=command_tokens, vocabulary=vocabulary, safe_command=safe_command,
            with_belief=_has_belief(env.observation_space))
        self.action_space = spaces.Discrete(self.encoding.max_commands)
        self.observation_space = self.encoding.space()

    @property
    def commands(self) -> list[str]:
        """The commands allowed now (slot order in slot mode)."""
        return self.encoding.commands

    def config(self) -> dict[str, Any]:
        """JSON-able settings; ``TextEncodingWrapper(env, **config)`` rebuilds the same encoding."""
        return self.encoding.config()

    def reset(self, *, seed: int | None = None,
              options: dict[str, Any] | None = None) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        observation, info = self.env.reset(seed=seed, options=options)
        return self.encoding.encode(observation, info.get("admissible_commands")), info

    def step(self, action: Any) -> tuple[dict[str, np.ndarray], float, bool, bool, dict[str, Any]]:
        """Sends the command of ``action`` (the safe command when ``action`` is masked)."""
        valid = self.encoding.allowed(int(action))
        command = self.encoding.command_of(int(action))
        observation, reward, terminated, truncated, info = self.env.step(command)
        info = dict(info)
        info["command"], info["invalid_action"] = command, not valid
        encoded = self.encoding.encode(observation, info.get("admissible_commands"))
        return encoded, float(reward), terminated, truncated, info

    def action_masks(self) -> np.ndarray:
        """The actions allowed now (``bool``, never all false); what MaskablePPO asks for."""
        return self.encoding.mask.copy()

    def command_of(self, action: int) -> str:
        """The command an action stands for now."""
        return self.encoding.command_of(action)
