"""Belief accuracy of AriGraph's extractors on every backend, fed as ``MemoryGraphWrapper`` feeds them.

For each id (TextWorld, TWX, Jericho, ScienceWorld and NetHack), each game instance of
``--game-seeds`` and two kinds of episodes (the privileged walkthrough where the env gives one, and a
seeded random walk over the admissible commands), every extractor's memory runs through
``MemoryGraphWrapper(gym.make(id, privileged=True), memory="arigraph", extractor=...)``: the wrapper
hands the backend's text parser to the memory and scores the believed triples each step against the
privileged ground truth restricted to what the game's text showed, with the tracker the same parser
gives (:meth:`~textmem_gym.memory.extractors.base.TextParser.observed_truth`; TextWorld's
:class:`~textmem_gym.memory.ground_truth.ObservedTruth` when the backend reads as a text adventure).
``--bench`` also replays shipped memory-bench trajectories (``twx-cooking-long``...). Totals are
micro-averaged over steps, per backend and relation class (spatial, containment, state) and overall;
the JSON on stdout (and in ``--json``) holds them per extractor, backend and class, and per id (``ids``).

Jericho's truth is the object tree restricted to what the text showed
(:class:`~textmem_gym.memory.extractors.jericho.JerichoObservedTruth`), names aligned to the tree's short
ones; a thing the text put in or on a holder the whole tree lacks (no tree name ends with its head word:
Planetfall's ``upper shelf``) is scored at that holder's believed room, and the holder's own place counts
as unverifiable (the tree cannot check it); a thing at a room the text never titled (Pentari's ``topics``, the
tree's store of conversation topics) is not shown by both names printed in one text. The truth reads ``it`` in a
command as the game's parser does (the last command's one object); a line that is the tree's name of the
player's room is that room's title whatever its case (Goldilocks' ``In the enchanted forest``), and a room the tree
names otherwise is named by the one title printed as the player enters it (Trinity's ``Halfway Up``; an indented
line, Trinity's status line, is no title); on a thing never titled (a bed) the player is at its room; rooms the tree
keeps under a named object (Trinity's ``that``, Sherlock's ``rooms``) are rooms; a room the tree leaves without a
name (Theatre's Tight Stairway) is named by the one title printed there; and in an episode whose tree never places
the player (Party Foul and Snack Time: Inform 7 rooms Jericho reads no names for) every belief counts as
unverifiable, not as wrong.

Targets: rules precision >= 0.95 and recall >= 0.85 on every backend on ids and seeds the parsers were
not tuned on (TextWorld, whose parser is the reference: precision >= 0.98 and recall >= 0.95); oracle
should be 1.0. The ``llm`` extractor runs when an LLM is configured (``OPENAI_MODEL``,
``OPENAI_BASE_URL``...), on the first ``--llm-episodes`` episodes only.

Run (a few minutes with the defaults: each backend's default ids, their own instance; Jericho needs
``TEXTMEM_ROMS_DIR``, ScienceWorld and TWX Java). ``docs/results/benchmarks.md`` reports
``--game-seeds default,1,2`` (20 minutes on 2 busy cores, ScienceWorld half of it); ``--errors`` prints
the rules extractor's wrong triples step by step, ``--error-summary N`` each id's N wrong triples of each
kind held over the most steps (``--error-class containment`` keeps one class)::

    python benchmarks/belief_accuracy.py [--backends twx,nethack] [--ids TextMem/TWX-CoinCollector-v0]
        [--game-seeds default,1,2] [--random-steps 60] [--bench twx-cooking-long] [--json out.json]
        [--errors] [--error-summary 20 --error-class containment]

Example:
    >>> backend_of("TextMem/NetHack-RoomObs-v0")
    'nethack'
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
import zlib
from collections import Counter, defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, TextIO

import gymnasium as gym

import textmem_gym  # noqa: F401
from textmem_gym.envs.registration import ENV_IDS
from textmem_gym.loading import load_object
from textmem_gym.memory.belief_metrics import Counts
from textmem_gym.memory.ground_truth import RELATION_CLASSES, relation_class
from textmem_gym.memory.semantic import TripleKey
from textmem_gym.qa.bench.trajectories import load_trajectories
from textmem_gym.wrappers import MemoryGraphWrapper

CLASSES = (*RELATION_CLASSES, "overall")
#: The bars of the rules extractor: (precision, recall) per backend.
TARGETS: dict[str, tuple[float, float]] = {"textworld": (0.98, 0.95), "twx": (0.95, 0.85), "jericho": (0.95, 0.85),
                                           "scienceworld": (0.95, 0.85), "nethack": (0.95, 0.85)}
#: The ids each backend plays by default (a few minutes in all).
DEFAULT_IDS: dict[str, tuple[str, ...]] = {
    "textworld": ("TextMem/Cooking-v0", "TextMem/TreasureHunt-v0", "TextMem/Cleaning-v0"),
    "twx": ("TextMem/TWX-CookingWorld-v0", "TextMem/TWX-CoinCollector-v0", "TextMem/TWX-TextWorldCommonsense-v0",
            "TextMem/TWX-MapReader-v0"),
    "jericho": ("TextMem/Jericho-Zork1-v0", "TextMem/Jericho-Detective-v0"),
    "scienceworld": ("TextMem/ScienceWorld-Boil-v0",),
    "nethack": ("TextMem/NetHack-RoomObs-v0", "TextMem/NetHack-LevelObs-v0"),
}
#: Backends whose ids take ``game_seed`` (another instance); the others vary the random walk only.
SEEDED_GAMES = frozenset({"textworld", "twx", "scienceworld", "nethack"})


def backend_of(env_id: str) -> str:
    """The backend of a registered id: the package of its env under ``textmem_gym.envs``.

    Example:
        >>> backend_of("TextMem/TWX-CoinCollector-v0"), backend_of("TextMem/Cooking-v0")
        ('twx', 'textworld')
    """
    return ENV_IDS[env_id].entry_point.split(":")[0].split(".")[2]


@dataclass
class Episode:
    """One scored episode: its commands are fixed by the first extractor's run and replayed for the others."""

    env_id: str
    kwargs: dict[str, Any]
    kind: str  # walkthrough | random | bench
    seed: int
    steps: int
    commands: list[str] | None = None


