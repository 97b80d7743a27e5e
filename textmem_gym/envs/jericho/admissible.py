"""Admissible commands of a Jericho game, without spaCy, cached by world state.

Jericho's own ``get_valid_actions`` extracts object names with spaCy (whose model is not
available offline). This module builds the same kind of list from the game's own data:

1. **Names in scope**: the objects below the player's location in the Z-machine object
   tree (the inventory included) and the dictionary nouns of the room description (a
   simulated ``look``). Each name is tried with a simulated ``examine``; names the parser
   does not recognize are dropped, and names with the same description are kept once
   (at most :data:`MAX_NAMES`, tree objects first).
2. **Candidates**: Jericho's action templates for the game (``FrotzEnv.act_gen``, from its
   bindings) filled with those names; two-object templates only with pairs whose acting
   object is carried (see :func:`fill_templates`).
3. **Filter**: each candidate is simulated from the current state (Jericho's C loop, which
   saves and restores the machine state) and kept if it changes the world (object tree, tracked RAM,
   score or game end); candidates with the same effect are kept once.
4. ``look`` and ``inventory`` are always admissible.

:class:`AdmissibleCommands` caches lists by world-state hash, so a state seen before (after
``look``, a failed command, or a loop) costs a lookup and a check. The hash covers the object
tree and the RAM Jericho tracks, not every variable: a game can keep state elsewhere (Zork I's
combat strengths, the random generator in a fight). So a cached list is only reused after its
commands, simulated again, still change the world, each in a different way, and a sample of
the candidates that changed nothing still change nothing (about 2% of a recomputation);
otherwise it is recomputed. That catches a stale list whose commands stopped acting or now act
alike, or where a timer now makes every command change the world; not every change.
``admissible_cache_size=0`` on the env recomputes on every read.
"""

from __future__ import annotations

import ctypes
import re
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, TypeVar

import numpy as np

from textmem_gym.envs.jericho.world import halted, snapshot

#: Commands listed in every state (they never change the world, so the filter cannot find them).
ALWAYS_ADMISSIBLE: tuple[str, ...] = ("look", "inventory")

#: Templates for games Jericho has no bindings for (any ``rom_path``).
FALLBACK_TEMPLATES: tuple[str, ...] = (
    "north", "south", "east", "west", "northeast", "northwest", "southeast", "southwest", "up", "down",
    "enter", "exit", "take all", "take OBJ", "drop OBJ", "open OBJ", "close OBJ", "push OBJ", "pull OBJ",
    "turn on OBJ", "turn off OBJ", "eat OBJ", "wear OBJ", "read OBJ", "unlock OBJ with OBJ",
    "put OBJ in OBJ", "put OBJ on OBJ", "give OBJ to OBJ",
)

#: Dictionary "nouns" that name no object: pronouns, articles, directions, quantifiers.
NOT_OBJECT_NAMES: frozenset[str] = frozenset(
    "a an the it its them they him her his hers this that these those you your yours me my myself yourself "
    "i we us our all everything everyone anything something each both other others of in on at to from out "
    "into onto up down over under here there north south east west northeast northwest southeast southwest "
    "n s e w ne nw se sw u d time score exits again".split())

#: Most names filled into templates (objects of the tree first, then nouns of the room text).
MAX_NAMES = 12

_WORD = re.compile(r"[a-z][a-z'-]*")
_DIFF_SIZE = 128  # words of world diff the C filter writes per kept candidate
_WITH_SECOND = re.compile(r"\b(with|using) OBJ$")
_T = TypeVar("_T")


@dataclass(frozen=True)
class Vocabulary:
    """The words a game's parser knows (as stored: cut to ``max_word_length``)."""

    words: frozenset[str]
    nouns: frozenset[str]
    max_word_length: int

    @classmethod
    def from_frotz(cls, frotz: Any) -> Vocabulary:
        """Reads the dictionary of a ``jericho.FrotzEnv``'s game."""
        entries = frotz.get_dictionary()
        words = frozenset(entry.word for entry in entries)
        nouns = frozenset(entry.word for entry in entries if entry.is_noun)
        return cls(words, nouns, max((len(word) for word in words), default=6))

    def knows(self, word: str) -> bool:
        """Whether the parser recognizes ``word``."""
        return word[: self.max_word_length] in self.words

    def is_noun(self, word: str) -> bool:
        """Whether ``word`` is a noun of the game's dictionary."""
        return word[: self.max_word_length] in self.nouns


