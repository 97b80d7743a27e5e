"""What a policy is: any object with ``act(observation, info) -> str``; the runner adapts the rest.

Gymnasium asks an env for ``step``/``reset``, stable-baselines3 asks a model for ``predict``; we ask a
policy for ``act``. Everything else the runner calls (``reset``, ``observe``, ``end_episode``, ``seed``,
``wrap_env``, ``episode_stats``...) is optional: :func:`adapt_policy` wraps an object that lacks some of
them in a :class:`PolicyAdapter` supplying no-op defaults, so the runner always sees a
:class:`FullPolicy`. :class:`BasePolicy` gives the same defaults to those who prefer a base class.

Example:
    >>> class Look:
    ...     def act(self, observation, info):
    ...         return "look"
    >>> policy = adapt_policy(Look())
    >>> policy.name, policy.act("You are in a room.", {}), policy.episode_stats()
    ('Look', 'look', {})
    >>> adapt_policy(object())
    Traceback (most recent call last):
    ...
    textmem_gym.core.policy.NotAPolicy: object is not a policy: it has no act(observation, info) method
"""

from __future__ import annotations

import ast
import dataclasses
import functools
import inspect
import textwrap
import typing
import warnings
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, ClassVar, Protocol, TypeVar, runtime_checkable

import gymnasium as gym

from textmem_gym.core.info import StepInfo

#: What ``info`` is to a policy: the env's step info, typed by the contract of :mod:`textmem_gym.core.info`.
Info = StepInfo


@runtime_checkable
class Policy(Protocol):
    """A policy: the one method the runner requires."""

    def act(self, observation: Any, info: Info) -> str:
        """Returns the next command for ``observation``."""


@runtime_checkable
class FullPolicy(Protocol):
    """A policy with every hook the runner calls (what :func:`adapt_policy` returns): the one list of
    the hooks, each with its signature and, as its body, what a policy without it does (pluggy's
    hook specifications, with their defaults). :class:`BasePolicy` inherits the defaults,
    :class:`PolicyAdapter` forwards the hooks an object has (:data:`HOOKS`, derived from this class)
    and supplies these defaults for the others.

    Attributes:
        name: Name recorded in results.
        privileged: Privileged ``info`` keys the policy needs (the env is then made with them).
        multi_trial: True if it learns across trials of one game (in ``end_episode``): the runner
            then plays every trial of one (env id, game seed) in order with one policy object.
    """

    @property
    def name(self) -> str:
        """Name recorded in results."""
        return type(self).__name__

    @property
    def privileged(self) -> frozenset[str]:
        """Privileged ``info`` keys the policy needs: none."""
        return frozenset()

    @property
    def multi_trial(self) -> bool:
        """Whether it learns across trials of one game: no."""
        return False

    def act(self, observation: Any, info: Info) -> str:
        """Returns the next command (the one hook every policy must have)."""
        raise NotImplementedError

    def seed(self, seed: int | None) -> None:
        """Seeds the policy's randomness for the next episode (the runner calls it per episode)."""
        return None

    def wrap_env(self, env: gym.Env) -> gym.Env:
        """The env this policy plays: ``env`` unchanged (override to add a wrapper it needs)."""
        return env

    def preflight(self) -> None:
        """Checks once, before any episode, that what the policy needs is there (raises
        :class:`~textmem_gym.core.errors.PolicyNotReady` with one line otherwise); nothing to check here
        (LLM policies check their endpoint)."""
        return None

    def reset(self, observation: Any, info: Info) -> None:
        """Starts an episode with its first observation."""
        return None

    def observe(self, action: str, observation: Any, reward: float, terminated: bool,
                truncated: bool, info: Info) -> None:
        """Sees the outcome of its last action."""
        return None

    def end_episode(self, info: Info) -> None:
        """Ends an episode (multi-trial policies such as Reflexion learn here)."""
        return None

    def episode_stats(self) -> dict[str, Any]:
        """Numbers recorded with the episode's result (tokens, calls, cost, fallbacks by cause...); none here."""
        return {}

    def policy_config(self) -> dict[str, Any]:
        """The policy's full configuration, recorded in every results row; none here."""
        return {}

    def take_llm_calls(self) -> list[dict[str, Any]]:
        """The LLM calls made since the last call (for the trajectory); none here."""
        return []

    def action_source(self) -> str | None:
        """Where the action just played came from: ``"model"``, a fallback cause, or ``None`` (not said here)."""
        return None


