"""NetPlay-style skills for the NetHack envs: code that plays many keys for one command.

Skills are an option of the env (``NetHackEnv(skills=True)``, on for the ``TextMem/NetHack-*``
ids), not a wrapper: they run inside the env over NLE's own observations (glyph map, bottom
line, message, prompt flags), so a primitive move costs one NLE step and no text rendering.

================================  ===============================================================
skill                             what the code does
================================  ===============================================================
``explore``                       walks to the nearest unexplored place (a seen cell never stood
                                  on, next to unexplored dark), then the next, until none is left
``go to <feature>``               walks to the nearest seen thing of that name (``staircase
                                  down``, ``doorway``, ``fountain``, an item, ...) or to a map
                                  position (``go to x44 y8``, ``go to staircase down x44 y8``)
``fight <monster>``               walks next to the nearest such monster and attacks until it is
                                  gone (``fight <direction>`` attacks that way once)
``pick up <item>``                walks onto the item and picks it up (answering the menu)
``descend``                       walks to the staircase down and goes down
``eat <item>``                    eats an inventory item (name or letter) or the food here
``rest``                          searches in place until HP is full
``search [n]``                    searches ``n`` turns (default 10) or until something appears
================================  ===============================================================

A closed door on the way is opened; when the game says it is locked (``This door is locked.``)
the hero kicks it (``kick``, then the direction): ``WHAMM!!`` means it held, so it kicks again;
``it crashes open!`` / ``it shatters to pieces!`` (or the door glyph gone) means open, and the
walk goes on through it. At most ``kick_limit`` kicks per door (``KICK_LIMIT`` by default, over
all skills of the episode); a door that held that long, one the hero cannot kick (``Ouch! That
hurts!``, wounded legs, a heavy load...: :func:`kick_outcome`) and a shop's door (``Closed for
inventory`` written in front) are routed around. The counts are in :class:`DoorKicks`
(``LevelMemory.kicks``).

A skill stops when it is done or interrupted: a monster comes into view, the hero is hit or HP
falls below a third, hunger gets worse, the game asks a question, the level changes, the way is
blocked, or it has pressed ``cap`` keys (``SKILL_CAP`` by default; every skill ends). ``--More--``
is dismissed and its message kept. Named targets are looked up in what the observation shows:
the current room or corridor with *Room obs*, the explored level with *Level obs*; positions
reach any explored cell (an agent remembers them, e.g. in AriGraph). Path finding runs over
NetHack's map memory of the level (what is under monsters and items is remembered).

Example:
    >>> parse_skill("Go to the staircase down"), parse_skill("fight"), parse_skill("search 5")
    (SkillCall(name='go to', argument='staircase down'), None, SkillCall(name='search', argument='5'))
    >>> target_position("staircase down x44 y8"), target_position("fountain")
    ((44, 8), None)
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from textmem_gym.core.info import SkillSummary
from textmem_gym.envs.nethack.actions import COMMANDS, MOVES
from textmem_gym.envs.nethack.text import (
    CORRIDOR,
    DOOR,
    FEATURE,
    FLOOR,
    OCCUPANT,
    cell_classes,
    glyph_kinds,
    message,
    position,
    region,
)

#: Keys one skill may press at most (every skill ends).
SKILL_CAP = 100
#: Turns of ``search`` without a count.
SEARCH_TURNS = 10
#: Kicks one locked door gets at most before the hero routes around it.
KICK_LIMIT = 6
_ENTER, _ESC = 13, 27
_OFFSETS = {"north": (0, -1), "south": (0, 1), "east": (1, 0), "west": (-1, 0),
            "northeast": (1, -1), "northwest": (-1, -1), "southeast": (1, 1), "southwest": (-1, 1)}
_KEY_OF_OFFSET = {offset: MOVES[word] for word, offset in _OFFSETS.items()}
# cmap indices (NetHack 3.6 defsym order)
_DOORWAY, _CLOSED_DOORS, _OPEN_DOORS = 12, (15, 16), (13, 14)
_DOWNSTAIRS, _BAD_TERRAIN, _TRAPS = (24, 26), (32, 34, 41), range(42, 65)
_POSITION = re.compile(r"\bx(\d{1,2})\s*,?\s*y(\d{1,2})\b", re.I)
_ARTICLE = re.compile(r"^(?:the|a|an)\s+", re.I)
_KICKED_OPEN = re.compile(r"crashes open|shatters to pieces|door was booby-trapped|KABOOM", re.I)
_KICK_HELD = re.compile(r"WHAMM|Thwack", re.I)


@dataclass(frozen=True)
class SkillSpec:
    """One skill: its method, whether it takes an argument (``"none"``, ``"required"``,
    ``"optional"``), the argument's name and what it does (for prompts and docs)."""

    method: str
    argument: str
    argument_name: str
    description: str


