"""``MemoryGraphWrapper``: a memory-augmented view of any TextMem env.

The observation becomes ``{"observation": raw text, "belief": memory rendered for a prompt}``
(or one string with ``flatten=True``); ``info`` gains the believed location, known locations,
unexplored exits, memory statistics and step counts; ``go to <known location>`` macro actions
walk the shortest known path. Rewards and termination are the env's.

Any memory works (:mod:`textmem_gym.memory.protocol`: ``update`` and ``context``), given as an
object, a name of the entry-point group ``textmem_gym.memories`` or ``"module:Class"``; an object
that is not a memory is refused at once (one-line ``TypeError``). The optional parts are used where
the memory offers them, and otherwise:

- ``reset``: a memory given by name is built anew at each reset; a memory *object* without
  ``reset`` is not emptied between episodes (it is the caller's object: the wrapper cannot rebuild it);
- ``render``: the ``belief`` is ``"\\n".join(memory.context(observation, belief_budget))``
  (:data:`DEFAULT_BELIEF_BUDGET` tokens unless ``belief_budget`` says otherwise; ``belief="full"``
  asks the context of an empty question);
- ``map``: no ``go to`` macros (a ``go to X`` is sent to the game as typed), ``info["location"]``
  is ``None``, ``info["known_locations"]`` ``[]`` and ``info["unexplored_exits"]`` ``{}``;
- ``beliefs``: no ``info["belief_accuracy"]``;
- ``parser``: the env backend's text parser is not handed over.

The ``belief`` is rendered when it is read (``lazy_belief``, on by default for a memory the wrapper
builds from a name): the observation is a :class:`BeliefObservation`,
a ``dict`` whose ``belief`` is rendered on first read, from the memory as it was at that step (an
observation still held when the wrapper next changes the memory is rendered just before). A step
whose observation nobody reads pays for the memory's update only. A memory *object* is rendered at
every step unless ``lazy_belief=True``: it is its caller's, who may read it during the step (a
policy whose retrieval or LLM calls the belief shares, recorded with the step).

``info["memory"]`` (what the last update changed) is there for a memory that offers ``stats``
(an :class:`~textmem_gym.memory.protocol.UpdateStats`: the graph memories).

Step limit: ``gym.make`` puts a ``TimeLimit`` inside this wrapper. By default primitive moves
count (a ``go to`` of 4 moves uses 4 steps; the inner ``TimeLimit`` truncates mid-macro; a
``go to`` that moves nowhere, e.g. an unknown target, still uses one step).
With ``macro_counts_as_one_step=True`` (the papers' accounting) the wrapper sends its
primitive commands to the env inside that ``TimeLimit`` (so it never truncates mid-macro) and
truncates itself after ``max_episode_steps`` agent decisions; the ``TimeLimit`` must then sit
directly inside the wrapper, as ``gym.make`` returns it. The limit is read from ``env.spec``.
Either way ``info["steps"]`` reports ``decisions``, ``primitive`` moves, the ``counted`` steps
and the ``limit``.

With privileged facts in ``info`` (``gym.make(id, privileged=True)``), each step also reports
``info["belief_accuracy"]`` (precision/recall/F1 per relation class against the observed
ground truth) and ``wrapper.belief_accuracy.summary()`` accumulates it.

The memory is adopted (:func:`~textmem_gym.memory.adoption.adopt`), as every instrument adopts it: its
parts are detected once (:attr:`MemoryGraphWrapper.adopted`), the env backend's text parser
(:attr:`~textmem_gym.envs.text_game.TextGameEnv.text_parser`, e.g. NetHack's) is handed to it and its
ground truth to the belief metric, so no memory has to guess which game it reads; it is fed ``info``
without the privileged keys it does not declare (``privileged`` part), while the agent still gets them.

``go to X`` (the second half of this module): :func:`plan_route` turns the memory's shortest known
path into primitive commands (opening doors believed closed on the way); :func:`run_goto` executes
them one by one through a ``step`` callable, re-checking the believed location after every move.

Example:
    >>> import gymnasium as gym, textmem_gym
    >>> env = MemoryGraphWrapper(gym.make("TextMem/Cooking-v0"))
    >>> obs, info = env.reset(seed=0)
    >>> info["location"], sorted(obs)
    ('livingroom', ['belief', 'observation'])
    >>> obs, reward, terminated, truncated, info = env.step("go south")
    >>> "go to livingroom" in info["admissible_commands"]
    True
    >>> env.close()
    >>> parse_goto("Go to the Kitchen"), parse_goto("go north")
    ('kitchen', None)
"""