#: The hooks of :class:`FullPolicy` that are methods, in its order (``act`` first), and those that are
#: attributes: read from the class, so the hook list is written once.
HOOKS: tuple[str, ...] = tuple(name for name, member in vars(FullPolicy).items()
                               if not name.startswith("_") and inspect.isfunction(member))
ATTRIBUTE_HOOKS: tuple[str, ...] = tuple(name for name, member in vars(FullPolicy).items()
                                         if isinstance(member, property))


def has_hook(agent: object, hook: str) -> bool:
    """Whether ``agent`` has the hook ``hook`` of :class:`FullPolicy` (as a runtime-checkable protocol asks:
    the attribute is there, and a method hook is not ``None``).

    Example:
        >>> class Look:
        ...     def act(self, observation, info): return "look"
        >>> has_hook(Look(), "act"), has_hook(Look(), "observe")
        (True, False)
    """
    if hook in ATTRIBUTE_HOOKS:
        return hasattr(agent, hook)
    return getattr(agent, hook, None) is not None


#: How a :class:`PolicyConfig` field is recorded in results rows: its metadata ``{"record": ...}``.
RECORD_MODES = ("always", "never", "when set", "unless default", "scalars")
#: Field metadata: not recorded in results rows (an endpoint, a key, client plumbing).
UNRECORDED: Mapping[str, str] = MappingProxyType({"record": "never"})
#: Field metadata: recorded only when it is not ``None`` (unset means "the default of what it is passed to").
RECORDED_WHEN_SET: Mapping[str, str] = MappingProxyType({"record": "when set"})
#: Field metadata: recorded only when it is not its default (a setting added later: rows made before stay alike).
RECORDED_UNLESS_DEFAULT: Mapping[str, str] = MappingProxyType({"record": "unless default"})
#: Field metadata: a dict whose text, number and boolean items are recorded as keys of their own.
RECORDED_SCALARS: Mapping[str, str] = MappingProxyType({"record": "scalars"})

_Config = TypeVar("_Config", bound="PolicyConfig")


