"""Registers every env id of every installed env backend (run at ``import textmem_gym``).

One env class serves many ids: each id is a string entry point plus ``kwargs``
(:class:`~textmem_gym.envs.entry.EnvEntry`). An env backend is a table of such entries, id -> entry,
that imports no env code; packages declare their backends' tables in the entry-point group
``textmem_gym.env_backends`` (name -> ``"module:TABLE"``). The library declares its own
(``textworld``, ``jericho``, ``scienceworld``, ``nethack``, ``twx``: ``envs/<backend>/ids.py``) in its
``setup.cfg`` exactly like a third party's, so this module names no backend. It merges the tables
into :data:`ENV_IDS` and registers them with Gymnasium; ``textmem-gym list``, the docs and the
generic tests read :data:`ENV_IDS`. ``docs/guides/new-backend.md`` shows how to add a backend.

Example:
    >>> ENV_IDS["TextMem/Cooking-v0"].entry_point
    'textmem_gym.envs.textworld.env:TextWorldEnv'
    >>> register_table({"TextMem/Cooking-v0": ENV_IDS["TextMem/Cooking-v0"]})  # already registered: nothing added
    []
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping

import gymnasium as gym

from textmem_gym.envs.entry import EnvEntry
from textmem_gym.loading import declared_names, load_object

#: Entry-point group through which packages (the library included) add env backends: each entry
#: names a backend's id table (``"module:ENV_TABLE"``, a mapping of id -> :class:`EnvEntry`).
ENTRY_POINT_GROUP = "textmem_gym.env_backends"

#: Every registered id -> its entry: the library's backends first (by backend name), then other
#: packages' (see :func:`register_all`).
ENV_IDS: dict[str, EnvEntry] = {}


def register_table(table: Mapping[str, EnvEntry]) -> list[str]:
    """Registers the ids of one backend's table with Gymnasium and :data:`ENV_IDS`.

    An id already registered is left as it is (a different entry under the same id is skipped with
    a warning), so registering twice does nothing.

    Args:
        table: id -> :class:`EnvEntry`, as a backend's ``ids.py`` holds it.

    Returns:
        The ids added.
    """
    added = []
    for env_id, entry in table.items():
        if env_id in ENV_IDS or env_id in gym.registry:
            if ENV_IDS.get(env_id, entry) != entry:
                warnings.warn(f"env id {env_id!r} is registered already; its second entry is ignored", stacklevel=2)
            continue
        gym.register(env_id, entry_point=entry.entry_point, kwargs=dict(entry.kwargs),
                     max_episode_steps=entry.max_episode_steps)
        ENV_IDS[env_id] = entry
        added.append(env_id)
    return added


def register_all() -> list[str]:
    """Registers the table of every env backend declared in ``textmem_gym.env_backends`` (idempotent:
    a backend installed since the last call adds its ids, the others add nothing).

    A third party's table that cannot be imported is skipped with a warning (``import textmem_gym``
    still works); the library's own raise.

    Returns:
        The ids added by this call.
    """
    added = []
    for name, backend in declared_names("env backend", ENTRY_POINT_GROUP).items():
        try:
            table = load_object(backend.target)
        except (ImportError, AttributeError) as error:
            if backend.built_in:
                raise
            warnings.warn(f"env backend {name!r} from package {backend.package} is not registered: {error}",
                          stacklevel=2)
            continue
        added += register_table(table)
    return added


register_all()