from __future__ import annotations

import re
import weakref
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import partial
from typing import Any, TypeVar, cast

import gymnasium as gym
from gymnasium import spaces
from gymnasium.wrappers import TimeLimit

from textmem_gym.envs.lazy import LazyCommands
from textmem_gym.envs.text_game import MAX_TEXT_LENGTH, TextGameEnv, text_space, to_printable
from textmem_gym.memory.adoption import Adopted, adopt, parser_for, privileged_given
from textmem_gym.memory.belief_metrics import BeliefAccuracy
from textmem_gym.memory.extractors import Extractor
from textmem_gym.memory.protocol import HasMap, Memory
from textmem_gym.memory.registry import make_memory
from textmem_gym.memory.semantic import direction_relation, normalize

# -- the observation whose belief is rendered when read --------------------------------------
# Rendering the belief (a retrieval over the whole memory, then text) is most of a memory's cost per
# step, and many steps never read it (an RL agent using the macros only, a benchmark, a policy that
# builds its own prompt). BeliefObservation is a real dict (Gymnasium's Dict space, check_env, json
# and the vector envs see one); every way of reading renders first; it pickles and copies as a plain
# dict of the rendered text.


class BeliefObservation(dict[str, str]):
    """``{"observation": text, "belief": rendered when first read}`` (see the module docstring).

    What is read is what an eager wrapper would have returned: the wrapper renders a belief still
    unread, from the memory as it was at that step, before it changes the memory again, if the
    observation is still held by anyone (:class:`UnreadBelief`).

    Args:
        observation: The game's text.
        render: Renders the belief; called at most once.

    Example:
        >>> calls = []
        >>> obs = BeliefObservation("You see a door.", lambda: calls.append(1) or "Current location: hall")
        >>> sorted(obs), len(calls)
        (['belief', 'observation'], 0)
        >>> obs["belief"], len(calls)
        ('Current location: hall', 1)
        >>> obs == {"observation": "You see a door.", "belief": "Current location: hall"}, len(calls)
        (True, 1)
    """

    def __init__(self, observation: str, render: Callable[[], str]) -> None:
        super().__init__(observation=observation, belief="")
        self._render: Callable[[], str] | None = render

    @property
    def rendered(self) -> bool:
        """Whether the belief has been rendered yet."""
        return self._render is None

    def settle(self) -> None:
        """Renders the belief now, if it was not yet."""
        render, self._render = self._render, None
        if render is not None:
            dict.__setitem__(self, "belief", render())

    # -- reading renders first -------------------------------------------------------------
    def __getitem__(self, key: str) -> str:
        self.settle()
        return dict.__getitem__(self, key)

    def get(self, key: str, default: Any = None) -> Any:
        self.settle()
        return dict.get(self, key, default)

    def items(self) -> Any:
        self.settle()
        return dict.items(self)

    def values(self) -> Any:
        self.settle()
        return dict.values(self)

    def __iter__(self) -> Iterator[str]:
        # the keys only; defined so that dict(obs), {**obs} and update(obs) read the values through
        # __getitem__ (CPython copies a dict subclass's storage directly when it keeps dict's __iter__)
        return dict.__iter__(self)

    def copy(self) -> dict[str, str]:
        """A plain ``dict`` of the rendered values."""
        self.settle()
        return dict(dict.items(self))

    def __eq__(self, other: object) -> bool:
        self.settle()
        if isinstance(other, BeliefObservation):
            other.settle()
        return dict.__eq__(self, other)

    def __ne__(self, other: object) -> bool:
        return not self == other

    __hash__ = None

    def __or__(self, other: Any) -> Any:
        return self.copy() | other

    def __ror__(self, other: Any) -> Any:
        return other | self.copy()

    def __repr__(self) -> str:
        self.settle()
        return dict.__repr__(self)

    def __reduce__(self) -> tuple[type, tuple[dict[str, str]]]:
        """Pickles and (deep-)copies as a plain ``dict`` of the rendered values."""
        return (dict, (self.copy(),))

    # -- writing renders first (a value set is never overwritten by a late rendering) -------
    def __setitem__(self, key: str, value: str) -> None:
        self.settle()
        dict.__setitem__(self, key, value)

    def __delitem__(self, key: str) -> None:
        self.settle()
        dict.__delitem__(self, key)

    def __ior__(self, other: Any) -> BeliefObservation:  # type: ignore[override]
        self.update(other)
        return self

    def update(self, *args: Any, **kwargs: Any) -> None:
        self.settle()
        dict.update(self, *args, **kwargs)

    def setdefault(self, key: str, default: str = "") -> str:
        self.settle()
        return dict.setdefault(self, key, default)

    def pop(self, key: str, *default: Any) -> Any:
        self.settle()
        return dict.pop(self, key, *default)

    def popitem(self) -> tuple[str, str]:
        self.settle()
        return dict.popitem(self)

    def clear(self) -> None:
        self.settle()
        dict.clear(self)


