"""Policies by name: one registry, lazily imported entries, ``prefix:argument`` factories.

:func:`make_policy` accepts four kinds of names, tried in this order:

- a built-in name, a key of :data:`POLICIES` (``"random"``, ``"ariadne"``...);
- a name an installed package adds through the entry-point group ``textmem_gym.policies``
  (value ``"module:attr"``; imported only when used or listed);
- ``prefix:argument`` with a prefix of :data:`PREFIXED_POLICIES`, or one a package adds through the
  group ``textmem_gym.policy_prefixes`` (``"rl:model.zip"``);
- ``"package.module:Factory"``: any importable callable that returns a Policy.

The built-in names are the library's own entry points: ``setup.cfg`` declares them in the same two
groups, exactly as a third party would, so this module names no policy module (``policies/`` and
``baselines_rl/`` sit on the floor above the library, which never imports or names them) and imports
no policy code until one is used. ``from policies import make_policy`` re-exports :func:`make_policy`.

Example:
    >>> make_policy("random", seed=1).name
    'random'
    >>> type(make_policy("policies.simple:RandomPolicy", seed=1)).__name__
    'RandomPolicy'
    >>> make_policy("random", sead=1)
    Traceback (most recent call last):
    ...
    ValueError: policy 'random' does not accept 'sead'; it accepts: ['seed', 'config']
"""

from __future__ import annotations

import ast
import functools
import importlib.util
import inspect
import os
import sys
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from textmem_gym.core.policy import (
    FullPolicy,
    adapt_policy,
    config_fields,
    policy_config_class,
    unrecorded_arguments,
)
from textmem_gym.loading import Declared, declared_names, library_names, load_object, module_exists, unknown_name

#: Entry-point group through which packages (the library included) add policy names (value ``"module:attr"``).
ENTRY_POINT_GROUP = "textmem_gym.policies"
#: Entry-point group through which packages add ``prefix:argument`` policies (value ``"module:attr"`` of a
#: factory whose first argument is the text after the prefix).
PREFIX_ENTRY_POINT_GROUP = "textmem_gym.policy_prefixes"

#: The built-in names: name -> ``"module:factory"``, the library's own ``textmem_gym.policies`` entry
#: points (``setup.cfg``). Imported on first use, so heavy policies cost nothing until used; each is
#: described by its factory's docstring (:func:`describe_target`).
POLICIES: dict[str, str] = library_names(ENTRY_POINT_GROUP)

#: prefix -> ``"module:factory"`` for names like ``rl:PATH`` (the factory gets the argument): the
#: library's own ``textmem_gym.policy_prefixes`` entry points.
PREFIXED_POLICIES: dict[str, str] = library_names(PREFIX_ENTRY_POINT_GROUP)

@dataclass(frozen=True)
class PolicyEntry:
    """One policy name as ``textmem-gym list`` shows it.

    Attributes:
        name: The name :func:`make_policy` accepts.
        target: Its factory as ``"module:attr"``.
        package: The installed distribution that adds it through an entry point (``None`` for
            built-in names).

    Example:
        >>> entry = available_policies()["random"]
        >>> entry.target, entry.package, entry.description
        ('policies.simple:RandomPolicy', None, 'uniform over the admissible commands (seeded)')
    """

    name: str
    target: str
    package: str | None = None

    @property
    def description(self) -> str:
        """The factory's ``description``, else the summary of its docstring (:func:`describe_factory`).

        A built-in factory's docstring is read from its module's source without importing it (listing
        the policies imports none of them); a plugin's factory is imported here, on first use.
        """
        if self.package is None:
            return describe_target(self.target)
        return describe_factory(load_object(self.target))


def describe_target(target: str) -> str:
    """The docstring summary of the class or function ``"module:attr"`` names, read from its module's
    source without importing the module (its parent packages are imported to find it); imported and
    described by :func:`describe_factory` when the source cannot be read or does not define it.

    Example:
        >>> describe_target("policies.simple:RandomPolicy")
        'uniform over the admissible commands (seeded)'
    """
    module_name, _, attr = target.partition(":")
    spec = importlib.util.find_spec(module_name)
    origin = spec.origin if spec is not None else None
    if origin and origin.endswith(".py") and os.path.isfile(origin):
        docstrings = _docstrings(origin)
        if attr in docstrings:
            return _summary(docstrings[attr])
    return describe_factory(load_object(target))


