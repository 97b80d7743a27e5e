"""A package adds an extractor, a protocol, a QA protocol, a QA method, a question kind, a
``textmem-gym`` command and a TextWorld game generator through the library's entry-point groups,
without editing the library (installed here for real: a dist-info folder on ``sys.path``,
:mod:`tests.entry_points`)."""

from __future__ import annotations

import argparse
from dataclasses import replace

import gymnasium as gym
import pytest

from tests.entry_points import installed_entry_points
from tests.envs.example_generator import STUDY, thing_of
from tests.qa.test_probe_kinds import timeline
from textmem_gym.cli import build_parser, main
from textmem_gym.envs.textworld.env import TextWorldEnv
from textmem_gym.envs.textworld.generation import get_generator
from textmem_gym.memory.extractors import make_extractor
from textmem_gym.memory.extractors.rules import RulesExtractor
from textmem_gym.protocols import get_protocol, get_qa_protocol
from textmem_gym.qa.api import make_method
from textmem_gym.qa.methods.context import GoldMethod
from textmem_gym.qa.probes.questions import (
    ProbeQuestion,
    Snapshot,
    generate_questions,
    location_questions,
    question_generators,
)

HERE = "tests.core.test_extension_kinds"


class QuietRules(RulesExtractor):
    """The rules extractor under another name (a third party's extractor)."""


#: A third party's protocols: the papers' STMA and AriGraph QA protocols, one attempt / renamed.
STMA_ONCE = replace(get_protocol("stma"), name="stma-once")
ARIGRAPH_QA_COPY = replace(get_qa_protocol("arigraph-qa"), name="arigraph-qa-copy")


class GoldFirst(GoldMethod):
    """The gold paragraphs (a third party's QA method)."""

    name = "gold-first"


def first_location(snapshot: Snapshot, previous: Snapshot) -> list[ProbeQuestion]:
    """The first location question only (a third party's question kind)."""
    return location_questions(snapshot, previous)[:1]


def add_commands(sub: argparse._SubParsersAction) -> None:
    """Adds ``hello``, which prints one line."""
    hello = sub.add_parser("hello", help="say hello")
    hello.set_defaults(handler=lambda args: print("hello from a plugin") or 0)


PACKAGE = {
    "textmem_gym.extractors": {"quiet": f"{HERE}:QuietRules"},
    "textmem_gym.protocols": {"stma-once": f"{HERE}:STMA_ONCE"},
    "textmem_gym.qa_protocols": {"arigraph-qa-copy": f"{HERE}:ARIGRAPH_QA_COPY"},
    "textmem_gym.qa_methods": {"gold-first": f"{HERE}:GoldFirst"},
    "textmem_gym.question_generators": {"first-location": f"{HERE}:first_location"},
    "textmem_gym.commands": {"hello": f"{HERE}:add_commands"},
    "textmem_gym.game_generators": {"study": "tests.envs.example_generator:STUDY"},
}


def _subcommands() -> list[str]:
    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    return list(sub.choices)


def test_a_package_adds_every_extension_kind_without_editing_the_library(capsys: pytest.CaptureFixture[str]):
    built_in = _subcommands()
    with installed_entry_points("more-kinds", PACKAGE):
        assert type(make_extractor("quiet")) is QuietRules
        assert get_protocol("stma-once") is STMA_ONCE and get_qa_protocol("arigraph-qa-copy") is ARIGRAPH_QA_COPY
        assert make_method("gold-first", model="m", base_url="http://127.0.0.1:9/v1").name == "gold-first"
        kinds = question_generators()
        assert list(kinds)[-1] == "first-location" and list(kinds)[:3] == ["location", "contents", "path"]
        asked = generate_questions(timeline(), [7], kinds=["first-location"])
        assert asked == first_location(timeline().at(7), timeline().at(0)) and len(asked) == 1
        assert _subcommands() == [*built_in, "hello"]  # after the library's, in its --help
        assert main(["hello"]) == 0 and capsys.readouterr().out == "hello from a plugin\n"
        assert {"stma-once", "arigraph-qa-copy"} <= set(_reproduce_choices())
        assert get_generator("study") is STUDY
    with pytest.raises(ValueError, match=r"unknown extractor 'quiet'; choose from \['llm', 'oracle', 'rules'\]"):
        make_extractor("quiet")
    with pytest.raises(ValueError, match="unknown protocol 'stma-once'"):
        get_protocol("stma-once")
    assert "first-location" not in question_generators() and "hello" not in _subcommands()
    with pytest.raises(ValueError, match=r"unknown game generator 'study'; choose from \['cleaning', "):
        get_generator("study")


@pytest.mark.slow
def test_a_package_generator_makes_games_that_gym_make_plays(tmp_path, monkeypatch: pytest.MonkeyPatch):
    """The package's generator builds its game in the generating process (which finds the package's
    module as the caller does), and the game plays like a built-in one: its notes, its walkthrough."""
    monkeypatch.setenv("TEXTMEM_CACHE_DIR", str(tmp_path))
    with installed_entry_points("more-kinds", PACKAGE):
        env = gym.make("TextMem/TextWorld-v0", generator="study", game_seed=0, privileged="walkthrough")
    try:
        observation, info = env.reset(seed=0)
        assert isinstance(env.unwrapped, TextWorldEnv) and env.unwrapped.game_file.name.startswith("study-s0-")
        assert STUDY.notes in observation
        assert info["walkthrough"] == ["go north", f"take {thing_of(0)}"] and info["max_score"] == 1
        for command in info["walkthrough"]:
            observation, reward, terminated, truncated, info = env.step(command)
        assert terminated and info["won"] and reward == 1
    finally:
        env.close()


def _reproduce_choices() -> list[str]:
    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    paper = next(a for a in sub.choices["reproduce"]._actions if a.dest == "paper")
    return list(paper.choices or [])


def test_a_name_is_found_by_module_and_attribute_without_a_declaration():
    assert type(make_extractor(f"{HERE}:QuietRules")) is QuietRules
    assert get_protocol(f"{HERE}:STMA_ONCE") is STMA_ONCE
