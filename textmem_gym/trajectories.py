"""Episode trajectories: one JSONL file per episode, one record per step (the one format).

A trajectory file holds, one JSON object per line:

1. ``{"type": "header", ...}``: ``format`` (:data:`FORMAT`), ``version`` (:data:`FORMAT_VERSION`),
   ``prompts`` (``"full"`` or ``"keys"``), ``created``, and what identifies the run: ``env_id``,
   ``env_kwargs``, ``max_episode_steps``, ``policy``, ``policy_class``, ``seed``, ``memory`` (the
   MemoryGraphWrapper's memory class, if any), plus whatever the caller adds (``episode``,
   ``game_seed``, ``policy_kwargs``...).
2. ``{"type": "reset", ...}``: the first observation (``step`` 0), as a step record without action.
3. ``{"type": "step", ...}`` per agent decision: ``step``, ``action`` (what the policy chose),
   ``commands`` (the primitive commands sent: a ``go to X`` macro's expansion, else the action),
   ``observation``, ``belief`` (the MemoryGraphWrapper's belief text, else ``None``), ``reward``,
   ``score``, ``max_score``, ``normalized_score``, ``terminated``, ``truncated``, ``won``, ``lost``,
   ``memory`` (the memory's statistics: ``believed`` triples, ``episodes``, ``added``,
   ``invalidated``, ``total``; ``None`` without memory or without statistics), ``admissible`` (admissible-command count,
   ``None`` when the env never computed the list), ``llm_calls`` and, for a policy that counts
   its env actions (the LLM policies), ``action_source``: ``"model"`` (chosen by the model as
   asked) or the fallback cause (:data:`textmem_gym.fallbacks.FALLBACK_CAUSES`).
4. ``{"type": "result", "result": {...}}``: the episode's result as the runner returns it, and
   ``memory_graph`` (the memory's JSON export at the end, when it offers the ``export`` part, else ``None``).

Each LLM call is ``{"kind", "prompt", "answer", "prompt_tokens", "completion_tokens", "latency_s",
"cached", "model", "finish_reason", "fallback"}``; ``fallback`` names why the call gave the policy no
answer (``"llm_error: <ErrorType>"``, ``"empty_answer"``) and is ``None`` otherwise. An answered
call also has ``reused_prefix_tokens`` and ``reused_prefix_share``: the prompt's tokens shared with
the longest prefix of any earlier prompt of the episode (:class:`textmem_gym.llm.prompts.PrefixTracker`). With
``prompts="keys"`` the prompt and answer are replaced by ``prompt_key`` and ``answer_key``
(SHA-256 keys of their text, :func:`textmem_gym.llm.cache.request_key`).

The writer flushes every record, so a crash loses at most the line being written; a re-run of an
unfinished episode truncates its partial file and starts again (never appending twice). The reader
ignores an incomplete last line, and :attr:`Trajectory.complete` tells whether the episode finished.

Example:
    >>> import tempfile
    >>> path = trajectory_path(tempfile.mkdtemp(), ("TextMem/Cooking-v0", "random", 0, 0, None))
    >>> path.name
    'TextMem_Cooking-v0.random.s0.e0.gdefault.jsonl'
    >>> with TrajectoryWriter(path) as writer:
    ...     writer.header(env_id="TextMem/Cooking-v0", policy="random", seed=0)
    ...     writer.reset("You are in a kitchen.", {"score": 0, "max_score": 3})
    ...     writer.step(1, "open fridge", "You open the fridge.", 0.0, False, False,
    ...                 {"score": 0, "max_score": 3, "admissible_commands": ["look", "take egg"]})
    ...     writer.finish({"score": 0, "normalized_score": 0.0, "steps": 1})
    >>> trajectory = read_trajectory(path)
    >>> trajectory.complete, [s["action"] for s in trajectory.steps], trajectory.steps[0]["admissible"]
    (True, ['open fridge'], 2)
"""

from __future__ import annotations

import datetime
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import gymnasium as gym

from textmem_gym.core.policy import FullPolicy, PolicyAdapter
from textmem_gym.envs.lazy import LazyCommands
from textmem_gym.memory.adoption import Adopted
from textmem_gym.results import EpisodeKey, episode_key, score_text
from textmem_gym.wrappers import MemoryGraphWrapper, find_wrapper