@functools.lru_cache(maxsize=32)
def _docstrings(path: str) -> dict[str, str | None]:
    """The docstring of each top-level class and function of the module file ``path`` (parsed once)."""
    with open(path, encoding="utf-8") as source:
        tree = ast.parse(source.read())
    kinds = (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)
    return {node.name: ast.get_docstring(node, clean=True) for node in tree.body if isinstance(node, kinds)}


def _summary(doc: str | None) -> str:
    """The first paragraph of a docstring, on one line (``""`` for none)."""
    if not (doc and doc.strip()):
        return ""
    return " ".join(line.strip() for line in inspect.cleandoc(doc).split("\n\n")[0].splitlines())


def describe_factory(factory: Any) -> str:
    """A factory's ``description`` attribute, else the first paragraph of its own docstring (on one line),
    else ``""``.

    Example:
        >>> def look_around(seed=0):
        ...     "Looks around.  A longer explanation follows on later lines."
        >>> describe_factory(look_around)
        'Looks around.  A longer explanation follows on later lines.'
        >>> look_around.description = "always looks"
        >>> describe_factory(look_around)
        'always looks'
    """
    description = getattr(factory, "description", None)
    if isinstance(description, str) and description:
        return description
    return _summary(factory.__doc__)  # a class's own docstring only (not inherited, unlike inspect.getdoc)


def plugin_policies() -> dict[str, PolicyEntry]:
    """Policy names that other installed packages add through the ``textmem_gym.policies`` entry points.

    Reads package metadata only (nothing is imported). A name already built in, or already added
    by another package, is skipped with a warning.
    """
    return {name: PolicyEntry(name, entry.target, entry.package)
            for name, entry in _others(ENTRY_POINT_GROUP, POLICIES, "policy").items()}


def plugin_prefixes() -> dict[str, str]:
    """``prefix -> "module:factory"`` that other installed packages add through ``textmem_gym.policy_prefixes``."""
    return {prefix: entry.target
            for prefix, entry in _others(PREFIX_ENTRY_POINT_GROUP, PREFIXED_POLICIES, "policy prefix").items()}


def _others(group: str, builtin: dict[str, str], kind: str) -> dict[str, Declared]:
    """The declarations of ``group`` by packages other than the library, a name built in left out (warned)."""
    found = {name: entry for name, entry in declared_names(kind, group).items() if not entry.built_in}
    for name in [name for name in found if name in builtin]:  # a built-in name POLICIES was given at run time
        warnings.warn(f"{kind} name {name!r} from package {found.pop(name).package} is ignored: it is built in",
                      stacklevel=3)
    return found


def available_policies() -> dict[str, PolicyEntry]:
    """Every policy name: the built-in ones, then those of installed packages (entry points)."""
    builtin = {name: PolicyEntry(name, target) for name, target in POLICIES.items()}
    return {**builtin, **plugin_policies()}


def make_policy(name: str, **kwargs: Any) -> FullPolicy:
    """Builds a policy by name, prefixed spec or ``"module:Factory"`` (see the module docstring).

    Args:
        name: A key of :data:`POLICIES`, a name added by an installed package (entry-point group
            ``textmem_gym.policies``), ``prefix:argument`` with a prefix in
            :data:`PREFIXED_POLICIES`, or ``"package.module:Factory"``.
        **kwargs: Passed to the policy's factory.

    The policy records the arguments it was built with: a policy class with a settings dataclass
    (``config_class``) records its fields as the dataclass says; any other factory's keywords that
    the policy's own ``policy_config()`` leaves out are added to it (see
    :func:`~textmem_gym.core.policy.unrecorded_arguments`: those given their default value, a
    ``seed`` the runner replaces per episode, keys and clients are left out). Results rows, and so
    the resume keys, tell two configurations of any policy apart.

    Raises:
        ValueError: Unknown name (the message lists the known ones), or ``kwargs`` the factory does
            not accept (the message names them and the accepted ones).
        textmem_gym.core.policy.NotAPolicy: The factory returned an object without ``act`` (a
            ``TypeError``; one line). An object lacking only optional hooks is adapted
            (:func:`~textmem_gym.core.policy.adapt_policy`).

    Example:
        >>> make_policy("explorer", seed=3).policy_config()  # reseeded per episode: not a setting
        {}
        >>> make_policy("explorer", memory_options={"memory": "stma"}).policy_config()
        {'memory_options': {'memory': 'stma'}}
    """
    factory, args = _factory(name)
    parameters = _check_arguments(name, factory, args, kwargs)
    built = factory(*args, **kwargs)
    agent = adapt_policy(built, name=name)
    if policy_config_class(factory) is not None:  # its settings dataclass records every keyword it takes
        return agent
    arguments = unrecorded_arguments(agent, kwargs, None if parameters is None else parameters.defaults)
    return adapt_policy(built, name=name, arguments=arguments) if arguments else agent


