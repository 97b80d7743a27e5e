"""The ``TextMem/Jericho-*`` ids: one per game of the Jericho game suite, plus ``Jericho-v0``.

Each id is ``TextMem/Jericho-<Name>-v0`` with ``<Name>`` the capitalized ROM file stem
(``zork1.z5`` -> ``TextMem/Jericho-Zork1-v0``). ``TextMem/Jericho-v0`` plays any Z-machine
file (``rom_path=PATH``). This module does not import Jericho.

Step limit: :data:`STEP_LIMIT` (1000) moves, raised where Jericho's walkthrough is longer
(:data:`LONG_WALKTHROUGHS`) so that every walkthrough fits.
"""

from __future__ import annotations

from textmem_gym.envs.entry import EnvEntry

JERICHO_ENTRY = "textmem_gym.envs.jericho.env:JerichoEnv"

#: Default ``max_episode_steps`` of the Jericho ids.
STEP_LIMIT = 1000
#: Games whose walkthrough exceeds :data:`STEP_LIMIT` minus a margin: their limit.
LONG_WALKTHROUGHS: dict[str, int] = {"spirit": 1400}  # walkthrough: 1264 moves

#: Game -> (title, maximum score per Jericho; 0 where Jericho does not know the game).
GAMES: dict[str, tuple[str, int]] = {
    "905": ("9:05", 1), "acorncourt": ("The Acorn Court", 30), "advent": ("Adventure (Colossal Cave)", 350),
    "adventureland": ("Adventureland", 100), "afflicted": ("Afflicted", 75), "anchor": ("Anchorhead", 100),
    "awaken": ("The Awakening", 50), "balances": ("Balances", 51), "ballyhoo": ("Ballyhoo", 200),
    "curses": ("Curses", 550), "cutthroat": ("Cutthroats", 250), "deephome": ("Deephome", 300),
    "detective": ("Detective", 360), "dragon": ("Dragon Adventure", 25), "enchanter": ("Enchanter", 400),
    "enter": ("The Enterprise Incidents", 20), "gold": ("Goldilocks is a FOX!", 100),
    "hhgg": ("The Hitchhiker's Guide to the Galaxy", 400), "hollywood": ("Hollywood Hijinx", 150),
    "huntdark": ("Hunter, in Darkness", 1), "infidel": ("Infidel", 400), "inhumane": ("Inhumane", 90),
    "jewel": ("Jewel of Knowledge", 90), "karn": ("Return to Karn", 170),
    "lgop": ("Leather Goddesses of Phobos", 0), "library": ("All Quiet on the Library Front", 30),
    "loose": ("Mother Loose", 50), "lostpig": ("Lost Pig", 7), "ludicorp": ("The Ludicorp Mystery", 150),
    "lurking": ("The Lurking Horror", 100), "moonlit": ("Moonlit Tower", 1), "murdac": ("Murdac", 250),
    "night": ("A Night at the Computer Center", 10), "omniquest": ("Omniquest", 50),
    "partyfoul": ("Party Foul", 1), "pentari": ("Pentari", 70), "planetfall": ("Planetfall", 80),
    "plundered": ("Plundered Hearts", 25), "reverb": ("Reverberations", 50), "seastalker": ("Seastalker", 100),
    "sherlock": ("Sherlock: The Riddle of the Crown Jewels", 100), "snacktime": ("Snack Time!", 50),
    "sorcerer": ("Sorcerer", 400), "spellbrkr": ("Spellbreaker", 600), "spirit": ("Spiritwrak", 250),
    "temple": ("The Temple", 35), "theatre": ("Theatre", 50), "trinity": ("Trinity", 100),
    "tryst205": ("Tryst of Fate", 350), "weapon": ("The Weapon", 1), "wishbringer": ("Wishbringer", 100),
    "yomomma": ("Raising the Flag on Mount Yo Momma", 35), "zenon": ("Escape from the Starship Zenon", 20),
    "zork1": ("Zork I: The Great Underground Empire", 350), "zork2": ("Zork II: The Wizard of Frobozz", 400),
    "zork3": ("Zork III: The Dungeon Master", 7), "ztuu": ("Zork: The Undiscovered Underground", 100),
}


def env_id(game: str) -> str:
    """The id of a suite game: ``"zork1"`` -> ``"TextMem/Jericho-Zork1-v0"``."""
    return f"TextMem/Jericho-{game.capitalize()}-v0"


#: Ids whose privileged walkthrough (after ``reset(seed=0)``) does not win, and why.
WALKTHROUGH_DOES_NOT_WIN: dict[str, str] = {
    env_id("lgop"): "Jericho 3.3.1 has no bindings for this ROM (no walkthrough, score or templates)",
}

#: Ids whose walkthrough wins with less than the maximum score (``normalized_score < 1``).
WALKTHROUGH_BELOW_MAX_SCORE: dict[str, str] = {
    env_id(game): f"Jericho's walkthrough wins with {score} of {maximum} points"
    for game, score, maximum in [("anchor", 99, 100), ("balances", 50, 51), ("curses", 450, 550),
                                 ("lostpig", 6, 7), ("murdac", 249, 250), ("theatre", 47, 50),
                                 ("yomomma", 34, 35)]
}


def _entry(game: str | None, title: str, max_score: int) -> EnvEntry:
    if game is None:
        return EnvEntry(JERICHO_ENTRY, {}, STEP_LIMIT, "any Z-machine game file (rom_path=PATH)",
                        needs=("rom_path",))
    known = WALKTHROUGH_DOES_NOT_WIN.get(env_id(game)) or WALKTHROUGH_BELOW_MAX_SCORE.get(env_id(game))
    return EnvEntry(JERICHO_ENTRY, {"game": game}, LONG_WALKTHROUGHS.get(game, STEP_LIMIT),
                    f"Jericho: {title} ({game})", max_score or None, walkthrough_known_failure=known)


#: Every Jericho id -> its registration entry.
ENV_TABLE: dict[str, EnvEntry] = {
    **{env_id(game): _entry(game, title, score) for game, (title, score) in GAMES.items()},
    "TextMem/Jericho-v0": _entry(None, "", 0),
}
