"""The one registry lookup and its error, used by every registry of the library."""

from __future__ import annotations

import collections

import pytest

from textmem_gym.loading import load_named, load_object, lookup, unknown_name

TABLE = {"bm25": 1, "dense": 2}


def test_lookup_returns_the_entry_and_names_the_valid_ones_otherwise():
    assert lookup("similarity", "dense", TABLE) == 2
    with pytest.raises(ValueError, match=r"^unknown similarity 'sparse'; choose from \['bm25', 'dense'\]$"):
        lookup("similarity", "sparse", TABLE)
    with pytest.raises(ValueError, match=r"^unknown similarity \['bm25'\]; choose from"):
        lookup("similarity", ["bm25"], TABLE)  # not even a name (unhashable): the same error


def test_load_named_imports_the_entry_on_use():
    assert load_named("container", "deque", {"deque": "collections:deque"}) is collections.deque
    with pytest.raises(ValueError, match=r"unknown container 'list'; choose from \['deque'\]"):
        load_named("container", "list", {"deque": "collections:deque"})
    with pytest.raises(ImportError, match="no_such_module_xyz"):
        load_named("container", "gone", {"gone": "no_such_module_xyz:thing"})


def test_unknown_name_keeps_the_given_order_and_detail():
    error = unknown_name("policy", "pkg:X", ["random", "react", "package.module:Factory"], detail="no module 'pkg'")
    assert str(error) == ("unknown policy 'pkg:X': no module 'pkg'; "
                          "choose from ['random', 'react', 'package.module:Factory']")


@pytest.mark.parametrize("spec", ["collections", ":deque", "collections:"])
def test_load_object_wants_module_colon_attr(spec: str):
    with pytest.raises(ValueError, match="expected 'module:attr'"):
        load_object(spec)


def test_load_object_follows_dotted_attributes_and_names_what_is_missing():
    assert load_object("collections:OrderedDict.fromkeys")(["a"]) == {"a": None}
    with pytest.raises(AttributeError, match="'collections' has no attribute 'Nope'"):
        load_object("collections:Nope")


def test_every_registry_error_has_the_same_shape():
    from baselines_rl.storage import algorithm_class
    from textmem_gym.envs.jericho.roms import rom_file_name
    from textmem_gym.envs.textworld.generation import get_generator
    from textmem_gym.envs.textworld.published import find_published_game
    from textmem_gym.envs.textworld.treasure_hunt import plan_treasure_hunt
    from textmem_gym.llm.cache import cache_mode
    from textmem_gym.memory.extractors import make_extractor
    from textmem_gym.memory.registry import memory_factory
    from textmem_gym.memory.retrieval import make_index
    from textmem_gym.protocols import get_protocol
    from textmem_gym.wrappers.text_encoding import make_text_encoder

    calls = [(algorithm_class, "algorithm"), (rom_file_name, "Jericho game"), (get_generator, "game generator"),
             (find_published_game, "published AriGraph game"), (cache_mode, "cache mode"), (memory_factory, "memory"),
             (make_extractor, "extractor"), (make_index, "similarity"), (get_protocol, "protocol"),
             (make_text_encoder, "text encoding"), (lambda name: plan_treasure_hunt(0, name), "treasure hunt difficulty")]
    for call, kind in calls:
        with pytest.raises(ValueError, match=rf"^unknown {kind} 'nope'; choose from \['"):
            call("nope")