def check_policy_arguments(name: str, kwargs: dict[str, Any]) -> None:
    """Checks that policy ``name`` accepts ``kwargs``, without building it (what :func:`make_policy`
    checks first): a command line checks its ``--policy-arg`` options before any game is prepared.

    Raises:
        ValueError: Unknown name, or a keyword its factory does not accept (the message names it
            and the accepted ones), or a required argument missing.

    Example:
        >>> check_policy_arguments("ariadne", {"top_k": 3, "timeout": 30})  # timeout: an LLMClient option
        >>> check_policy_arguments("ariadne", {"top_kk": 3})
        Traceback (most recent call last):
        ...
        ValueError: policy 'ariadne' does not accept 'top_kk'; it accepts: ['top_k', 'extractor', ...]
    """
    factory, args = _factory(name)
    _check_arguments(name, factory, args, kwargs)


def policy_parameters(name: str) -> FactoryParameters | None:
    """The keywords the factory of policy ``name`` accepts (see :func:`factory_parameters`).

    Raises:
        ValueError: Unknown name.

    Example:
        >>> policy_parameters("random").annotations
        {'seed': int | None, 'config': policies.simple.RandomConfig | None}
    """
    factory, args = _factory(name)
    return factory_parameters(factory, skip=len(args))


@dataclass(frozen=True)
class FactoryParameters:
    """The keyword arguments a factory (a policy's, an env class) accepts.

    Attributes:
        annotations: Each keyword it accepts by name -> its annotation (evaluated when it can be,
            else its text; ``typing.Any`` when it has none): a policy's settings fields first (its own,
            then its bases'), then its signature's keywords in order.
        open_ended: Whether it also takes keywords it does not name (a ``**kwargs`` that does not
            go to a settings dataclass).
        defaults: Each keyword that has a default -> that default (a keyword left out is required).
    """

    annotations: dict[str, Any]
    open_ended: bool
    defaults: dict[str, Any] = field(default_factory=dict, repr=False)

    def accepts(self, keyword: str) -> bool:
        """Whether ``keyword`` is accepted (named, or taken by an open ``**kwargs``)."""
        return self.open_ended or keyword in self.annotations


def factory_parameters(factory: Callable[..., Any], skip: int = 0) -> FactoryParameters | None:
    """The keywords ``factory`` accepts; ``None`` when it has no readable signature.

    A policy class with a settings dataclass (``config_class``, a
    :class:`~textmem_gym.core.policy.PolicyConfig`: the LLM policies) accepts each of its fields, with
    the field's type (see :func:`~textmem_gym.core.policy.config_fields`), and the keywords its
    signature names (``config``, ``client``); its ``**fields`` go to the dataclass, so it is not
    open-ended. Any other factory is read from its signature alone: a ``**kwargs`` makes it open-ended.

    Args:
        factory: A class or any callable.
        skip: Leading positional parameters given otherwise (the argument of ``prefix:argument``).

    Example:
        >>> from policies.simple import RandomPolicy
        >>> factory_parameters(RandomPolicy)
        FactoryParameters(annotations={'seed': int | None, 'config': policies.simple.RandomConfig | None},
                          open_ended=False)
        >>> from policies.ariadne import AriadnePolicy
        >>> parameters = factory_parameters(AriadnePolicy)
        >>> list(parameters.annotations)[:3], parameters.annotations["timeout"], parameters.open_ended
        (['top_k', 'extractor', 'similarity'], <class 'float'>, False)
    """
    try:
        signature = inspect.signature(factory)
    except (TypeError, ValueError):  # no signature to read (some built-in callables)
        return None
    settings = policy_config_class(factory)
    annotations = {} if settings is None else {field.name: field.type for field in config_fields(settings)}
    defaults = {} if settings is None else {field.name: field.default for field in config_fields(settings)}
    for old, new in ({} if settings is None else settings.renamed).items():  # old names still taken
        annotations[old], defaults[old] = annotations[new], defaults[new]
    params = list(signature.parameters.values())[skip:]
    function = factory.__init__ if isinstance(factory, type) else factory  # type: ignore[misc]
    namespace = getattr(inspect.unwrap(function), "__globals__", {})
    for p in params:
        if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY):
            annotations.setdefault(p.name, _evaluate(p.annotation, namespace))
            if p.default is not p.empty:
                defaults.setdefault(p.name, p.default)
    open_ended = settings is None and any(p.kind is p.VAR_KEYWORD for p in params)
    return FactoryParameters(annotations, open_ended, defaults)