class UnreadBelief:
    """The wrapper's note of its last :class:`BeliefObservation` whose belief is still unread.

    :meth:`settle` is called before the memory changes (a step, a reset): the belief is rendered
    then if the observation is still held somewhere (a runner's variable, a replay buffer), so a
    later read sees the memory of its own step; an observation no one holds is dropped unrendered.

    Example:
        >>> unread = UnreadBelief()
        >>> kept = unread.track(BeliefObservation("text", lambda: "belief"))
        >>> unread.settle(); kept.rendered
        True
        >>> dropped = unread.track(BeliefObservation("text", lambda: 1 / 0))
        >>> del dropped  # nobody holds it any more: never rendered
        >>> unread.settle()
    """

    def __init__(self) -> None:
        self._last: weakref.ref[BeliefObservation] | None = None

    def track(self, observation: BeliefObservation) -> BeliefObservation:
        """Notes ``observation`` (the previous one must have been settled) and returns it."""
        self._last = weakref.ref(observation)
        return observation

    def settle(self) -> None:
        """Renders the last observation's belief if it is still held and unread."""
        last, self._last = (self._last() if self._last is not None else None), None
        if last is not None:
            last.settle()


BELIEF_MODES = ("retrieve", "full")
#: A custom ``belief``: ``(memory, observation) -> text``.
BeliefRenderer = Callable[[Memory, str], str]
#: Tokens of the ``belief`` of a memory that does not render itself (``memory.context(observation, budget)``).
DEFAULT_BELIEF_BUDGET = 1024


W = TypeVar("W", bound=gym.Wrapper)


def belief_text(memory: Adopted, observation: str | None, budget: int = DEFAULT_BELIEF_BUDGET) -> str:
    """What the ``belief`` key holds, printable and cut to the text space: ``render(observation)`` where
    the (adopted) memory offers ``render``, else its context lines for ``observation`` within ``budget`` tokens.

    Example:
        >>> from textmem_gym.memory.budget import fit_budget
        >>> class Notes:
        ...     def update(self, observation, action, info): ...
        ...     def context(self, question, budget):
        ...         return fit_budget(["the lamp is in the hall", "the key is under the mat"], budget)
        >>> belief_text(adopt(Notes()), "where is the key?", budget=8)
        'the lamp is in the hall'
    """
    renders = memory.renders
    if renders is not None:
        return to_printable(renders.render(observation))[:MAX_TEXT_LENGTH]
    text = "\n".join(memory.context(observation or "", budget))
    return to_printable(text)[:MAX_TEXT_LENGTH]


