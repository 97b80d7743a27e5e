"""A non-LLM explorer on top of MemoryGraphWrapper: the default agent of ``make run``.

Each step it takes the first rule that yields a command (see ``ExplorerPolicy.RULES``): read
notes, recipes and cookbooks; carry out directions it read (recipe steps, with the tools the
kitchen rules name; prepare and eat the meal once every ingredient is in hand); take the things
named in what it read or in the goal; unlock and open containers and doors; with memory, ``go to``
the rooms of needed tools and ingredients and of places a note names; try other untried harmless
commands; walk through unexplored exits; when the goal is to put things back, carry items whose
names fit another known place there (:mod:`policies.explorer_commonsense`); finally wander. The heuristic critic
(:mod:`policies.critic`) vetoes repeats and blocked directions, the loop guard breaks loops.
With ``memory=False`` the same agent runs without MemoryGraphWrapper (the ablation): no map, no
``go to``, and what it reads is not recalled after that step.

Example:
    >>> import textmem_gym
    >>> from textmem_gym.runner import EvalConfig, evaluate
    >>> result = evaluate("TextMem/CookingRL-L1-v0", ExplorerPolicy(), EvalConfig(max_steps=10))[0]
    >>> result["score"] > 0
    True
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar

import gymnasium as gym

from policies.critic import HeuristicCritic, LoopGuard, direction_of, room_from
from policies.explorer_commonsense import HomeIndex
from policies.explorer_embeddings import installed as embeddings_installed
from policies.instructions import Directions
from policies.shared_settings import MACRO_COUNTS_AS_ONE_STEP
from textmem_gym.core.info import admissible, observation_text, step_info
from textmem_gym.core.policy import RECORDED_UNLESS_DEFAULT, UNRECORDED, ConfiguredPolicy, Info, PolicyConfig
from textmem_gym.memory.graph_memory import GraphMemory
from textmem_gym.wrappers.memory_graph import ensure_memory_wrapper, find_memory_wrapper

READABLE = ("note", "recipe", "cookbook", "book", "letter", "scroll", "paper", "sign", "manual", "diary",
            "journal", "map", "leaflet", "message", "card")
#: Verbs never tried blindly: they can lose a game (cooking), undo progress or waste steps.
RISKY_VERBS = ("eat", "drink", "cook", "slice", "dice", "chop", "drop", "close", "lock", "examine", "look",
               "inventory", "put", "insert", "go", "prepare", "kill", "attack", "burn", "break", "quit", "restart")
_WORD = re.compile(r"[a-z]+")
#: Words too common in goals and notes to name a thing worth taking.
GENERIC_WORDS = frozenset({"game", "item", "items", "thing", "things", "place", "point", "points", "score", "time",
                           "room", "rooms", "first", "each", "every", "right", "back", "find", "take", "put", "the",
                           "and", "you", "your", "when", "where", "with", "that", "this", "already", "won", "win"})
#: "the key 4 unlocks black locker", "the brass key opens the lavender locker": (key, lock).
_KEY_FOR = re.compile(r"(?:the\s+)?([a-z0-9 ]*?\bkey(?: \d+)?)\b(?: you found in [a-z0-9 ]+?)?\s+(?:unlocks|opens)"
                      r"\s+(?:the\s+)?([a-z0-9 ]+?)(?=[.,;]|$)")
#: Shorter texts read are not remembered as instructions.
MIN_READ_CHARS = 20
#: Rules carrying out read directions: exempt from the critic's no-repeat veto.
PURPOSEFUL = frozenset({"follow", "drop_unneeded", "make_room", "go_to_tool", "go_to_needed"})


def verb(command: str) -> str:
    """The first word of a command."""
    words = command.split()
    return words[0].lower() if words else ""


def is_reading(command: str) -> bool:
    """``read X`` / ``examine X`` of something readable (note, recipe, cookbook...)."""
    return verb(command) in ("read", "examine") and any(w in command.lower().split() for w in READABLE)


def move_direction(command: str) -> str | None:
    """The compass direction of a movement command, TextWorld Express's ``move north`` included."""
    words = command.lower().split()
    if len(words) == 2 and words[0] == "move":
        return direction_of(words[1])
    return direction_of(command)


