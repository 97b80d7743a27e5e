"""The TextWorld ids: the papers' cooking suites, AriGraph's Treasure Hunt and Cleaning games, and
``TextMem/TextWorld-v0`` for any compiled game. This module imports no env code: generators are
named by their registry name (see :mod:`textmem_gym.envs.textworld.generation`).
"""

from __future__ import annotations

from typing import Any

from textmem_gym.envs.entry import EnvEntry

TEXTWORLD_ENTRY = "textmem_gym.envs.textworld.env:TextWorldEnv"
PUBLISHED_ENTRY = "textmem_gym.envs.textworld.published_env:PublishedGameEnv"


def generated_entry(generator: str, seed: int, steps: int, description: str, max_score: float | None,
                    **options: Any) -> EnvEntry:
    """The entry of a TextWorld game made by ``generator`` (default game seed ``seed``) with ``options``."""
    kwargs = {"generator": generator, "generator_options": options, "default_game_seed": seed}
    return EnvEntry(TEXTWORLD_ENTRY, kwargs, steps, description, max_score)


def _cooking(seed: int, steps: int, description: str, max_score: float | None, **settings: Any) -> EnvEntry:
    return generated_entry("tw-cooking", seed, steps, description, max_score, **settings)


_COOK = {"cook": True, "cut": True}
_STMA = {"open": True, "cook": True, "cut": True}

ENV_TABLE: dict[str, EnvEntry] = {
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
}


def _hunt(difficulty: str, description: str, keys: int) -> EnvEntry:
    return generated_entry("treasure-hunt", 0, 150, description, keys + 1, difficulty=difficulty)


ENV_TABLE.update({
    "TextMem/TreasureHunt-v0": _hunt(
        "normal", "AriGraph treasure hunt: 12 rooms, 4 keys, read the notes to find the golden locker", 4),
    "TextMem/TreasureHunt-Hard-v0": _hunt(
        "hard", "AriGraph treasure hunt hard: 16 rooms, 5 keys, the second key far away behind a detour", 5),
    "TextMem/TreasureHunt-Hardest-v0": _hunt(
        "hardest", "AriGraph treasure hunt hardest: 36 rooms, 7 keys, distractor items in every room", 7),
    # 11 misplaced items: +1 for picking each up, +1 for putting it where it belongs.
    "TextMem/Cleaning-v0": generated_entry(
        "cleaning", 0, 150, "AriGraph cleaning: 9 rooms of a house, put 11 misplaced items back where they belong "
        "(common sense)", 22),
})


#: Why the privileged walkthrough of a hand-made published game is empty.
_NO_WALKTHROUGH = ("AriGraph's published file records no walkthrough and TextWorld plans none from its quests "
                   "(info['walkthrough'] is empty)")


def _published(game: str, steps: int, description: str, walkthrough_known_failure: str | None = None) -> EnvEntry:
    """AriGraph's published game file ``game`` (found, or downloaded and checked, when the id is
    made) with the paper's task text."""
    return EnvEntry(PUBLISHED_ENTRY, {"published_game": game}, steps,
                    f"{description}: AriGraph's own game file (found in TEXTMEM_ARIGRAPH_GAMES_DIR or the cache, "
                    "else downloaded and sha256-checked) with the task text the paper gave its agents",
                    walkthrough_known_failure=walkthrough_known_failure)


# The paper's own instances (Figure 3 / Table 4): 60 steps for cooking, 150 otherwise. Not its
# Cleaning file: it keeps no score (the paper scored it from the world facts).
ENV_TABLE.update({
    "TextMem/AriGraph-TreasureHunt-v0": _published("hunt", 150, "AriGraph treasure hunt", _NO_WALKTHROUGH),
    "TextMem/AriGraph-TreasureHunt-Hard-v0": _published("hunt_hard", 150, "AriGraph treasure hunt hard",
                                                        _NO_WALKTHROUGH),
    "TextMem/AriGraph-Cooking-v0": _published("cook", 60, "AriGraph cooking"),
    "TextMem/AriGraph-Cooking-Hard-v0": _published("cook_hard", 60, "AriGraph cooking hard"),
    "TextMem/AriGraph-Cooking-Hardest-v0": _published("cook_hardest", 60, "AriGraph cooking hardest"),
})