@dataclass
class Totals:
    """Counts per extractor -> backend -> class, plus per id (for the progress lines)."""

    by_backend: dict[str, dict[str, dict[str, Counts]]] = field(
        default_factory=lambda: defaultdict(lambda: defaultdict(lambda: {c: Counts() for c in CLASSES})))
    by_id: dict[tuple[str, str], dict[str, Counts]] = field(
        default_factory=lambda: defaultdict(lambda: {c: Counts() for c in CLASSES}))
    episodes: int = 0
    steps: int = 0

    def add(self, extractor: str, env_id: str, counts: dict[str, Counts]) -> None:
        """Adds one episode's totals."""
        for cls in CLASSES:
            self.by_backend[extractor][backend_of(env_id)][cls] += counts[cls]
            self.by_id[(env_id, extractor)][cls] += counts[cls]

    def as_dict(self) -> dict[str, Any]:
        """``{extractor: {backend: {class: counts}}}`` with an ``all`` backend summed over backends."""
        out: dict[str, Any] = {}
        for extractor, backends in self.by_backend.items():
            every = {c: Counts() for c in CLASSES}
            for counts in backends.values():
                for cls in CLASSES:
                    every[cls] += counts[cls]
            out[extractor] = {b: {c: v.as_dict() for c, v in t.items()} for b, t in {**backends, "all": every}.items()}
        return out


    def ids_dict(self) -> dict[str, Any]:
        """``{id: {extractor: {class: counts}}}``: each game's own precision and recall per relation class
        (a game the parser was tuned on is told from one it was not)."""
        out: dict[str, Any] = defaultdict(dict)
        for (env_id, extractor), counts in self.by_id.items():
            out[env_id][extractor] = {c: v.as_dict() for c, v in counts.items()}
        return dict(out)


def commands(env: gym.Env, episode: Episode, info: dict[str, Any]) -> Iterator[str]:
    """The episode's commands: recorded ones, the walkthrough, or a seeded walk over the admissible commands
    (``info`` is read afresh each step: the caller keeps ``episode``'s ``info`` dict current)."""
    if episode.commands is not None:
        yield from episode.commands
        return
    if episode.kind == "walkthrough":
        yield from list(info["walkthrough"])
        return
    rng = random.Random(episode.seed)
    for _ in range(episode.steps):
        choices = sorted(str(c) for c in info["last"].get("admissible_commands") or ())
        if not choices:
            return
        yield rng.choice(choices)


#: Wrong triples counted over steps: ``(id, "FP" or "FN", triple) -> steps``.
ErrorTally = Counter[tuple[str, str, TripleKey]]