#: The text parser of an env's backend (:func:`textmem_gym.memory.adoption.parser_for`, its one home).
text_parser = parser_for


def game_goes_to(env: gym.Env) -> bool:
    """Whether ``env``'s game takes ``go to <place>`` itself
    (:attr:`~textmem_gym.envs.text_game.TextGameEnv.provides_goto`): a memory wrapper then adds no macro of its own."""
    game = env.unwrapped
    return isinstance(game, TextGameEnv) and bool(game.provides_goto)


def find_wrapper(env: gym.Env, kind: type[W]) -> W | None:
    """The outermost wrapper of type ``kind`` in ``env``'s wrapper chain, if any
    (e.g. ``find_wrapper(env, MemoryGraphWrapper)``)."""
    while isinstance(env, gym.Wrapper):
        if isinstance(env, kind):
            return env
        env = env.env
    return None


class MemoryGraphWrapper(gym.Wrapper, gym.utils.RecordConstructorArgs):
    """Adds a memory (belief) and ``go to`` macro actions to a TextMem env.

    Args:
        env: Any TextMem env (``gym.make("TextMem/...")``).
        memory: A memory object, a name of :func:`~textmem_gym.memory.registry.available_memories`
            (``"arigraph"``, ``"stma"``, ...) or ``"module:Class"``.
        extractor: ``"rules"``, ``"llm"``, ``"oracle"`` or an extractor, for a named memory that reads
            with one (``None``: the memory's default, ``"rules"`` for arigraph, stma and davis).
        goto: Enable ``go to <known location>`` and add them to the admissible commands (a memory
            that offers no map has no macros whatever ``goto`` says, nor a game that takes ``go to``
            itself: :attr:`~textmem_gym.envs.text_game.TextGameEnv.provides_goto`, ScienceWorld's move
            and NetHack's skills, whose ``go to X`` goes to the game as typed).
        flatten: One string observation (raw text, then the belief) instead of a ``Dict``.
        belief: ``"retrieve"``: location, unexplored exits, then what the memory retrieves for
            the current observation; ``"full"``: every believed triple; or a callable
            ``(memory, observation) -> text`` (a policy that retrieves for its own prompt passes
            its retrieval, so one retrieval serves both). A memory without ``render``: its context.
        macro_counts_as_one_step: Count a macro as one step against the limit (see module doc).
        memory_options: Further arguments of a named memory (``depth``, ``width``, ...).
        extractor_options: Arguments of a named extractor (``client`` for ``llm``).
        belief_metrics: Score the belief against privileged facts each step
            (``info["belief_accuracy"]``); ``None`` = whenever ``info`` has ``facts``.
        belief_budget: Tokens of the ``belief`` of a memory without ``render`` (its ``context``).
        lazy_belief: Render the ``belief`` when it is read (see the module doc); ``None``: for a
            memory given by name with ``belief="retrieve"`` or ``"full"``. Needs the ``Dict``
            observation (not ``flatten``).

    Raises:
        TypeError: ``memory`` (or what its name built) is not a memory (one line).
        ValueError: An unknown memory name, a bad ``belief``, options given with a memory object,
            or ``lazy_belief=True`` with ``flatten=True``.
    """

    def __init__(self, env: gym.Env, *, memory: str | Memory = "arigraph", extractor: str | Extractor | None = None,
                 goto: bool = True, flatten: bool = False, belief: str | BeliefRenderer = "retrieve",
                 macro_counts_as_one_step: bool = False, memory_options: dict[str, Any] | None = None,
                 extractor_options: dict[str, Any] | None = None, belief_metrics: bool | None = None,
                 belief_budget: int = DEFAULT_BELIEF_BUDGET, lazy_belief: bool | None = None):
        # No deepcopy of the arguments: a memory object may hold an LLM client (locks, sockets).
        gym.utils.RecordConstructorArgs.__init__(
            self, _disable_deepcopy=True, memory=memory, extractor=extractor, goto=goto, flatten=flatten, belief=belief,
            macro_counts_as_one_step=macro_counts_as_one_step, memory_options=memory_options,
            extractor_options=extractor_options, belief_metrics=belief_metrics, belief_budget=belief_budget,
            lazy_belief=lazy_belief)
        gym.Wrapper.__init__(self, env)
        if not callable(belief) and belief not in BELIEF_MODES:
            raise ValueError(f"belief must be one of {BELIEF_MODES} or a callable, got {belief!r}")
        if lazy_belief and flatten:
            raise ValueError("lazy_belief=True needs the Dict observation: a flattened observation is one string")
        self.lazy_belief = bool(lazy_belief) if lazy_belief is not None else \
            isinstance(memory, str) and not callable(belief) and not flatten
        self._unread = UnreadBelief()
        self._memory_spec = memory
        self._memory_options = _named_options(memory, extractor, memory_options, extractor_options)
        self.goto, self.flatten, self.belief_mode = bool(goto) and not game_goes_to(env), bool(flatten), belief
        self.belief_budget = belief_budget
        self.macro_counts_as_one_step = bool(macro_counts_as_one_step)
        self.belief_metrics = belief_metrics
        self.parser = parser_for(env)
        self._privileged = privileged_given(env)
        self._build_memory()
        self.belief_accuracy = BeliefAccuracy(None if self.parser is None else self.parser.observed_truth())
        self.max_steps, self._commands_env = self._step_limit(env)
        self.observation_space = text_space() if self.flatten else spaces.Dict(
            {"observation": text_space(), "belief": text_space()})
        self.decisions = self.primitive_steps = self.budget_used = 0
        self._last_info: dict[str, Any] = {}

    def _build_memory(self) -> None:
        """Builds (or checks) the memory and adopts it (:func:`~textmem_gym.memory.adoption.adopt`): its
        optional parts detected once (protocol checks are slow: never one per step), the backend's text
        parser handed over where it reads one.

        Attributes set:
            adopted: The adopted memory (its parts, its one ``update`` path).
            memory: The memory itself.
            map: The memory where it offers the ``map`` part (``go to`` macros, locations), else ``None``.
        """
        self.adopted: Adopted = adopt(make_memory(self._memory_spec, **self._memory_options), parser=self.parser,
                                      given=self._privileged)
        self.memory: Memory = self.adopted.memory
        self.map: HasMap | None = self.adopted.map

    def _empty_memory(self) -> None:
        """Empties the memory for a new episode: its ``reset``, else a memory given by name is built
        anew; a memory object without ``reset`` is kept as it is."""
        if not self.adopted.reset() and isinstance(self._memory_spec, str):
            self._build_memory()

    def _step_limit(self, env: gym.Env) -> tuple[int | None, gym.Env]:
        """The step limit (from ``env.spec``) and the env that primitive commands are sent to."""
        limit = env.spec.max_episode_steps if env.spec is not None else None
        time_limit = find_wrapper(env, TimeLimit)
        if not self.macro_counts_as_one_step or time_limit is None:
            return limit, env
        if time_limit is not env:
            raise ValueError("macro_counts_as_one_step=True needs the TimeLimit directly inside MemoryGraphWrapper "
                             f"(as gym.make returns it), got {env}: wrap the TimeLimit env, then add other wrappers")
        if limit is None:
            raise ValueError(f"macro_counts_as_one_step=True needs the step limit in env.spec, but {env} has no spec")
        return limit, time_limit.env  # past the TimeLimit: the wrapper counts decisions itself

    # -- Gymnasium API -------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Any, dict[str, Any]]:
        """Resets the env and empties the memory, which then reads the first observation."""
        self._unread.settle()
        observation, info = self.env.reset(seed=seed, options=options)
        self._empty_memory()
        self.belief_accuracy.reset()
        self.decisions = self.primitive_steps = self.budget_used = 0
        self.adopted.update(observation, "", info)
        self._score_belief(info, "", observation)
        return self._observation(observation), self._augment(info)

    def step(self, action: str) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """A primitive command, or ``go to X`` (macro) when ``goto`` is on."""
        self._unread.settle()
        room_map = self.map if self.goto else None
        target = parse_goto(action) if room_map is not None else None
        self.decisions += 1
        primitive_before = self.primitive_steps
        if target is None:
            observation, reward, terminated, truncated, info = self._primitive(action)
            macro = None
        else:
            budget = None if self.max_steps is None or self.macro_counts_as_one_step else \
                max(self.max_steps - self.budget_used, 0)
            result = run_goto(cast(HasMap, room_map), target, self._primitive, budget, forget=self.adopted.invalidate)
            observation, reward = result.observation, result.reward
            terminated, truncated = result.terminated, result.truncated
            info = result.info if result.info is not None else dict(self._last_info)
            macro = result.summary()
        self.budget_used += 1 if self.macro_counts_as_one_step else max(self.primitive_steps - primitive_before, 1)
        truncated = truncated or (not terminated and self._limit_reached())
        info = self._augment(info)
        if macro is not None:
            info["macro"] = macro
        return self._observation(observation), float(reward), bool(terminated), bool(truncated), info

    def _primitive(self, action: str) -> tuple[str, float, bool, bool, dict[str, Any]]:
        observation, reward, terminated, truncated, info = self._commands_env.step(action)
        self.primitive_steps += 1
        self.adopted.update(observation, action, info)
        self._score_belief(info, action, observation)
        return observation, float(reward), terminated, truncated, info

    def _limit_reached(self) -> bool:
        return self.max_steps is not None and self.budget_used >= self.max_steps

    # -- outputs -------------------------------------------------------------------------
    def render_belief(self, observation: str) -> str:
        """The belief text for ``observation`` (what the ``belief`` key holds)."""
        if callable(self.belief_mode):
            return to_printable(self.belief_mode(self.memory, observation))[:MAX_TEXT_LENGTH]
        query = observation if self.belief_mode == "retrieve" else None
        return belief_text(self.adopted, query, self.belief_budget)

    def _observation(self, observation: str) -> Any:
        if self.lazy_belief:
            return self._unread.track(BeliefObservation(observation, partial(self.render_belief, observation)))
        belief = self.render_belief(observation)
        if self.flatten:
            return f"{observation}\n\n[Memory]\n{belief}"[:MAX_TEXT_LENGTH]
        return {"observation": observation, "belief": belief}

    def _augment(self, info: dict[str, Any]) -> dict[str, Any]:
        self._last_info = info  # never mutated below: the augmented info is a copy
        info = dict(info)
        room_map = self.map
        known = room_map.known_locations() if room_map is not None else []
        info["location"] = room_map.location if room_map is not None else None
        info["known_locations"] = known
        info["unexplored_exits"] = room_map.unexplored_exits() if room_map is not None else {}
        counted = self.adopted.stats
        if counted is not None:
            info["memory"] = dict(counted.stats)
        inner = info.get("steps")  # an env that expands commands itself (NetHack skills) counts its keys
        primitive = inner["primitive"] if isinstance(inner, dict) and "primitive" in inner else self.primitive_steps
        info["steps"] = {"decisions": self.decisions, "primitive": primitive,
                         "counted": self.budget_used, "limit": self.max_steps}
        if self.goto and "admissible_commands" in info:
            info["admissible_commands"] = self._with_gotos(info["admissible_commands"], known)
        return info

    def _with_gotos(self, commands: Any, known: list[str]) -> Any:
        if self.map is None:
            return commands
        location = self.map.location
        extra = [f"go to {room}" for room in known if room != location]
        if isinstance(commands, LazyCommands) and not commands.computed:
            return LazyCommands(lambda: list(commands) + extra)
        return list(commands) + extra

    def _score_belief(self, info: dict[str, Any], action: str, observation: str) -> None:
        enabled = self.belief_metrics if self.belief_metrics is not None else "facts" in info
        beliefs = self.adopted.beliefs
        if enabled and "facts" in info and beliefs is not None:
            # with the text seen, as benchmarks/belief_accuracy.py scores: open/closed states count once revealed
            believed = beliefs.believed_triples()
            score = self.belief_accuracy.step(info["facts"], action, believed, observation)
            info["belief_accuracy"] = {name: {"precision": c.precision, "recall": c.recall, "f1": c.f1,
                                              "unverifiable": c.unverifiable} for name, c in score.items()}