def tree_names(frotz: Any, vocabulary: Vocabulary) -> dict[str, bool]:
    """One parser word per object below the player's location -> whether the player holds it."""
    objects = frotz.get_world_objects()
    player = frotz.get_player_object()
    names: dict[str, bool] = {}
    stack = [objects[player.parent].child] if player is not None and 0 < player.parent < len(objects) else []
    seen: set[int] = set()
    while stack:
        number = stack.pop()
        if number <= 0 or number >= len(objects) or number in seen:
            continue
        seen.add(number)
        obj = objects[number]
        stack.extend((obj.sibling, obj.child))
        words = [w for w in _WORD.findall(obj.name.lower()) if w not in NOT_OBJECT_NAMES and vocabulary.knows(w)]
        nouns = [w for w in words if vocabulary.is_noun(w)]
        if number != frotz.player_obj_num and (nouns or words):
            name = (nouns or words)[-1]
            names[name] = names.get(name, False) or obj.parent == frotz.player_obj_num
    return names


def text_names(text: str, vocabulary: Vocabulary) -> list[str]:
    """The dictionary nouns of ``text``, in order of appearance, once each."""
    words = _WORD.findall(text.lower())
    return list(dict.fromkeys(w for w in words if w not in NOT_OBJECT_NAMES and vocabulary.is_noun(w)))


def _simulate(frotz: Any, state: Any, command: str) -> str:
    frotz.set_state(state)
    return frotz.step(command)[0]


@dataclass(frozen=True)
class Scope:
    """Names of the things in scope (tree objects first), and which of them the player holds."""

    names: tuple[str, ...]
    held: frozenset[str]


def scope_of(frotz: Any, vocabulary: Vocabulary, max_names: int = MAX_NAMES) -> Scope:
    """The things in scope, one name per distinct ``examine`` answer (see module doc)."""
    # Import from the submodule: the ``jericho`` package's ``util`` attribute is shadowed by
    # ``ctypes.util`` (star import) once anything has imported ``ctypes.util``.
    from jericho.util import clean, recognized

    state = snapshot(frotz)
    from_tree = tree_names(frotz, vocabulary)
    names = list(dict.fromkeys([*from_tree, *text_names(_simulate(frotz, state, "look"), vocabulary)]))
    by_answer: dict[str, str] = {}
    for name in names:
        answer = clean(_simulate(frotz, state, f"examine {name}"))
        if recognized(answer) and answer not in by_answer:
            by_answer[answer] = name
    frotz.set_state(state)
    kept = tuple(by_answer.values())[:max_names]
    return Scope(kept, frozenset(name for name in kept if from_tree.get(name)))


def templates_of(frotz: Any) -> list[str]:
    """Jericho's action templates for the game, or :data:`FALLBACK_TEMPLATES`."""
    return list(frotz.act_gen.templates) if frotz.act_gen is not None else list(FALLBACK_TEMPLATES)


def fill_templates(templates: Sequence[str], names: Sequence[str],
                   held: frozenset[str] | None = None) -> list[str]:
    """Every template (once) with its ``OBJ`` holes filled by distinct names.

    With ``held`` given, two-object templates only get pairs whose acting object is held:
    the second one in ``... with OBJ`` templates (``unlock door with key``), else the first
    (``put egg in nest``, ``give coin to troll``). Commands moving something not held mostly
    repeat a one-object command's effect (``take egg from nest`` does what ``take egg`` does).

    Example:
        >>> fill_templates(["look", "take OBJ", "put OBJ in OBJ"], ["egg", "nest"])
        ['look', 'take egg', 'take nest', 'put egg in nest', 'put nest in egg']
        >>> fill_templates(["put OBJ in OBJ", "unlock OBJ with OBJ"], ["egg", "key", "door"],
        ...                held=frozenset({"egg", "key"}))[:3]
        ['put egg in key', 'put egg in door', 'put key in egg']
        >>> fill_templates(["unlock OBJ with OBJ"], ["key", "door"], held=frozenset({"key"}))
        ['unlock door with key']
    """
    commands: list[str] = []
    for template in dict.fromkeys(templates):
        holes = template.count("OBJ")
        if holes == 0:
            commands.append(template)
        elif holes == 1:
            commands.extend(template.replace("OBJ", name) for name in names)
        elif holes == 2:
            acting = 1 if _WITH_SECOND.search(template) else 0
            commands.extend(template.replace("OBJ", a, 1).replace("OBJ", b, 1) for a in names for b in names
                            if a != b and (held is None or (a, b)[acting] in held))
    return commands


