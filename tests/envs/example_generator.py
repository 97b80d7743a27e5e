"""A TextWorld game generator from another package: the Study, two rooms and one thing to take.

Its package declares it as any package adds a generator, in the entry-point group
``textmem_gym.game_generators`` (``study = tests.envs.example_generator:STUDY``;
``tests/core/test_extension_kinds.py`` installs it), and ``gym.make("TextMem/TextWorld-v0",
generator="study", game_seed=N)`` plays its games: the library is not edited. ``build_study`` runs in
the generating process, which imports it as the caller would (the caller's ``sys.path``).

Example:
    >>> STUDY.build, STUDY.notes
    ('tests.envs.example_generator:build_study', 'Nothing here is locked.')
    >>> [thing_of(seed) for seed in range(3)]
    ['quill', 'lamp', 'lamp']
"""

from __future__ import annotations

import random
from pathlib import Path

from textmem_gym.envs.textworld.game_building import compile_game, finish_game, new_maker, win_quest
from textmem_gym.envs.textworld.generation import GameGenerator

#: The things one of which lies in the study (drawn from the game seed).
THINGS = ("lamp", "quill", "ledger")


def thing_of(seed: int) -> str:
    """The thing that lies in the study of game ``seed``."""
    return random.Random(seed).choice(THINGS)


def build_study(output: Path, seed: int, split: str | None) -> None:
    """Builds and compiles one Study game: the hall, the study north of it, the thing to take (1 point).

    Args:
        output: Where to write the ``.z8`` file (TextWorld's ``.json`` beside it).
        seed: The game seed (which thing lies in the study).
        split: Unused (no splits).
    """
    maker = new_maker(seed)
    hall, study = maker.new_room("hall"), maker.new_room("study")
    maker.connect(hall.north, study.south)
    maker.set_player(hall)
    thing = maker.new(type="o", name=thing_of(seed))
    study.add(thing)
    maker.quests = [win_quest([maker.new_fact("in", thing, maker.inventory)], reward=1)]
    compile_game(finish_game(maker, f"Take the {thing_of(seed)} from the study.",
                             ["go north", f"take {thing_of(seed)}"]), output)


#: The generator its package declares.
STUDY = GameGenerator(build="tests.envs.example_generator:build_study", notes="Nothing here is locked.")