_M = TypeVar("_M")


def _named_options(memory: str | Memory, extractor: str | Extractor | None, memory_options: dict[str, Any] | None,
                   extractor_options: dict[str, Any] | None) -> dict[str, Any]:
    """The arguments of a memory given by name: ``extractor`` and its options only when given, then
    ``memory_options`` (which win, as they always did).

    Raises:
        ValueError: Options given with a memory object.
    """
    if not isinstance(memory, str):
        if memory_options or extractor_options:
            raise ValueError("memory_options/extractor_options only apply to a memory given by name")
        return {}
    given = {"extractor": extractor, "extractor_options": extractor_options}
    return {**{key: value for key, value in given.items() if value is not None}, **(memory_options or {})}


def find_memory_wrapper(env: gym.Env) -> MemoryGraphWrapper | None:
    """The first MemoryGraphWrapper in ``env``'s wrapper chain, if any."""
    return find_wrapper(env, MemoryGraphWrapper)


def ensure_memory_wrapper(env: gym.Env, **options: Any) -> gym.Env:
    """``env`` itself if it already has a MemoryGraphWrapper, else ``MemoryGraphWrapper(env, **options)``:
    a policy that needs a memory wraps only when no wrapper is in the chain, so a user's own
    configured wrapper is kept (the runner applies a policy's ``wrap_env`` after any user ``wrap``).

    Example:
        >>> import gymnasium as gym, textmem_gym
        >>> env = ensure_memory_wrapper(gym.make("TextMem/CookingRL-L1-v0"))
        >>> ensure_memory_wrapper(env) is env
        True
        >>> env.close()
    """
    if find_memory_wrapper(env) is not None:
        return env
    return MemoryGraphWrapper(env, **options)


