"""Commands as discrete actions: slots over the admissible commands, or a fixed vocabulary.

Two ways to turn ``info["admissible_commands"]`` into ``Discrete`` actions with a mask:

* **Slots** (:func:`select_commands`): action ``i`` is the ``i``-th current admissible command,
  ``K = max_commands`` slots (default 64). Slot meaning changes with the state, so models see
  the commands themselves (the ``commands`` key of :class:`~textmem_gym.wrappers.encodings.TextEncodingWrapper`).
* **Vocabulary** (:class:`CommandVocabulary`): action ``i`` is always the same command string,
  for a whole game family; the mask marks those admissible now.

Either way the mask is never all false: a safe command (``look`` by default) is kept.

Example:
    >>> select_commands(["go north", "look", "take key"], max_commands=2)
    ['go north', 'look']
    >>> select_commands([], max_commands=4)
    ['look']
    >>> vocab = CommandVocabulary(["go north", "take key"])
    >>> vocab.commands, vocab.mask(["take key", "eat key"]).tolist()
    (('look', 'go north', 'take key'), [False, False, True])
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

import gymnasium as gym
import numpy as np

#: Sent when no admissible command can be chosen; always a valid action.
SAFE_COMMAND: str = "look"
#: Default number of command slots ``K``.
DEFAULT_MAX_COMMANDS: int = 64


def _unique(commands: Iterable[str]) -> list[str]:
    seen: dict[str, None] = {}
    for command in commands:
        if isinstance(command, str) and command.strip():
            seen.setdefault(command.strip(), None)
    return list(seen)


def select_commands(admissible: Iterable[str] | None, max_commands: int = DEFAULT_MAX_COMMANDS,
                    safe_command: str = SAFE_COMMAND) -> list[str]:
    """The commands filling the ``K`` slots: admissible ones in order, never empty.

    Duplicates and blanks are dropped. With more than ``max_commands``, the first ones are kept
    and the safe command (when admissible) takes the last kept place; with none, the safe
    command alone.
    """
    commands = _unique(admissible or [])
    if not commands:
        return [safe_command]
    if len(commands) <= max_commands:
        return commands
    if safe_command in commands[max_commands:]:
        return commands[: max_commands - 1] + [safe_command]
    return commands[:max_commands]


class CommandVocabulary:
    """A fixed list of commands: action ``i`` always means ``commands[i]``.

    The safe command is always entry ``0``. Build one per game family from commands you know,
    or by exploring games of the family with :meth:`collect`; save it next to your models.

    Args:
        commands: The commands (duplicates dropped, order kept).
        safe_command: Chosen when no vocabulary command is admissible.

    Example:
        >>> vocab = CommandVocabulary(["go east"], safe_command="wait")
        >>> len(vocab), vocab.index("go east"), vocab.mask([]).tolist()
        (2, 1, [True, False])
    """

    def __init__(self, commands: Iterable[str], safe_command: str = SAFE_COMMAND):
        if isinstance(commands, str):
            raise TypeError("commands must be an iterable of strings, not one string")
        self.safe_command = safe_command
        self.commands: tuple[str, ...] = tuple(_unique([safe_command, *commands]))
        self._index = {command: i for i, command in enumerate(self.commands)}

    def __len__(self) -> int:
        return len(self.commands)

    def __contains__(self, command: object) -> bool:
        return command in self._index

    def index(self, command: str) -> int:
        """The action of ``command`` (``KeyError`` when it is not in the vocabulary)."""
        return self._index[command]

    def mask(self, admissible: Iterable[str] | None) -> np.ndarray:
        """Which actions are admissible now (only the safe command when none is)."""
        mask = np.zeros(len(self.commands), dtype=bool)
        for command in _unique(admissible or []):
            if command in self._index:
                mask[self._index[command]] = True
        if not mask.any():
            mask[0] = True
        return mask

    def save(self, path: str | Path) -> Path:
        """Writes the vocabulary as JSON."""
        path = Path(path)
        path.write_text(json.dumps({"safe_command": self.safe_command, "commands": list(self.commands)}, indent=1))
        return path

    @classmethod
    def load(cls, path: str | Path) -> CommandVocabulary:
        """Reads a vocabulary written by :meth:`save`."""
        data = json.loads(Path(path).read_text())
        return cls(data["commands"], safe_command=data.get("safe_command", SAFE_COMMAND))

    @classmethod
    def collect(cls, make_env: Callable[[], gym.Env], *, episodes: int = 5, steps: int = 100, seed: int = 0,
                extra: Sequence[str] = (), safe_command: str = SAFE_COMMAND) -> CommandVocabulary:
        """Gathers every admissible command seen while playing uniformly at random.

        Args:
            make_env: Builds one env of the family (call it with another ``game_seed`` per game
                to cover a family: ``lambda: gym.make(id, game_seed=next(seeds))``).
            episodes: Episodes played (one env per episode).
            steps: Steps per episode at most.
            seed: Seed of the random choices and of ``reset``.
            extra: Commands added whether seen or not.
        """
        rng, seen = random.Random(seed), list(extra)
        for episode in range(episodes):
            env = make_env()
            try:
                seen += _random_walk(env, rng, steps, seed + episode)
            finally:
                env.close()
        return cls(sorted(set(seen) - {safe_command}), safe_command=safe_command)


def _random_walk(env: gym.Env, rng: random.Random, steps: int, seed: int) -> list[str]:
    _, info = env.reset(seed=seed)
    seen: list[str] = []
    for _ in range(steps):
        commands = _unique(info.get("admissible_commands") or [])
        seen += commands
        if not commands:
            break
        _, _, terminated, truncated, info = env.step(rng.choice(commands))
        if terminated or truncated:
            seen += _unique(info.get("admissible_commands") or [])
            break
    return seen


def vocabulary_from(value: CommandVocabulary | str | Path | Sequence[str] | None) -> CommandVocabulary | None:
    """A vocabulary from an object, a JSON path or a list of commands (``None`` stays ``None``)."""
    if value is None or isinstance(value, CommandVocabulary):
        return value
    if isinstance(value, (str, Path)):
        return CommandVocabulary.load(value)
    if isinstance(value, Sequence):
        return CommandVocabulary(value)
    raise TypeError(f"vocabulary must be a CommandVocabulary, a JSON path or a list, got {type(value).__name__}")