#: The ``format`` field of every trajectory header.
FORMAT = "textmem-trajectory"
#: Bumped when a field changes meaning; readers accept this version and older.
FORMAT_VERSION = 1
#: What a trajectory keeps of each LLM call's prompt and answer.
PROMPT_MODES = ("full", "keys")
#: Longest readable part of a trajectory file name (a hash of the key keeps names unique).
_MAX_NAME = 120
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


#: The game-seed part of the file name of an episode played with the id's default game.
DEFAULT_GAME = "default"


def trajectory_path(directory: str | Path, key: EpisodeKey | tuple[Any, ...] | Mapping[str, Any]) -> Path:
    """The file of the episode ``key`` (a results key, or a results row) inside ``directory``.

    The name is the key made filesystem-safe; when that changed or shortened it (a policy given
    as ``module:Factory``, a path...), a short hash of the exact key keeps distinct keys apart. A
    policy configuration's id (the key's last part, see :func:`textmem_gym.results.config_id`)
    follows the policy name (``ariadne.c1f0e2d3a4b5c``); keys without one (also the older
    five-part keys) name their file as before. An episode of the id's default game (game seed
    ``None``) is ``g`` + :data:`DEFAULT_GAME`; :func:`find_trajectory` also finds the ``gNone``
    names of older versions.

    Example:
        >>> trajectory_path("runs/t", ("TextMem/Cooking-v0", "explorer", 2, 1, 7, None)).as_posix()
        'runs/t/TextMem_Cooking-v0.explorer.s2.e1.g7.jsonl'
        >>> trajectory_path("t", ("E", "ariadne", 0, 0, None, "1f0e2d3a4b5c")).name
        'E.ariadne.c1f0e2d3a4b5c.s0.e0.gdefault.jsonl'
        >>> trajectory_path("t", ("E", "policies.simple:RandomPolicy", 0, 0, None)).name
        'E.policies.simple_RandomPolicy.s0.e0.gdefault-39ad613b.jsonl'
    """
    return _named_path(directory, key, DEFAULT_GAME)


def find_trajectory(directory: str | Path, key: EpisodeKey | tuple[Any, ...] | Mapping[str, Any]) -> Path | None:
    """The existing file of the episode ``key`` in ``directory``: :func:`trajectory_path`'s name, else the
    ``gNone`` name older versions gave an episode of the default game; ``None`` when neither exists."""
    candidates = (_named_path(directory, key, token) for token in (DEFAULT_GAME, "None"))
    return next((path for path in candidates if path.is_file()), None)


def _named_path(directory: str | Path, key: EpisodeKey | tuple[Any, ...] | Mapping[str, Any],
                default_game: str) -> Path:
    """:func:`trajectory_path` with ``default_game`` as the game part of a key without a game seed."""
    if isinstance(key, Mapping):
        key = episode_key(dict(key))
    env_id, policy, seed, episode, game_seed, *rest = key
    config = rest[0] if rest else None
    shown = policy if config is None else f"{policy}.c{config}"
    game = default_game if game_seed is None else game_seed
    plain = f"{env_id.replace('/', '_', 1)}.{shown}.s{seed}.e{episode}.g{game}"
    name = _UNSAFE.sub("_", plain)
    if name != plain or len(name) > _MAX_NAME:
        name = f"{name[:_MAX_NAME]}-{_short_hash(repr(tuple(key[:5]) if config is None else tuple(key)))}"
    return Path(directory) / f"{name}.jsonl"


def _short_hash(text: str) -> str:
    import hashlib

    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:8]


def text_key(text: str | None) -> str | None:
    """The key kept for a prompt or an answer with ``prompts="keys"`` (``None`` stays ``None``)."""
    from textmem_gym.llm.cache import request_key

    return None if text is None else request_key({"text": text})


def _admissible_count(info: Mapping[str, Any]) -> int | None:
    """How many admissible commands, without computing a lazy list nobody asked for."""
    commands = info.get("admissible_commands")
    if commands is None or (isinstance(commands, LazyCommands) and not commands.computed):
        return None
    return len(commands)


def _commands(action: str, info: Mapping[str, Any]) -> list[str]:
    macro = info.get("macro")
    return list(macro["actions"]) if isinstance(macro, Mapping) and "actions" in macro else [action]


def _split_observation(observation: Any) -> tuple[str, str | None]:
    if isinstance(observation, Mapping):
        belief = observation.get("belief")
        return str(observation.get("observation", "")), None if belief is None else str(belief)
    return str(observation if observation is not None else ""), None


