"""The shipped trajectories of the memory benchmark, and their checked replay.

A trajectory (:class:`BenchTrajectory`) is the env id, its ``gym.make`` kwargs, the reset seed,
the commands and a short digest of every observation (the reset's first): small enough to ship in
the package (``data/*.json``, made by ``benchmarks/make_bench_trajectories.py``), and checked
step by step when replayed (:func:`replay_trajectory`: the envs are deterministic, so a digest that
differs means the game is not the one recorded, :class:`~textmem_gym.qa.probes.replay.ReplayMismatch`).

Example:
    >>> names = [t.name for t in load_trajectories()]
    >>> "jericho-zork1-short" in names and "nethack-level-long" in names
    True
    >>> t = load_trajectories(["twx-coin-short"])[0]
    >>> t.env_id, len(t.commands) + 1 == len(t.digests)
    ('TextMem/TWX-CoinCollector-v0', True)
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textmem_gym.core.errors import RunAborted
from textmem_gym.loading import lookup

if TYPE_CHECKING:
    from textmem_gym.qa.probes.replay import RecordedEpisode, Replay

#: Where the shipped trajectories are.
DATA_DIR = Path(__file__).resolve().parent / "data"
#: Hex characters of an observation digest.
DIGEST_CHARS = 12


def digest(observation: str) -> str:
    """A short digest of one observation (the replay's check).

    Example:
        >>> digest("You are carrying nothing.")
        'd05120d17a30'
    """
    return hashlib.sha1(str(observation).encode("utf-8")).hexdigest()[:DIGEST_CHARS]


@dataclass(frozen=True)
class BenchTrajectory:
    """One shipped trajectory.

    Attributes:
        name: Its name (the file's stem): ``<backend>-<game>-<short|long>``.
        env_id: The env id.
        env_kwargs: ``gym.make`` keyword arguments (``privileged`` is added by the replay).
        seed: The reset seed.
        commands: One command per step.
        digests: :func:`digest` of the reset observation, then of each step's.
        source: How the commands were chosen (a seeded admissible walk, or the walkthrough).
    """

    name: str
    env_id: str
    env_kwargs: dict[str, Any]
    seed: int
    commands: list[str]
    digests: list[str] = field(default_factory=list)
    source: str = ""

    @property
    def backend(self) -> str:
        """The backend part of :attr:`name` (``textworld``, ``twx``, ``jericho``...)."""
        return self.name.split("-", 1)[0]

    @property
    def fingerprint(self) -> str:
        """A short digest of what is replayed (env, kwargs, seed, commands, digests): results rows keep it, so
        rows of a regenerated trajectory of the same name are never taken for the new one's.

        Example:
            >>> from dataclasses import replace
            >>> t = load_trajectories(["twx-coin-short"])[0]
            >>> len(t.fingerprint), t.fingerprint == replace(t, commands=t.commands[:-1]).fingerprint
            (12, False)
        """
        played = [self.env_id, self.env_kwargs, self.seed, self.commands, self.digests]
        return digest(json.dumps(played, sort_keys=True, default=str))

    def describe(self) -> str:
        """One line: env id, steps and how the commands were chosen (``list`` and ``--help`` show it).

        Example:
            >>> load_trajectories(["twx-coin-short"])[0].describe()
            'TextMem/TWX-CoinCollector-v0, 40 steps (admissible walk, seed 0)'
        """
        return f"{self.env_id}, {len(self.commands)} steps" + (f" ({self.source})" if self.source else "")

    def check(self, step: int, observation: str) -> None:
        """Checks the observation of ``step`` (0: the reset) against the recorded digest.

        Raises:
            ReplayMismatch: It differs (the message names the step and its command).
        """
        from textmem_gym.qa.probes.replay import ReplayMismatch

        if step < len(self.digests) and digest(observation) != self.digests[step]:
            command = self.commands[step - 1] if 0 < step <= len(self.commands) else ""
            raise ReplayMismatch(f"{self.name}: step {step} ({command!r}) replays differently from the recording "
                                 "(same env id, kwargs and seed should give the same game)")

    def episode(self) -> RecordedEpisode:
        """The trajectory as a probe's recorded episode (one command per decision)."""
        from textmem_gym.qa.probes.replay import RecordedEpisode

        return RecordedEpisode(self.env_id, self.env_kwargs, self.seed, [[c] for c in self.commands], [],
                               label=self.name, ident=self.name)


def save_trajectory(trajectory: BenchTrajectory, path: str | Path) -> None:
    """Writes ``trajectory`` as JSON (one command per line of the file, for readable diffs)."""
    data = asdict(trajectory)
    body = ",\n".join(f"  {json.dumps(k)}: {json.dumps(v)}" for k, v in data.items())
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    Path(path).write_text("{\n" + body + "\n}\n", encoding="utf-8")


def load_trajectories(names: Sequence[str] | None = None, directory: str | Path = DATA_DIR) -> list[BenchTrajectory]:
    """The trajectories of ``directory`` (default: the shipped ones), by name; all when ``names`` is ``None``.

    Raises:
        ValueError: An unknown name (the message lists the known ones).
    """
    found = {p.stem: p for p in sorted(Path(directory).glob("*.json"))}
    chosen = list(found) if names is None else [n for n in names if lookup("bench trajectory", n, found)]
    return [BenchTrajectory(**json.loads(found[n].read_text(encoding="utf-8"))) for n in chosen]


class TrajectoryUnavailable(RunAborted):
    """A shipped trajectory's env cannot be made on this machine (the bench stops before any work)."""


def check_playable(trajectories: Sequence[BenchTrajectory]) -> None:
    """Makes (and closes) each trajectory's env once, so a missing backend part (a Jericho ROM, Java
    for ScienceWorld and TextWorld Express, NLE) stops the bench before any work, in one line.

    Raises:
        TrajectoryUnavailable: An env cannot be made (the message names the trajectory and why).
    """
    import gymnasium as gym

    import textmem_gym.envs  # noqa: F401  (registers the ids)

    for trajectory in trajectories:
        try:
            gym.make(trajectory.env_id, **trajectory.env_kwargs).close()
        except Exception as error:  # every cause is reported as what it is, in one line
            reason = " ".join(str(error).split()) or type(error).__name__
            raise TrajectoryUnavailable(f"bench trajectory {trajectory.name} ({trajectory.env_id}) cannot be "
                                        f"played here: {reason}") from None


def replay_trajectory(trajectory: BenchTrajectory) -> Replay:
    """Replays ``trajectory`` with privileged facts, checking each observation's digest.

    Raises:
        ReplayMismatch: An observation differs from the recorded one (names the step).
    """
    from textmem_gym.qa.probes.replay import replay_episode

    replay = replay_episode(trajectory.episode(), check=False)
    for step in replay.steps:
        trajectory.check(step.decision, step.observation)
    return replay


__all__ = ["DATA_DIR", "BenchTrajectory", "TrajectoryUnavailable", "check_playable", "digest", "load_trajectories",
           "replay_trajectory", "save_trajectory"]