#: Skill name -> spec (a registry: the parser and the docs read it).
SKILLS: dict[str, SkillSpec] = {
    "explore": SkillSpec("explore", "none", "", "walk to unexplored places until the level is explored"),
    "go to": SkillSpec("go_to", "required", "feature or x<X> y<Y>",
                       "walk to the nearest seen thing of that name, or to a map position"),
    "fight": SkillSpec("fight", "required", "monster or direction",
                       "walk next to the monster and attack it until it is gone"),
    "pick up": SkillSpec("pick_up", "required", "item", "walk onto the item and pick it up"),
    "descend": SkillSpec("descend", "none", "", "walk to the staircase down and go down"),
    "eat": SkillSpec("eat", "required", "item or inventory letter", "eat an inventory item or the food here"),
    "rest": SkillSpec("rest", "none", "", "search in place until HP is full"),
    "search": SkillSpec("search", "optional", "turns", f"search for hidden doors ({SEARCH_TURNS} turns by default)"),
}


@dataclass(frozen=True)
class SkillCall:
    """A parsed skill command."""

    name: str
    argument: str


def parse_skill(command: str) -> SkillCall | None:
    """The skill a command calls, else ``None`` (``fight``/``eat``/``pick up`` alone are keys)."""
    words = " ".join(command.lower().split())
    for name, spec in SKILLS.items():
        if words == name and spec.argument != "required":
            return SkillCall(name, "")
        if words.startswith(name + " ") and spec.argument != "none":
            argument = _ARTICLE.sub("", words[len(name) + 1:].strip(" .!"))
            return SkillCall(name, argument) if argument else None
    return None


def target_position(argument: str) -> tuple[int, int] | None:
    """The map position an argument names (``x44 y8``), else ``None``."""
    match = _POSITION.search(argument)
    return (int(match.group(1)), int(match.group(2))) if match else None


def skill_help() -> str:
    """One line per skill with its argument, for prompts and feedback."""
    lines = []
    for name, spec in SKILLS.items():
        argument = {"none": "", "required": f" <{spec.argument_name}>",
                    "optional": f" [{spec.argument_name}]"}[spec.argument]
        lines.append(f"- {name}{argument}: {spec.description}")
    return "\n".join(lines)


def kick_outcome(text: str) -> str:
    """What NetHack's messages after a kick at a door say: ``"open"``, ``"held"`` (kick again) or
    ``"cannot"`` (the hero cannot kick it: give up).

    Example:
        >>> kick_outcome("WHAMM!!"), kick_outcome("As you kick the door, it crashes open!")
        ('held', 'open')
        >>> kick_outcome("Ouch! That hurts!"), kick_outcome("Your legs cannot kick effectively.")
        ('cannot', 'cannot')
    """
    if _KICKED_OPEN.search(text):
        return "open"
    return "held" if _KICK_HELD.search(text) else "cannot"


# -- level memory -------------------------------------------------------------------------
@dataclass
class DoorKicks:
    """Locked doors met and kicked in one episode (NetHack's messages decide each outcome).

    Attributes:
        per_door: ``(depth, x, y)`` -> kicks sent at that locked door (``This door is locked.``).
        opened: Doors kicked open (``it crashes open!`` / ``it shatters to pieces!``).
        given_up: Doors routed around: the kick limit was reached, or the hero could not kick.
    """

    per_door: dict[tuple[int, int, int], int] = field(default_factory=dict)
    opened: int = 0
    given_up: int = 0

    @property
    def locked(self) -> int:
        """Locked doors met, each counted once."""
        return len(self.per_door)

    @property
    def kicks(self) -> int:
        """Kicks sent at locked doors."""
        return sum(self.per_door.values())

    def metrics(self) -> dict[str, float]:
        """The counts as ``info["metrics"]`` entries."""
        return {"locked_doors": self.locked, "door_kicks": self.kicks, "doors_kicked_open": self.opened,
                "locked_doors_given_up": self.given_up}


