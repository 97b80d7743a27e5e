"""Registers every ``TextMem/*`` id (run at ``import textmem_gym``).

One env class serves many ids: each id is a string entry point plus ``kwargs``. Each backend keeps
its table in ``envs/<backend>/ids.py`` (no env code imported); this module imports the tables,
merges them into :data:`ENV_IDS` and registers them with Gymnasium. ``textmem-gym list``, the README
and the generic tests read from :data:`ENV_IDS`.
"""

from __future__ import annotations

import gymnasium as gym

from textmem_gym.envs.entry import EnvEntry
from textmem_gym.envs.jericho import ids as jericho_ids
from textmem_gym.envs.nethack import ids as nethack_ids
from textmem_gym.envs.scienceworld import ids as scienceworld_ids
from textmem_gym.envs.textworld import ids as textworld_ids
from textmem_gym.envs.twx import ids as twx_ids

#: Every id -> its entry, in table order (TextWorld, Jericho, ScienceWorld, NetHack, TextWorld Express).
ENV_IDS: dict[str, EnvEntry] = {
    **textworld_ids.ENV_TABLE,
    **jericho_ids.ENV_TABLE,
    **scienceworld_ids.ENV_TABLE,
    **nethack_ids.ENV_TABLE,
    **twx_ids.ENV_TABLE,
}


def register_all() -> None:
    """Registers every id of :data:`ENV_IDS` with Gymnasium (idempotent)."""
    for env_id, entry in ENV_IDS.items():
        if env_id not in gym.registry:
            gym.register(env_id, entry_point=entry.entry_point, kwargs=dict(entry.kwargs),
                         max_episode_steps=entry.max_episode_steps)


register_all()
