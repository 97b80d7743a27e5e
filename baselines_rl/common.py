"""What every RL script shares: the arguments dataclass, env building and vectorization.

:class:`CommonArgs` holds the arguments every script takes, one docstring per field; each
script subclasses it and reads its command line with ``tyro.cli`` (``--env-id``,
``--total-timesteps``...: field names with dashes; ``--help`` shows the docstrings).

:class:`EnvSpec` says how one encoded env is made (id, optional memory wrapper, encoding), is
saved inside every model file, and rebuilds the same env for evaluation and for the
``rl:PATH`` adapter.

Example:
    >>> spec = EnvSpec("TextMem/CookingRL-L1-v0")
    >>> env = spec.make(seed=0)
    >>> type(env).__name__, int(env.action_space.n)
    ('TextEncodingWrapper', 64)
    >>> env.close()
    >>> EnvSpec.from_dict(spec.to_dict()) == spec
    True
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

import gymnasium as gym


@dataclass(frozen=True)
class EnvSpec:
    """How to build one encoded training/evaluation env.

    Attributes:
        env_id: A ``TextMem/*`` id.
        memory: ``None`` (no memory) or a memory name for ``MemoryGraphWrapper``
            (``"arigraph"``, ...); its belief text becomes the ``belief`` observation key.
        goto: With a memory: offer ``go to X`` macro commands.
        encoding: ``TextEncodingWrapper`` arguments (``text``, ``hash_size``, ``max_commands``,
            ``command_tokens``, ``vocabulary``, ``safe_command``, ``max_tokens``).
        env_kwargs: Extra ``gym.make`` arguments (``game_seed``, ``max_episode_steps``...).
        novelty_bonus: Training reward added per state new in the episode (0: none; see
            :mod:`baselines_rl.exploration`). Scores and logs are the game's own.
        novelty_key: What makes a state new (``"commands"`` or ``"observation"``).
    """

    env_id: str
    memory: str | None = None
    goto: bool = False
    encoding: dict[str, Any] = field(default_factory=dict)
    env_kwargs: dict[str, Any] = field(default_factory=dict)
    novelty_bonus: float = 0.0
    novelty_key: str = "commands"

    def __post_init__(self) -> None:
        if "privileged" in self.env_kwargs:
            raise ValueError("RL baselines never see privileged information: drop env_kwargs['privileged']")

    def wrap(self, env: gym.Env) -> gym.Env:
        """Adds the memory (if any) and the encoding to an env made from ``env_id``."""
        from textmem_gym.wrappers import MemoryGraphWrapper, TextEncodingWrapper

        if self.novelty_bonus:
            from baselines_rl.exploration import EpisodicNoveltyBonus

            env = EpisodicNoveltyBonus(env, self.novelty_bonus, self.novelty_key)
        if self.memory is not None:
            env = MemoryGraphWrapper(env, memory=self.memory, extractor="rules", goto=self.goto)
        return TextEncodingWrapper(env, **self.encoding)

    def make(self, seed: int | None = None) -> gym.Env:
        """A fresh encoded env (reset with ``seed`` once so its spaces and mask are ready)."""
        import textmem_gym  # noqa: F401  (registers the ids)

        env = self.wrap(gym.make(self.env_id, **self.env_kwargs))
        env.reset(seed=seed)
        return env

    def to_dict(self) -> dict[str, Any]:
        """JSON-able form (stored in model files)."""
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> EnvSpec:
        """Inverse of :meth:`to_dict`."""
        return cls(**data)


def _make_worker_env(spec: EnvSpec, seed: int) -> gym.Env:
    import torch

    torch.set_num_threads(1)
    return spec.make(seed=seed)


def make_vec_env(spec: EnvSpec, n_envs: int, seed: int, subprocess: bool = True) -> Any:
    """``n_envs`` encoded envs in a ``SubprocVecEnv`` (a ``DummyVecEnv`` for one or on request).

    Env ``i`` is reset with ``seed + i``.
    """
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

    if not isinstance(n_envs, int) or n_envs < 1:
        raise ValueError(f"n_envs must be an int >= 1, got {n_envs!r}")
    fns: list[Callable[[], gym.Env]] = [functools.partial(_make_worker_env, spec, seed + i) for i in range(n_envs)]
    if subprocess and n_envs > 1:
        return SubprocVecEnv(fns)
    return DummyVecEnv(fns)


@dataclass
class CommonArgs:
    """Arguments every training script takes (subclassed per algorithm, read by ``tyro.cli``)."""

    env_id: str = "TextMem/CookingRL-L1-v0"
    """Environment id to train on."""
    total_timesteps: int = 50_000
    """Env steps to train for (summed over the parallel envs)."""
    n_envs: int = 2
    """Parallel envs (``SubprocVecEnv`` when above 1)."""
    seed: int = 0
    """Seed of the model, the envs' resets and the evaluations."""
    model: Literal["drrn", "mlp"] = "drrn"
    """``drrn`` (scores each admissible command) or ``mlp`` (MLP over the flattened encoding)."""
    text: Literal["bow", "tokens"] = "bow"
    """Text encoding: ``bow`` (hashed bag-of-words) or ``tokens`` (padded token ids)."""
    hash_size: int = 1024
    """Hash buckets of the text encodings (token ids lie in ``[0, hash_size)``)."""
    max_commands: int = 64
    """``K``, the number of admissible-command slots (the size of the action space)."""
    vocabulary: str | None = None
    """JSON file of a fixed command vocabulary (then actions are vocabulary entries; use ``model=mlp``)."""
    memory: str | None = None
    """Memory for ``MemoryGraphWrapper`` (``arigraph``...): its belief joins the observation."""
    goto: bool = False
    """With a memory: offer ``go to X`` macro commands."""
    novelty_bonus: float = 0.05
    """Training reward per state new in the episode (0 disables; scores are the game's)."""
    novelty_key: Literal["commands", "observation"] = "commands"
    """What makes a state new: ``commands`` (admissible-command set) or ``observation`` (text)."""
    novelty_decay_steps: int | None = None
    """Decay the novelty bonus linearly to 0 over this many env steps (``None``: constant)."""
    max_episode_steps: int | None = None
    """Overrides the id's step limit."""
    game_seed: int | None = None
    """Game instance (``None``: the id's default game)."""
    env_arg: tuple[str, ...] = ()
    """More ``gym.make`` arguments as KEY=VALUE, values read as JSON (TWX game parameters:
    ``--env-arg numIngredients=1 numDistractorItems=0``)."""
    embedding_dim: int = 64
    """DRRN word-embedding size."""
    hidden_dim: int = 128
    """DRRN state/command representation size (and MLP width for ``model=mlp``)."""
    device: str = "cpu"
    """Torch device."""
    out_dir: str = "runs/rl"
    """Where the model, checkpoints and CSV logs go."""
    eval_freq: int = 5_000
    """Evaluate the greedy policy every this many env steps (0: never)."""
    eval_episodes: int = 3
    """Episodes per evaluation."""
    stop_score: float | None = None
    """Stop training once an evaluation's mean normalized score reaches this (``None``: never)."""
    checkpoint_freq: int = 0
    """Save a checkpoint every this many env steps (0: only the final model)."""
    torch_threads: int = 1
    """``torch.set_num_threads`` in the training process."""
    subprocess: bool = True
    """Run the envs in subprocesses (``False``: in this process, for debugging and tests)."""
    verbose: int = 0
    """SB3 verbosity (0 silent, 1 info)."""
    progress: bool = True
    """Show a progress bar on stderr (env steps done of total, steps per second, time left, last evaluation)."""

    def env_spec(self) -> EnvSpec:
        """The :class:`EnvSpec` these arguments describe."""
        encoding: dict[str, Any] = {"text": self.text, "hash_size": self.hash_size,
                                    "max_commands": self.max_commands}
        if self.vocabulary is not None:
            from textmem_gym.wrappers.action_encoding import CommandVocabulary

            encoding["vocabulary"] = list(CommandVocabulary.load(self.vocabulary).commands)
        from textmem_gym.cli.arguments import parse_pairs

        env_kwargs: dict[str, Any] = parse_pairs(list(self.env_arg))
        if self.max_episode_steps is not None:
            env_kwargs["max_episode_steps"] = self.max_episode_steps
        if self.game_seed is not None:
            env_kwargs["game_seed"] = self.game_seed
        return EnvSpec(self.env_id, self.memory, self.goto, encoding, env_kwargs, self.novelty_bonus,
                       self.novelty_key)