class LevelMemory:
    """What NetHack's map showed on each level: terrain under monsters (last glyph that was not a
    creature), the cells the hero stood on, the locked doors given up on (routed around), the
    kicks at locked doors (:class:`DoorKicks`) and where the hero read "Closed for inventory" (in
    front of a shop's locked door: never kicked). Updated by :meth:`see` after every NLE step."""

    def __init__(self) -> None:
        self.terrain: dict[int, np.ndarray] = {}
        self.visited: dict[int, np.ndarray] = {}
        self.locked: dict[int, set[tuple[int, int]]] = {}
        self.kicks = DoorKicks()
        self.closed_shops: set[tuple[int, int, int]] = set()

    def see(self, obs: Mapping[str, np.ndarray]) -> None:
        """Records one observation."""
        from nle import nethack as nh

        depth, x, y = _depth(obs), _x(obs), _y(obs)
        glyphs = obs["glyphs"]
        if depth not in self.terrain:
            self.terrain[depth] = np.full(glyphs.shape, nh.GLYPH_CMAP_OFF, dtype=glyphs.dtype)  # stone
            self.visited[depth] = np.zeros(glyphs.shape, dtype=bool)
        monsters, pets, _ = glyph_kinds(glyphs)
        effects = (glyphs >= nh.GLYPH_EXPLODE_OFF) & (glyphs < nh.GLYPH_WARNING_OFF)
        keep = ~(monsters | pets | effects)
        self.terrain[depth][keep] = glyphs[keep]
        self.visited[depth][y, x] = True
        if "closed for inventory" in message(obs).lower():
            self.closed_shops.add((depth, x, y))


def _depth(obs: Mapping[str, np.ndarray]) -> int:
    from nle import nethack as nh

    return int(obs["blstats"][nh.NLE_BL_DEPTH])


def _x(obs: Mapping[str, np.ndarray]) -> int:
    from nle import nethack as nh

    return int(obs["blstats"][nh.NLE_BL_X])


def _y(obs: Mapping[str, np.ndarray]) -> int:
    from nle import nethack as nh

    return int(obs["blstats"][nh.NLE_BL_Y])


def _blstat(obs: Mapping[str, np.ndarray], name: str) -> int:
    from nle import nethack as nh

    return int(obs["blstats"][getattr(nh, name)])


def _name(obs: Mapping[str, np.ndarray], x: int, y: int) -> str:
    return obs["screen_descriptions"][y, x].tobytes().split(b"\0", 1)[0].decode("latin-1").strip()


# -- the game a skill plays -----------------------------------------------------------------
class Game(Protocol):
    """What skills need from the env: the current NLE observation and one key press."""

    levels: LevelMemory
    scope: str

    @property
    def obs(self) -> Mapping[str, np.ndarray]:
        """NLE's current observation."""

    def press(self, key: int) -> bool:
        """Steps NLE with ``key`` (updating ``obs`` and ``levels``); True when the game is over."""


@dataclass
class SkillReport:
    """What one skill did.

    Attributes:
        name, argument: The call.
        keys: Primitive keys pressed (their count is the skill's primitive steps).
        completed: The skill did what it was asked.
        reason: Why it stopped (done, or the interruption).
        messages: Game messages seen on the way.
        found: Things first seen on the way (``"staircase down (x44 y8)"``).
    """

    name: str
    argument: str
    keys: list[int] = field(default_factory=list)
    completed: bool = False
    reason: str = ""
    messages: list[str] = field(default_factory=list)
    found: list[str] = field(default_factory=list)

    def text(self) -> str:
        """The report placed before the observation text."""
        call = f"{self.name} {self.argument}".strip()
        moves = len(self.keys)
        lines = [f"Skill '{call}' ({moves} key{'s' if moves != 1 else ''}): "
                 f"{'done' if self.completed else 'stopped'}: {self.reason}."]
        if self.found:
            lines.append("Found: " + ", ".join(self.found) + ".")
        if self.messages:
            lines.append("Messages: " + " | ".join(self.messages[-6:]))
        return "\n".join(lines)

    def summary(self) -> SkillSummary:
        """What goes into ``info["skill"]``."""
        return {"name": self.name, "argument": self.argument, "primitive_steps": len(self.keys),
                "completed": self.completed, "reason": self.reason}


class Stop(Exception):
    """Ends a skill early (the reason is the message)."""


