"""Registers every ``TextMem/*`` id (run at ``import textmem_gym``).

One env class serves many ids: each id is a string entry point plus ``kwargs``. The table
:data:`ENV_IDS` holds each id's one-line description and what the papers report about it, so
``textmem-gym list``, the README and the generic tests read from one place.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import gymnasium as gym

from textmem_gym.envs import cooking  # noqa: F401  (registers the tw-cooking generator)

TEXTWORLD_ENTRY = "textmem_gym.envs.textworld_env:TextWorldEnv"


@dataclass(frozen=True)
class EnvEntry:
    """One registered id.

    Attributes:
        entry_point: ``"module:Class"`` of the env.
        kwargs: Constructor arguments of this variant.
        max_episode_steps: Step limit (``truncated`` after it).
        description: One line for ``textmem-gym list`` and the README.
        expected_max_score: The maximum score the paper reports, when it does.
        needs: Constructor arguments the user must supply (e.g. ``game_file``).
        walkthrough_known_failure: Why the privileged walkthrough of this id does not win
            (an engine quirk), or ``None`` when it wins; the generic tests expect exactly this.
    """

    entry_point: str
    kwargs: dict[str, Any]
    max_episode_steps: int
    description: str
    expected_max_score: float | None = None
    needs: tuple[str, ...] = field(default_factory=tuple)
    walkthrough_known_failure: str | None = None


ENV_IDS: dict[str, EnvEntry] = {}


def generated_entry(generator: str, seed: int, steps: int, description: str, max_score: float | None,
                    **options: Any) -> EnvEntry:
    """The entry of a TextWorld game made by ``generator`` (default game seed ``seed``) with ``options``."""
    kwargs = {"generator": generator, "generator_options": options, "default_game_seed": seed}
    return EnvEntry(TEXTWORLD_ENTRY, kwargs, steps, description, max_score)


def _cooking(seed: int, steps: int, description: str, max_score: float | None, **settings: Any) -> EnvEntry:
    return generated_entry("tw-cooking", seed, steps, description, max_score, **settings)


_COOK = {"cook": True, "cut": True}
_STMA = {"open": True, "cook": True, "cut": True}

ENV_IDS.update({
    "TextMem/Cooking-v0": _cooking(10318, 150, "AriGraph cooking: 3-ingredient recipe, 9 rooms, cook and cut", 11,
                                   recipe=3, take=3, go=9, **_COOK),
    "TextMem/Cooking-Hard-v0": _cooking(34954, 150, "AriGraph cooking hard: 4 ingredients, 12 rooms", 14,
                                        recipe=4, take=4, go=12, **_COOK),
    "TextMem/Cooking-Hardest-v0": _cooking(37162, 150, "AriGraph cooking hardest: 5 ingredients, 12 rooms, "
                                           "closed doors, limited inventory", 17,
                                           recipe=5, take=5, go=12, open=True, drop=True, **_COOK),
    "TextMem/CookingRL-L1-v0": _cooking(57137, 100, "AriGraph RL level 1: one ingredient to cut, one room", 4,
                                        recipe=1, take=1, go=1, cut=True),
    "TextMem/CookingRL-L2-v0": _cooking(15457, 100, "AriGraph RL level 2: one ingredient to cook and cut", 5,
                                        recipe=1, take=1, go=1, **_COOK),
    "TextMem/CookingRL-L3-v0": _cooking(51550, 100, "AriGraph RL level 3: one ingredient to find in 9 rooms", 3,
                                        recipe=1, take=1, go=9),
    "TextMem/CookingRL-L4-v0": _cooking(29172, 100, "AriGraph RL level 4: 3 ingredients, 6 rooms, cook and cut", 11,
                                        recipe=3, take=3, go=6, **_COOK),
    "TextMem/STMA-Cooking-L1-v0": _cooking(1001, 50, "STMA level 1: 1 ingredient, 6 rooms, open/cook/cut", None,
                                           recipe=1, take=0, go=6, **_STMA),
    "TextMem/STMA-Cooking-L2-v0": _cooking(1001, 50, "STMA level 2: 2 ingredients, 9 rooms", None,
                                           recipe=2, take=1, go=9, **_STMA),
    "TextMem/STMA-Cooking-L3-v0": _cooking(20002, 50, "STMA level 3: 3 ingredients, 9 rooms", None,
                                           recipe=3, take=2, go=9, **_STMA),
    "TextMem/STMA-Cooking-L4-v0": _cooking(303, 50, "STMA level 4: 4 ingredients, 12 rooms", None,
                                           recipe=4, take=3, go=12, **_STMA),
    "TextMem/TextWorld-v0": EnvEntry(TEXTWORLD_ENTRY, {}, 150, "any compiled TextWorld game (game_file=PATH)",
                                     needs=("game_file",)),
})


# Other backends add their tables here, one line each (tables live in their own modules and
# must not import their engine at module level):
# ENV_IDS.update(<module>.ENV_TABLE)
from textmem_gym.envs import cleaning, treasure_hunt  # noqa: E402
ENV_IDS.update(treasure_hunt.ENV_TABLE)
ENV_IDS.update(cleaning.ENV_TABLE)
from textmem_gym.envs import jericho_ids  # noqa: E402
ENV_IDS.update(jericho_ids.ENV_TABLE)
from textmem_gym.envs import scienceworld_ids  # noqa: E402
ENV_IDS.update(scienceworld_ids.ENV_TABLE)
from textmem_gym.envs import nethack_ids  # noqa: E402
ENV_IDS.update(nethack_ids.ENV_TABLE)


def register_all() -> None:
    """Registers every id of :data:`ENV_IDS` with Gymnasium (idempotent)."""
    for env_id, entry in ENV_IDS.items():
        if env_id not in gym.registry:
            gym.register(env_id, entry_point=entry.entry_point, kwargs=dict(entry.kwargs),
                         max_episode_steps=entry.max_episode_steps)


register_all()