def _call_record(call: Mapping[str, Any], prompts: str) -> dict[str, Any]:
    record = dict(call)
    if prompts == "keys":
        record["prompt_key"] = text_key(record.pop("prompt", None))
        record["answer_key"] = text_key(record.pop("answer", None))
    return record


def step_record(step: int, action: str | None, observation: Any, reward: float, terminated: bool,
                truncated: bool, info: Mapping[str, Any], llm_calls: Iterable[Mapping[str, Any]] = (),
                *, prompts: str = "full") -> dict[str, Any]:
    """One step as a trajectory record (``action`` ``None`` for the reset record)."""
    text, belief = _split_observation(observation)
    memory = info.get("memory")
    return {
        "type": "step" if action is not None else "reset", "step": step, "action": action,
        "commands": _commands(action, info) if action is not None else [],
        "observation": text, "belief": belief, "reward": float(reward),
        "score": info.get("score"), "max_score": info.get("max_score"),
        "normalized_score": info.get("normalized_score"),
        "terminated": bool(terminated), "truncated": bool(truncated),
        "won": bool(info.get("won", False)), "lost": bool(info.get("lost", False)),
        "memory": dict(memory) if isinstance(memory, Mapping) else None,
        "admissible": _admissible_count(info),
        "llm_calls": [_call_record(call, prompts) for call in llm_calls],
    }


class TrajectoryWriter:
    """Writes one episode's trajectory, flushing every record (a context manager).

    Opening truncates the file: a re-run of an unfinished episode replaces its partial file.

    Args:
        path: The ``.jsonl`` file (its folder is created).
        prompts: ``"full"`` keeps each LLM call's prompt and answer, ``"keys"`` only their keys.
    """

    def __init__(self, path: str | Path, prompts: str = "full") -> None:
        if prompts not in PROMPT_MODES:
            raise ValueError(f"trajectory prompts must be one of {PROMPT_MODES}, got {prompts!r}")
        self.path, self.prompts = Path(path), prompts
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._handle: IO[str] | None = self.path.open("w", encoding="utf-8")
        self.finished = False

    def _write(self, record: Mapping[str, Any]) -> None:
        if self._handle is None:
            raise ValueError(f"trajectory {self.path} is closed")
        self._handle.write(json.dumps(record, ensure_ascii=False, default=str) + "\n")
        self._handle.flush()

    def header(self, **fields: Any) -> None:
        """Writes the header record: format, version, prompt mode, creation time, then ``fields``."""
        created = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
        self._write({"type": "header", "format": FORMAT, "version": FORMAT_VERSION, "prompts": self.prompts,
                     "created": created, **fields})

    def reset(self, observation: Any, info: Mapping[str, Any],
              llm_calls: Iterable[Mapping[str, Any]] = ()) -> None:
        """Writes the first observation (step 0) and the LLM calls made while resetting."""
        self._write(step_record(0, None, observation, 0.0, False, False, info, llm_calls, prompts=self.prompts))

    def step(self, step: int, action: str, observation: Any, reward: float, terminated: bool, truncated: bool,
             info: Mapping[str, Any], llm_calls: Iterable[Mapping[str, Any]] = (),
             action_source: str | None = None) -> None:
        """Writes one agent decision and its outcome (see :func:`step_record`; ``action_source``:
        ``"model"`` or a fallback cause, written when given)."""
        record = step_record(step, action, observation, reward, terminated, truncated, info, llm_calls,
                             prompts=self.prompts)
        if action_source is not None:
            record["action_source"] = action_source
        self._write(record)

    def finish(self, result: Mapping[str, Any], memory_graph: Mapping[str, Any] | None = None) -> None:
        """Writes the final record (the episode's result, the memory's export) and closes the file."""
        self._write({"type": "result", "result": dict(result), "memory_graph": memory_graph})
        self.finished = True
        self.close()

    def close(self) -> None:
        """Closes the file (an unfinished trajectory stays readable, marked incomplete)."""
        if self._handle is not None:
            self._handle.close()
            self._handle = None

    def __enter__(self) -> TrajectoryWriter:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


