"""The belief rendered when read: every way of reading a BeliefObservation renders it, a held one is
rendered from the memory of its own step, a dropped one never is, and the text is the eager one."""

from __future__ import annotations

import copy
import gc
import json
import pickle
import random

import gymnasium as gym
import pytest

import textmem_gym  # noqa: F401  (registers ids)
from textmem_gym.memory import make_memory
from textmem_gym.memory.arigraph.memory import AriGraphMemory
from textmem_gym.wrappers import MemoryGraphWrapper
from textmem_gym.wrappers.memory_graph import BeliefObservation, UnreadBelief

GAME = "TextMem/Cooking-v0"


class Counted:
    """A renderer that counts its calls."""

    def __init__(self, text: str = "Current location: hall") -> None:
        self.text, self.calls = text, 0

    def __call__(self) -> str:
        self.calls += 1
        return self.text


READERS = {
    "getitem": lambda obs: obs["belief"],
    "get": lambda obs: obs.get("belief"),
    "items": lambda obs: dict(obs.items())["belief"],
    "values": lambda obs: list(obs.values())[1],
    "dict": lambda obs: dict(obs)["belief"],
    "unpack": lambda obs: {**obs}["belief"],
    "update": lambda obs: (lambda d: d.update(obs) or d)(dict[str, str]())["belief"],
    "json": lambda obs: json.loads(json.dumps(obs))["belief"],
    "pickle": lambda obs: pickle.loads(pickle.dumps(obs))["belief"],
    "copy": lambda obs: copy.copy(obs)["belief"],
    "deepcopy": lambda obs: copy.deepcopy(obs)["belief"],
    "dict.copy": lambda obs: obs.copy()["belief"],
    "union": lambda obs: (obs | {})["belief"],
    "repr": lambda obs: eval(repr(obs))["belief"],  # noqa: S307  (a dict literal)
}


@pytest.mark.parametrize("read", sorted(READERS))
def test_every_way_of_reading_renders_once(read):
    renderer = Counted()
    obs = BeliefObservation("You see a chest.", renderer)
    assert renderer.calls == 0 and sorted(obs) == ["belief", "observation"] and len(obs) == 2
    assert READERS[read](obs) == "Current location: hall"
    assert obs["belief"] == "Current location: hall" and renderer.calls == 1 and obs.rendered


def test_writes_and_equality_see_the_rendered_belief():
    obs = BeliefObservation("text", Counted("rendered"))
    obs["belief"] = "mine"
    assert obs["belief"] == "mine", "a value set before reading is never overwritten by a late rendering"
    a, b = BeliefObservation("text", Counted("x")), BeliefObservation("text", Counted("x"))
    assert a == b and a == {"observation": "text", "belief": "x"} and not a != b
    assert type(pickle.loads(pickle.dumps(a))) is dict, "pickles as a plain dict, without its renderer"


def test_unread_belief_settles_only_held_observations():
    unread = UnreadBelief()
    held_renderer, dropped_renderer = Counted(), Counted()
    held = unread.track(BeliefObservation("a", held_renderer))
    unread.settle()
    assert held_renderer.calls == 1 and held.rendered
    unread.track(BeliefObservation("b", dropped_renderer))
    gc.collect()
    unread.settle()
    assert dropped_renderer.calls == 0


def walk(env: gym.Env, steps: int, keep: bool) -> tuple[list, list]:
    """A seeded random walk; returns the observations kept (all, or none) and the infos."""
    rng = random.Random(0)
    reset = env.reset(seed=0)
    kept, infos = [reset[0]] if keep else [], [reset[1]]
    del reset  # not kept: nothing holds the observation when the next step changes the memory
    for _ in range(steps):
        step = env.step(rng.choice(sorted(infos[-1]["admissible_commands"])))
        infos.append(step[4])
        if keep:
            kept.append(step[0])
        if step[2] or step[3]:
            break
        del step
    return kept, infos


def test_held_lazy_beliefs_are_the_eager_ones():
    eager = MemoryGraphWrapper(gym.make(GAME), lazy_belief=False)
    lazy = MemoryGraphWrapper(gym.make(GAME))
    assert lazy.lazy_belief and not eager.lazy_belief
    expected, _ = walk(eager, 25, keep=True)
    got, _ = walk(lazy, 25, keep=True)  # read only now, 25 updates after the first one
    assert all(type(o) is dict for o in expected) and all(isinstance(o, BeliefObservation) for o in got)
    assert [dict(o) for o in got] == expected
    assert len({o["belief"] for o in expected}) > 5, "the belief changed along the walk"
    eager.close()
    lazy.close()


def test_dropped_observations_are_never_rendered():
    env = MemoryGraphWrapper(gym.make(GAME))
    memory: AriGraphMemory = env.get_wrapper_attr("memory")
    before = memory.retrievals
    _, infos = walk(env, 10, keep=False)
    assert memory.retrievals == before, "no belief was read: no retrieval ran"
    assert infos[-1]["known_locations"] and memory.step == 10, "the memory itself was updated every step"
    observation, _, _, _, _ = env.step("look")
    assert observation["belief"].startswith("Current location:") and memory.retrievals == before + 1
    env.close()


def test_memory_objects_render_at_once_and_flat_observations_cannot_wait():
    memory = make_memory("arigraph")
    env = MemoryGraphWrapper(gym.make(GAME), memory=memory)
    observation, _ = env.reset(seed=0)
    assert not env.lazy_belief and type(observation) is dict and memory.retrievals == 1
    env.close()
    with pytest.raises(ValueError, match="lazy_belief=True needs the Dict observation"):
        MemoryGraphWrapper(gym.make(GAME), flatten=True, lazy_belief=True)
