"""What the Z-machine object tree tells: a fast world-state hash and ground-truth triples.

Relation names of the privileged ``facts`` of Jericho games:

- ``("player", "at", ROOM)``: the object the player is in (the room, or a vehicle).
- ``(OBJECT, "in", PARENT)``: ``OBJECT`` is a child of ``PARENT`` in the object tree. The
  Z-machine does not tell containers from supporters, so things *on* a table are also
  ``in`` it.
- ``(OBJECT, "in", "I")``: ``OBJECT`` is carried by the player (TextWorld's name for the
  inventory).

Names are the objects' short names as the game prints them (Zork I's ``"West of House"``), decoded
from the story file's object table (:func:`short_names`); Jericho's own names drop words and
truncate (``"West House"``, ``"Egypti"``), so they are used only where a short name is empty.
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
    """Ground-truth triples of the whole object tree (see the module docstring).

    Example:
        >>> import os, jericho
        >>> frotz = jericho.FrotzEnv(os.path.join(os.environ["TEXTMEM_ROMS_DIR"], "zork1.z5"))
        >>> _ = frotz.reset()
        >>> facts = object_tree_facts(frotz)
        >>> ("player", "at", "West of House") in facts, ("pile of leaves", "in", "Clearing") in facts
        (True, True)
    """
    objects = frotz.get_world_objects()
    printed = short_names(frotz)
    names = {obj.num: (printed.get(obj.num) or obj.name).strip() for obj in objects if obj.num > 0}
    names = {num: name for num, name in names.items() if name}
    player = frotz.player_obj_num
    facts: list[FactTriple] = []
    location = objects[player].parent if 0 < player < len(objects) else 0
    if location in names:
        facts.append(("player", AT, names[location]))
    for obj in objects:
        if obj.num in names and obj.num != player and obj.parent in names:
            facts.append((names[obj.num], IN, INVENTORY if obj.parent == player else names[obj.parent]))
    return facts



# -- short names from the story file --------------------------------------------------------------
_ALPHABETS = ("abcdefghijklmnopqrstuvwxyz", "ABCDEFGHIJKLMNOPQRSTUVWXYZ", " \n0123456789.,!?_#'\"/\\-:()")


def short_names(frotz: Any) -> dict[int, str]:
    """Object number -> its short name as the game prints it, decoded from the Z-machine's object
    table in memory (Z-machine standard 1.1, sections 3 and 12); objects without one are left out.

    Example:
        >>> import os, jericho
        >>> frotz = jericho.FrotzEnv(os.path.join(os.environ["TEXTMEM_ROMS_DIR"], "zork1.z5"))
        >>> _ = frotz.reset()
        >>> names = short_names(frotz)
        >>> names[frotz.get_player_location().num]
        'West of House'
    """
    lib = frotz.frotz_lib
    ram = np.empty(lib.getRAMSize(), dtype=np.uint8)
    lib.getRAM(ram.ctypes.data)
    memory = ram.tobytes()
    version = memory[0]
    table = _word(memory, 0x0A)
    size, props_at, defaults = (9, 7, 62) if version <= 3 else (14, 12, 126)
    names = {}
    for num in range(1, lib.get_num_world_objs() + 1):
        entry = table + defaults + (num - 1) * size
        props = _word(memory, entry + props_at) if entry + props_at + 1 < len(memory) else 0
        if 0 < props < len(memory) and memory[props]:
            name = _name(memory, props, version)
            if name:
                names[num] = name
    return names


#: (story serial and checksum, encoded name) -> decoded name: names are static, decoding is not cheap.
_NAMES: dict[tuple[bytes, bytes], str] = {}


def _name(memory: bytes, props: int, version: int) -> str:
    """The short name at the head of the property table at ``props`` (its first byte: its length in words)."""
    key = (memory[0x12:0x1E], memory[props + 1:props + 1 + 2 * memory[props]])
    if key not in _NAMES:
        _NAMES[key] = _decode(memory, props + 1, version).strip()
    return _NAMES[key]


def _word(memory: bytes, address: int) -> int:
    return (memory[address] << 8) | memory[address + 1]


def _zchars(memory: bytes, address: int) -> list[int]:
    chars: list[int] = []
    while address + 1 < len(memory):
        word = _word(memory, address)
        address += 2
        chars += [(word >> 10) & 31, (word >> 5) & 31, word & 31]
        if word & 0x8000:
            break
    return chars


def _decode(memory: bytes, address: int, version: int, abbreviation: bool = False) -> str:
    """The Z-string at ``address`` (abbreviations expanded; no custom alphabet tables)."""
    chars, text, alphabet, i = _zchars(memory, address), [], 0, 0
    while i < len(chars):
        z, i = chars[i], i + 1
        if z == 0:
            text.append(" ")
        elif (1 <= z <= 3 and version >= 3) or (z == 1 and version == 2):
            if i < len(chars) and not abbreviation:
                entry = _word(memory, 0x18) + 2 * (32 * (z - 1) + chars[i])
                text.append(_decode(memory, 2 * _word(memory, entry), version, True))
            i += 1
        elif z in (4, 5):
            alphabet = z - 3
            continue
        elif alphabet == 2 and z == 6:  # a 10-bit ZSCII character
            if i + 1 < len(chars):
                text.append(chr((chars[i] << 5) | chars[i + 1]))
            i += 2
        else:
            text.append(_ALPHABETS[alphabet][z - 6])
        alphabet = 0
    return "".join(text)
