"""Every sub-command given bad input of each kind: one line naming the bad value and what would be
right, exit status 2, no traceback, nothing written.

One table of (arguments, what the line must say, setting): missing files and folders, ROMs not
found, published games offline, no Java, counts below their minimum, unknown ids, policies,
memories, protocols and cells, bad choices. Each case runs in this process through
:func:`textmem_gym.cli.main` (the checks run before any game is made, so it ends at once); one
case runs the console entry in a subprocess to show the same line reaches a real shell.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.file_server import closed_port_url
from textmem_gym.cli import main
from textmem_gym.envs.textworld.published import GAMES_DIR_ENV, GAMES_URL_ENV

ROOT = Path(__file__).resolve().parents[1]
GAME = "TextMem/CookingRL-L1-v0"
OUT = ["--out", "{tmp}/r.jsonl"]
#: A file that exists (empty), for commands whose other arguments are under test.
EXISTING = "{tmp}/existing.jsonl"
COUNT = "expected a whole number of {} or more, got '{}'"

CASES = [
    # the command line itself
    ([], "the following arguments are required: command", None),
    (["list", "--bogus"], "unrecognized arguments: --bogus", None),
    (["nope"], "invalid choice: 'nope'", None),
    # eval
    (["eval", GAME, "--policy", "random", "--episodes", "-1", *OUT], "--episodes: " + COUNT.format(1, -1), None),
    (["eval", GAME, "--policy", "random", "--episodes", "0", *OUT], "--episodes: " + COUNT.format(1, 0), None),
    (["eval", GAME, "--policy", "random", "--max-steps", "0", *OUT], "--max-steps: " + COUNT.format(1, 0), None),
    (["eval", GAME, "--policy", "random", "--workers", "0", *OUT], "--workers: " + COUNT.format(1, 0), None),
    (["eval", GAME, "--policy", "random", "--seed", "-1", *OUT], "--seed: " + COUNT.format(0, -1), None),
    (["eval", GAME, "--policy", "random", "--game-seeds", "1", "-2", *OUT], "--game-seeds: " + COUNT.format(0, -2),
     None),
    (["eval", GAME, "--policy", "random", "--episodes", "two", *OUT], "got 'two'", None),
    (["eval", GAME, "--policy", "random", "--ray-task-cpus", "0", *OUT], "expected a number above 0, got '0'", None),
    (["eval", GAME, "--policy", "random", "--backend", "slurm", *OUT],
     "unknown run backend 'slurm'; choose from ['local', 'ray']", None),
    (["eval", GAME, "--policy", "random", "--ray-address", "auto", *OUT],
     "run backend 'local' takes no option 'address'", None),
    (["eval", GAME, "--policy", "random", "--backend-option", "nosuch=1", *OUT],
     "run backend 'local' takes no option 'nosuch'", None),
    (["eval", "TextMem/Cookin-v0", "--policy", "random", *OUT],
     "unknown env id 'TextMem/Cookin-v0'; choose from ['TextMem/Cooking-v0'", None),
    (["eval", GAME, "--policy", "no-such-policy", *OUT], "unknown policy 'no-such-policy'", None),
    (["eval", GAME, *OUT], "the following arguments are required: --policy", None),
    (["eval", GAME, "--policy", "random", "--env-arg", "nosuchkey=1", *OUT], "does not accept 'nosuchkey'", None),
    (["eval", "TextMem/Jericho-Zork1-v0", "--policy", "random", *OUT], "Jericho ROM zork1.z5 not found", "no_roms"),
    (["eval", "TextMem/AriGraph-Cooking-v0", "--policy", "random", *OUT],
     f"AriGraph's published game 'cook' (envs/cook/game.z8) not found ({GAMES_DIR_ENV} is not set", "offline"),
    (["eval", "TextMem/ScienceWorld-Boil-v0", "--policy", "random", *OUT], "no Java runtime was found", "no_java"),
    (["eval", GAME, "--policy", "random", "--quiet", *OUT],
     "cannot use the cache folder {tmp}/existing.jsonl/cache/games: Not a directory (TEXTMEM_CACHE_DIR=", "bad_cache"),
    # play
    (["play", "TextMem/Nope-v0"], "unknown env id 'TextMem/Nope-v0'", None),
    (["play", GAME, "--seed", "-1"], "--seed: " + COUNT.format(0, -1), None),
    (["play", "TextMem/Jericho-Zork1-v0"], "TEXTMEM_ROMS_DIR", "no_roms"),
    # summary, replay, report
    (["summary", "{tmp}/missing.jsonl"], "argument results: no such file '{tmp}/missing.jsonl'", None),
    (["summary", "{tmp}"], "no such file '{tmp}' (it is a folder)", None),
    (["summary", EXISTING, "--format", "xml"], "argument --format: invalid choice: 'xml'", None),
    (["replay", "{tmp}/missing.jsonl"], "argument trajectory: no such file '{tmp}/missing.jsonl'", None),
    (["replay", EXISTING, "--width", "0"], "--width: " + COUNT.format(1, 0), None),
    (["replay", EXISTING, "--steps", "5", "2"], "--steps FIRST LAST needs FIRST <= LAST, got 5 2", None),
    (["report", "{tmp}/missing.jsonl", "-o", "{tmp}/r.html"], "no such file '{tmp}/missing.jsonl'", None),
    (["report", EXISTING, "--trajectories", "{tmp}/nope", "-o", "{tmp}/r.html"], "no such folder '{tmp}/nope'", None),
    (["report", EXISTING, "--episodes", "-1", "-o", "{tmp}/r.html"], "--episodes: " + COUNT.format(0, -1), None),
    # probe
    (["probe", "{tmp}/missing.jsonl", "--memory", "arigraph", "--structural"],
     "no trajectory file or folder {tmp}/missing.jsonl", None),
    (["probe", EXISTING, "--memory", "nope", "--structural"], "unknown memory 'nope'", None),
    # reproduce
    (["reproduce", "nope"], "invalid choice: 'nope'", None),
    (["reproduce", "stma", *OUT], "--policy is required", None),
    (["reproduce", "stma", "--policy", "no-such-policy", *OUT], "unknown policy 'no-such-policy'", None),
    (["reproduce", "stma", "--policy", "random", "--cell", "Level 9", *OUT], "stma has no cell 'Level 9'", None),
    (["reproduce", "stma", "--policy", "random", "--limit-cells", "0", *OUT], "--limit-cells: " + COUNT.format(1, 0),
     None),
    (["reproduce", "stma", "--policy", "random", "--limit-instances", "-3", *OUT],
     "--limit-instances: " + COUNT.format(1, -3), None),
    (["reproduce", "stma", "--policy", "random", "--workers", "0", *OUT], "--workers: " + COUNT.format(1, 0), None),
    (["reproduce", "text-adventure-agent", "--policy", "random", *OUT], "Jericho ROM zork1.z5 not found", "no_roms"),
    (["reproduce", "davis", "--policy", "random", "--limit-cells", "1", *OUT], "no Java runtime", "no_java"),
    (["reproduce", "arigraph-qa", "--data", "{tmp}/no-data", *OUT], "not found in {tmp}/no-data", None),
    (["reproduce", "arigraph-qa", "--demo", "--limit", "0", *OUT], "--limit: " + COUNT.format(1, 0), None),
    (["reproduce", "arigraph-qa", *OUT], "give --data DIR", None),
    # mcp, ui, serve-llm
    (["mcp", "no-such-game"], "unknown game 'no-such-game'", None),
    (["mcp", GAME, "--memory", "nope"], "--memory: unknown memory 'nope'; choose from ['arigraph'", None),
    (["mcp", GAME, "--port", "70000"], "expected a port from 0 to 65535, got '70000'", None),
    (["mcp", GAME, "--max-sessions", "0"], "--max-sessions: " + COUNT.format(1, 0), None),
    (["mcp", GAME, "--idle-timeout", "-5"], "expected a number above 0, got '-5'", None),
    (["mcp", "zork1"], "Jericho ROM zork1.z5 not found", "no_roms"),
    (["ui", "--port", "-1"], "expected a port from 0 to 65535, got '-1'", None),
    (["serve-llm", "--model", "{tmp}/model.gguf"], "no such file '{tmp}/model.gguf'", None),
    (["serve-llm", "--n-ctx", "0"], "--n-ctx: " + COUNT.format(1, 0), None),
    (["serve-llm", "--startup-timeout", "0"], "expected a number above 0", None),
]


def _no_roms(tmp: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp / "roms").mkdir()
    monkeypatch.setenv("TEXTMEM_ROMS_DIR", str(tmp / "roms"))
    monkeypatch.setenv("TEXTMEM_ROMS_URL", closed_port_url())
    monkeypatch.setenv("TEXTMEM_CACHE_DIR", str(tmp / "cache"))


def _offline(tmp: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(GAMES_DIR_ENV, raising=False)
    monkeypatch.setenv(GAMES_URL_ENV, closed_port_url())
    monkeypatch.setenv("TEXTMEM_CACHE_DIR", str(tmp / "cache"))


def _no_java(tmp: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("JAVA_HOME", raising=False)
    monkeypatch.setenv("PATH", str(tmp / "no-programs-here"))


def _bad_cache(tmp: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TEXTMEM_CACHE_DIR", str(tmp / "existing.jsonl" / "cache"))  # below a file: no folder


#: Setting name -> what it changes for one case.
SETTINGS = {"no_roms": _no_roms, "offline": _offline, "no_java": _no_java, "bad_cache": _bad_cache}


def _case_id(case: tuple[list[str], str, str | None]) -> str:
    argv, _, setting = case
    return " ".join(argv)[:60] + (f" [{setting}]" if setting else "")


@pytest.mark.parametrize("argv, expected, setting", CASES, ids=[_case_id(c) for c in CASES])
def test_bad_input_is_one_line_and_exit_status_2(argv, expected, setting, tmp_path, monkeypatch, capsys):
    (tmp_path / "existing.jsonl").write_text("")
    if setting:
        SETTINGS[setting](tmp_path, monkeypatch)
    before = sorted(tmp_path.rglob("*"))
    status = main([arg.format(tmp=tmp_path) for arg in argv])
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert status == 2, captured
    assert len(lines) == 1 and lines[0].startswith("textmem-gym: error: "), captured.err
    assert expected.format(tmp=tmp_path) in lines[0]
    assert "Traceback" not in captured.err + captured.out
    written = [p for p in sorted(tmp_path.rglob("*")) if p not in before and "cache" not in p.parts]
    assert written == [], "nothing is written on bad input"


def test_the_console_command_prints_the_same_line_and_no_traceback(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "textmem_gym.cli", "replay", str(tmp_path / "missing.jsonl")],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr == f"textmem-gym: error: replay: argument trajectory: no such file " \
                          f"'{tmp_path / 'missing.jsonl'}' (see `textmem-gym replay --help`)\n"


def test_version(capsys):
    from textmem_gym import __version__

    with pytest.raises(SystemExit) as done:
        main(["--version"])
    assert done.value.code == 0
    assert capsys.readouterr().out == f"textmem-gym {__version__}\n"


def test_an_unwritable_cache_is_one_line_from_the_console_command(tmp_path):
    """The issue's case: a cache folder where nothing can be made (a 48-line traceback before)."""
    blocker = tmp_path / "file"
    blocker.write_text("")
    proc = subprocess.run([sys.executable, "-m", "textmem_gym.cli", "eval", GAME, "--policy", "random",
                           "--max-steps", "2", "--quiet", "--out", str(tmp_path / "r.jsonl")], cwd=ROOT,
                          capture_output=True, text=True, timeout=300,
                          env={**os.environ, "TEXTMEM_CACHE_DIR": str(blocker / "tm")})
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr == (f"textmem-gym: error: cannot use the cache folder {blocker / 'tm' / 'games'}: Not a "
                           f"directory (TEXTMEM_CACHE_DIR={blocker / 'tm'}; it must be a folder textmem_gym can "
                           "write)\n")
    assert not (tmp_path / "r.jsonl").exists()