class SkillRunner:
    """Runs one skill call on a :class:`Game`.

    Args:
        game: The env side (observation, key press, level memory, observation scope).
        cap: Keys the skill may press at most.
        kick_limit: Kicks a locked door gets at most (over the episode) before it is routed
            around; 0 never kicks.
    """

    def __init__(self, game: Game, cap: int = SKILL_CAP, kick_limit: int = KICK_LIMIT) -> None:
        self.game, self.cap, self.kick_limit = game, cap, kick_limit

    # -- entry -----------------------------------------------------------------------------
    def run(self, call: SkillCall) -> SkillReport:
        """Runs ``call`` until done or interrupted; bad arguments give a report, not an error."""
        self.report = SkillReport(call.name, call.argument)
        obs = self.game.obs
        self._start_hp, self._hunger = _blstat(obs, "NLE_BL_HP"), _blstat(obs, "NLE_BL_HUNGER")
        self._depth = _depth(obs)
        self._seen_monsters = self._monster_names()
        self._known = self._notable_names()
        self._expect_hits = call.name == "fight"
        self._blocked = np.zeros(obs["glyphs"].shape, dtype=bool)
        try:
            getattr(self, "_" + SKILLS[call.name].method)(call.argument)
        except Stop as stop:
            self.report.reason = str(stop)
        return self.report

    def _done(self, reason: str) -> None:
        self.report.completed, self.report.reason = True, reason
        raise Stop(reason)

    # -- pressing keys and watching for interruptions ----------------------------------------
    def _press(self, key: int, watch: bool = True) -> None:
        if len(self.report.keys) >= self.cap:
            raise Stop(f"it reached its cap of {self.cap} keys")
        over = self.game.press(key)
        self.report.keys.append(key)
        self._read_message()
        if over:
            raise Stop("the game ended")
        for _ in range(8):  # --More--: dismiss it, keep the message
            if not self.game.obs["misc"][2] or len(self.report.keys) >= self.cap:
                break
            over = self.game.press(_ENTER)
            self.report.keys.append(_ENTER)
            self._read_message()
            if over:
                raise Stop("the game ended")
        self._note_found()
        if watch:
            self._watch()

    def _read_message(self) -> None:
        text = message(self.game.obs)
        if text and (not self.report.messages or self.report.messages[-1] != text):
            self.report.messages.append(text)

    def _watch(self) -> None:
        obs = self.game.obs
        misc = obs["misc"]
        if misc[0] or misc[1]:
            raise Stop(f"the game asks: {message(obs)}")
        if _depth(obs) != self._depth:
            raise Stop(f"you are now on dungeon level {_depth(obs)}")
        hp, hpmax = _blstat(obs, "NLE_BL_HP"), _blstat(obs, "NLE_BL_HPMAX")
        if hp < self._start_hp and 3 * hp < hpmax:
            raise Stop(f"HP is low ({hp}/{hpmax})")
        if hp < self._start_hp and not self._expect_hits:
            raise Stop(f"you were hit (HP {hp}/{hpmax})")
        hunger = _blstat(obs, "NLE_BL_HUNGER")
        if hunger > self._hunger and hunger >= 2:
            raise Stop("you are getting hungry")
        if not self._expect_hits:
            monsters = self._monster_names()
            new = sorted(set(monsters) - set(self._seen_monsters))
            self._seen_monsters = monsters
            if new:
                raise Stop("a monster came into view: " + ", ".join(new))

    def _monster_names(self) -> dict[str, tuple[int, int]]:
        obs = self.game.obs
        monsters, _, _ = glyph_kinds(obs["glyphs"])
        monsters[_y(obs), _x(obs)] = False
        return {_name(obs, int(x), int(y)) or "monster": (int(x), int(y)) for y, x in zip(*np.nonzero(monsters))}

    def _notable_names(self) -> set[tuple[int, int]]:
        obs = self.game.obs
        classes = cell_classes(self.game.levels.terrain.get(_depth(obs), obs["glyphs"]))
        return {(int(x), int(y)) for y, x in zip(*np.nonzero(classes == FEATURE))}

    def _note_found(self) -> None:
        now = self._notable_names()
        obs = self.game.obs
        for x, y in sorted(now - self._known, key=lambda c: (c[1], c[0])):
            if cell_classes(obs["glyphs"][y:y + 1, x:x + 1])[0, 0] == FEATURE:  # not under a creature
                self.report.found.append(f"{_name(obs, x, y)} ({position(x, y)})")
                self._known.add((x, y))

    # -- map reading -------------------------------------------------------------------------
    def _here(self) -> tuple[int, int]:
        return _x(self.game.obs), _y(self.game.obs)

    def _terrain(self) -> np.ndarray:
        return self.game.levels.terrain[_depth(self.game.obs)]

    def _passable(self) -> tuple[np.ndarray, np.ndarray]:
        """``(passable, doors)`` masks: where the hero can walk (closed doors included: they are
        opened on the way) and the door cells that forbid diagonal moves."""
        from nle import nethack as nh

        terrain = self._terrain()
        classes = cell_classes(terrain)
        cmap = np.where((terrain >= nh.GLYPH_CMAP_OFF) & (terrain < nh.GLYPH_EXPLODE_OFF),
                        terrain - nh.GLYPH_CMAP_OFF, -1)
        passable = np.isin(classes, (FLOOR, CORRIDOR, DOOR, FEATURE, OCCUPANT))
        passable &= ~np.isin(cmap, (*_BAD_TERRAIN, *_TRAPS))
        glyphs = self.game.obs["glyphs"]
        monsters, _, objects = glyph_kinds(glyphs)
        passable &= ~monsters
        for y, x in zip(*np.nonzero(objects & (self.game.obs["chars"] == ord("`")))):
            passable[y, x] = _name(self.game.obs, int(x), int(y)) != "boulder"
        passable &= ~self._blocked
        for lx, ly in self.game.levels.locked.get(_depth(self.game.obs), ()):
            passable[ly, lx] = False
        x, y = self._here()
        passable[y, x] = True
        doors = np.isin(cmap, (*_OPEN_DOORS, *_CLOSED_DOORS))
        return passable, doors

    def _path(self, goals: set[tuple[int, int]]) -> list[tuple[int, int]] | None:
        """Shortest walk from the hero to any of ``goals`` (cells after the start), or ``None``."""
        passable, doors = self._passable()
        start = self._here()
        if start in goals:
            return []
        height, width = passable.shape
        parent: dict[tuple[int, int], tuple[int, int] | None] = {start: None}
        queue = deque([start])
        while queue:
            cell = queue.popleft()
            cx, cy = cell
            for dx, dy in _OFFSETS.values():
                nx, ny = cx + dx, cy + dy
                nxt = (nx, ny)
                if not (0 <= nx < width and 0 <= ny < height) or nxt in parent:
                    continue
                if not passable[ny, nx] and nxt not in goals:
                    continue
                if dx and dy and (doors[cy, cx] or doors[ny, nx]):
                    continue
                parent[nxt] = cell
                if nxt in goals:
                    path = [nxt]
                    while parent[path[-1]] != start:
                        path.append(parent[path[-1]])  # type: ignore[arg-type]
                    return path[::-1]
                if passable[ny, nx]:
                    queue.append(nxt)
        return None

    def _step_to(self, nxt: tuple[int, int]) -> bool:
        """One move to a neighbouring cell (opening a closed door first, kicking it when it is
        locked); False if the hero did not get there."""
        x, y = self._here()
        if self._closed_door(nxt):
            self._keys_left(2)
            first = len(self.report.messages)
            self._press(ord("o"), watch=False)
            self._press(_KEY_OF_OFFSET[(nxt[0] - x, nxt[1] - y)])
            said = " ".join(self.report.messages[first:]).lower()
            if "locked" in said and not self._kick_open(nxt):
                self.game.levels.locked.setdefault(_depth(self.game.obs), set()).add(nxt)
                self._blocked[nxt[1], nxt[0]] = True
                return False
            if self._closed_door(nxt):
                return False
        self._press(_KEY_OF_OFFSET[(nxt[0] - x, nxt[1] - y)])
        return self._here() == nxt

    def _closed_door(self, cell: tuple[int, int]) -> bool:
        from nle import nethack as nh

        return int(self._terrain()[cell[1], cell[0]]) - nh.GLYPH_CMAP_OFF in _CLOSED_DOORS

    def _kick_open(self, door: tuple[int, int]) -> bool:
        """Kicks the locked ``door`` (next to the hero) until it opens, up to the kick limit over
        the episode; True when it opened. Only the game's messages and the door's glyph decide."""
        kicks, key = self.game.levels.kicks, (_depth(self.game.obs), *door)
        kicks.per_door.setdefault(key, 0)
        x, y = self._here()
        if (_depth(self.game.obs), x, y) in self.game.levels.closed_shops:
            kicks.given_up += 1  # a shop's door: breaking it angers the shopkeeper
            return False
        while kicks.per_door[key] < self.kick_limit:
            self._keys_left(2)
            first = len(self.report.messages)
            self._press(COMMANDS["kick"], watch=False)
            if not self.game.obs["misc"][0]:  # no direction asked: the hero cannot kick now
                break
            kicks.per_door[key] += 1
            self._press(_KEY_OF_OFFSET[(door[0] - x, door[1] - y)], watch=False)
            outcome = kick_outcome(" ".join(self.report.messages[first:]))
            opened = outcome == "open" or not self._closed_door(door)
            kicks.opened += opened
            self._watch()
            if opened:
                return True
            if outcome != "held":
                break
        kicks.given_up += 1
        return False

    def _keys_left(self, needed: int) -> None:
        """Stops the skill unless ``needed`` keys fit under the cap (a prompt is never left open)."""
        if len(self.report.keys) + needed > self.cap:
            raise Stop(f"it reached its cap of {self.cap} keys")

    def _walk(self, goals: set[tuple[int, int]], what: str, stop_on: Callable[[], bool] | None = None) -> None:
        """Walks to any of ``goals``; returns there, raises :class:`Stop` otherwise."""
        failures = 0
        while self._here() not in goals:
            path = self._path(goals)
            if path is None:
                raise Stop(f"no known way leads to {what}")
            for nxt in path:
                if nxt in goals and not self._passable()[0][nxt[1], nxt[0]]:
                    return  # next to an unwalkable goal (a monster): arrived
                if not self._step_to(nxt):
                    failures += 1
                    self._blocked[nxt[1], nxt[0]] = failures > 1
                    if failures > 4:
                        raise Stop(f"the way to {what} is blocked")
                    break
                if stop_on is not None and stop_on():
                    return
        return

    def _scope_mask(self) -> np.ndarray:
        obs = self.game.obs
        classes = cell_classes(obs["glyphs"])
        if self.game.scope == "level":
            return np.ones(classes.shape, dtype=bool)
        return region(classes, _x(obs), _y(obs))[1]

    def _named_cells(self, name: str, kinds: np.ndarray | None = None) -> list[tuple[int, int]]:
        """Cells of the scope whose description is ``name`` (else contains it), nearest first."""
        obs = self.game.obs
        mask = self._scope_mask()
        classes = cell_classes(obs["glyphs"])
        mask &= np.isin(classes, (DOOR, FEATURE, OCCUPANT)) if kinds is None else kinds
        x, y = self._here()
        cells = [(int(cx), int(cy), _name(obs, int(cx), int(cy)).lower()) for cy, cx in zip(*np.nonzero(mask))]
        exact = [(cx, cy) for cx, cy, n in cells if n == name or n == name + "s"]
        chosen = exact or [(cx, cy) for cx, cy, n in cells if name in n]
        return sorted(chosen, key=lambda c: (max(abs(c[0] - x), abs(c[1] - y)), c[1], c[0]))

    def _seen_names(self, kinds: np.ndarray | None = None) -> str:
        obs = self.game.obs
        mask = self._scope_mask() & (np.isin(cell_classes(obs["glyphs"]), (DOOR, FEATURE, OCCUPANT))
                                     if kinds is None else kinds)
        x, y = self._here()
        mask[y, x] = False
        names = sorted({_name(obs, int(cx), int(cy)) for cy, cx in zip(*np.nonzero(mask))} - {""})
        where = "in this room or corridor" if self.game.scope == "room" else "on this level"
        return (f"what you see {where}: " + ", ".join(names)) if names else f"you see nothing notable {where}"

    # -- the skills ------------------------------------------------------------------------------
    def _explore(self, _: str) -> None:
        def stairs_found() -> bool:
            return any(f.startswith("staircase down") for f in self.report.found)

        while True:
            frontier = self._frontier()
            if not frontier:
                self._done("nothing left to explore on this level (search near dead ends for hidden "
                           "doors, or descend)")
            self._walk(frontier, "the unexplored places", stop_on=stairs_found)
            if stairs_found():
                self._done("found a staircase down")

    def _frontier(self) -> set[tuple[int, int]]:
        """Seen walkable cells never stood on that touch unexplored dark."""
        from nle import nethack as nh

        terrain = self._terrain()
        passable, _ = self._passable()
        unseen = terrain == nh.GLYPH_CMAP_OFF
        padded = np.pad(unseen, 1, constant_values=False)
        touches = np.zeros(unseen.shape, dtype=bool)
        height, width = unseen.shape
        for dx, dy in _OFFSETS.values():
            touches |= padded[1 + dy:1 + dy + height, 1 + dx:1 + dx + width]
        frontier = passable & touches & ~self.game.levels.visited[_depth(self.game.obs)] & ~unseen
        return {(int(x), int(y)) for y, x in zip(*np.nonzero(frontier))}

    def _go_to(self, argument: str) -> None:
        spot = target_position(argument)
        if spot is not None:
            x, y = spot
            height, width = self._terrain().shape
            if not (0 <= x < width and 0 <= y < height) or self._terrain()[y, x] == _stone():
                raise Stop(f"x{x} y{y} is not an explored place of this level")
            self._walk({spot}, position(x, y))
            self._done(f"you are at {position(x, y)}")
        cells = self._named_cells(argument)
        if not cells:
            raise Stop(f"no '{argument}' here; {self._seen_names()}")
        self._walk(set(cells[:1]), argument)
        self._done(f"you reached the {argument}")

    def _fight(self, argument: str) -> None:
        if argument in _OFFSETS:
            self._press(ord("F"), watch=False)
            self._press(_KEY_OF_OFFSET[_OFFSETS[argument]])
            self._done(f"you attacked {argument}")
        monsters = glyph_kinds(self.game.obs["glyphs"])[0]
        for _ in range(self.cap):
            cells = self._named_cells(argument, monsters)
            if not cells:
                if self.report.keys:
                    self._done(f"the {argument} is gone")
                raise Stop(f"no monster '{argument}' in view; {self._seen_names(monsters)}")
            target = cells[0]
            x, y = self._here()
            if max(abs(target[0] - x), abs(target[1] - y)) == 1:
                self._press(ord("F"), watch=False)
                self._press(_KEY_OF_OFFSET[(target[0] - x, target[1] - y)])
            else:
                path = self._path({target})
                if path is None:
                    raise Stop(f"no known way leads to the {argument}")
                self._step_to(path[0])
            monsters = glyph_kinds(self.game.obs["glyphs"])[0]

    def _pick_up(self, argument: str) -> None:
        objects = glyph_kinds(self.game.obs["glyphs"])[2]
        cells = self._named_cells(argument, objects)
        if not cells and argument not in _here_text(self.game.obs):
            raise Stop(f"no '{argument}' here; {self._seen_names(objects)}")
        if cells:
            self._walk(set(cells[:1]), argument)
        self._press(ord(","), watch=False)
        self._answer_menu(argument)
        picked = [m for m in self.report.messages if re.match(r"^[a-zA-Z$] - ", m)]
        if picked:
            self._done("you picked up " + picked[-1][4:].rstrip("."))
        raise Stop("nothing was picked up")

    def _answer_menu(self, argument: str) -> None:
        from textmem_gym.envs.nethack.text import overlay

        obs = self.game.obs
        menu = overlay(obs["tty_chars"], obs["chars"])
        if "Pick up what?" not in menu:
            return
        letters = re.findall(rf"^\s*([a-zA-Z]) - [^\n]*{re.escape(argument)}", menu, flags=re.M | re.I)
        if not letters:
            self._press(_ESC, watch=False)
            raise Stop(f"no '{argument}' among the things here")
        self._press(ord(letters[0]), watch=False)
        self._press(_ENTER, watch=False)

    def _descend(self, _: str) -> None:
        from nle import nethack as nh

        terrain = self._terrain()
        stairs = np.isin(terrain - nh.GLYPH_CMAP_OFF, _DOWNSTAIRS) & self._scope_mask()
        cells = {(int(x), int(y)) for y, x in zip(*np.nonzero(stairs))}
        if not cells:
            where = "in this room or corridor" if self.game.scope == "room" else "on this level"
            raise Stop(f"no staircase down is known {where} (go to its position first if you remember it, "
                       "or explore)")
        self._walk(cells, "the staircase down")
        depth = self._depth
        self._press(ord(">"), watch=False)
        if _depth(self.game.obs) > depth:
            self._done(f"you went down to dungeon level {_depth(self.game.obs)}")
        raise Stop("you could not go down here")

    def _eat(self, argument: str) -> None:
        obs = self.game.obs
        letter = _inventory_letter(obs, argument)
        here = argument in _here_text(obs) or argument in ("here", "food here")
        if letter is None and not here:
            raise Stop(f"you have no '{argument}' to eat; food you carry: {_food(obs) or 'none'}")
        self._press(ord("e"), watch=False)
        for _ in range(6):
            text = message(self.game.obs)
            if not (self.game.obs["misc"][0] or self.game.obs["misc"][1]):
                break
            if "eat it?" in text or "eat one?" in text:
                self._press(ord("y" if letter is None else "n"), watch=False)
            elif "What do you want to eat?" in text and letter is not None:
                self._press(ord(letter), watch=False)
            elif "Stop eating?" in text or "Continue eating?" in text:
                self._press(ord("n" if "Continue" in text else "y"), watch=False)
            else:
                self._press(_ESC, watch=False)
                raise Stop(f"the game asked: {text}")
        self._done(f"you ate the {argument}" if letter is None or len(argument) > 1 else
                   f"you ate from {_inventory_text(obs, letter)}")

    def _rest(self, _: str) -> None:
        while _blstat(self.game.obs, "NLE_BL_HP") < _blstat(self.game.obs, "NLE_BL_HPMAX"):
            self._press(ord("s"))
        self._done("HP is full")

    def _search(self, argument: str) -> None:
        if argument and not argument.isdigit():
            raise Stop(f"search takes a number of turns, not '{argument}'")
        turns = min(int(argument or SEARCH_TURNS), self.cap)
        before = self._walkable_count()
        for _ in range(turns):
            self._press(ord("s"))
            if self._walkable_count() > before:
                self._done("you found something hidden")
        self._done(f"searched {turns} turns, found nothing")

    def _walkable_count(self) -> int:
        classes = cell_classes(self.game.obs["glyphs"])
        return int(np.isin(classes, (DOOR, CORRIDOR)).sum())