@lru_cache(maxsize=4096)
def verb_popularity(verb: str, max_word_length: int | None) -> int:
    """How often players used ``verb`` (Jericho's ClubFloyd counts), to pick among synonyms."""
    from jericho.util import verb_usage_count

    return verb_usage_count(verb, max_word_length)


def changes_by_effect(frotz: Any, candidates: Sequence[str]) -> dict[tuple[int, ...], list[str]]:
    """Simulates every candidate from the current state (Jericho's C loop) and groups those that
    change the world by their change; the state is restored.

    Unlike ``FrotzEnv._filter_candidate_actions``, the state is saved with
    :func:`~textmem_gym.envs.jericho.world.snapshot`: ``FrotzEnv.get_state`` lets the C side
    write a stack twice the size of its buffer.
    """
    if not candidates or halted(frotz):
        return {}
    state = snapshot(frotz)
    joined = ";".join(candidates).encode("utf-8")
    valid = ctypes.create_string_buffer(len(joined) + 1)
    diffs = np.zeros(len(candidates) * _DIFF_SIZE, dtype=np.uint16)
    try:
        count = frotz.frotz_lib.filter_candidate_actions(joined, ctypes.cast(valid, ctypes.c_char_p),
                                                         diffs.ctypes.data)
        if halted(frotz):
            frotz.reset()
    finally:
        frotz.set_state(state)
    kept = valid.value.decode("cp1252").split(";")[:count]
    groups: dict[tuple[int, ...], list[str]] = {}
    for index, command in enumerate(kept):
        groups.setdefault(tuple(diffs[index * _DIFF_SIZE:(index + 1) * _DIFF_SIZE].tolist()), []).append(command)
    return groups


def effects_of(frotz: Any, commands: Sequence[str]) -> dict[str, tuple[int, ...]]:
    """The world change of each of ``commands`` that changes the world (see :func:`changes_by_effect`)."""
    return {command: effect for effect, group in changes_by_effect(frotz, commands).items() for command in group}


def _representatives(frotz: Any, groups: Mapping[tuple[int, ...], list[str]]) -> dict[str, tuple[int, ...]]:
    """One command per group of :func:`changes_by_effect` (the one with the most used verb) -> its change."""
    max_len = frotz.bindings.get("max_word_length") if frotz.bindings else None
    return {max(group, key=lambda command: verb_popularity(command.split()[0], max_len)): effect
            for effect, group in groups.items()}


#: Commands that changed nothing, kept with a cached list to check that they still do not.
QUIET_PROBES = 32


@dataclass(frozen=True)
class Admissible:
    """The admissible commands of one state, the world change each listed command makes, and a
    sample of the candidates that changed nothing (see :data:`QUIET_PROBES`)."""

    commands: tuple[str, ...]
    effects: Mapping[str, tuple[int, ...]]
    quiet: tuple[str, ...]

    def probes(self) -> list[str]:
        """The commands to simulate again to check this list in a state with the same hash."""
        return [*self.effects, *self.quiet]

    def still_holds(self, effects: Mapping[str, tuple[int, ...]]) -> bool:
        """Whether the probes' new ``effects`` (:func:`effects_of`) agree with this list: every
        listed command still changes the world, each in a different way, and no quiet one does.

        Effects are not compared: they can differ in what the world-state hash leaves out (the
        "visited" marks of rooms) while the list stays the same.
        """
        return effects.keys() == self.effects.keys() and len(set(effects.values())) == len(effects)