@pytest.fixture(scope="module")
def trajectories(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One recorded episode (four walkthrough steps) for the probe cases."""
    folder = tmp_path_factory.mktemp("trajectories")
    assert main(["eval", GAME, "--policy", "walkthrough", "--max-steps", "4", "--quiet",
                 "--trajectories", str(folder)]) == 0
    return folder


@pytest.mark.parametrize("argv", [
    ["probe", "{trajectories}", "--memory", "bm25", "--recall-only"],
    ["memory-bench", "--memories", "bm25", "--trajectories", "twx-coin-short", "--budgets", "256"],
], ids=["probe", "memory-bench"])
def test_a_memory_option_it_does_not_take_is_one_line_listing_those_it_takes(argv, trajectories, capsys):
    """``--memory-options '{"bm25": {"kk": 1}}'`` (a 29-line traceback before), as ``--policy-arg foo=1`` is."""
    status = main([arg.format(trajectories=trajectories) for arg in argv]
                  + ["--memory-options", '{"bm25": {"kk": 1}}'])
    lines = capsys.readouterr().err.strip().splitlines()
    assert status == 2 and len(lines) == 1, lines
    assert lines[0].startswith("textmem-gym: error: memory 'bm25' ") and "'kk'" in lines[0]
    assert "k1" in lines[0] and "b" in lines[0]  # the options it takes


def test_make_memory_names_the_options_a_memory_takes():
    from textmem_gym.memory import make_memory

    with pytest.raises(ValueError, match=r"^memory 'bm25' does not accept 'kk'; it accepts: \['k1', 'b'"):
        make_memory("bm25", kk=1)