def _stone() -> int:
    from nle import nethack as nh

    return int(nh.GLYPH_CMAP_OFF)


def _here_text(obs: Mapping[str, np.ndarray]) -> str:
    text = message(obs).lower()
    return text if ("you see here" in text or "there are" in text or "things that are here" in text) else ""


def _inventory(obs: Mapping[str, np.ndarray]) -> Iterable[tuple[str, str, int]]:
    for letter, item, oclass in zip(obs["inv_letters"], obs["inv_strs"], obs["inv_oclasses"]):
        if letter == 0:
            break
        yield chr(letter), item.tobytes().split(b"\0", 1)[0].decode("latin-1"), int(oclass)


def _inventory_letter(obs: Mapping[str, np.ndarray], argument: str) -> str | None:
    items = list(_inventory(obs))
    if len(argument) == 1:
        return next((letter for letter, _, _ in items if letter == argument), None)
    return next((letter for letter, text, _ in items if argument in text.lower()), None)


def _inventory_text(obs: Mapping[str, np.ndarray], letter: str) -> str:
    return next((text for item, text, _ in _inventory(obs) if item == letter), letter)


def food_names(obs: Mapping[str, np.ndarray]) -> list[str]:
    """Short names of the food in the inventory (``"food ration"``, ``"apple"``)."""
    from nle import nethack as nh

    names = []
    for _, text, oclass in _inventory(obs):
        if oclass == nh.FOOD_CLASS:
            name = re.sub(r"^(?:an?|the|\d+)\s+", "", text)
            name = re.sub(r"^(?:uncursed|blessed|cursed)\s+", "", name)
            name = re.sub(r"\s*\(.*\)$", "", name)
            names.append(re.sub(r"(?<=[a-z])s$", "", name) if re.match(r"^\d", text) else name)
    return list(dict.fromkeys(names))


