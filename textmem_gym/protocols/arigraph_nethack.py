"""AriGraph's NetHack experiment (Table 1).

Three GPT-4o agents, 3 runs each: NetPlay with *Room obs* (the text of the hero's current room
or corridor) and with *Level obs* (the whole explored level: NetPlay's own observation, a memory
oracle), and Ariadne with Room obs (AriGraph's memory of the level stands in for the hidden
map). The table reports NetHack's in-game score and the dungeon levels reached, mean ± std over
the runs (the sample std: 3 runs with 3, 3 and 5 levels give 3.67 ± 1.15). Each run draws its
dungeon from its reset seed (runs 0, 1, 2). The paper states no step limit; a run here ends at
death or after the ids' 1000 agent decisions, a skill (``explore``, ``descend``...) counting as
one decision. Ariadne was run on Room obs only (its Level obs cell has no paper number).
Beside score and depth, each row gives BALROG's progression metric (percent; the paper has no
such number: :mod:`textmem_gym.envs.nethack.progression`).
"""

from __future__ import annotations

from textmem_gym.envs.nethack.ids import STEP_LIMIT
from textmem_gym.protocols.base import Cell, Metric, Protocol

PROTOCOL = Protocol(
    name="arigraph-nethack",
    title="AriGraph (Anokhin et al., 2024), Table 1: NetHack, Room obs vs Level obs, 3 runs per agent",
    cells=(
        Cell("Room obs", "TextMem/NetHack-RoomObs-v0", STEP_LIMIT,
             note="text of the current room or corridor only; dungeon drawn from each run's reset seed"),
        Cell("Level obs", "TextMem/NetHack-LevelObs-v0", STEP_LIMIT,
             note="text of the whole explored level; dungeon drawn from each run's reset seed"),
    ),
    attempts=3,
    step_accounting=f"the paper states no step limit; a run ends at death or after {STEP_LIMIT} agent decisions "
                    "(a skill such as 'explore' or 'descend' counts one, however many keys it presses)",
    own_row="Ariadne",
    baseline_rows=("NetPlay",),
    policy_rows={"ariadne": "Ariadne", "netplay": "NetPlay"},
    metrics=(Metric("score", "score", "score", "std"),
             Metric("max_dungeon_level", "deepest level", "max_dungeon_level", "max_dungeon_level_std"),
             Metric("balrog_progression", "BALROG progression %", "balrog_progression")),
    sample_std=True,
)