@dataclasses.dataclass(frozen=True, kw_only=True)
class PolicyConfig:
    """A policy's settings as one typed dataclass (as CleanRL's ``Args``): one field per setting, its
    default the paper's value, a docstring under it saying what it sets (read by Sphinx and by
    :func:`config_fields`).

    A policy class names its dataclass as ``config_class`` and takes ``(config=None, *, **fields)``:
    ``make_policy(name, top_k=3)``, ``--policy-arg top_k=3`` and ``Policy(top_k=3)`` all set a field, and
    the registry checks keywords and value types against the fields. :meth:`recorded` is what results rows
    record (``policy_config()``): every field, except as its metadata says (:data:`UNRECORDED`,
    :data:`RECORDED_WHEN_SET`, :data:`RECORDED_UNLESS_DEFAULT`, :data:`RECORDED_SCALARS`) or as
    :attr:`unrecorded` lists, under its name (or the key its metadata ``{"recorded_as": ...}`` names: a
    renamed field keeps the key rows were written with); a value that is not JSON (a path, an object) is
    recorded as its text. A field's doc is the docstring under it, else its metadata ``{"doc": ...}``. A
    ``bool`` field holds a bool whatever it is given (``strict=1`` is ``True``). Subclasses check their
    values in ``__post_init__`` (calling ``super().__post_init__()``).

    A field that was renamed keeps its old name as a keyword (:attr:`renamed`): :meth:`resolve` reads it as
    the field's new name with a ``FutureWarning``, and the field's metadata ``{"recorded_as": old}`` keeps
    the key rows were written with.

    Attributes:
        unrecorded: Fields this class leaves out of :meth:`recorded` although a base records them.
        renamed: A field's old name -> its name now (still taken as a keyword, with a ``FutureWarning``).

    Example:
        >>> @dataclasses.dataclass(frozen=True, kw_only=True)
        ... class LookConfig(PolicyConfig):
        ...     times: int = 1
        ...     '''Looks per step.'''
        ...     loud: bool = False
        ...     '''Shout while looking.'''
        ...     endpoint: str | None = dataclasses.field(default=None, metadata=UNRECORDED)
        >>> LookConfig.resolve(None, loud=1).recorded()
        {'times': 1, 'loud': True}
        >>> LookConfig.resolve(LookConfig(times=2), endpoint="x")
        LookConfig(times=2, loud=False, endpoint='x')
        >>> LookConfig.resolve(None, tims=2)
        Traceback (most recent call last):
        ...
        TypeError: LookConfig has no field 'tims'; its fields: ['times', 'loud', 'endpoint']
    """

    unrecorded: ClassVar[frozenset[str]] = frozenset()
    renamed: ClassVar[Mapping[str, str]] = MappingProxyType({})

    def __post_init__(self) -> None:
        for item in dataclasses.fields(self):
            if item.type in ("bool", bool):
                object.__setattr__(self, item.name, bool(getattr(self, item.name)))

    @classmethod
    def resolve(cls: type[_Config], config: _Config | None = None, /, **fields: Any) -> _Config:
        """``config`` (``None``: the defaults) with ``fields`` set: what a policy's ``__init__`` keeps.

        Raises:
            TypeError: ``config`` is not a ``cls``, or a field name is not one of ``cls``'s (one line
                naming it and the fields), or a field is given under its old name and its new one.
        """
        if config is not None and not isinstance(config, cls):
            raise TypeError(f"expected a {cls.__name__}, got {type(config).__name__}")
        fields = cls.current_names(fields)
        names = [item.name for item in dataclasses.fields(cls) if item.init]
        unknown = [name for name in fields if name not in names]
        if unknown:
            listed = ", ".join(repr(name) for name in unknown)
            raise TypeError(f"{cls.__name__} has no field {listed}; its fields: {names}")
        if config is None:
            return cls(**fields)
        return dataclasses.replace(config, **fields) if fields else config

    @classmethod
    def current_names(cls, fields: Mapping[str, Any]) -> dict[str, Any]:
        """``fields`` with each old name of :attr:`renamed` replaced by the field's name now (a ``FutureWarning``
        says so once per call site).

        Raises:
            TypeError: A field is given under both names.
        """
        for old in fields.keys() & cls.renamed.keys():
            new = cls.renamed[old]
            if new in fields:
                raise TypeError(f"{cls.__name__}: {old!r} is the old name of {new!r}: give {new!r} only")
            warnings.warn(f"{cls.__name__}: {old!r} is now called {new!r} (the same setting; rows still record it "
                          f"as {old!r}): write {new}=...", FutureWarning, stacklevel=4)
        return {cls.renamed.get(name, name): value for name, value in fields.items()}

    def recorded(self) -> dict[str, Any]:
        """The settings recorded in every results row (see the class docstring)."""
        record: dict[str, Any] = {}
        for item in dataclasses.fields(self):
            mode, value = item.metadata.get("record", "always"), getattr(self, item.name)
            if mode == "never" or item.name in self.unrecorded or (mode == "when set" and value is None) \
                    or (mode == "unless default" and value == item.default):
                continue
            if mode == "scalars":
                record.update({k: v for k, v in (value or {}).items() if isinstance(v, str | int | float | bool)})
            else:
                record[item.metadata.get("recorded_as", item.name)] = recordable(value)
        return record


_JSON_TYPES = (str, int, float, bool, list, dict)

#: Keywords a policy is built with that are never recorded as its configuration: a secret, a live
#: client, the run's shared request limits, the endpoint's address (plumbing, not a setting: the
#: library's LLM policies do not record it either; a local server's port changes with every run).
UNRECORDED_ARGUMENTS: frozenset[str] = frozenset({"api_key", "client", "limits", "base_url"})


def recordable(value: Any) -> Any:
    """``value`` as a results row records a setting: JSON values as they are, anything else as its text.

    Example:
        >>> from pathlib import Path
        >>> recordable(3), recordable({"k": [1]}), recordable(Path("a/b")), recordable(None)
        (3, {'k': [1]}, 'a/b', None)
    """
    return value if value is None or isinstance(value, _JSON_TYPES) else str(value)


@dataclasses.dataclass(frozen=True)
class ConfigField:
    """One setting of a policy's :class:`PolicyConfig` (see :func:`config_fields`).

    Attributes:
        name: The keyword that sets it.
        type: Its annotation, evaluated (its text when it cannot be).
        default: Its default (the paper's value).
        doc: The docstring written under it, else its metadata ``{"doc": ...}`` (a setting several
            configs share, written once), else ``""``.
    """

    name: str
    type: Any
    default: Any
    doc: str


def policy_config_class(factory: Any) -> type[PolicyConfig] | None:
    """The settings dataclass of a policy factory: a :class:`BasePolicy` subclass's ``config_class``
    (``None`` for any other factory, whose settings are its signature's keywords).

    Example:
        >>> class Look(BasePolicy):
        ...     def act(self, observation, info):
        ...         return "look"
        >>> policy_config_class(Look) is None, policy_config_class(print) is None
        (True, True)
    """
    return factory.config_class if isinstance(factory, type) and issubclass(factory, BasePolicy) else None