def adopt_memory(env: gym.Env, memory_class: type[_M], policy_name: str) -> _M | None:
    """The memory of ``env``'s MemoryGraphWrapper (``None`` when it has none).

    Raises:
        ValueError: If the wrapper holds another kind of memory than ``memory_class``.
    """
    existing = find_memory_wrapper(env)
    if existing is None:
        return None
    if not isinstance(existing.memory, memory_class):
        raise ValueError(f"{policy_name} needs a MemoryGraphWrapper with {memory_class.__name__}, the env has "
                         f"{type(existing.memory).__name__}: pass the env without a MemoryGraphWrapper")
    return existing.memory


# ---- "go to X" macro actions over the believed map ----

_GOTO = re.compile(r"^\s*go\s+to\s+(?:the\s+)?(.+?)\s*[.!]?\s*$", re.I)
StepResult = tuple[str, float, bool, bool, dict[str, Any]]


def parse_goto(action: str) -> str | None:
    """The target of a ``go to X`` command (normalized), else ``None``."""
    match = _GOTO.match(action) if isinstance(action, str) else None
    return normalize(match.group(1)) if match else None


def goto_commands(room_map: HasMap | None) -> list[str]:
    """One ``go to X`` per known location other than the current one (none without a ``map``: ``None``)."""
    if room_map is None:
        return []
    return [f"go to {room}" for room in room_map.known_locations() if room != room_map.location]