def _food(obs: Mapping[str, np.ndarray]) -> str:
    return ", ".join(food_names(obs))


def admissible_skills(obs: Mapping[str, np.ndarray], levels: LevelMemory, scope: str) -> list[str]:
    """The skill commands that make sense now (the targets come from the observation's scope)."""
    from nle import nethack as nh

    classes = cell_classes(obs["glyphs"])
    x, y = _x(obs), _y(obs)
    mask = np.ones(classes.shape, dtype=bool) if scope == "level" else region(classes, x, y)[1]
    monsters, _, objects = glyph_kinds(obs["glyphs"])
    monsters[y, x] = False
    names = lambda m: sorted({_name(obs, int(cx), int(cy)) for cy, cx in zip(*np.nonzero(m & mask))} - {""})  # noqa: E731
    notable = np.isin(classes, (DOOR, FEATURE, OCCUPANT)) & ~monsters
    notable[y, x] = False
    commands = ["explore", "rest", "search"]
    terrain = levels.terrain.get(_depth(obs))
    if terrain is not None and (np.isin(terrain - nh.GLYPH_CMAP_OFF, _DOWNSTAIRS) & mask).any():
        commands.append("descend")
    commands += [f"go to {name}" for name in names(notable)]
    commands += [f"fight {name}" for name in names(monsters)]
    commands += [f"pick up {name}" for name in names(objects)]
    commands += [f"eat {name}" for name in food_names(obs)]
    return commands