def config_fields(owner: type) -> list[ConfigField]:
    """The settings of a policy class (through its ``config_class``) or of a :class:`PolicyConfig`
    class: name, type, default and doc of each field a keyword sets, the most specific first (the
    policy's own, then those of its bases: the LLM policies' shared endpoint and client fields last).

    Raises:
        TypeError: ``owner`` is neither (a policy without a settings dataclass, any other class).

    Example:
        >>> @dataclasses.dataclass(frozen=True, kw_only=True)
        ... class LookConfig(PolicyConfig):
        ...     times: int = 1
        >>> [(f.name, f.type, f.default) for f in config_fields(LookConfig)]
        [('times', <class 'int'>, 1)]
    """
    cls = policy_config_class(owner) or owner
    if not (isinstance(cls, type) and issubclass(cls, PolicyConfig)):
        raise TypeError(f"{getattr(owner, '__name__', owner)!r} has no PolicyConfig (no config_class)")
    settable = {item.name: item for item in dataclasses.fields(cls) if item.init}
    hints = _field_types(cls)
    order = [name for klass in cls.__mro__ for name in vars(klass).get("__annotations__", {}) if name in settable]
    found: list[ConfigField] = []
    for name in dict.fromkeys(order):
        item = settable[name]
        default = item.default_factory() if item.default_factory is not dataclasses.MISSING else item.default
        doc = next((docs[name] for docs in map(_field_docs, cls.__mro__) if name in docs), item.metadata.get("doc", ""))
        found.append(ConfigField(name, hints.get(name, item.type), default, doc))
    return found


def _field_types(cls: type) -> dict[str, Any]:
    """The evaluated annotations of ``cls`` (``{}`` when one cannot be evaluated: the caller keeps the texts)."""
    try:
        return typing.get_type_hints(cls)
    except (NameError, TypeError, AttributeError, SyntaxError):  # a name imported only for type checkers
        return {}


@functools.cache
def _field_docs(cls: type) -> dict[str, str]:
    """The docstrings written under the fields ``cls`` itself declares (``name: T = ...`` then ``'''doc'''``)."""
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(cls)))
    except (OSError, TypeError):  # no source file (a class made in a session)
        return {}
    statement = tree.body[0]
    body = statement.body if isinstance(statement, ast.ClassDef) else []
    return {node.target.id: inspect.cleandoc(after.value.value) for node, after in zip(body, body[1:])
            if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and isinstance(after, ast.Expr)
            and isinstance(after.value, ast.Constant) and isinstance(after.value.value, str)}


class BasePolicy(FullPolicy):
    """Convenience base with the defaults of every optional hook, :class:`FullPolicy`'s (subclass it and
    write ``act``).

    Attributes:
        name: Registry name, recorded in results.
        privileged: Privileged ``info`` keys this policy needs (the runner then makes the env
            with ``privileged=...``). Non-empty only for oracles such as ``walkthrough``.
        multi_trial: True if the policy learns across trials of one game (in ``end_episode``).
        config_class: The dataclass of the policy's settings (a :class:`PolicyConfig`; the LLM
            policies'), or ``None``: its settings are its ``__init__`` keywords.
        config: The policy's settings with defaults filled in: its ``config_class`` instance (whose
            :meth:`PolicyConfig.recorded` is :meth:`policy_config`), or a dict a subclass assigns.
        arguments: The arguments it was built with by name that ``config`` does not record
            (:func:`~textmem_gym.core.registry.make_policy` sets them, see :func:`adapt_policy`), recorded
            beside ``config``: a policy without a settings dataclass needs no code to have its arguments
            recorded.

    Example:
        >>> class Look(BasePolicy):
        ...     name = "look"
        ...     def act(self, observation, info):
        ...         return "look"
        >>> isinstance(Look(), FullPolicy), Look().policy_config()
        (True, {})
    """

    name: ClassVar[str] = "base"  # a class attribute where FullPolicy has a property
    privileged: ClassVar[frozenset[str]] = frozenset()
    multi_trial: ClassVar[bool] = False
    config_class: ClassVar[type[PolicyConfig] | None] = None
    config: Mapping[str, Any] | PolicyConfig = MappingProxyType({})
    arguments: Mapping[str, Any] = MappingProxyType({})

    def policy_config(self) -> dict[str, Any]:
        """The policy's full configuration (``config``: settings with defaults filled in: extractor,
        similarity, prompt style, strict...), recorded in every results row so that tables never mix
        variants: :meth:`PolicyConfig.recorded` of a settings dataclass, else the dict ``config``; plus the
        ``arguments`` it was built with that these do not record."""
        config = self.config
        recorded = config.recorded() if isinstance(config, PolicyConfig) else dict(config)
        return {**recorded, **{k: v for k, v in self.arguments.items() if k not in recorded}}