def _evaluate(annotation: Any, namespace: dict[str, Any]) -> Any:
    """An annotation, evaluated when it is text that can be (``from __future__ import annotations``)."""
    if annotation is inspect.Parameter.empty:
        return Any
    if not isinstance(annotation, str):
        return annotation
    try:
        return eval(annotation, dict(namespace))  # as typing.get_type_hints does
    except Exception:  # a name imported only for type checkers: keep the text
        return annotation


def accepts_argument(name: str, argument: str) -> bool:
    """Whether the factory of policy ``name`` takes the keyword ``argument`` (a signature keyword, a
    settings field, or any keyword of an open ``**kwargs``: see :func:`factory_parameters`); True when
    its signature cannot be read.

    Raises:
        ValueError: Unknown name.

    Example:
        >>> accepts_argument("react", "strict"), accepts_argument("random", "strict")
        (True, False)
    """
    parameters = policy_parameters(name)
    return parameters is None or parameters.accepts(argument)


def _factory(name: str) -> tuple[Callable[..., Any], tuple[str, ...]]:
    """The factory of ``name`` and the positional arguments it gets (the argument of ``prefix:argument``)."""
    if name in POLICIES:
        return load_object(POLICIES[name]), ()
    plugins = plugin_policies()
    if name in plugins:
        return load_object(plugins[name].target), ()
    prefix, sep, argument = name.partition(":")
    prefixes = {**plugin_prefixes(), **PREFIXED_POLICIES} if sep else {}
    if prefix in prefixes:
        return load_object(prefixes[prefix]), (argument,)
    if sep and prefix and argument:
        return _importable(name, plugins), ()
    raise unknown_name("policy", name, _known(plugins))


def _importable(spec: str, plugins: dict[str, PolicyEntry]) -> Callable[..., Any]:
    """The object ``"module:attr"`` names; ValueError if there is no such module or attribute.

    Errors raised while importing a module that exists (its own bugs, its missing dependencies)
    propagate unchanged: they are not unknown names.
    """
    module_name, _, attr = spec.partition(":")
    if not module_exists(module_name):
        raise unknown_name("policy", spec, _known(plugins), detail=f"no module {module_name!r}")
    try:
        return load_object(spec)
    except AttributeError:
        if module_name not in sys.modules:  # the import itself failed: a bug in that module
            raise
        raise ValueError(f"unknown policy {spec!r}: module {module_name!r} has no attribute {attr!r}") from None


def _known(plugins: dict[str, PolicyEntry]) -> list[str]:
    prefixes = {**PREFIXED_POLICIES, **plugin_prefixes()}
    return sorted(POLICIES) + sorted(plugins) + [f"{p}:..." for p in sorted(prefixes)] + ["package.module:Factory"]


def _check_arguments(name: str, factory: Callable[..., Any], args: tuple[str, ...],
                     kwargs: dict[str, Any]) -> FactoryParameters | None:
    """ValueError naming the arguments ``factory`` does not accept (instead of its TypeError, or a
    TypeError later, where an LLM policy's client is first built); returns its parameters."""
    parameters = factory_parameters(factory, skip=len(args))
    if parameters is None:  # no signature to read: let the call decide
        return None
    accepted = list(parameters.annotations)
    unknown = [key for key in kwargs if not parameters.accepts(key)]
    if unknown:
        listed = ", ".join(repr(key) for key in unknown)
        raise ValueError(f"policy {name!r} does not accept {listed}; it accepts: {accepted}")
    try:
        inspect.signature(factory).bind(*args, **kwargs)
    except TypeError as error:
        raise ValueError(f"policy {name!r}: {error}; it accepts: {accepted}") from None
    return parameters
