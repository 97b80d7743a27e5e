"""The one way a memory is fed from an env: adopt it once, then feed it through :meth:`Adopted.update`.

Every instrument that feeds a memory (``MemoryGraphWrapper``, the probes and ``memory-bench``, the
QA memory method, and through the wrapper the trajectories, the MCP server and the web app) adopts
it with :func:`adopt`, so a memory believes the same thing wherever it is measured:

1. **Check** that it is a memory (``update`` and ``context``: one-line ``TypeError`` otherwise).
2. **Detect its optional parts once** (:data:`~textmem_gym.memory.protocol.PARTS`): protocol checks are
   slow, and a caller that asks them per step, or probes attributes, disagrees with the others sooner
   or later. :class:`Adopted` keeps them and offers each as a typed accessor (``None`` where not offered).
3. **Hand over the env backend's text parser** (:func:`parser_for`, from an env or an env id) where the
   memory offers the ``parser`` part; ``None`` (the generic text-adventure reading) is handed over too.
4. **Strip privileged keys**: :meth:`Adopted.update` gives the memory ``info`` without the privileged
   keys (:data:`~textmem_gym.envs.privileged.PRIVILEGED_KEYS`) it does not declare in its ``privileged``
   part (the oracle declares ``{"facts"}``), whatever the env was made with.

Example:
    >>> class Notes:
    ...     def __init__(self):
    ...         self.seen = []
    ...     def update(self, observation, action, info):
    ...         self.seen.append(sorted(info))
    ...     def context(self, question, budget):
    ...         return []
    >>> notes = adopt(Notes())
    >>> notes.update("You see a lamp.", "", {"score": 0, "facts": [("lamp", "at", "hall")]})
    >>> notes.memory.seen, notes.name, notes.map is None, sorted(notes.parts)
    ([['score']], 'Notes', True, [])
    >>> parser_for("TextMem/Cooking-v0") is None  # TextWorld reads as a text adventure
    True
    >>> type(parser_for("TextMem/TWX-CookingWorld-v0")).__name__  # TWX names its parser; no env is made
    'TWXRules'
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, cast

import gymnasium as gym

from textmem_gym.envs.privileged import PRIVILEGED_KEYS
from textmem_gym.envs.text_game import TEXT_PARSER_GROUP, TextGameEnv
from textmem_gym.loading import load_declared, load_object
from textmem_gym.memory.extractors import TextParser
from textmem_gym.memory.protocol import (
    Closeable,
    CountsFailures,
    Exportable,
    Forgets,
    HasBeliefs,
    HasBuildCost,
    HasHistory,
    HasMap,
    HasSources,
    HasStats,
    Memory,
    ReadsParser,
    ReadsPrivileged,
    Renders,
    Resettable,
    UpdateStats,
    check_memory,
    offered_parts,
)
from textmem_gym.memory.registry import memory_name
from textmem_gym.memory.semantic import TripleKey


def parser_for(env: gym.Env | str) -> TextParser | None:
    """The text parser of ``env``'s backend (:attr:`~textmem_gym.envs.text_game.TextGameEnv.text_parser`),
    built anew; ``None`` when it reads as a text adventure, or is no TextMem env.

    Args:
        env: An env (any wrapper around it), or a registered env id: the id's env class is read from its
            registration without making the env (an id whose entry point is a factory function, not a
            class, is made once to ask it).

    Raises:
        gymnasium.error.Error: ``env`` is an id nobody registered.

    Example:
        >>> import gymnasium as gym, textmem_gym
        >>> env = gym.make("TextMem/Cooking-v0")
        >>> parser_for(env) is None
        True
        >>> env.close()
    """
    name = _parser_of_id(env) if isinstance(env, str) else _parser_of_env(env)
    return None if name is None else load_declared("text parser", name, TEXT_PARSER_GROUP)()


def _parser_of_env(env: gym.Env) -> str | None:
    game = env.unwrapped
    return game.text_parser if isinstance(game, TextGameEnv) else None


def _parser_of_id(env_id: str) -> str | None:
    entry = gym.spec(env_id).entry_point
    creator = load_object(entry) if isinstance(entry, str) else entry
    if isinstance(creator, type):
        return creator.text_parser if issubclass(creator, TextGameEnv) else None
    env = gym.make(env_id)  # a factory function: only the env it makes can tell
    try:
        return _parser_of_env(env)
    finally:
        env.close()


@dataclass(frozen=True)
class Adopted:
    """A memory adopted by :func:`adopt`: its parts detected once, the one ``update`` path, typed parts.

    Each part accessor (:attr:`beliefs`, :attr:`map`, ...) is the memory typed as that part where it
    offers it, else ``None``; :meth:`reset`, :meth:`close`, :meth:`stats` and :meth:`invalidate` do
    what the part does where offered and nothing otherwise.

    Attributes:
        memory: The memory.
        parts: The optional parts it offers (names of :data:`~textmem_gym.memory.protocol.PARTS`).
        parser: The text parser it was handed (``None``: none, or it takes none).
        privileged: The privileged ``info`` keys it declares and is given.
        name: Its ``name`` where it offers one, else its class name.
    """

    memory: Memory
    parts: frozenset[str]
    parser: TextParser | None
    privileged: frozenset[str]
    name: str
    _stripped: frozenset[str] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_stripped", PRIVILEGED_KEYS - self.privileged)

    # -- the two methods -----------------------------------------------------------------
    def update(self, observation: str, action: str, info: Mapping[str, Any]) -> None:
        """Feeds one step: ``info`` without the privileged keys the memory does not declare."""
        stripped = self._stripped
        if any(key in info for key in stripped):
            info = {key: value for key, value in info.items() if key not in stripped}
        self.memory.update(observation, action, cast(dict[str, Any], info))

    def context(self, question: str, budget: int) -> list[str]:
        """The memory's ``context(question, budget)``."""
        return self.memory.context(question, budget)

    # -- parts ---------------------------------------------------------------------------
    def offers(self, part: str) -> bool:
        """Whether it offers the optional part ``part``."""
        return part in self.parts

    def _part(self, name: str) -> Any:
        """The memory where it offers the part ``name`` (typed by the caller's return type), else ``None``."""
        return self.memory if name in self.parts else None

    @property
    def beliefs(self) -> HasBeliefs | None:
        """The ``beliefs`` part (``believed_triples()``)."""
        return self._part("beliefs")

    @property
    def history(self) -> HasHistory | None:
        """The ``history`` part (``triple_history()``)."""
        return self._part("history")

    @property
    def map(self) -> HasMap | None:
        """The ``map`` part (location, known locations, unexplored exits, routes, doors)."""
        return self._part("map")

    @property
    def renders(self) -> Renders | None:
        """The ``render`` part (``render(query)``)."""
        return self._part("render")

    @property
    def export(self) -> Exportable | None:
        """The ``export`` part (JSON, files, networkx, picture)."""
        return self._part("export")

    @property
    def sources(self) -> HasSources | None:
        """The ``sources`` part (``sources(question, k)``)."""
        return self._part("sources")

    def believed_triples(self) -> list[TripleKey]:
        """The triples believed now; ``[]`` without the ``beliefs`` part."""
        beliefs = self.beliefs
        return beliefs.believed_triples() if beliefs is not None else []

    def build_tokens(self) -> dict[str, int]:
        """``prompt_tokens`` and ``completion_tokens`` a model spent building it (zeros without ``build_cost``)."""
        cost: HasBuildCost | None = self._part("build_cost")
        used = cost.build_tokens() if cost is not None else {}
        return {key: int(used.get(key, 0)) for key in ("prompt_tokens", "completion_tokens")}

    def failed_updates(self) -> dict[str, int] | None:
        """Failed updates by cause (the ``failures`` part), else ``None``: it does not count them (not 0)."""
        counted: CountsFailures | None = self._part("failures")
        return {str(k): int(v) for k, v in counted.failed_updates.items()} if counted is not None else None

    def stats(self) -> UpdateStats | None:
        """What the last update changed (the ``stats`` part), else ``None``."""
        counted: HasStats | None = self._part("stats")
        return counted.stats if counted is not None else None

    def invalidate(self, subject: str, relation: str, obj: str) -> bool:
        """Stops believing a triple where the memory can forget (``invalidate`` part); whether it was believed."""
        forgets: Forgets | None = self._part("invalidate")
        return forgets.invalidate(subject, relation, obj) if forgets is not None else False

    def reset(self) -> bool:
        """Empties the memory where it offers ``reset``; returns whether it did."""
        resettable: Resettable | None = self._part("reset")
        if resettable is not None:
            resettable.reset()
        return resettable is not None

    def close(self) -> None:
        """Releases what the memory holds, where it offers ``close``."""
        closeable: Closeable | None = self._part("close")
        if closeable is not None:
            closeable.close()


