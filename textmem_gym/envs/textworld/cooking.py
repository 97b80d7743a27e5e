"""TextWorld's cooking games (``tw-make tw-cooking``), the papers' cooking suites.

The build function mirrors what ``tw-make tw-cooking`` does (same settings dictionary, same game
options), so with the fixed generation hash seed it produces the very games of the AriGraph
reference repository for the same ``--seed``.
"""

from __future__ import annotations

from pathlib import Path

from textmem_gym.envs.textworld.generation import GameGenerator

#: The appliance rules the papers gave their LLM agents, shown with the first observation.
APPLIANCE_RULES = (
    "Rules of the kitchen: grill food only with the BBQ, fry food only with the stove, "
    "and roast food only with the oven."
)

_DEFAULT_SETTINGS = {
    "recipe": 1, "take": 0, "go": 1, "open": False, "cook": False, "cut": False,
    "drop": False, "recipe_seed": 0, "split": None,
}


def build_cooking_game(output: Path, seed: int, split: str | None, **settings: object) -> None:
    """Builds and compiles one cooking game (runs in the generating process).

    Args:
        output: Where to write the ``.z8`` file.
        seed: tw-make's ``--seed``.
        split: ``train``/``valid``/``test`` food distribution, or ``None`` for the joint one.
        **settings: tw-cooking settings: ``recipe``, ``take``, ``go``, ``open``, ``cook``,
            ``cut``, ``drop``, ``recipe_seed``.
    """
    import textworld
    import textworld.challenges

    unknown = set(settings) - set(_DEFAULT_SETTINGS)
    if unknown:
        raise ValueError(f"unknown tw-cooking settings {sorted(unknown)}")
    options = textworld.GameOptions()
    options.seeds = seed
    options.path = str(output)
    options.file_ext = ".z8"
    options.force_recompile = True
    make_game = textworld.challenges.CHALLENGES["tw-cooking"][1]
    game = make_game(settings={**_DEFAULT_SETTINGS, **settings, "split": split}, options=options)
    textworld.generator.compile_game(game, options)


#: The generator, declared as ``tw-cooking`` in the entry-point group ``textmem_gym.game_generators``
#: (the library's ``setup.cfg``), as another package declares its own.
COOKING = GameGenerator(
    build="textmem_gym.envs.textworld.cooking:build_cooking_game",
    splits=("train", "valid", "test"),
    notes=APPLIANCE_RULES,
)
