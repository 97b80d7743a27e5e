"""The library's own names are entry points of ``setup.cfg``, declared like a third party's, and a
package adds policies, policy prefixes and run backends through the same groups (installed here
for real metadata: :mod:`tests.entry_points`)."""

from __future__ import annotations

import configparser
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.entry_points import installed_entry_points
from tests.test_imports import MODULES, floor_of
from textmem_gym import EvalConfig, evaluate
from textmem_gym.core.registry import POLICIES, PREFIXED_POLICIES, available_policies, make_policy
from textmem_gym.execution import EpisodeTask, RunConfig, check_run_backend, run_backend, run_backends, run_task
from textmem_gym.loading import library_names

ROOT = Path(__file__).resolve().parents[2]
ENV_ID = "TextMem/CookingRL-L1-v0"

#: Each entry-point group of the library -> the package its targets must lie in (its floor).
GROUP_FLOORS = {
    "textmem_gym.policies": "policies",
    "textmem_gym.policy_prefixes": "baselines_rl",
    "textmem_gym.env_backends": "textmem_gym.envs",
    "textmem_gym.game_generators": "textmem_gym.envs",
    "textmem_gym.text_parsers": "textmem_gym.memory",
    "textmem_gym.memories": "textmem_gym.memory",
    "textmem_gym.run_backends": "textmem_gym.execution",
    "textmem_gym.extractors": "textmem_gym.memory",
    "textmem_gym.protocols": "textmem_gym.protocols",
    "textmem_gym.qa_protocols": "textmem_gym.protocols",
    "textmem_gym.qa_methods": "textmem_gym.qa",
    "textmem_gym.question_generators": "textmem_gym.qa",
    "textmem_gym.commands": "textmem_gym.cli",
}


def setup_cfg_entry_points() -> dict[str, dict[str, str]]:
    """``setup.cfg``'s ``[options.entry_points]``: group -> {name: ``"module:attr"``} (console scripts left out)."""
    parser = configparser.ConfigParser()
    parser.read(ROOT / "setup.cfg", encoding="utf-8")
    section = parser["options.entry_points"]
    return {group: dict(line.replace(" ", "").split("=", 1) for line in section[group].strip().splitlines())
            for group in section if group != "console_scripts"}


def test_the_library_declares_its_names_in_setup_cfg_on_their_own_floor():
    declared = setup_cfg_entry_points()
    assert set(declared) == set(GROUP_FLOORS)
    for group, names in declared.items():
        assert library_names(group) == names, f"{group}: the installed metadata is stale (pip install -e .)"
        for name, target in names.items():
            module, _, attribute = target.partition(":")
            assert module in MODULES and attribute.isidentifier(), (group, name)
            assert floor_of(module) == floor_of(GROUP_FLOORS[group]), (group, name, target)


def test_the_built_in_policies_are_the_library_entry_points():
    assert POLICIES == library_names("textmem_gym.policies") and {"random", "ariadne", "explorer"} <= set(POLICIES)
    assert PREFIXED_POLICIES == {"rl": "baselines_rl.adapter:make_rl_policy"}
    assert all(entry.package is None for name, entry in available_policies().items() if name in POLICIES)


def say(argument: str) -> Any:
    """A ``prefix:argument`` factory: a policy that always types ``argument``."""
    return type("Say", (), {"act": lambda self, observation, info: argument})()


def test_a_package_adds_a_policy_prefix():
    with installed_entry_points("say-policies", {"textmem_gym.policy_prefixes": {"say": "tests.core.test_registries:say"}}):
        assert make_policy("say:open the door").act("", {}) == "open the door"
        with pytest.raises(ValueError, match=r"'say:\.\.\.'"):
            make_policy("shout")
    with pytest.raises(ValueError, match="unknown policy 'say:open the door': no module 'say'"):
        make_policy("say:open the door")


class InProcess:
    """A run backend of the tests: plays every task in this process, one after another."""

    def __init__(self, config: RunConfig, workers: int, *, request_limit: int | None = None,
                 max_retries: int = 0) -> None:
        self.config = config

    def run(self, tasks: Iterable[EpisodeTask]) -> Iterator[tuple[EpisodeTask, list[dict[str, Any]]]]:
        for task in tasks:
            yield task, run_task(self.config, task)


def _played(backend: str) -> list[tuple[Any, ...]]:
    rows = evaluate(ENV_ID, "random", EvalConfig(backend=backend, workers=2, episodes=2, max_steps=3, progress=False))
    return sorted((row["seed"], row["score"], row["steps"], row["policy"]) for row in rows)


def test_a_package_adds_a_run_backend_and_it_plays_as_the_local_one():
    local = _played("local")
    with installed_entry_points("inline-runs", {"textmem_gym.run_backends": {"in-process": "tests.core.test_registries:InProcess"}}):
        assert run_backends() == ["in-process", "local", "ray"] and run_backend("in-process") is InProcess
        assert _played("in-process") == local
    assert _played("tests.core.test_registries:InProcess") == local  # named by module, no entry point
    with pytest.raises(ValueError, match=r"unknown run backend 'in-process'; choose from \['local', 'ray'\]"):
        check_run_backend("in-process")
