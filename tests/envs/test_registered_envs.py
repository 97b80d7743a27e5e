"""Generic contract tests over every registered TextMem id (DESIGN.md, environment contract).

Every id of every installed env backend is made as a user types it, with its defaults (the
example backend of :mod:`tests.envs.example_backend` included, installed here through its entry
points as a third party's package would be): AriGraph's published-file ids find their
files themselves (downloaded, sha256-checked, from a real local HTTP server standing in for the
repository and serving generated stand-ins under their own checksum table, see
:mod:`tests.published_games`); only the ids whose one purpose is to play a file the
user names (``TextMem/TextWorld-v0``, ``TextMem/Jericho-v0``) get that file, and made bare they say
in one line what they need. Each id gets one env for the whole contract (check_env, cleaned text, info keys, opt-in
privileged info, bad commands, step limit, closed env) plus a second process replaying the same
commands (one process traces the ids of the module, see :class:`Tracer`), and a privileged-walkthrough
run: engines that start a JVM per env (ScienceWorld) make env creation the dominant cost, so the tests
create as few envs as they can.
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import gymnasium as gym
import pytest
from gymnasium.utils.env_checker import check_env

from tests.envs.registry_helpers import (
    EXAMPLE_IDS,
    entry,
    env_class,
    example_backend_installed,
    registered_ids,
    required_kwargs,
    trace_env,
)
from tests.published_games import published_games_server
from textmem_gym.envs.registration import ENV_IDS

IDS = registered_ids() + [i for i in EXAMPLE_IDS if i not in registered_ids()]

#: TALES's Simon Says variants beyond the base game differ only in the game's parameters: one JVM each
#: would cost minutes of the default run, so the generic tests play them under ``-m exhaustive``.
PARAMETER_VARIANTS = {i for i in IDS if i.startswith("TextMem/TWX-SimonSays") and i != "TextMem/TWX-SimonSays-v0"}


def _ids() -> list:
    """Every id, the parameter variants marked ``exhaustive``."""
    return [pytest.param(i, marks=pytest.mark.exhaustive) if i in PARAMETER_VARIANTS else i for i in IDS]


ROOT = Path(__file__).resolve().parents[2]
REQUIRED_INFO = {"score", "max_score", "normalized_score", "won", "lost", "moves", "objective",
                 "admissible_commands"}
BAD_COMMANDS = ["", "x" * 10_000, "\\help \\] \\s", "prendre la clé ☕ 北", "look\nnorth\x00\x07\x1b[2J",
                "   \t  "]


@pytest.fixture(scope="module", autouse=True)
def published_games(tmp_path_factory: pytest.TempPathFactory):
    """The published game files behind a local HTTP server for the whole module (and the processes it spawns)."""
    with published_games_server(tmp_path_factory.mktemp("published")) as served:
        yield served


@pytest.fixture(scope="module", autouse=True)
def example_backend():
    """The example backend installed for the whole module (and the processes it spawns)."""
    with example_backend_installed() as added:
        yield added


def test_registry_is_not_empty(example_backend):
    assert "TextMem/Cooking-Hard-v0" in IDS
    assert set(ENV_IDS) <= set(IDS)
    assert sorted(example_backend) == EXAMPLE_IDS  # registered through its entry point


class Tracer:
    """Another process (``PYTHONHASHSEED=123``) tracing the ids the tests send it, one at a time, while
    each test checks its own env (:func:`tests.envs.registry_helpers.serve_traces`): the interpreter and
    the library start once per module, not once per id. Started on first use; one that failed or
    hung is killed and the next id gets a new one."""

    def __init__(self) -> None:
        self.process: subprocess.Popen[str] | None = None

    def ask(self, env_id: str) -> None:
        """Starts tracing ``env_id`` in the other process."""
        if self.process is None:
            path = os.pathsep.join([str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])
            env = {**os.environ, "PYTHONPATH": path, "PYTHONHASHSEED": "123"}
            self.process = subprocess.Popen([sys.executable, "-m", "tests.envs.registry_helpers"], cwd=ROOT, env=env,
                                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        assert self.process.stdin is not None
        self.process.stdin.write(env_id + "\n")
        self.process.stdin.flush()

    def answer(self, env_id: str, timeout: float = 900) -> list:
        """The trace of ``env_id`` (the answer to an id asked by a test that failed first is skipped)."""
        assert self.process is not None and self.process.stdout is not None
        answer: dict = {}
        while answer.get("env_id") != env_id:
            ready = select.select([self.process.stdout], [], [], timeout)[0]
            line = self.process.stdout.readline() if ready else ""
            if not line:
                error = f"no trace in {timeout} s (exit code {self.process.poll()})"
                self.close()
                raise AssertionError(error)
            answer = json.loads(line)
        assert "trace" in answer, answer["error"]
        return answer["trace"]

    def close(self) -> None:
        """Ends the process (killed if it does not end at once)."""
        if self.process is None:
            return
        process, self.process = self.process, None
        try:
            process.communicate(input="", timeout=30)  # closes its input: it ends
        except (subprocess.TimeoutExpired, ValueError):
            process.kill()
            process.wait()


@pytest.fixture(scope="module")
def tracer(published_games, example_backend) -> Iterator[Tracer]:
    """One tracing process for the module's contract tests, started where the games are served and the
    example backend installed (it inherits both)."""
    traces = Tracer()
    yield traces
    traces.close()


def _check_first_observation(env: gym.Env) -> None:
    observation, info = env.reset(seed=0)
    assert isinstance(observation, str) and observation.strip()
    assert not observation.rstrip().endswith(">"), "the prompt must be removed"
    assert env.observation_space.contains(observation)
    assert REQUIRED_INFO <= set(info)
    assert not {"facts", "walkthrough"} & set(info), "privileged info must be opt-in"
    assert all(isinstance(c, str) for c in info["admissible_commands"])
    assert 0.0 <= info["normalized_score"] <= 1.0


def _check_bad_commands_and_step_limit(env: gym.Env) -> None:
    env.reset(seed=0)
    for i, command in enumerate(BAD_COMMANDS, start=1):
        observation, reward, terminated, truncated, info = env.step(command)
        assert isinstance(observation, str) and env.observation_space.contains(observation)
        assert REQUIRED_INFO <= set(info)
        if terminated:
            return
        assert truncated == (i == len(BAD_COMMANDS)), f"step {i} of a {len(BAD_COMMANDS)}-step limit"
    with pytest.raises(TypeError, match="str"):
        env.step(42)


@pytest.mark.parametrize("env_id", _ids())
def test_contract(env_id, tracer):
    tracer.ask(env_id)
    env = gym.make(env_id, max_episode_steps=len(BAD_COMMANDS), **required_kwargs(env_id))
    try:
        check_env(env.unwrapped, skip_render_check=True)
        _check_first_observation(env)
        _check_bad_commands_and_step_limit(env)
        here = trace_env(env.unwrapped)
    finally:
        env.close()
    with pytest.raises(gym.error.Error, match="closed"):
        env.unwrapped.step("look")
    assert here == tracer.answer(env_id), "same seed, same observations across processes"


@pytest.mark.parametrize("env_id", [i for i in IDS if entry(i).needs])
def test_an_id_made_without_the_file_it_plays_says_what_it_needs(env_id):
    with pytest.raises(ValueError, match="|".join(entry(env_id).needs)) as error:
        gym.make(env_id)
    assert "\n" not in str(error.value)


@pytest.mark.parametrize("env_id", _ids())
def test_unknown_privileged_key_is_rejected(env_id):
    with pytest.raises(ValueError, match="no_such_key"):
        gym.make(env_id, privileged=["no_such_key"], **required_kwargs(env_id))


#: Walkthroughs that take over ~15 s (long ScienceWorld gold paths whose simulation steps are
#: slow, up to 150 s for Mendelian genetics): left out of the default run to keep it under
#: 15 minutes; ``pytest -m exhaustive`` runs them.
SLOW_WALKTHROUGHS = {f"TextMem/ScienceWorld-{task}-v0" for task in (
    "MendelianGeneticsKnownPlant", "MendelianGeneticsUnknownPlant", "MeasureMeltingPointUnknownSubstance",
    "InclinedPlaneFrictionUnnamedSurfaces", "InclinedPlaneFrictionNamedSurfaces", "InclinedPlaneDetermineAngle",
    "Freeze", "Boil", "Melt", "ChangeTheStateOfMatterOf", "GrowFruit", "GrowPlant")}


def _walkthrough_ids() -> list:
    params = []
    for env_id in IDS:
        if "walkthrough" not in env_class(env_id).supported_privileged:
            continue
        reason = entry(env_id).walkthrough_known_failure
        if "published_game" in entry(env_id).kwargs:
            reason = None  # played here on generated stand-ins (tests.published_games), which have one
        marks = [pytest.mark.xfail(reason=reason, strict=True)] if reason else []
        if env_id in SLOW_WALKTHROUGHS or env_id in PARAMETER_VARIANTS:
            marks.append(pytest.mark.exhaustive)
        params.append(pytest.param(env_id, marks=marks))
    return params


@pytest.mark.parametrize("env_id", _walkthrough_ids())
def test_privileged_walkthrough_wins(env_id):
    env = gym.make(env_id, privileged=True, max_episode_steps=10_000, **required_kwargs(env_id))
    try:
        _, info = env.reset(seed=0)
        assert "facts" in info and "walkthrough" in info and info["walkthrough"]
        for command in info["walkthrough"]:
            _, _, terminated, truncated, info = env.step(command)
            if terminated or truncated:
                break
    finally:
        env.close()
    assert info["won"] and info["normalized_score"] == 1.0