def take_object(command: str) -> str | None:
    """The object of ``take X [from Y]``, else ``None``."""
    match = re.match(r"^(?:take|get|pick up)\s+(.+?)(?:\s+from\s+.+)?$", command.strip().lower())
    return match.group(1) if match else None


@dataclass(frozen=True, kw_only=True)
class ExplorerConfig(PolicyConfig):
    """Settings of :class:`ExplorerPolicy`: each recorded in results rows when it is not its default
    (``seed`` never: the runner re-seeds the policy per episode)."""

    macro_counts_as_one_step: bool = MACRO_COUNTS_AS_ONE_STEP.field(False, metadata=RECORDED_UNLESS_DEFAULT)
    embeddings: bool = field(default=True, metadata=RECORDED_UNLESS_DEFAULT)
    """Tidy with sentence embeddings as the second source of where things belong
    (:mod:`policies.explorer_embeddings`; the ``embeddings`` extra). ``False`` when the model is not
    installed (it warns once): the settings say what it plays with."""
    memory: bool = field(default=True, metadata=RECORDED_UNLESS_DEFAULT)
    """Use MemoryGraphWrapper (map, unexplored exits, ``go to``, and recall of what was read from its
    episodic memory); ``False`` is the ablation: no wrapper, so no map, no ``go to``, and a note or
    recipe counts only on the step it is read."""
    memory_options: dict[str, Any] | None = field(default=None, metadata=RECORDED_UNLESS_DEFAULT)
    """Arguments of the MemoryGraphWrapper it adds (``memory``, ``extractor``...)."""
    seed: int | None = field(default=0, metadata=UNRECORDED)
    """Seed of the tie-breaking randomness until the runner re-seeds it per episode."""

    def __post_init__(self) -> None:
        super().__post_init__()
        object.__setattr__(self, "embeddings", self.embeddings and embeddings_installed())

    def wrapper_options(self) -> dict[str, Any]:
        """The MemoryGraphWrapper's arguments: ``memory_options`` and the macro accounting.

        Example:
            >>> ExplorerConfig(memory_options={"memory": "stma"}, macro_counts_as_one_step=True).wrapper_options()
            {'memory': 'stma', 'macro_counts_as_one_step': True}
        """
        macro = {"macro_counts_as_one_step": True} if self.macro_counts_as_one_step else {}
        return {**(self.memory_options or {}), **macro}


@dataclass(frozen=True, kw_only=True)
class ExplorerWithoutMemoryConfig(ExplorerConfig):
    """Settings of ``explorer-nomemory``: the explorer's with ``memory`` off, which its name records."""

    unrecorded: ClassVar[frozenset[str]] = frozenset({"memory"})
    memory: bool = field(default=False, init=False)
    """Off: no MemoryGraphWrapper (the policy's name says so)."""