def play(episode: Episode, extractor: str, options: dict[str, Any], max_steps: int,
         errors: TextIO | None = None, tally: ErrorTally | None = None) -> tuple[dict[str, Counts], int]:
    """Runs ``episode`` through the wrapper with ``extractor``; returns its totals and steps (and records
    the commands into ``episode`` so that other extractors replay the same ones). With ``errors``, each
    step's false positives and negatives are written there; with ``tally``, counted there per step."""
    privileged: bool | str = True if episode.kind == "walkthrough" else "facts"  # a gold path can cost seconds
    env = MemoryGraphWrapper(gym.make(episode.env_id, privileged=privileged, max_episode_steps=max_steps,
                                      **episode.kwargs),
                             memory="arigraph", extractor=extractor, extractor_options=options, goto=False,
                             belief_metrics=True)
    try:
        _, first = env.reset(seed=0)
        state: dict[str, Any] = {"last": first, "walkthrough": first.get("walkthrough") or []}
        played: list[str] = []
        for action in commands(env, episode, state):
            played.append(action)
            _, _, terminated, truncated, state["last"] = env.step(action)
            wrong = env.belief_accuracy.last_errors
            if tally is not None:
                tally.update((episode.env_id, kind, t) for kind, key in (("FP", "false_positives"),
                                                                        ("FN", "false_negatives")) for t in wrong[key])
            if errors is not None and (wrong["false_positives"] or wrong["false_negatives"]):
                print(f"{episode.env_id} {episode.kind} step {len(played)} {action!r}: FP "
                      f"{sorted(wrong['false_positives'])} FN {sorted(wrong['false_negatives'])}", file=errors)
            if terminated or truncated:
                break
        episode.commands = played
        return dict(env.belief_accuracy.totals), env.belief_accuracy.steps
    finally:
        env.close()


def llm_extractors(limit: int) -> dict[str, dict[str, Any]]:
    """The ``llm`` extractor's options when an LLM is configured, else nothing."""
    if not os.environ.get("OPENAI_MODEL") or limit <= 0:
        return {}
    from textmem_gym.llm import LLMClient

    return {"llm": {"client": LLMClient(cache="readwrite")}}


def episodes(ids: Sequence[str], game_seeds: Sequence[str], random_steps: int, bench: Sequence[str],
             kinds: Sequence[str] = ("walkthrough", "random")) -> list[Episode]:
    """The episodes to score: walkthrough and random walk (those of ``kinds``) per id and game seed, then the
    bench trajectories."""
    out = []
    for env_id in ids:
        seeded = backend_of(env_id) in SEEDED_GAMES
        for seed_text in game_seeds:
            kwargs = {} if seed_text == "default" or not seeded else {"game_seed": int(seed_text)}
            walk_seed = zlib.crc32(f"{env_id}/{seed_text}".encode())
            if "walkthrough" in kinds and "walkthrough" in _privileged_keys(env_id) and \
                    (seeded or seed_text == game_seeds[0]):
                out.append(Episode(env_id, kwargs, "walkthrough", walk_seed, random_steps))
            if "random" in kinds:
                out.append(Episode(env_id, kwargs, "random", walk_seed, random_steps))
    for trajectory in load_trajectories(list(bench)) if bench else []:
        kwargs = {k: v for k, v in trajectory.env_kwargs.items() if k != "max_episode_steps"}
        out.append(Episode(trajectory.env_id, kwargs, "bench", trajectory.seed, len(trajectory.commands),
                           list(trajectory.commands)))
    return out


def _privileged_keys(env_id: str) -> frozenset[str]:
    """The privileged keys the id's env class offers (NetHack has no walkthrough)."""
    return frozenset(load_object(ENV_IDS[env_id].entry_point).supported_privileged)


def fmt(c: Counts) -> str:
    """``precision/recall``."""
    return f"{c.precision:6.4f}/{c.recall:6.4f}"


def print_table(totals: Totals, out: TextIO) -> None:
    """Precision/recall per extractor, backend and class, and whether the rules bar is met."""
    print(f"{totals.episodes} episodes, {totals.steps} scored steps (rules)", file=out)
    print(f"{'extractor':10s}{'backend':14s}" + "".join(f"{c + ' P/R':>18s}" for c in CLASSES) + "  bar", file=out)
    for extractor, backends in totals.by_backend.items():
        for backend, counts in sorted(backends.items()):
            bar = TARGETS[backend]
            met = counts["overall"].precision >= bar[0] and counts["overall"].recall >= bar[1]
            cells = "".join(f"{fmt(counts[c]):>18s}" for c in CLASSES)
            verdict = ("met" if met else "MISSED") if extractor == "rules" else ""
            print(f"{extractor:10s}{backend:14s}{cells}  {verdict}", file=out)


