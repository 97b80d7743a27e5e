"""MemoryGraphWrapper with a memory of two methods only (``update`` and ``context``), given as an
object, as ``module:Class`` and through a real entry point of another installed package: it plays
a real game, the belief is the memory's context, and no ``go to`` macro is offered without a map."""

from __future__ import annotations

from collections.abc import Iterator

import gymnasium as gym
import pytest

import textmem_gym  # noqa: F401  (registers ids)
from tests.entry_points import installed_entry_points
from tests.memory.two_method import Notes
from textmem_gym.memory import registry
from textmem_gym.memory.budget import count_tokens
from textmem_gym.serving.session import GameSession
from textmem_gym.wrappers import MemoryGraphWrapper
from textmem_gym.wrappers.memory_graph import DEFAULT_BELIEF_BUDGET

GAME = "TextMem/Cooking-v0"
ACTIONS = ["go south", "examine cookbook", "go to livingroom", "go north"]


@pytest.fixture
def notes_plugin() -> Iterator[str]:
    """An installed package ``notes_plugin`` declaring the memory ``notes`` in ``textmem_gym.memories``."""
    with installed_entry_points("notes_plugin", {"textmem_gym.memories": {"notes": "tests.memory.two_method:Notes"}}):
        yield "notes"


def recalled(env: MemoryGraphWrapper, observation: dict) -> str:
    """What the memory's context holds now for the observation, as one text."""
    return "\n".join(env.memory.context(observation["observation"], DEFAULT_BELIEF_BUDGET))


def play(memory: object) -> tuple[MemoryGraphWrapper, list[tuple[dict, dict, str]]]:
    """The wrapper and the (observation, info, context then) of the reset and of each of :data:`ACTIONS`."""
    env = MemoryGraphWrapper(gym.make(GAME), memory=memory)  # type: ignore[arg-type]
    observation, info = env.reset(seed=0)
    seen = [(observation, info, recalled(env, observation))]
    for action in ACTIONS:
        observation, _, _, _, info = env.step(action)
        seen.append((observation, info, recalled(env, observation)))
    return env, seen


def check_played(env: MemoryGraphWrapper, seen: list[tuple[dict, dict, str]]) -> None:
    assert isinstance(env.memory, Notes) and len(env.memory.lines) == 1 + len(ACTIONS)
    for observation, info, context in seen:
        assert info["location"] is None and info["known_locations"] == [] and info["unexplored_exits"] == {}
        assert "memory" not in info and "macro" not in info
        assert not [c for c in info["admissible_commands"] if c.startswith("go to")]
        assert observation["belief"] == context and context
    info = seen[-1][1]
    assert "kitchen" in seen[1][0]["observation"].lower()  # "go south" really moved (a real game)
    assert info["steps"]["primitive"] == len(ACTIONS)  # "go to livingroom" went to the game as typed
    assert env.memory.lines[3] == " ".join(seen[3][0]["observation"].split())


def test_a_two_method_memory_object_plays_a_real_game():
    env, seen = play(Notes())
    try:
        check_played(env, seen)
        env.reset(seed=0)  # an object without reset is the caller's: kept, not emptied
        assert isinstance(env.memory, Notes) and len(env.memory.lines) == 2 + len(ACTIONS)
    finally:
        env.close()


def test_a_two_method_memory_by_module_and_class_is_rebuilt_at_reset():
    env, seen = play("tests.memory.two_method:Notes")
    try:
        check_played(env, seen)
        env.reset(seed=0)  # given by name and without reset: built anew
        assert isinstance(env.memory, Notes) and len(env.memory.lines) == 1
    finally:
        env.close()


def test_a_two_method_memory_through_an_entry_point(notes_plugin):
    assert registry.available_memories()[notes_plugin] == "tests.memory.two_method:Notes"
    env, seen = play(notes_plugin)
    try:
        check_played(env, seen)
    finally:
        env.close()


def test_the_belief_budget_bounds_the_context():
    env = MemoryGraphWrapper(gym.make(GAME), memory=Notes(), belief_budget=20)
    try:
        observation, _ = env.reset(seed=0)
        lines = observation["belief"].split("\n")
        assert lines and sum(count_tokens(line) + 1 for line in lines) <= 20
    finally:
        env.close()


def test_an_object_that_is_no_memory_is_refused_at_once_in_one_line():
    env = gym.make(GAME)
    try:
        with pytest.raises(TypeError, match=r"^dict is not a memory: it needs update\(observation, action, info\) "
                                            r"and context\(question, budget\)$"):
            MemoryGraphWrapper(env, memory={"update": 1})  # type: ignore[arg-type]
        with pytest.raises(ValueError, match="only apply to a memory given by name"):
            MemoryGraphWrapper(env, memory=Notes(), memory_options={"depth": 3})
    finally:
        env.close()


def test_the_served_views_say_what_a_memory_without_a_map_does_not_offer():
    game = GameSession("Cooking-v0", memory="tests.memory.two_method:Notes")
    try:
        result = game.play("go south")
        assert result["location"] is None and game.room == "unknown"
        assert game.search("exits from kitchen") == "this memory offers no map (Notes)"
        assert game.search("unexplored exits") == "this memory offers no map (Notes)"
        assert game.map_lines() == ["this memory offers no map (Notes)"]
        assert "kitchen" in game.search("what is in the kitchen").lower()  # the memory's context
        assert "ROOM: unknown" in game.room_state()
        assert game.inventory() == [] and game.objects() == []
    finally:
        game.close()