@dataclass
class MacroResult:
    """Outcome of one ``go to``.

    Attributes:
        target: The requested location.
        actions: Primitive commands sent to the env.
        completed: The agent believes it reached the target.
        reason: Why it stopped early (empty when completed).
        observation, reward, terminated, truncated, info: The summed reward and the last
            step's other outputs (``None`` info when no primitive step was taken).
    """

    target: str
    actions: list[str] = field(default_factory=list)
    completed: bool = False
    reason: str = ""
    observation: str = ""
    reward: float = 0.0
    terminated: bool = False
    truncated: bool = False
    info: dict[str, Any] | None = None

    def summary(self) -> dict[str, Any]:
        """What goes into ``info["macro"]``."""
        return {"target": self.target, "actions": list(self.actions), "primitive_steps": len(self.actions),
                "completed": self.completed, "reason": self.reason}


def plan_route(memory: HasMap, target: str) -> tuple[list[tuple[str, str, str | None]], str]:
    """Plans the hops to ``target``.

    Returns:
        ``(hops, problem)``: hops are ``(direction, room reached, door to open or None)``;
        ``problem`` is a sentence for the agent when there is no usable route.
    """
    known = memory.known_locations()
    if target not in known:
        listed = ", ".join(known) if known else "none yet"
        return [], f"You don't know a place called '{target}'. Known locations: {listed}."
    if memory.location is None:
        return [], "You don't know where you are, so no route can be planned."
    if target == memory.location:
        return [], f"You are already in the {target}."
    route = memory.route(memory.location, target)
    if route is None:
        return [], f"You know of the {target} but no known path leads there from the {memory.location}."
    hops: list[tuple[str, str, str | None]] = []
    room = memory.location
    for direction, nxt in route:
        door = memory.door(room, direction)
        if door is not None and door[1] == "locked":
            return [], f"The way to the {target} goes through the {door[0]}, which is locked."
        hops.append((direction, nxt, door[0] if door is not None and door[1] == "closed" else None))
        room = nxt
    return hops, ""


