"""Ground-truth triples of a ScienceWorld state (privileged ``facts``).

Sources:

- ScienceWorld's object tree (``getObjectTree``), which holds every object of every room:
  ``("thermometer", "in", "kitchen")``, ``("orange", "in", "inventory")`` (what the agent
  carries), ``("agent", "in", "hallway")``; containers that close: ``("fridge", "is", "closed")``;
  devices: ``("stove", "is", "activated")`` / ``"deactivated"``, ``("stove", "is", "broken")``;
  matter: ``("water", "is", "liquid")``, ``("water", "temperature", "25 C")``; living things:
  ``("bee 1", "is_a", "bee")``, ``("bee 1", "is", "dead")``; electrical connections, named
  as in ScienceWorld's commands: ``("battery anode", "connected_to", "black wire terminal 1")``.
- The current room's look text, because the object tree holds no doors:
  ``("hallway", "connected_to", "kitchen")``, ``("door to kitchen", "is", "open")``.

Example:
    >>> tree = {"name": "universe", "isDeleted": False, "contents": {"k": {
    ...     "name": "kitchen", "isDeleted": False, "contents": {"f": {
    ...         "name": "fridge", "isDeleted": False, "contents": {},
    ...         "propContainer": {"isContainer": "true", "isOpen": False, "isClosable": True}}}}}}
    >>> text = "This room is called the kitchen. You also see:\\n\\tA door to the hallway (that is open)"
    >>> object_tree_facts(tree, text)  # doctest: +NORMALIZE_WHITESPACE
    [('fridge', 'in', 'kitchen'), ('fridge', 'is', 'closed'), ('kitchen', 'connected_to', 'hallway'),
     ('door to hallway', 'is', 'open')]
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any

from textmem_gym.envs.privileged import FactTriple

_ROOM = re.compile(r"This (?:room|outside location) is called the ([^.]+)\.")
_DOOR = re.compile(r"A door to the (.+?) \(that is (open|closed)\)")
_TERMINALS = frozenset({"terminal 1", "terminal 2", "anode", "cathode"})
_ROOT = "universe"


def _container(name: str, prop: dict[str, Any]) -> Iterator[FactTriple]:
    if prop.get("isClosable"):
        yield (name, "is", "open" if prop.get("isOpen") else "closed")


def _device(name: str, prop: dict[str, Any]) -> Iterator[FactTriple]:
    if prop.get("isActivable"):
        yield (name, "is", "activated" if prop.get("isActivated") else "deactivated")
    if prop.get("isBroken"):
        yield (name, "is", "broken")


def _material(name: str, prop: dict[str, Any]) -> Iterator[FactTriple]:
    if prop.get("stateOfMatter"):
        yield (name, "is", str(prop["stateOfMatter"]))
    if isinstance(prop.get("temperatureC"), (int, float)):
        yield (name, "temperature", f"{prop['temperatureC']:.0f} C")


def _life(name: str, prop: dict[str, Any]) -> Iterator[FactTriple]:
    if prop.get("lifeformType"):
        yield (name, "is_a", str(prop["lifeformType"]))
    if prop.get("isDead"):
        yield (name, "is", "dead")


#: Object-tree property -> the triples it gives (a registry, one function per property).
PROPERTY_FACTS: dict[str, Callable[[str, dict[str, Any]], Iterator[FactTriple]]] = {
    "propContainer": _container,
    "propDevice": _device,
    "propMaterial": _material,
    "propLife": _life,
}


def _labels(node: dict[str, Any], parent: str = _ROOT) -> Iterator[tuple[str, str]]:
    """``(uuid, label)`` of every object; terminals are named with their owner
    (``"battery anode"``), as ScienceWorld's commands name them."""
    name = str(node["name"])
    yield str(node.get("uuid")), f"{parent} {name}" if name in _TERMINALS else name
    for child in (node.get("contents") or {}).values():
        yield from _labels(child, name)


def _connections(owner: str, node: dict[str, Any], labels: dict[str, str]) -> Iterator[FactTriple]:
    for target in (node.get("propElectricalConnection") or {}).get("connectedTo") or []:
        yield (f"{owner} {node['name']}", "connected_to", labels.get(str(target), str(target)))


def _node_facts(node: dict[str, Any], parent: str, labels: dict[str, str]) -> Iterator[FactTriple]:
    name = str(node["name"])
    if name in _TERMINALS:
        yield from _connections(parent, node, labels)
        return
    if parent != _ROOT and name != "inventory":
        yield (name, "in", "inventory" if parent == "inventory" else parent)
    for key, facts in PROPERTY_FACTS.items():
        if node.get(key):
            yield from facts(name, node[key])
    for child in (node.get("contents") or {}).values():
        if not child.get("isDeleted"):
            yield from _node_facts(child, name, labels)


def look_facts(look: str) -> list[FactTriple]:
    """Door triples of the current room, from its look text."""
    room = _ROOM.search(look)
    triples: list[FactTriple] = []
    for other, state in _DOOR.findall(look):
        if room:
            triples.append((room.group(1), "connected_to", other))
        triples.append((f"door to {other}", "is", state))
    return triples


def object_tree_facts(tree: dict[str, Any], look: str) -> list[FactTriple]:
    """Every triple of the object tree plus the current room's doors, without duplicates.

    Args:
        tree: ScienceWorld's ``getObjectTree()`` payload (root: the universe).
        look: The current room's look text (``ScienceWorldEnv.look()``).
    """
    labels = dict(_labels(tree))
    triples: list[FactTriple] = []
    for child in (tree.get("contents") or {}).values():
        if not child.get("isDeleted"):
            triples.extend(_node_facts(child, _ROOT, labels))
    triples.extend(look_facts(look))
    return list(dict.fromkeys(triples))