def admissible_of(frotz: Any, vocabulary: Vocabulary) -> Admissible:
    """The admissible commands of the frotz env's current state with their effects (no cache).

    The caller handles ended games: Jericho's ``victory()`` and ``game_over()`` read the text of
    the last command run, which is a simulated one once this function has run.
    """
    scope = scope_of(frotz, vocabulary)
    candidates = fill_templates(templates_of(frotz), scope.names, scope.held)
    groups = changes_by_effect(frotz, candidates)
    changing = {command for group in groups.values() for command in group}
    quiet = [command for command in candidates if command not in changing]
    effects = _representatives(frotz, groups)
    return Admissible(tuple(sorted(set(effects) | set(ALWAYS_ADMISSIBLE))), effects,
                      tuple(quiet[::max(1, len(quiet) // QUIET_PROBES)][:QUIET_PROBES]))


class AdmissibleCommands:
    """Admissible commands of one ``jericho.FrotzEnv``, cached by world-state hash.

    A cached list is checked before reuse (see the module doc): ``stale`` counts the lists
    found stale and recomputed.

    Args:
        frotz: The ``jericho.FrotzEnv`` to simulate commands in (its state is restored).
        capacity: Most states kept (least recently used ones are dropped).

    Example:
        >>> import os, jericho
        >>> frotz = jericho.FrotzEnv(os.path.join(os.environ["TEXTMEM_ROMS_DIR"], "zork1.z5"))
        >>> _ = frotz.reset()
        >>> actions = AdmissibleCommands(frotz)
        >>> "open mailbox" in actions.commands(frotz.get_world_state_hash())
        True
        >>> _ = frotz.step("look")  # the world is as it was: the cached list is checked and reused
        >>> "open mailbox" in actions.commands(frotz.get_world_state_hash())
        True
        >>> actions.misses, actions.hits, actions.stale
        (1, 1, 0)
    """

    def __init__(self, frotz: Any, capacity: int = 4096):
        self.frotz = frotz
        self.vocabulary = Vocabulary.from_frotz(frotz)
        self.capacity = capacity
        self._cache: OrderedDict[str, Admissible] = OrderedDict()
        self.hits = 0
        self.misses = 0
        self.stale = 0

    def cached(self, state_hash: str, state: Any = None) -> list[str] | None:
        """The cached list for ``state_hash`` (a copy) if it is still valid in ``state`` (default: now), or ``None``."""
        entry = self._cache.get(state_hash)
        if entry is None:
            return None
        if not entry.still_holds(self._in_state(state, effects_of, entry.probes())):
            self.stale += 1
            del self._cache[state_hash]
            return None
        self.hits += 1
        self._cache.move_to_end(state_hash)
        return list(entry.commands)

    def evaluate(self, state: Any = None) -> Admissible:
        """Computes the commands and their effects for ``state`` (a
        :func:`~textmem_gym.envs.jericho.world.snapshot`; default: now)."""
        self.misses += 1
        return self._in_state(state, admissible_of, self.vocabulary)

    def compute(self, state: Any = None) -> list[str]:
        """Computes the list for ``state`` (a :func:`~textmem_gym.envs.jericho.world.snapshot`; default: now)."""
        return list(self.evaluate(state).commands)

    def commands(self, state_hash: str, state: Any = None) -> list[str]:
        """The list for the state ``state_hash`` (whose snapshot is ``state``), cached."""
        commands = self.cached(state_hash, state)
        if commands is not None:
            return commands
        result = self.evaluate(state)
        self.store(state_hash, result)
        return list(result.commands)

    def store(self, state_hash: str, result: Admissible) -> None:
        """Caches ``result`` for ``state_hash``."""
        if self.capacity <= 0:
            return
        self._cache[state_hash] = result
        self._cache.move_to_end(state_hash)
        while len(self._cache) > self.capacity:
            self._cache.popitem(last=False)

    def forget(self, state_hash: str) -> None:
        """Drops the list cached for ``state_hash``, if any."""
        self._cache.pop(state_hash, None)

    def _in_state(self, state: Any, function: Callable[[Any, Any], _T], argument: Any) -> _T:
        if state is None:
            return function(self.frotz, argument)
        current = snapshot(self.frotz)
        try:
            self.frotz.set_state(state)
            return function(self.frotz, argument)
        finally:
            self.frotz.set_state(current)