def hop_commands(direction: str, door: str | None) -> list[str]:
    """The primitive commands of one hop of a route: open its door if any, then go."""
    return ([f"open {door}"] if door else []) + [f"go {direction}"]


def run_goto(memory: HasMap, target: str, step: Callable[[str], StepResult], budget: int | None, *,
             forget: Callable[[str, str, str], bool] | None = None) -> MacroResult:
    """Walks to ``target`` with primitive commands sent through ``step`` (which also updates
    the memory); stops on termination, truncation, an exhausted ``budget`` of primitive steps,
    or when the believed location is not the expected one. A move that left the agent where
    it was (maps of interactive fiction are not always symmetric, so an inferred inverse exit
    can be wrong) is forgotten through ``forget(subject, relation, object)``, so the next plan avoids
    it (the wrapper passes :meth:`~textmem_gym.memory.adoption.Adopted.invalidate`: a memory that offers
    the ``invalidate`` part, as the graph memories)."""
    result = MacroResult(target)
    hops, problem = plan_route(memory, target)
    if problem:
        result.reason, result.observation = problem, problem
        result.completed = problem.startswith("You are already")
        return result
    room = memory.location or ""  # known: a route was planned from it
    for direction, expected, door in hops:
        for command in hop_commands(direction, door):
            if budget is not None and len(result.actions) >= budget:
                result.reason = "step budget exhausted"
                return result
            observation, reward, terminated, truncated, info = step(command)
            result.actions.append(command)
            result.observation, result.info = observation, info
            result.reward += reward
            result.terminated, result.truncated = terminated, truncated
            if terminated or truncated:
                result.reason = "episode ended"
                return result
        if memory.location != expected:
            result.reason = f"expected to reach the {expected} but the game says otherwise"
            if memory.location == room and forget is not None:  # the way is not there
                forget(expected, direction_relation(direction), room)
            return result
        room = expected
    result.completed = True
    return result