class ConfiguredPolicy(BasePolicy):
    """A :class:`BasePolicy` whose settings are one :class:`PolicyConfig`, its ``config_class``: built as
    ``Policy(config=None, **fields)`` (``make_policy(name, **fields)``, ``--policy-arg``), it keeps them,
    resolved once here, as :attr:`config` and reads them there (never copied onto ``self``);
    :meth:`policy_config` is their :meth:`PolicyConfig.recorded`.

    Args:
        config: Its settings (an instance of its ``config_class``; default: the defaults).
        **fields: Settings to change (fields of its ``config_class``).

    Raises:
        TypeError: ``config`` is not a ``config_class``, or a field name is not one of its fields.

    Example:
        >>> @dataclasses.dataclass(frozen=True, kw_only=True)
        ... class SayConfig(PolicyConfig):
        ...     word: str = "look"
        ...     '''What it says.'''
        >>> class Say(ConfiguredPolicy):
        ...     config_class = SayConfig
        ...     def act(self, observation, info):
        ...         return self.config.word
        >>> Say(word="wait").act("", {}), Say(SayConfig(word="jump")).policy_config()
        ('wait', {'word': 'jump'})
    """

    config_class: ClassVar[type[PolicyConfig]] = PolicyConfig
    config: PolicyConfig

    def __init__(self, config: PolicyConfig | None = None, **fields: Any) -> None:
        self.config = self.config_class.resolve(config, **fields)


class NotAPolicy(TypeError):
    """The object given as a policy has no ``act(observation, info)`` method."""


class PolicyAdapter(FullPolicy):
    """A :class:`FullPolicy` over an object that has ``act`` and any of the other hooks.

    Each hook of :data:`HOOKS` the object has is called (a stats dict or a list of calls is copied); the
    others do what :class:`FullPolicy` says. Which the object has is asked once, here.

    Args:
        agent: The object (its ``act`` is required).
        name: Name recorded in results when the object has no ``name`` (default: its class name).
        arguments: The arguments it was built with by name that its own ``policy_config()`` does not
            record: recorded beside it (see :func:`adapt_policy`).
    """

    name: str = ""  # set per object
    privileged: frozenset[str] = frozenset()
    multi_trial: bool = False

    def __init__(self, agent: Policy, name: str | None = None, arguments: Mapping[str, Any] | None = None) -> None:
        self.agent = agent
        self.arguments = MappingProxyType(dict(arguments or {}))
        self.name = agent.name if has_hook(agent, "name") else (name or type(agent).__name__)  # type: ignore[attr-defined]
        self.privileged = frozenset(agent.privileged) if has_hook(agent, "privileged") else frozenset()  # type: ignore[attr-defined]
        self.multi_trial = bool(agent.multi_trial) if has_hook(agent, "multi_trial") else False  # type: ignore[attr-defined]
        self._own: dict[str, Any] = {hook: getattr(agent, hook) for hook in HOOKS if has_hook(agent, hook)}
        for hook in HOOKS:
            if hook in self._own and hook not in vars(PolicyAdapter):  # the adapter's own below add to the result
                setattr(self, hook, self._own[hook])

    def act(self, observation: Any, info: Info) -> str:
        """The object's ``act``."""
        return self.agent.act(observation, info)

    def episode_stats(self) -> dict[str, Any]:
        """The object's ``episode_stats()`` (a copy) if it has one, else ``{}``."""
        return dict(self._own["episode_stats"]()) if "episode_stats" in self._own else {}

    def policy_config(self) -> dict[str, Any]:
        """The object's ``policy_config()`` if it has one (else ``{}``), plus the ``arguments`` it lacks."""
        own = dict(self._own["policy_config"]()) if "policy_config" in self._own else {}
        return {**own, **{k: v for k, v in self.arguments.items() if k not in own}}

    def take_llm_calls(self) -> list[dict[str, Any]]:
        """The object's ``take_llm_calls()`` (a copy) if it has one, else ``[]``."""
        return list(self._own["take_llm_calls"]()) if "take_llm_calls" in self._own else []