def print_error_summary(tally: ErrorTally, top: int, cls: str, out: TextIO) -> None:
    """Per id, the ``top`` false positives and negatives (of relation class ``cls``, or all when empty)
    held over the most steps.

    Example:
        >>> tally = Counter({("Z", "FP", ("sword", "is at", "hall")): 3, ("Z", "FN", ("hall", "has exit", "north")): 1})
        >>> print_error_summary(tally, 5, "containment", sys.stdout)
        Z
          FP   3 steps  ('sword', 'is at', 'hall')
    """
    for env_id in sorted({key[0] for key in tally}):
        rows = sorted(((n, kind, t) for (i, kind, t), n in tally.items()
                       if i == env_id and (not cls or relation_class(t) == cls)), key=lambda r: (r[1], -r[0], r[2]))
        if not rows:
            continue
        print(env_id, file=out)
        for kind in ("FP", "FN"):
            for n, _, triple in [r for r in rows if r[1] == kind][:top]:
                print(f"  {kind} {n:>3d} steps  {triple}", file=out)


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """The command line (see the module docstring)."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--backends", default=",".join(DEFAULT_IDS),
                        help="backends whose default ids are played ('' for none)")
    parser.add_argument("--ids", default="", help="ids to play instead of the backends' defaults")
    parser.add_argument("--game-seeds", default="default",
                        help="'default' = the id's own instance (docs/results: default,1,2)")
    parser.add_argument("--random-steps", type=int, default=60)
    parser.add_argument("--kinds", default="walkthrough,random", help="episode kinds per id: walkthrough, random")
    parser.add_argument("--max-steps", type=int, default=10_000, help="step limit of every episode")
    parser.add_argument("--bench", default="", help="shipped memory-bench trajectories to replay too")
    parser.add_argument("--extractors", default="rules,oracle")
    parser.add_argument("--llm-episodes", type=int, default=4)
    parser.add_argument("--json", help="write the totals here")
    parser.add_argument("--errors", action="store_true", help="print the rules extractor's wrong triples per step")
    parser.add_argument("--error-summary", type=int, default=0,
                        help="print each id's N rules wrong triples of each kind held over the most steps")
    parser.add_argument("--error-class", default="", help="the summary's relation class (default: all)")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    """Runs the benchmark, prints progress (stderr) and the JSON totals (stdout); returns them."""
    args = parse_args(argv)
    ids = [i for i in args.ids.split(",") if i] or [i for b in args.backends.split(",") if b for i in DEFAULT_IDS[b]]
    totals, llm, tally = Totals(), llm_extractors(args.llm_episodes), ErrorTally()
    llm_left, start = args.llm_episodes, time.time()
    bench = [name for name in args.bench.split(",") if name]
    kinds = [kind for kind in args.kinds.split(",") if kind]
    for episode in episodes(ids, args.game_seeds.split(","), args.random_steps, bench, kinds):
        extractors: dict[str, dict[str, Any]] = {name: {} for name in args.extractors.split(",")}
        if llm and llm_left > 0:
            extractors.update(llm)
            llm_left -= 1
        for name, options in extractors.items():
            errors = sys.stderr if args.errors and name == "rules" else None
            counts, steps = play(episode, name, options, args.max_steps, errors,
                                 tally if args.error_summary and name == "rules" else None)
            totals.add(name, episode.env_id, counts)
            totals.steps += steps if name == "rules" else 0
        totals.episodes += 1
        rules = totals.by_id[(episode.env_id, "rules")]["overall"]
        print(f"{episode.env_id:40s} {episode.kind:11s} {len(episode.commands or ()):4d} steps  "
              f"rules P/R so far {fmt(rules)}", file=sys.stderr, flush=True)
    result = {"episodes": totals.episodes, "steps": totals.steps, "seconds": round(time.time() - start, 1),
              "targets": {b: {"precision": p, "recall": r} for b, (p, r) in TARGETS.items()},
              "extractors": totals.as_dict(), "ids": totals.ids_dict()}
    print_table(totals, sys.stderr)
    if args.error_summary:
        print_error_summary(tally, args.error_summary, args.error_class, sys.stderr)
    print(json.dumps(result, indent=1))
    if args.json:
        with open(args.json, "w") as handle:
            json.dump(result, handle, indent=1)
    return result


if __name__ == "__main__":
    main()