class EpisodeRecorder:
    """What :func:`textmem_gym.runner.run_episode` uses to write a trajectory while it plays.

    It writes the header from the env and the policy (plus ``extra`` fields), takes the policy's
    LLM calls of each step (its ``take_llm_calls()`` hook, see :class:`policies.BasePolicy`) and,
    at the end, the memory's JSON export when the env has a MemoryGraphWrapper.

    Args:
        path: The trajectory file.
        env: The env being played (its spec gives the id, kwargs and step limit).
        policy: The policy playing.
        seed: The episode's reset seed.
        prompts: ``"full"`` or ``"keys"`` (see :class:`TrajectoryWriter`).
        extra: More header fields (results key fields, policy kwargs...).
    """

    def __init__(self, path: str | Path, env: Any, policy: FullPolicy, seed: int | None, prompts: str = "full",
                 extra: Mapping[str, Any] | None = None) -> None:
        self.env, self.policy = env, policy
        self.writer = TrajectoryWriter(path, prompts)
        self.writer.header(**{**episode_header(env, policy, seed), **(extra or {})})

    def _calls(self) -> list[dict[str, Any]]:
        return list(self.policy.take_llm_calls())

    def reset(self, observation: Any, info: Mapping[str, Any]) -> None:
        """Records the first observation."""
        self.policy.action_source()  # nothing was played yet: drop what the policy may have counted
        self.writer.reset(observation, info, self._calls())

    def step(self, step: int, action: str, observation: Any, reward: float, terminated: bool, truncated: bool,
             info: Mapping[str, Any]) -> None:
        """Records one decision and its outcome (and where the action came from: the policy's
        ``action_source()``, see the module doc)."""
        self.writer.step(step, action, observation, reward, terminated, truncated, info, self._calls(),
                         self.policy.action_source())

    def finish(self, result: dict[str, Any]) -> None:
        """Records the result and the final memory, closes the file; adds its path to ``result``
        (``result["trajectory"]``)."""
        adopted = _adopted_of(self.env)
        export = adopted.export if adopted is not None else None
        exported = export.to_json() if export is not None else None  # a memory without export: None
        self.writer.finish(result, exported)
        result["trajectory"] = str(self.writer.path)

    def close(self) -> None:
        """Closes the file (left incomplete when the episode did not finish)."""
        self.writer.close()


def _adopted_of(env: Any) -> Adopted | None:
    """The memory of ``env``'s ``MemoryGraphWrapper`` as the wrapper adopted it (its parts), if any."""
    wrapper = find_wrapper(env, MemoryGraphWrapper)
    return wrapper.adopted if wrapper is not None else None


def episode_header(env: gym.Env, policy: FullPolicy, seed: int | None) -> dict[str, Any]:
    """Header fields read from the env and the policy: id, kwargs, step limit, policy, memory."""
    spec = env.spec
    adopted = _adopted_of(env)
    kind = type(policy.agent) if isinstance(policy, PolicyAdapter) else type(policy)  # the user's class
    return {"env_id": spec.id if spec is not None else None,
            "env_kwargs": dict(spec.kwargs) if spec is not None else {},
            "max_episode_steps": spec.max_episode_steps if spec is not None else None,
            "policy": policy.name, "policy_class": f"{kind.__module__}:{kind.__qualname__}",
            "seed": seed, "memory": type(adopted.memory).__name__ if adopted is not None else None}


@dataclass
class Trajectory:
    """A trajectory as read back.

    Attributes:
        path: The file it was read from.
        header: The header record.
        reset: The step-0 record (first observation), ``None`` if the file stops before it.
        steps: The step records, in order.
        result: The episode's result, ``None`` when the episode did not finish.
        memory_graph: The memory's JSON export at the end (``None`` without a memory).
    """

    path: Path
    header: dict[str, Any]
    reset: dict[str, Any] | None = None
    steps: list[dict[str, Any]] = field(default_factory=list)
    result: dict[str, Any] | None = None
    memory_graph: dict[str, Any] | None = None

    @property
    def complete(self) -> bool:
        """The episode finished (the file ends with its result)."""
        return self.result is not None

    @property
    def records(self) -> list[dict[str, Any]]:
        """The reset record (if any) then the steps: what curves over steps read."""
        return ([self.reset] if self.reset is not None else []) + self.steps

    @property
    def label(self) -> str:
        """``env id · policy · seed`` (and the game seed when one was chosen) for titles."""
        h = self.header
        game = f" · game seed {h['game_seed']}" if h.get("game_seed") is not None else ""
        return f"{h.get('env_id', '?')} · {h.get('policy', '?')} · seed {h.get('seed')}{game}"

    def series(self, name: str) -> list[Any]:
        """One field over the records, ``memory.believed``-style dotted names reach into dicts."""
        values = []
        for record in self.records:
            value: Any = record
            for part in name.split("."):
                value = value.get(part) if isinstance(value, Mapping) else None
            values.append(value)
        return values


