"""What the Z-machine object tree tells: a fast world-state hash and ground-truth triples.

Relation names of the privileged ``facts`` of Jericho games:

- ``("player", "at", ROOM)``: the object the player is in (the room, or a vehicle).
- ``(OBJECT, "in", PARENT)``: ``OBJECT`` is a child of ``PARENT`` in the object tree. The
  Z-machine does not tell containers from supporters, so things *on* a table are also
  ``in`` it.
- ``(OBJECT, "in", "I")``: ``OBJECT`` is carried by the player (TextWorld's name for the
  inventory).

Names are the objects' short names as the game stores them (e.g. Zork I's ``"West House"``).
"""

from __future__ import annotations

import ctypes
import hashlib
from typing import Any

import numpy as np

from textmem_gym.envs.privileged import FactTriple

#: Relation of an object to its parent in the object tree.
IN = "in"
#: Relation of the player to the room it is in.
AT = "at"
#: Parent name standing for the player's inventory.
INVENTORY = "I"


def location_id(frotz: Any) -> str | None:
    """``"z<N>"``: the number of the Z-machine object the player is in (its room, or a vehicle);
    stable for the whole game, whatever name the room prints (Lost Pig renames rooms as the story
    goes on). ``None`` for a game Jericho has no player object or location for (no bindings: a
    ROM of its own, lgop; or a player between rooms).

    Example:
        >>> import os, jericho
        >>> frotz = jericho.FrotzEnv(os.path.join(os.environ["TEXTMEM_ROMS_DIR"], "zork1.z5"))
        >>> _ = frotz.reset()
        >>> start = location_id(frotz)
        >>> _ = frotz.step("north")
        >>> location_id(frotz) != start, start.startswith("z")
        (True, True)
    """
    try:
        where = frotz.get_player_location()
    except AttributeError:  # Jericho reads the player object's parent: no player object known
        return None
    return None if where is None else f"z{where.num}"


class WorldStateHasher:
    """Hashes the world state of one ``jericho.FrotzEnv``: its object tree and tracked RAM.

    It covers what ``FrotzEnv.get_world_state_hash`` covers (Jericho's cleaned object tree,
    without the objects it calls noisy, plus the game-specific RAM addresses) except object
    names and property numbers, which do not change during play, and costs a fraction: the
    buffers are allocated once and only parent/sibling/child/attributes are hashed.

    Example:
        >>> import os, jericho
        >>> frotz = jericho.FrotzEnv(os.path.join(os.environ["TEXTMEM_ROMS_DIR"], "zork1.z5"))
        >>> _ = frotz.reset()
        >>> hasher = WorldStateHasher(frotz)
        >>> start = hasher()
        >>> _ = frotz.step("look")
        >>> hasher() == start, len(start)
        (True, 32)
    """

    def __init__(self, frotz: Any):
        from jericho import ZObject

        self._lib = frotz.frotz_lib
        count = self._lib.get_num_world_objs() + 1
        self._objects = (ZObject * count)()
        table = np.frombuffer(self._objects, dtype=np.uint8).reshape(count, ctypes.sizeof(ZObject))
        self._tree = table[:, ZObject.parent.offset:ZObject._attr.offset + ZObject._attr.size]
        self._special = np.empty(self._lib.get_special_ram_size(), dtype=np.uint8)

    def __call__(self) -> str:
        """The hex digest (32 characters) of the current world state."""
        ctypes.memset(self._objects, 0, ctypes.sizeof(self._objects))
        self._lib.get_world_objects(self._objects, 1)
        self._lib.get_special_ram(self._special.ctypes.data)
        digest = hashlib.sha1(np.ascontiguousarray(self._tree).tobytes())
        digest.update(self._special.tobytes())
        return digest.hexdigest()[:32]


def halted(frotz: Any) -> bool:
    """Whether the interpreter of ``frotz`` (a ``jericho.FrotzEnv``) halted; ``reset`` revives it.

    Read from the C library, as ``FrotzEnv``'s own (private) check does.
    """
    return bool(frotz.frotz_lib.halted() > 0)


def snapshot(frotz: Any) -> tuple[Any, ...]:
    """``frotz.get_state()`` with cheaper copies (and a stack buffer of the size the C side writes)."""
    lib = frotz.frotz_lib
    ram = np.empty(lib.getRAMSize(), dtype=np.uint8)
    stack = np.empty(2 * lib.getStackSize(), dtype=np.uint8)  # the C side copies STACK_SIZE zwords
    lib.getRAM(ram.ctypes.data)
    lib.getStack(stack.ctypes.data)
    rng = lib.getRngA(), lib.getRngInterval(), lib.getRngCounter()
    return (ram, stack, lib.getPC(), lib.getSP(), lib.getFP(), lib.getFrameCount(), lib.get_opcode(), rng,
            lib.get_narrative_text())


def object_tree_facts(frotz: Any) -> list[FactTriple]:
    """Ground-truth triples of the whole object tree (see the module docstring)."""
    objects = frotz.get_world_objects()
    names = {obj.num: obj.name.strip() for obj in objects if obj.num > 0 and obj.name.strip()}
    player = frotz.player_obj_num
    facts: list[FactTriple] = []
    location = objects[player].parent if 0 < player < len(objects) else 0
    if location in names:
        facts.append(("player", AT, names[location]))
    for obj in objects:
        if obj.num in names and obj.num != player and obj.parent in names:
            facts.append((names[obj.num], IN, INVENTORY if obj.parent == player else names[obj.parent]))
    return facts