def check_policy(agent: Any) -> Policy:
    """``agent`` if it has a callable ``act``.

    Raises:
        NotAPolicy: It has none (one line naming the object's type).
    """
    if not (isinstance(agent, Policy) and callable(agent.act)):
        raise NotAPolicy(f"{type(agent).__name__} is not a policy: it has no act(observation, info) method")
    return agent


def adapt_policy(agent: Any, name: str | None = None, arguments: Mapping[str, Any] | None = None) -> FullPolicy:
    """``agent`` as a :class:`FullPolicy`: unchanged if it has every hook, else in a :class:`PolicyAdapter`.

    Args:
        agent: Any object with ``act(observation, info) -> str``.
        name: Name for results when ``agent`` has none of its own.
        arguments: Arguments it was built with that its ``policy_config()`` must record beside its own
            (see :func:`unrecorded_arguments`): a :class:`BasePolicy` keeps them as its ``arguments``
            (unless it writes its own ``policy_config``), any other object gets a :class:`PolicyAdapter`
            that adds them.

    Raises:
        NotAPolicy: ``agent`` has no ``act`` method.

    Example:
        >>> class Pick:
        ...     def __init__(self, index=0):
        ...         self.index = index
        ...     def act(self, observation, info):
        ...         return info["admissible_commands"][self.index]
        >>> adapt_policy(Pick(3), arguments={"index": 3}).policy_config()
        {'index': 3}
    """
    check_policy(agent)
    if arguments:
        if isinstance(agent, BasePolicy) and type(agent).policy_config is BasePolicy.policy_config:
            agent.arguments = MappingProxyType({**agent.arguments, **arguments})
            return agent
        return PolicyAdapter(agent, name, arguments)
    if isinstance(agent, FullPolicy):
        return agent
    return PolicyAdapter(agent, name)


def reseeded(agent: Any) -> bool:
    """Whether the runner's per-episode seed replaces any seed ``agent`` was built with: it has a ``seed``
    hook of its own (the runner calls it before every episode), not :class:`BasePolicy`'s no-op.

    Example:
        >>> class Quiet(BasePolicy):
        ...     def act(self, observation, info): return "look"
        >>> class Seeded(Quiet):
        ...     def seed(self, seed): self.rng_seed = seed
        >>> reseeded(Quiet()), reseeded(Seeded()), reseeded(PolicyAdapter(Seeded()))
        (False, True, True)
    """
    if isinstance(agent, PolicyAdapter):
        return reseeded(agent.agent)
    if isinstance(agent, BasePolicy):
        return type(agent).seed is not BasePolicy.seed
    return has_hook(agent, "seed")


def unrecorded_arguments(agent: FullPolicy, arguments: Mapping[str, Any],
                         defaults: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The arguments ``agent`` was built with (by keyword) that its ``policy_config()`` does not record
    and that may change what it does, as results rows record them: so that two configurations of one
    policy never share a results key, whoever wrote it.

    Left out: an argument the configuration already records (under its name), one given its default
    value (as the factory's signature says: rows stay alike whether it is written or not), a
    ``seed`` the runner replaces before every episode (:func:`reseeded`), and plumbing
    (:data:`UNRECORDED_ARGUMENTS`: keys, clients, request limits, endpoint addresses). Values that are not JSON are
    recorded as their text (:func:`recordable`).

    Args:
        agent: The policy built with ``arguments``.
        arguments: The keywords it was built with.
        defaults: The factory's defaults by keyword (those left out are recorded whatever their value).

    Example:
        >>> class Pick:
        ...     def act(self, observation, info): return "look"
        ...     def seed(self, seed): pass
        >>> unrecorded_arguments(adapt_policy(Pick()), {"index": 3, "seed": 4, "api_key": "k", "depth": 1},
        ...                      {"depth": 1})
        {'index': 3}
    """
    own = agent.policy_config()
    recorded = {}
    for key, value in arguments.items():
        if key in own or key in UNRECORDED_ARGUMENTS or (key == "seed" and reseeded(agent)):
            continue
        if defaults is not None and key in defaults and _same(value, defaults[key]):
            continue
        recorded[key] = recordable(value)
    return recorded


def _same(value: Any, default: Any) -> bool:
    """``value == default`` as a bool (``False`` when comparing them fails or is not a bool: arrays)."""
    try:
        return type(value) is type(default) and bool(value == default)
    except Exception:  # an object whose comparison raises (an array's truth value)
        return False
