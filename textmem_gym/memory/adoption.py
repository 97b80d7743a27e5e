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
4. **Strip privileged keys**: :attr:`Adopted.update` gives the memory ``info`` without the privileged
   keys (:data:`~textmem_gym.envs.privileged.PRIVILEGED_KEYS`) it does not declare in its ``privileged``
   part (the oracle declares ``{"facts"}``), whatever the env was made with. Where the ``info`` it is fed
   can hold none of those (``given``: an env made without them, :func:`privileged_given`), it is bound
   to the memory's own ``update`` once, at adoption.

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

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import partial
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


#: A memory's ``update(observation, action, info)`` as :attr:`Adopted.update` calls it.
Update = Callable[[str, str, Mapping[str, Any]], None]


@dataclass(frozen=True)
class Adopted:
    """A memory adopted by :func:`adopt`: its parts detected once, the one ``update`` path, typed parts.

    Everything a caller uses at every step is found here once and then called directly (no check per
    call): :attr:`update` and :attr:`context` are bound at adoption, and each part (:attr:`beliefs`,
    :attr:`map`, ...) is the memory typed as that part where it offers it, else ``None``. :meth:`reset`,
    :meth:`close` and :meth:`invalidate` do what the part does where offered and nothing otherwise.

    Attributes:
        memory: The memory.
        parts: The optional parts it offers (names of :data:`~textmem_gym.memory.protocol.PARTS`).
        parser: The text parser it was handed (``None``: none, or it takes none).
        privileged: The privileged ``info`` keys it declares and is given.
        name: Its ``name`` where it offers one, else its class name.
        given: The privileged ``info`` keys the ``info`` it is fed can hold (default: any).
        update: Feeds one step: ``update(observation, action, info)`` with ``info`` without the privileged
            keys the memory does not declare. Where ``info`` can hold none of those (:attr:`given`), it is
            the memory's own ``update``.
        context: The memory's ``context(question, budget)``.
        beliefs: The ``beliefs`` part (``believed_triples()``).
        history: The ``history`` part (``triple_history()``).
        map: The ``map`` part (location, known locations, unexplored exits, routes, doors).
        renders: The ``render`` part (``render(query)``).
        export: The ``export`` part (JSON, files, networkx, picture).
        sources: The ``sources`` part (``sources(question, k)``).
        stats: The ``stats`` part (its ``stats``: what the last update changed).
    """

    memory: Memory
    parts: frozenset[str]
    parser: TextParser | None
    privileged: frozenset[str]
    name: str
    given: frozenset[str] = PRIVILEGED_KEYS
    update: Update = field(init=False, repr=False)
    context: Callable[[str, int], list[str]] = field(init=False, repr=False)
    beliefs: HasBeliefs | None = field(init=False, repr=False)
    history: HasHistory | None = field(init=False, repr=False)
    map: HasMap | None = field(init=False, repr=False)
    renders: Renders | None = field(init=False, repr=False)
    export: Exportable | None = field(init=False, repr=False)
    sources: HasSources | None = field(init=False, repr=False)
    stats: HasStats | None = field(init=False, repr=False)

    def __post_init__(self) -> None:
        stripped = (PRIVILEGED_KEYS - self.privileged) & self.given
        update = cast(Update, self.memory.update)
        bound = {"update": partial(_update_without, update, stripped) if stripped else update,
                 "context": self.memory.context, "beliefs": self._part("beliefs"), "history": self._part("history"),
                 "map": self._part("map"), "renders": self._part("render"), "export": self._part("export"),
                 "sources": self._part("sources"), "stats": self._part("stats")}
        for attribute, value in bound.items():
            object.__setattr__(self, attribute, value)

    # -- parts ---------------------------------------------------------------------------
    def offers(self, part: str) -> bool:
        """Whether it offers the optional part ``part``."""
        return part in self.parts

    def _part(self, name: str) -> Any:
        """The memory where it offers the part ``name`` (typed by the caller's type), else ``None``."""
        return self.memory if name in self.parts else None

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


def adopt(memory: Any, *, parser: TextParser | None = None, given: Iterable[str] = PRIVILEGED_KEYS) -> Adopted:
    """Adopts ``memory``: checks it, detects its optional parts once, hands it ``parser`` where it offers
    the ``parser`` part, and reads the privileged keys it declares.

    Args:
        memory: A memory object (:func:`~textmem_gym.memory.registry.make_memory` builds one by name).
        parser: The env backend's text parser (:func:`parser_for`); ``None``: the generic reading.
        given: The privileged keys the ``info`` it will be fed can hold (:func:`privileged_given` of an env);
            default: any, each update then takes out those it does not declare.

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
    return Adopted(memory, parts, parser if "parser" in parts else None, privileged, memory_name(memory),
                   frozenset(given))


def privileged_given(env: gym.Env) -> frozenset[str]:
    """The privileged ``info`` keys ``env`` gives (:attr:`~textmem_gym.envs.text_game.TextGameEnv.privileged`,
    what it was made with); every privileged key when it is no TextMem env (it cannot say).

    Example:
        >>> import gymnasium as gym, textmem_gym
        >>> plain, facts = gym.make("TextMem/Cooking-v0"), gym.make("TextMem/Cooking-v0", privileged="facts")
        >>> privileged_given(plain), privileged_given(facts)
        (frozenset(), frozenset({'facts'}))
        >>> plain.close(); facts.close()
    """
    game = env.unwrapped
    return frozenset(game.privileged) if isinstance(game, TextGameEnv) else PRIVILEGED_KEYS


def _update_without(update: Update, stripped: frozenset[str], observation: str, action: str,
                    info: Mapping[str, Any]) -> None:
    """``update`` given ``info`` without the keys ``stripped`` (the same ``info`` when it holds none)."""
    if any(key in info for key in stripped):
        info = {key: value for key, value in info.items() if key not in stripped}
    update(observation, action, info)


__all__ = ["Adopted", "Update", "adopt", "parser_for", "privileged_given"]