class ExplorerPolicy(ConfiguredPolicy):
    """no LLM: explores with MemoryGraphWrapper (go to unexplored exits, read, take, open), critic vetoes repeats

    Memory-driven exploration without an LLM.

    Args:
        config: Its settings (default: :class:`ExplorerConfig`'s).
        **fields: Settings to change (fields of :class:`ExplorerConfig`: ``memory``, ``seed``,
            ``memory_options``, ``macro_counts_as_one_step``, ``embeddings``).

    Example:
        >>> ExplorerPolicy(memory=False).name
        'explorer'
        >>> ExplorerPolicy(macro_counts_as_one_step=True).policy_config()["macro_counts_as_one_step"]
        True
    """

    name: ClassVar[str] = "explorer"
    config_class: ClassVar[type[ExplorerConfig]] = ExplorerConfig
    config: ExplorerConfig

    def __init__(self, config: ExplorerConfig | None = None, **fields: Any) -> None:
        super().__init__(config, **fields)
        self._rng = random.Random(self.config.seed)
        self.critic, self.guard = HeuristicCritic(), LoopGuard()
        self._memory: GraphMemory | None = None
        self.reset("", step_info({}))

    def wrap_env(self, env: gym.Env) -> gym.Env:
        """Adds the MemoryGraphWrapper (only when ``memory`` is on)."""
        if not self.config.memory:
            return env
        env = ensure_memory_wrapper(env, **self.config.wrapper_options())
        memory = find_memory_wrapper(env).memory  # type: ignore[union-attr]
        # it reads a graph memory's triples, map and episodic vertices; with another memory (a user's
        # wrapper) it reads the game only, as without memory, and follows the wrapper's go-to macros if any
        self._memory = memory if isinstance(memory, GraphMemory) else None
        return env

    def seed(self, seed: int | None) -> None:
        self._rng = random.Random(seed)

    def reset(self, observation: Any, info: Info) -> None:
        self.critic.reset()
        self.guard.reset()
        self.room: str | None = None
        self.done: set[str] = set()
        self.goal_words = set(_WORD.findall(str(info.get("objective", "")).lower())) - GENERIC_WORDS
        self.read_words: set[str] = set(self.goal_words)
        self.last_read, self.last_text, self._seen_episodes = "", observation_text(observation).lower(), 0
        self.rewarded_items: set[str] = set()
        self.placing_goal = bool(set(_WORD.findall(str(info.get("objective", "")).lower())) & {"put", "place"})
        self.mentioned: list[str] = []
        self.directions, self.rules_text = Directions(), str(info.get("objective", ""))
        self.held: set[str] = set()
        self.read_room: str | None = None
        self.trips: set[str] = set()
        self.place_rooms: dict[str, set[str]] = {}
        self.tidying: str | None = None
        self.placed: set[str] = set()
        self.tidied: set[str] = set()
        self.tidy_trips: set[tuple[str, str]] = set()
        self.return_to: dict[str, str] = {}
        self.taken_from: dict[str, str] = {}
        self.key_for: dict[str, str] = {}
        self._read_keys(self.rules_text)
        self.rule_counts: dict[str, int] = {}
        self.visited: set[str] = set()
        self._observe_room(observation, info)

    def _observe_room(self, observation: Any, info: Info) -> None:
        view = info if self.config.memory else step_info({})
        self.room = room_from(observation_text(observation), view, self.room)
        if self.room:
            self.visited.add(self.room)

    # -- rules ---------------------------------------------------------------------------
    def _fresh(self, commands: list[str]) -> list[str]:
        return [c for c in commands if c.lower() not in self.done and self.critic.score(c, self.room, commands) > 0]

    def _read(self, commands: list[str], info: Info) -> str | None:
        return next((c for c in self._fresh(commands) if is_reading(c)), None)

    def _follow(self, commands: list[str], info: Info) -> str | None:
        """Carries out a direction read earlier (a recipe step) when a command does it."""
        return self.directions.command_for(commands, ready=self.directions.named <= self.held)

    def _take_useful(self, command: str) -> bool:
        item = take_object(command)
        return item not in self.held and (item != "knife" or self.directions.needs_knife(self.held))

    def _drop_unneeded(self, commands: list[str], info: Info) -> str | None:
        """Once directions are known, drops held things they do not name (inventory space)."""
        needed = self.directions.named | ({"knife"} if self.directions.needs_knife(self.held) else set())
        if not self.directions.active:
            return None
        return next((c for c in commands if verb(c) == "drop" and c[5:].lower() not in needed
                     and c[5:].lower() in self.held), None)

    def _make_room(self, commands: list[str], info: Info) -> str | None:
        """The knife is here but cannot be taken (hands full): drop a thing whose directions are done."""
        if "knife" in self.held or not self.directions.needs_knife(self.held):
            return None
        if not any("knife" in c for c in commands) or any(take_object(c) == "knife" for c in commands):
            return None
        finished = sorted(self.held - self.directions.things())
        return next((f"drop {t}" for t in finished if f"drop {t}" in commands), None)

    def _locate(self, entity: str, hops: int = 3) -> str | None:
        """The room where the memory believes ``entity`` is (through the furniture holding it)."""
        if self._memory is None or hops == 0:
            return None
        rooms = set(self._memory.known_locations())
        for s, _, o in self._memory.believed_triples():
            if s == entity and o != "inventory":
                return o if o in rooms else self._locate(o, hops - 1)
        return None

    def _go_to_needed(self, commands: list[str], info: Info) -> str | None:
        """With memory: ``go to`` the room of a thing the directions need and not held yet, or
        back to where they were read for the finale (``prepare meal``)."""
        ready = self.directions.named <= self.held
        if self.directions.active and not self.directions.pending and self.read_room and ready:
            target = f"go to {self.read_room}"
            return target if target in commands else None
        for thing in sorted(self.directions.named - self.held):
            room = self._locate(thing)
            if room and room != self.room and f"go to {room}" in commands:
                return f"go to {room}"
        return None

    def _go_to_tool(self, commands: list[str], info: Info) -> str | None:
        """With memory: ``go to`` the room of the tool a pending direction needs for a held item."""
        needs = [tool for thing, tool in self.directions.tools_needed() if thing in self.held]
        if "knife" not in self.held and self.directions.needs_knife(self.held):
            needs.append("knife")
        for tool in needs:
            room = self._locate(tool)
            if room and room != self.room and f"go to {room}" in commands and tool not in self.trips:
                self.trips.add(tool)  # one trip per tool until the next reward
                return f"go to {room}"
        return None

    def _take(self, commands: list[str], info: Info) -> str | None:
        needed = self.directions.named
        if self.directions.active:  # following read directions: take only what they name (and a knife)
            useful = [c for c in commands if take_object(c) in needed | {"knife"} and self._take_useful(c)]
            useful.sort(key=lambda c: take_object(c) != "knife")
            return useful[0] if useful else None
        takes = [c for c in self._fresh(commands) if take_object(c) is not None]
        named = [c for c in takes if set(_WORD.findall(take_object(c) or "")) & self.read_words]
        return named[0] if named else None  # never blind: unnamed things may be in their place

    def _open(self, commands: list[str], info: Info) -> str | None:
        # doors are named by direction ("open door to east"), so only the room tells them apart
        doors = [c for c in commands if "door" in c.lower() and self.critic.score(c, self.room, commands) > 0]
        fresh = self._fresh(commands) + doors
        return next((c for c in fresh if verb(c) == "unlock"), None) or \
            next((c for c in fresh if verb(c) == "open"), None)

    def _put_rewarded(self, commands: list[str], info: Info) -> str | None:
        """Tries untried places here for an item that scored when taken (taking it back first)."""
        if not self.placing_goal:
            return None
        own = self.rewarded_items - self.tidied  # tidied items follow their own targets
        for item in sorted(own - self.held - self.placed):
            take = next((c for c in commands if take_object(c) == item), None)
            if take is not None:
                return take
        for command in self._fresh(commands):
            if verb(command) in ("put", "insert") and any(item in command.lower() for item in own):
                return command
        return None

    def _go_place(self, commands: list[str], info: Info) -> str | None:
        """With memory: carry a rewarded item to the known rooms where it was not tried yet."""
        if not self.placing_goal:
            return None
        for item in sorted((self.rewarded_items - self.tidied) & self.held):
            tried = self.place_rooms.setdefault(item, set())
            tried.add(self.room or "")
            for room in info.get("known_locations") or []:
                if room not in tried and f"go to {room}" in commands:
                    return f"go to {room}"
        return None

    def _go_unlock(self, commands: list[str], info: Info) -> str | None:
        """With memory: ``go to`` the room of a lock that a held key opens, by what was read ("the
        key 4 unlocks black locker") or by a shared name (golden key, golden locker)."""
        for key in sorted(k for k in self.held if "key" in k.split()):
            lock = self.key_for.get(key) or self._namesake_lock(key)
            if lock is None or any(c.lower().startswith(f"unlock {lock} with") for c in self.done):
                continue
            room = self._locate(lock)
            if room and room != self.room and f"go to {room}" in commands:
                return f"go to {room}"
        return None

    def _namesake_lock(self, key: str) -> str | None:
        """A known thing that shares the key's first word and is no key (golden key -> golden locker)."""
        if self._memory is None or len(key.split()) < 2:
            return None
        first = key.split()[0]
        names = {s for s, _, _ in self._memory.believed_triples()}
        return next((n for n in sorted(names) if n.split()[:1] == [first] and "key" not in n.split()), None)

    def _put_back(self, commands: list[str], info: Info) -> str | None:
        """When the goal is to put things back: an item whose pick-up cost a point was in its place,
        so it goes back where it was taken from."""
        for item, furniture in sorted(self.return_to.items()):
            if item not in self.held:
                continue
            puts = [c for c in commands if verb(c) in ("put", "insert") and item in c.lower()
                    and c.lower().endswith(" " + furniture)]
            if puts:
                return puts[0]
            room = self._locate(furniture)
            if room and room != self.room and f"go to {room}" in commands:
                return f"go to {room}"
        return None

    def _tidy(self, commands: list[str], info: Info) -> str | None:
        """With memory, when the goal is to put things back: carry an item whose name fits another
        known place there (:mod:`policies.explorer_commonsense`), trying each fitting place in turn."""
        if not self.placing_goal or self._memory is None:
            return None
        index = HomeIndex(self._memory.believed_triples(), self._memory.known_locations(),
                          embeddings=self.config.embeddings)
        if self.tidying is None or self.tidying in self.placed:
            candidates = [i for i in index.misplaced() if i not in self.tidied]
            if not candidates:
                return None
            # the things here first: no walk to fetch them
            candidates.sort(key=lambda i: index.room_of.get(index.place_of.get(i, "")) != self.room)
            self.tidying = candidates[0]
            self.tidied.add(self.tidying)
        item = self.tidying
        action = self._carry(item, index, commands) if item in self.held else self._fetch(item, index, commands)
        if action is None:
            self.tidying = None  # nothing more to try for it
        return action

    def _fetch(self, item: str, index: HomeIndex, commands: list[str]) -> str | None:
        take = next((c for c in commands if take_object(c) == item), None)
        room = index.room_of.get(index.place_of.get(item, ""))
        if take is not None or room is None:
            return take
        return f"go to {room}" if f"go to {room}" in commands else None

    def _carry(self, item: str, index: HomeIndex, commands: list[str]) -> str | None:
        """Puts ``item`` on a fitting place in this room (any of the fitting places here before a
        walk), else walks to the next fitting room; never back on the place its scoring pick-up
        took it from."""
        targets = [(room, f) for room, f in index.targets(item) if f != self.taken_from.get(item)]
        for room, furniture in targets:
            if room != self.room:
                continue
            puts = [c for c in self._fresh(commands) if verb(c) in ("put", "insert") and item in c.lower()
                    and (furniture is None or c.lower().endswith(furniture))]
            if puts:
                return puts[0]
        for room, _ in targets:
            if room != self.room and f"go to {room}" in commands and (item, room) not in self.tidy_trips:
                self.tidy_trips.add((item, room))
                return f"go to {room}"
        return None

    def _go_mentioned(self, commands: list[str], info: Info) -> str | None:
        """With memory: ``go to`` the known place named most recently in something read."""
        for place in reversed(self.mentioned):
            if f"go to {place}" in commands:
                return f"go to {place}"
        return None

    def _untried(self, commands: list[str], info: Info) -> str | None:
        safe = [c for c in self._fresh(commands) if verb(c) not in RISKY_VERBS and take_object(c) is None]
        return safe[0] if safe else None

    def _explore(self, commands: list[str], info: Info) -> str | None:
        moves = [c for c in commands if move_direction(c) is not None]
        if self.config.memory:
            here = set((info.get("unexplored_exits") or {}).get(self.room or "", []))
            local = [c for c in moves if move_direction(c) in here and self.critic.score(c, self.room, commands) > -1]
            if local:
                return local[0]
            targets = [r for r in (info.get("unexplored_exits") or {}) if r != self.room]
            gotos = [f"go to {r}" for r in targets if f"go to {r}" in commands]
            if gotos:
                return self._rng.choice(gotos)
            unvisited = [f"go to {r}" for r in info.get("known_locations") or [] if r not in self.visited]
            gotos = [c for c in unvisited if c in commands]  # a room seen through a door, never entered
            if gotos:
                return gotos[0]
        untried = [c for c in moves if self.critic.score(c, self.room, commands) > 0]
        return self._rng.choice(untried) if untried else None

    def _wander(self, commands: list[str], info: Info) -> str | None:
        goto = self.config.memory
        moves = [c for c in commands if move_direction(c) is not None or (goto and c.startswith("go to "))]
        open_moves = [c for c in moves if move_direction(c) not in self.critic.blocked[self.room]]
        return self._rng.choice(open_moves) if open_moves else None

    RULES: ClassVar[tuple[str, ...]] = ("read", "follow", "drop_unneeded", "make_room", "take", "go_to_tool", "open",
                                         "go_unlock", "put_back", "put_rewarded", "go_place", "go_mentioned",
                                         "go_to_needed", "untried", "explore", "tidy", "wander")

    def _rule(self, name: str) -> Callable[[list[str], Info], str | None]:
        return getattr(self, "_" + name)

    # -- Policy API ----------------------------------------------------------------------
    def act(self, observation: Any, info: Info) -> str:
        self._recall_reading(info)
        commands = admissible(info)
        if not self.config.memory:
            commands = [c for c in commands if not c.startswith("go to ")]
        action, rule = "look", "fallback"
        for name in self.RULES:
            proposal = self._rule(name)(commands, info)
            if proposal is not None:
                action, rule = proposal, name
                break
        substituted = False
        if rule not in PURPOSEFUL and not (rule == "take" and self.directions.active):
            # the critic vetoes blind repeats (not steps of read directions); it never substitutes a take
            safe = [c for c in commands if (verb(c) not in RISKY_VERBS and take_object(c) is None)
                    or c == action or move_direction(c)]
            action, _, substituted = self.critic.review(action, self.room, safe)
        action, forced = self.guard.check(action, self._alternatives(commands))
        rule = "guard" if forced else "critic" if substituted else rule
        self.rule_counts[rule] = self.rule_counts.get(rule, 0) + 1
        return action

    def _alternatives(self, commands: list[str]) -> list[str]:
        """What the loop guard may play instead of a looping command: an untried harmless command
        (else it plays ``look``, and the next decision is taken afresh)."""
        return [c for c in self._fresh(commands) if verb(c) not in RISKY_VERBS and take_object(c) is None
                and move_direction(c) is None and not c.startswith("go to ")]

    def observe(self, action: str, observation: Any, reward: float, terminated: bool, truncated: bool,
                info: Info) -> None:
        before = self.room
        self._observe_room(observation, info)
        if self.room in self.mentioned:
            self.mentioned.remove(self.room)
        self.critic.record(action, before, self.room, reward)
        self.guard.record(action, f"{self.room}|{observation_text(observation)}|{info.get('score')}")
        self.done.add(action.lower())
        text = observation_text(observation).lower()
        self.last_read, self.last_text = (text if is_reading(action) else ""), text
        if reward > 0:
            self.directions.done(action)
            self.trips.clear()
        self._track_inventory(action, text)
        item = take_object(action)
        source = re.match(r"^take .+? from (.+)$", action.strip().lower())
        if item is not None and reward > 0:
            self.rewarded_items.add(item)
            if source:
                self.taken_from[item] = source.group(1)
        if item is not None and reward < 0 and self.placing_goal and source:
            self.return_to[item] = source.group(1)
            self.tidied.add(item)
            self.placed.add(item)  # it was in its place: never carried elsewhere
        if verb(action) in ("put", "insert") and item is None:
            self.return_to = {i: f for i, f in self.return_to.items() if i not in action.lower()}
        if verb(action) in ("put", "insert") and reward > 0:
            self.placed |= {i for i in self.rewarded_items | self.tidied if i in action.lower()}

    def _recall_reading(self, info: Info) -> None:
        """Learns what was read: with memory, from AriGraph's new episodic vertices (so it is
        recalled for the rest of the episode); without, only from the observation of the step
        that read it, forgotten afterwards (nothing keeps it)."""
        if self.config.memory and self._memory is not None:
            every = self._memory.episodes()  # the memory's episodic vertices
            episodes = every[self._seen_episodes:]
            self._seen_episodes = len(every)
            texts = [e.observation.lower() for e in episodes if is_reading(e.action)]
            seen = [e.observation for e in (every if texts else episodes)]
        else:
            if not self.config.memory:
                self._forget_reading()
            texts = [self.last_read] if self.last_read else []
            seen = [self.last_text]
        for text in texts:
            self._learn(text, info)
        for text in seen:  # e.g. "a fried carrot": that direction is done already
            self.directions.notice(text)

    def _forget_reading(self) -> None:
        self.read_words = set(self.goal_words)
        self.directions, self.mentioned, self.read_room = Directions(), [], None

    def _learn(self, text: str, info: Info) -> None:
        if len(text) < MIN_READ_CHARS or "nothing special" in text:
            return  # not a text worth remembering (an ordinary thing examined)
        self.read_words |= {w for w in _WORD.findall(text) if len(w) > 2} - GENERIC_WORDS
        self._read_keys(text)
        self.directions.read(text, self.rules_text)
        self.read_room = self.read_room or (self.room if self.directions.active else None)
        places = [p for p in info.get("known_locations") or [] if p in text and p != self.room]
        self.mentioned = [p for p in self.mentioned if p not in places] + places

    def _read_keys(self, text: str) -> None:
        """Learns which key opens which lock from a text ("the key 4 unlocks black locker")."""
        for key, lock in _KEY_FOR.findall(text.lower()):
            self.key_for[key.strip()] = lock.split(" in ")[0].strip()  # "the yellow locker in room ag"

    def _track_inventory(self, action: str, text: str) -> None:
        item = take_object(action)
        if item is not None and text.startswith(("you take", "you pick up", "taken")):
            self.held.add(item)
        elif verb(action) == "drop" and text.startswith("you drop"):
            self.held.discard(action.lower().split(" ", 1)[1])
        elif verb(action) in ("put", "insert") and text.startswith(("you put", "you insert")):
            self.held = {h for h in self.held if h not in action.lower()}

    def episode_stats(self) -> dict[str, Any]:
        return {"rules": dict(self.rule_counts), "critic_substitutions": self.critic.substitutions,
                "loop_guard_forced": self.guard.forced, "memory": self.config.memory}


def explorer_without_memory(seed: int | None = 0) -> ExplorerPolicy:
    """the explorer without MemoryGraphWrapper (no map, no go to, no recall of what it read)

    The memory ablation as its own policy name (``explorer-nomemory``): the explorer with
    :class:`ExplorerWithoutMemoryConfig`, so its results are kept apart from the explorer's in one
    results file by their name.

    Example:
        >>> policy = explorer_without_memory()
        >>> policy.config.memory, policy.policy_config()
        (False, {})
    """
    return ExplorerPolicy(ExplorerWithoutMemoryConfig(seed=seed))
