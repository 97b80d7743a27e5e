"""Replaying a recorded episode in its env, made with privileged information.

A recorded episode (:class:`RecordedEpisode`: plain data, read from a trajectory by the caller)
names its env (id, kwargs, reset seed) and, per agent decision, the primitive commands sent and the
observation the agent got. :func:`replay_episode` makes the same env with ``privileged="facts"`` (the
envs are deterministic: same id, kwargs and reset seed give the same game), sends the same commands
and keeps, per primitive command, what the agent saw (observation, ``info`` without the privileged
keys) beside the ground truth (``info["facts"]``). Each decision's last observation must equal the
recorded one: a game that answers otherwise is no replay of that episode (:class:`ReplayMismatch`,
naming the step).

Example:
    >>> episode = RecordedEpisode("TextMem/CookingRL-L1-v0", {}, seed=0, commands=[["inventory"]],
    ...                           observations=["", "You are carrying nothing."], label="demo")
    >>> replay = replay_episode(episode, check=False)
    >>> [s.command for s in replay.steps], replay.steps[-1].decision, "facts" in replay.steps[-1].info
    (['', 'inventory'], 1, False)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import gymnasium as gym

from textmem_gym.envs.privileged import PRIVILEGED_KEYS, FactTriple


class ReplayMismatch(ValueError):
    """The replayed game answered differently from the recording (one line naming the step)."""


@dataclass(frozen=True)
class RecordedEpisode:
    """What a probe needs of a recorded episode.

    Attributes:
        env_id: The env id (``TextMem/...``).
        env_kwargs: Its ``gym.make`` keyword arguments (``privileged`` is replaced by ``True``).
        seed: The reset seed.
        commands: Per agent decision, the primitive commands sent (a ``go to X`` expands to several).
        observations: The reset observation, then each decision's (last) observation.
        actions: Per agent decision, the action chosen (default: its commands joined by ``"; "``).
        label: A name for messages (the trajectory's path).
        ident: The episode's identity in results rows (default: ``label``).
        result: The episode's result (score, normalized score, won...), when it finished.
    """

    env_id: str
    env_kwargs: Mapping[str, Any]
    seed: int | None
    commands: Sequence[Sequence[str]]
    observations: Sequence[str]
    actions: Sequence[str] = ()
    label: str = ""
    ident: str = ""
    result: Mapping[str, Any] | None = None

    @property
    def decisions(self) -> int:
        """Agent decisions recorded."""
        return len(self.commands)

    def action(self, decision: int) -> str:
        """The action chosen at ``decision`` (1-based)."""
        return self.actions[decision - 1] if self.actions else "; ".join(self.commands[decision - 1])


@dataclass(frozen=True)
class ReplayStep:
    """One primitive command of the replay (the reset is command ``""`` of decision 0).

    Attributes:
        decision: The agent decision it belongs to (0: the reset).
        command: The primitive command sent.
        observation: The game's answer.
        info: ``info`` without privileged keys (what a memory under test may read); a lazily
            computed admissible-command list is left out unless the env had computed it.
        facts: The true world state after the command (privileged; for questions and the oracle).
        last: It is the decision's last command (its observation is the recorded one).
    """

    decision: int
    command: str
    observation: str
    info: dict[str, Any]
    facts: tuple[FactTriple, ...]
    last: bool = True


@dataclass
class Replay:
    """A replayed episode: the primitive steps in order and the episode they came from."""

    episode: RecordedEpisode
    steps: list[ReplayStep] = field(default_factory=list)

    def until(self, decision: int) -> list[ReplayStep]:
        """The steps up to and including ``decision``."""
        return [s for s in self.steps if s.decision <= decision]


def public_info(info: Mapping[str, Any]) -> dict[str, Any]:
    """``info`` without the privileged keys (and without an admissible list nobody computed).

    Example:
        >>> public_info({"score": 1, "facts": [], "walkthrough": ["look"]})
        {'score': 1}
    """
    kept = {k: v for k, v in info.items() if k not in PRIVILEGED_KEYS}
    commands = kept.get("admissible_commands")
    if commands is not None:
        if getattr(commands, "computed", True) is False:
            del kept["admissible_commands"]
        else:
            kept["admissible_commands"] = list(commands)
    return kept


def _step(decision: int, command: str, observation: Any, info: Mapping[str, Any], last: bool) -> ReplayStep:
    facts = tuple(tuple(str(x) for x in f) for f in info.get("facts", ()))
    return ReplayStep(decision, command, str(observation), public_info(info), facts, last)  # type: ignore[arg-type]


def replay_episode(episode: RecordedEpisode, *, check: bool = True) -> Replay:
    """Plays ``episode``'s commands again in its env made with ``privileged="facts"`` (the walkthrough is not
    asked for: ScienceWorld takes half a minute to compute it).

    Args:
        episode: The recorded episode.
        check: Compare each decision's observation with the recorded one.

    Raises:
        ReplayMismatch: A replayed observation differs from the recorded one (names the step).
        ValueError: The env cannot be made with privileged facts.
    """
    env = gym.make(episode.env_id, **{**dict(episode.env_kwargs), "privileged": "facts"})
    try:
        observation, info = env.reset(seed=episode.seed)
        if "facts" not in info:
            raise ValueError(f"{episode.env_id} gives no privileged facts (info['facts']): it cannot be probed")
        replay = Replay(episode, [_step(0, "", observation, info, True)])
        _check(episode, 0, str(observation), check)
        for decision, commands in enumerate(episode.commands, 1):
            for i, command in enumerate(commands):
                observation, _, _, _, info = env.step(command)
                replay.steps.append(_step(decision, command, observation, info, i == len(commands) - 1))
            _check(episode, decision, str(observation), check)
        return replay
    finally:
        env.close()


def _check(episode: RecordedEpisode, decision: int, observation: str, check: bool) -> None:
    if not check or decision >= len(episode.observations):
        return
    recorded = episode.observations[decision]
    if observation != recorded:
        raise ReplayMismatch(f"{episode.label or episode.env_id}: step {decision} replays differently: recorded "
                             f"{_short(recorded)!r}, replayed {_short(observation)!r} (same env id, kwargs and seed "
                             "should give the same game)")


def _short(text: str, limit: int = 60) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


__all__ = ["RecordedEpisode", "Replay", "ReplayMismatch", "ReplayStep", "public_info", "replay_episode"]