def adopt(memory: Any, *, parser: TextParser | None = None) -> Adopted:
    """Adopts ``memory``: checks it, detects its optional parts once, hands it ``parser`` where it offers
    the ``parser`` part, and reads the privileged keys it declares.

    Args:
        memory: A memory object (:func:`~textmem_gym.memory.registry.make_memory` builds one by name).
        parser: The env backend's text parser (:func:`parser_for`); ``None``: the generic reading.

    Raises:
        TypeError: ``memory`` is not a memory (one line).
        ValueError: It declares a privileged key the ``info`` contract does not have.

    Example:
        >>> from textmem_gym.memory.registry import make_memory
        >>> adopted = adopt(make_memory("arigraph"), parser=parser_for("TextMem/NetHack-RoomObs-v0"))
        >>> adopted.parser is not None, adopted.privileged, adopted.offers("map"), adopted.name
        (True, frozenset(), True, 'arigraph')
    """
    memory = check_memory(memory)
    offered = offered_parts(memory)
    parts = frozenset(name for name, yes in offered.items() if yes)
    if "parser" in parts:
        cast(ReadsParser, memory).use_parser(parser)
    privileged = frozenset(cast(ReadsPrivileged, memory).privileged) if "privileged" in parts else frozenset()
    if unknown := privileged - PRIVILEGED_KEYS:
        raise ValueError(f"{type(memory).__name__} declares privileged {sorted(unknown)}, which are no privileged "
                         f"info keys; privileged keys: {sorted(PRIVILEGED_KEYS)}")
    return Adopted(memory, parts, parser if "parser" in parts else None, privileged, memory_name(memory))


__all__ = ["Adopted", "adopt", "parser_for"]
