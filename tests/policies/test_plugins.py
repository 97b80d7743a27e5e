"""Policies from other packages: a tiny package installed for real adds a name through the
``textmem_gym.policies`` entry-point group; ``textmem-gym list`` shows it and ``eval`` runs it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from policies import ENTRY_POINT_GROUP, available_policies, make_policy
from textmem_gym.runner import EvalConfig, evaluate

ROOT = Path(__file__).resolve().parents[2]
DISTRIBUTION = "tiny-textmem-agents"
ENV_ID = "TextMem/CookingRL-L1-v0"

PYPROJECT = f"""\
[build-system]
requires = ["setuptools"]
build-backend = "setuptools.build_meta"

[project]
name = "{DISTRIBUTION}"
version = "0.1.0"

[tool.setuptools]
packages = ["tiny_agents"]

[project.entry-points."{ENTRY_POINT_GROUP}"]
tiny-taker = "tiny_agents.policy:Taker"
tiny-described = "tiny_agents.policy:make_described"
random = "tiny_agents.policy:Taker"
"""

POLICY_MODULE = '''\
from policies import BasePolicy


class Taker(BasePolicy):
    """Takes the first thing it can take, else looks.

    Used by the plugin tests.
    """

    name = "tiny-taker"

    def __init__(self, verb: str = "take") -> None:
        self.verb = verb

    def act(self, observation, info):
        wanted = [c for c in info["admissible_commands"] if c.startswith(self.verb + " ")]
        return wanted[0] if wanted else "look"


def make_described(verb: str = "open") -> Taker:
    return Taker(verb)


make_described.description = "opens the first thing it can open"
'''


@pytest.fixture(scope="module")
def plugin(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The tiny package's source folder and the folder it is installed into (by pip)."""
    source = tmp_path_factory.mktemp("tiny-src")
    (source / "pyproject.toml").write_text(PYPROJECT)
    (source / "tiny_agents").mkdir()
    (source / "tiny_agents" / "__init__.py").write_text("")
    (source / "tiny_agents" / "policy.py").write_text(POLICY_MODULE)
    target = tmp_path_factory.mktemp("tiny-site")
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation",
                    "--no-index", "--target", str(target), str(source)],
                   check=True, capture_output=True, text=True, timeout=300)
    return {"source": source, "site": target}


def cli(*args: str, cwd: Path = ROOT, pythonpath: Path | None = None) -> subprocess.CompletedProcess[str]:
    """Runs the ``textmem-gym`` console script of this interpreter's environment."""
    script = Path(sys.executable).with_name("textmem-gym")
    command = [str(script)] if script.exists() else [sys.executable, "-m", "textmem_gym.cli"]
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    if pythonpath is not None:
        env["PYTHONPATH"] = str(pythonpath)
    return subprocess.run(command + list(args), cwd=cwd, env=env, capture_output=True, text=True, timeout=600)


def test_list_shows_the_installed_packages_policy_names(plugin):
    proc = cli("list", pythonpath=plugin["site"])
    assert proc.returncode == 0, proc.stderr
    lines = {line.split()[0]: line for line in proc.stdout.splitlines() if line.startswith("  tiny-")}
    assert "Takes the first thing it can take, else looks." in lines["tiny-taker"]
    assert "opens the first thing it can open" in lines["tiny-described"]
    assert all(f"[from package {DISTRIBUTION}]" in line for line in lines.values())
    assert "'random' from package tiny-textmem-agents is ignored" in proc.stderr


def test_eval_runs_the_installed_policy_by_its_name(plugin, tmp_path, monkeypatch):
    out = tmp_path / "results.jsonl"
    proc = cli("eval", ENV_ID, "--policy", "tiny-taker", "--max-steps", "3", "--out", str(out), "--quiet",
               cwd=tmp_path, pythonpath=plugin["site"])
    assert proc.returncode == 0, proc.stderr
    (row,) = [json.loads(line) for line in out.read_text().splitlines()]
    assert (row["env_id"], row["policy"], row["steps"]) == (ENV_ID, "tiny-taker", 3)
    assert "tiny-taker" in proc.stdout  # the summary table
    monkeypatch.syspath_prepend(str(plugin["site"]))
    from tiny_agents.policy import Taker  # the same policy played here gives the same episode

    assert row["score"] == evaluate(ENV_ID, Taker(), EvalConfig(max_steps=3))[0]["score"]


def test_eval_runs_module_factory_without_entry_point_from_the_working_directory(plugin, tmp_path):
    out = tmp_path / "results.jsonl"
    proc = cli("eval", ENV_ID, "--policy", "tiny_agents.policy:Taker", "--policy-arg", "verb=examine",
               "--max-steps", "3", "--out", str(out), "--quiet", cwd=plugin["source"])
    assert proc.returncode == 0, proc.stderr
    (row,) = [json.loads(line) for line in out.read_text().splitlines()]
    assert row["policy"] == "tiny_agents.policy:Taker" and row["steps"] == 3 and row["score"] == 0


def test_make_policy_finds_entry_points_lazily_and_builds_them(plugin, monkeypatch):
    monkeypatch.syspath_prepend(str(plugin["site"]))
    monkeypatch.delitem(sys.modules, "tiny_agents.policy", raising=False)
    with pytest.warns(UserWarning, match="'random' from package tiny-textmem-agents is ignored: it is built in"):
        entries = available_policies()
    assert entries["tiny-taker"].package == DISTRIBUTION
    assert entries["tiny-taker"].target == "tiny_agents.policy:Taker"
    assert entries["random"].package is None  # the built-in name wins
    assert "tiny_agents.policy" not in sys.modules  # listing names imports nothing
    with pytest.warns(UserWarning):
        policy = make_policy("tiny-described")
    assert policy.act("", {"admissible_commands": ["look", "open fridge"]}) == "open fridge"
    with pytest.warns(UserWarning), pytest.raises(ValueError, match="does not accept 'noun'.*'verb'"):
        make_policy("tiny-taker", noun="fridge")
