"""The ``TextMem/NetHack-*`` ids: AriGraph's two NetHack observation settings (Table 1).

- ``TextMem/NetHack-RoomObs-v0``: text of the hero's current room or corridor only.
- ``TextMem/NetHack-LevelObs-v0``: text of the whole explored level (NetPlay's observation).

Step limit :data:`STEP_LIMIT`: one step is one command (a move, ``far east`` runs); NetPlay-style
agents descend several levels, which takes hundreds of commands, so 500 would stop most episodes
on the first levels. This module does not import NLE.
"""

from __future__ import annotations

from textmem_gym.envs.entry import EnvEntry

NETHACK_ENTRY = "textmem_gym.envs.nethack.env:NetHackEnv"

#: ``max_episode_steps`` of the NetHack ids.
STEP_LIMIT = 1000

ENV_TABLE: dict[str, EnvEntry] = {
    "TextMem/NetHack-RoomObs-v0": EnvEntry(
        NETHACK_ENTRY, {"scope": "room"}, STEP_LIMIT,
        "AriGraph NetHack, Room obs: text of the current room or corridor only (no max score)"),
    "TextMem/NetHack-LevelObs-v0": EnvEntry(
        NETHACK_ENTRY, {"scope": "level"}, STEP_LIMIT,
        "AriGraph NetHack, Level obs: text of the whole explored level (no max score)"),
}