def read_trajectory(path: str | Path) -> Trajectory:
    """Reads a trajectory file (an incomplete last line, left by a crash, is ignored).

    Raises:
        ValueError: The file is not a trajectory (no header of :data:`FORMAT`), or is newer than
            :data:`FORMAT_VERSION`.
    """
    path = Path(path)
    records = list(_records(path))
    if not records or records[0].get("type") != "header" or records[0].get("format") != FORMAT:
        raise ValueError(f"{path} is not a textmem_gym trajectory (no {FORMAT!r} header)")
    header = records[0]
    if int(header.get("version", 0)) > FORMAT_VERSION:
        raise ValueError(f"{path} has trajectory format version {header['version']}; this textmem_gym reads "
                         f"up to {FORMAT_VERSION}: upgrade textmem_gym")
    trajectory = Trajectory(path, header)
    for record in records[1:]:
        kind = record.get("type")
        if kind == "reset":
            trajectory.reset = record
        elif kind == "step":
            trajectory.steps.append(record)
        elif kind == "result":
            trajectory.result, trajectory.memory_graph = record.get("result"), record.get("memory_graph")
    return trajectory


def _records(path: Path) -> Iterable[dict[str, Any]]:
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            if not line.endswith("\n") or not line.strip():
                continue
            try:
                yield json.loads(line)
            except json.JSONDecodeError:
                continue


def read_trajectories(paths: Sequence[str | Path]) -> list[Trajectory]:
    """Reads several trajectory files (see :func:`read_trajectory`)."""
    return [read_trajectory(p) for p in paths]


def format_step(record: Mapping[str, Any], *, width: int = 100) -> str:
    """A step record as readable lines (what ``textmem-gym replay`` prints).

    Example:
        >>> print(format_step({"step": 3, "action": "go to kitchen", "commands": ["go north", "go east"],
        ...                    "observation": "-= Kitchen =-", "reward": 1.0, "score": 1, "max_score": 3,
        ...                    "memory": {"believed": 12, "episodes": 4}, "admissible": 9, "llm_calls": []}))
        [3] > go to kitchen  (go north; go east)
            -= Kitchen =-
            reward +1  score 1/3  memory 12 triples, 4 episodes  9 admissible
    """
    action = record.get("action")
    lines = ["[0] (start)" if action is None else f"[{record.get('step')}] > {action}"]
    commands = record.get("commands") or []
    if action is not None and commands != [action]:
        lines[0] += f"  ({'; '.join(commands) or 'no command sent'})"
    lines += ["    " + line[:width] for line in str(record.get("observation", "")).strip().splitlines() if line.strip()]
    score = f"score {score_text(record.get('score'))}/{score_text(record.get('max_score'))}"
    facts = [f"reward {float(record.get('reward') or 0):+g}", score]
    memory = record.get("memory")
    if memory:
        facts.append(f"memory {memory.get('believed')} triples, {memory.get('episodes')} episodes")
    if record.get("admissible") is not None:
        facts.append(f"{record['admissible']} admissible")
    flags = [name for name in ("won", "lost", "terminated", "truncated") if record.get(name)]
    lines.append("    " + "  ".join(facts + flags))
    for call in record.get("llm_calls") or []:
        tokens = f"{call.get('prompt_tokens', 0)}+{call.get('completion_tokens', 0)} tokens"
        latency = f"{float(call.get('latency_s') or 0):.2f}s"
        fallback = f"  FALLBACK {call['fallback']}" if call.get("fallback") else ""
        answer = call.get("answer", call.get("answer_key"))
        lines.append(f"    llm {call.get('kind')}: {tokens}, {latency}{fallback} -> {str(answer)[:width]!r}")
    return "\n".join(lines)


__all__ = ["DEFAULT_GAME", "FORMAT", "FORMAT_VERSION", "PROMPT_MODES", "EpisodeRecorder", "Trajectory",
           "TrajectoryWriter", "episode_header", "find_trajectory", "format_step", "read_trajectories",
           "read_trajectory", "step_record", "text_key", "trajectory_path"]
