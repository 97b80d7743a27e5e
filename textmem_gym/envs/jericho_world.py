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
from functools import cache
from typing import Any

import numpy as np

from textmem_gym.envs.privileged import Triple

#: Relation of an object to its parent in the object tree.
IN = "in"
#: Relation of the player to the room it is in.
AT = "at"
#: Parent name standing for the player's inventory.
INVENTORY = "I"


@cache
def _tree_columns() -> np.ndarray:
    from jericho import ZObject

    start = ZObject.parent.offset
    end = ZObject._attr.offset + ZObject._attr.size
    return np.arange(start, end)


def world_state_hash(frotz: Any) -> str:
    """Hex digest of the world state: the object tree and the game's tracked RAM.

    It covers what ``FrotzEnv.get_world_state_hash`` covers (Jericho's cleaned object tree,
    without the objects it calls noisy, plus the game-specific RAM addresses) except object
    names and property numbers, which do not change during play, and costs ~30x less.
    """
    from jericho import ZObject

    objects = frotz.get_world_objects(clean=True)
    table = np.frombuffer(objects, dtype=np.uint8).reshape(len(objects), ctypes.sizeof(ZObject))
    tree = np.ascontiguousarray(table[:, _tree_columns()])
    digest = hashlib.blake2b(tree.tobytes(), digest_size=16)
    lib = frotz.frotz_lib
    special = np.empty(lib.get_special_ram_size(), dtype=np.uint8)
    lib.get_special_ram(special.ctypes.data)
    digest.update(special.tobytes())
    return digest.hexdigest()


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


def object_tree_facts(frotz: Any) -> list[Triple]:
    """Ground-truth triples of the whole object tree (see the module docstring)."""
    objects = frotz.get_world_objects()
    names = {obj.num: obj.name.strip() for obj in objects if obj.num > 0 and obj.name.strip()}
    player = frotz.player_obj_num
    facts: list[Triple] = []
    location = objects[player].parent if 0 < player < len(objects) else 0
    if location in names:
        facts.append(("player", AT, names[location]))
    for obj in objects:
        if obj.num in names and obj.num != player and obj.parent in names:
            facts.append((names[obj.num], IN, INVENTORY if obj.parent == player else names[obj.parent]))
    return facts

