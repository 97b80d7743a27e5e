"""The textmem-gym command end to end (list, eval, summary, play through stdin)."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import gymnasium as gym
import pytest

from policies import BasePolicy
from textmem_gym.cli import main, play
from textmem_gym.envs.registration import ENV_IDS

ROOT = Path(__file__).resolve().parents[1]


def test_list_shows_every_id_with_its_description(capsys):
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    for env_id, entry in ENV_IDS.items():
        assert env_id in out and entry.description in out
    assert "walkthrough" in out and "PRIVILEGED" in out


def test_eval_writes_results_and_prints_the_table(tmp_path):
    out = tmp_path / "r.jsonl"
    proc = subprocess.run(
        [sys.executable, "-m", "textmem_gym.cli", "eval", "TextMem/CookingRL-L1-v0", "--policy", "walkthrough",
         "--episodes", "2", "--seed", "4", "--out", str(out), "--quiet"],
        cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    assert "| TextMem/CookingRL-L1-v0 | walkthrough | 2 | 1.000 ± 0.000 | 1.00 |" in proc.stdout
    assert len(out.read_text().splitlines()) == 2
    summary = subprocess.run([sys.executable, "-m", "textmem_gym.cli", "summary", str(out)],
                             cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert "1.000 ± 0.000" in summary.stdout


def test_eval_errors_are_clear(capsys):
    assert main(["eval", "TextMem/CookingRL-L1-v0", "--policy", "no-such-policy", "--quiet"]) == 2
    assert "unknown policy 'no-such-policy'" in capsys.readouterr().err


def test_policy_argument_errors_are_user_errors(capsys):
    assert main(["eval", "TextMem/CookingRL-L1-v0", "--policy", "random", "--policy-arg", "sead=1", "--quiet"]) == 2
    assert "policy 'random' does not accept 'sead'; it accepts: ['seed', 'config']" in capsys.readouterr().err
    assert main(["eval", "TextMem/CookingRL-L1-v0", "--policy", "tests.test_cli:NoSuchPolicy", "--quiet"]) == 2
    assert "'tests.test_cli' has no attribute 'NoSuchPolicy'" in capsys.readouterr().err


class BuggyPolicy(BasePolicy):
    """A policy with a programming error in ``act``."""

    def act(self, observation, info):
        return "look" + len(info["admissible_commands"])


def test_programming_errors_are_not_swallowed_as_user_errors():
    with pytest.raises(TypeError, match="can only concatenate str"):
        main(["eval", "TextMem/CookingRL-L1-v0", "--policy", "tests.test_cli:BuggyPolicy", "--max-steps", "2",
              "--quiet"])


def test_a_class_with_only_act_evaluates_from_the_command_line(tmp_path):
    """The three-line policy of the README, given as --policy module:Class from the working directory."""
    (tmp_path / "mymod.py").write_text(
        "class OnlyAct:\n"
        "    def act(self, observation, info):\n"
        "        return info['admissible_commands'][0]\n"
        "class NoAct:\n"
        "    def reset(self, observation, info):\n"
        "        pass\n")
    out = tmp_path / "r.jsonl"
    command = [sys.executable, "-m", "textmem_gym.cli", "eval", "TextMem/CookingRL-L1-v0", "--max-steps", "3",
               "--quiet", "--out", str(out), "--policy"]
    proc = subprocess.run([*command, "mymod:OnlyAct"], cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    assert "| TextMem/CookingRL-L1-v0 | mymod:OnlyAct | 1 |" in proc.stdout
    assert len(out.read_text().splitlines()) == 1
    proc = subprocess.run([*command, "mymod:NoAct"], cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 2
    assert proc.stderr == "textmem-gym: error: NoAct is not a policy: it has no act(observation, info) method\n"
    assert len(out.read_text().splitlines()) == 1  # no row written


def test_eval_help_documents_module_factory_policies(capsys):
    with pytest.raises(SystemExit):
        main(["eval", "--help"])
    assert "package.module:Factory" in " ".join(capsys.readouterr().out.split())


def test_play_through_stdin_handles_help_admissible_and_quit():
    env = gym.make("TextMem/CookingRL-L1-v0", privileged=["walkthrough"])
    walkthrough = env.reset(seed=0)[1]["walkthrough"]
    stdin = io.StringIO("help\nadmissible\n" + "\n".join(walkthrough) + "\nlook\n")
    stdout = io.StringIO()
    info = play(env, stdin=stdin, stdout=stdout)
    env.close()
    text = stdout.getvalue()
    assert "admissible  list the commands" in text
    assert "  look\n" in text  # the admissible listing
    assert "[score 4/4" in text and "You won!" in text and info["won"]


def test_play_stops_at_quit_and_at_end_of_input():
    env = gym.make("TextMem/CookingRL-L1-v0")
    out = io.StringIO()
    info = play(env, stdin=io.StringIO("inventory\nquit\ngo north\n"), stdout=out)
    assert "[score 0/4 | moves 1 | steps 1]" in out.getvalue() and "steps 2" not in out.getvalue()
    info = play(env, stdin=io.StringIO(""), stdout=io.StringIO())
    env.close()
    assert info["moves"] == 0


def test_console_script_play_via_stdin():
    proc = subprocess.run([sys.executable, "-m", "textmem_gym.cli", "play", "TextMem/CookingRL-L1-v0"],
                          input="admissible\nquit\n", cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0 and "[score 0/4" in proc.stdout and "  inventory" in proc.stdout


@pytest.mark.llm
def test_a_dead_endpoint_is_one_line_and_exit_2_before_any_row(tmp_path):
    out = tmp_path / "r.jsonl"
    proc = subprocess.run(
        [sys.executable, "-m", "textmem_gym.cli", "eval", "TextMem/CookingRL-L1-v0", "--policy", "ariadne",
         "--model", "m", "--base-url", "http://127.0.0.1:9/v1", "--out", str(out), "--quiet"],
        cwd=ROOT, capture_output=True, text=True, timeout=600, env={**os.environ, "OPENAI_API_KEY": "k"})
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("textmem-gym: error: ") and "http://127.0.0.1:9/v1" in lines[0]
    assert not out.exists()


#: The own-memory guide's memory, as ``mypackage/notes.py`` in the directory a command runs in.
KEYWORD_NOTES = '''
import re

from textmem_gym.memory import fit_budget


class KeywordNotes:
    def __init__(self):
        self.lines = []

    def update(self, observation, action, info):
        said = " ".join(observation.split())
        self.lines.append(f"> {action}: {said}" if action else said)

    def context(self, question, budget):
        words = set(re.findall(r"[a-z]+", question.lower()))
        ranked = sorted(self.lines, key=lambda line: -len(words & set(re.findall(r"[a-z]+", line.lower()))))
        return fit_budget(ranked, budget)
'''


def test_every_command_imports_module_class_from_the_working_directory(tmp_path):
    """``probe`` and ``memory-bench`` find ``mypackage.notes:KeywordNotes`` where the console script runs,
    as ``eval`` finds ``--policy mymod:Class`` (the one loader looks there): the own-memory guide's
    shell commands, as written."""
    script = Path(sys.executable).with_name("textmem-gym")  # the console script: no working directory on sys.path
    (tmp_path / "mypackage").mkdir()
    (tmp_path / "mypackage" / "__init__.py").write_text("")
    (tmp_path / "mypackage" / "notes.py").write_text(KEYWORD_NOTES)

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([str(script), *args], cwd=tmp_path, capture_output=True, text=True, timeout=600)

    played = run("eval", "TextMem/CookingRL-L1-v0", "--policy", "walkthrough", "--max-steps", "4", "--quiet",
                 "--trajectories", "runs/trajectories")
    assert played.returncode == 0, played.stderr
    probe = run("probe", "runs/trajectories", "--memory", "mypackage.notes:KeywordNotes", "--recall-only",
                "--budgets", "256", "--out", "probes.jsonl")
    assert probe.returncode == 0, probe.stderr
    assert "KeywordNotes" in probe.stdout and (tmp_path / "probes.jsonl").stat().st_size > 0
    bench = run("memory-bench", "--memories", "mypackage.notes:KeywordNotes", "--trajectories", "twx-coin-short",
                "--budgets", "256", "--per-kind", "1")
    assert bench.returncode == 0, bench.stderr
    assert "KeywordNotes" in bench.stdout
    missing = run("probe", "runs/trajectories", "--memory", "mypackage.nowhere:KeywordNotes", "--recall-only")
    assert missing.returncode == 2 and missing.stderr.count("\n") == 1, missing.stderr
    assert "mypackage.nowhere" in missing.stderr
