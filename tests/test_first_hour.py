"""The first hour of a new user, without tracebacks (issue 32, "The first hour, fixed").

Each test stands for one finding of that issue and failed before the fix:

- an unwritable output (``--out``, ``--trajectories``, ``report -o``, ``reproduce --out``,
  ``ui --runs-dir``) ends the command with one line and exit 2 before any work, also for a real
  read-only folder;
- Ctrl-C (a real SIGINT sent to a real ``eval``) prints one line saying what is recorded, exit 130;
- resume says what it skips, ``--overwrite`` plays this run's episodes again;
- malformed results lines are counted, a file without rows exits 2, a JSON line that is not a
  row is reported (``summary`` and ``report``);
- a closed pipe ends ``list``, ``summary`` and ``replay`` quietly;
- a game being generated says so on stderr;
- ``list`` takes a filter, ``summary`` several files, ``eval`` without ``--out`` says nothing is kept;
- ``info["score"]`` is a float, as the info table says.

The RL progress bar is tested in ``tests/baselines_rl/test_scripts.py``, the endpoint without a
model list in ``tests/llm/test_fail_fast.py``.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import gymnasium as gym
import pytest

from textmem_gym.cli import main
from textmem_gym.paths import CACHE_ENV, OutputNotWritable
from textmem_gym.results import ResultsFile
from textmem_gym.runner import EvalConfig, evaluate

ROOT = Path(__file__).resolve().parents[1]
GAME = "TextMem/CookingRL-L1-v0"
CLI = [sys.executable, "-m", "textmem_gym.cli"]
INTERRUPTED = re.compile(r"^interrupted: (\d+) of (\d+) episodes recorded in (.+); run the same command to resume$")


def eval_args(out: Path, *more: str, episodes: int = 2) -> list[str]:
    return ["eval", GAME, "--policy", "random", "--episodes", str(episodes), "--max-steps", "2", "--out", str(out),
            "--quiet", *more]


def one_error_line(capsys: pytest.CaptureFixture[str]) -> str:
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and captured.out == "", captured
    return lines[0]


# -- outputs are checked before any work ------------------------------------------------------------
@pytest.mark.parametrize("command", [
    ["eval", GAME, "--policy", "random", "--out", "{blocked}/r.jsonl"],
    ["eval", GAME, "--policy", "random", "--trajectories", "{blocked}/trajectories"],
    ["report", "{results}", "-o", "{blocked}/report.html"],
    ["reproduce", "stma", "--policy", "random", "--out", "{blocked}/r.jsonl"],
    ["ui", "--runs-dir", "{blocked}/runs"],
])
def test_an_unwritable_output_is_one_line_and_exit_2_before_any_work(command, tmp_path, capsys):
    blocked = tmp_path / "a-file"  # a file where a folder should be: nobody can write below it
    blocked.write_text("")
    results = tmp_path / "results.jsonl"
    ResultsFile(results).append({"env_id": GAME, "policy": "p", "seed": 0, "episode": 0, "normalized_score": 0.0,
                                 "won": False, "steps": 1})
    argv = [a.format(blocked=blocked, results=results) for a in command]
    assert main(argv) == 2
    line = one_error_line(capsys)
    assert line.startswith("textmem-gym: error: ") and "cannot write" in line and str(blocked) in line
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a-file", "results.jsonl"]  # no .lock left either


def test_evaluate_checks_its_outputs_before_the_first_episode(tmp_path):
    class Counting:
        acts = 0

        def act(self, observation, info):
            Counting.acts += 1
            return "look"

    (tmp_path / "a-file").write_text("")
    with pytest.raises(OutputNotWritable, match="cannot write file .*a-file/r.jsonl"):
        evaluate(GAME, Counting(), EvalConfig(max_steps=2, out=tmp_path / "a-file" / "r.jsonl"))
    assert Counting.acts == 0


def _read_only(folder: Path, command: list[str]) -> list[str]:
    """``command`` run where ``folder`` cannot be written: mode 0555, or for root (whom modes do not
    stop) a read-only bind mount of it in a mount namespace of the command's own."""
    folder.chmod(0o555)
    if os.geteuid() != 0:
        return command
    wrapper = ["unshare", "--mount", "sh", "-c", 'mount --bind -o ro "$0" "$0" && exec "$@"', str(folder)]
    if subprocess.run([*wrapper, "true"], capture_output=True).returncode != 0:
        pytest.skip("root without a mount namespace: no folder is read-only to this process")
    return [*wrapper, *command]


def test_a_read_only_output_folder_ends_a_real_eval_before_any_episode(tmp_path):
    read_only = tmp_path / "read-only"
    read_only.mkdir()
    out = read_only / "r.jsonl"
    proc = subprocess.run(_read_only(read_only, [*CLI, *eval_args(out, "--trajectories", str(tmp_path / "t"))]),
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 2, proc.stderr
    assert re.fullmatch(f"textmem-gym: error: eval: argument --out: cannot write file {re.escape(str(out))}: "
                        r"(Permission denied|Read-only file system) \(see `textmem-gym eval --help`\)\n", proc.stderr)
    assert proc.stdout == "" and list(read_only.iterdir()) == [] and not (tmp_path / "t").exists()


# -- Ctrl-C ---------------------------------------------------------------------------------------------
def _wait_for_rows(path: Path, rows: int, proc: subprocess.Popen[str], timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    while not (path.exists() and path.read_text().count("\n") >= rows):
        assert proc.poll() is None and time.monotonic() < deadline, "eval ended before it was interrupted"
        time.sleep(0.05)


def _interrupt(command: list[str], out: Path, rows: int) -> tuple[int, str]:
    proc = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        _wait_for_rows(out, rows, proc)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return proc.returncode, err


def test_ctrl_c_during_eval_is_one_line_exit_130_and_the_same_command_resumes(tmp_path):
    out = tmp_path / "r.jsonl"
    command = [*CLI, *eval_args(out, episodes=100_000)]
    status, err = _interrupt(command, out, rows=1)
    match = INTERRUPTED.match(err.strip())
    assert status == 130 and len(err.strip().splitlines()) == 1 and match, err
    recorded = int(match.group(1))
    assert recorded >= 1 and match.group(2) == "100000" and match.group(3) == str(out)
    assert len(ResultsFile(out).read()) == recorded

    status, err = _interrupt(command, out, rows=recorded + 1)  # the same command again
    lines = err.strip().splitlines()
    assert status == 130 and len(lines) == 2, err
    assert lines[0].startswith(f"skipped {recorded} finished episodes (of 100000 planned) already recorded in {out}")
    again = INTERRUPTED.match(lines[1])
    assert again and int(again.group(1)) > recorded and int(again.group(1)) == len(ResultsFile(out).read())


# -- resume and --overwrite -----------------------------------------------------------------------------
def test_resume_says_what_it_skips_and_overwrite_plays_again(tmp_path, capsys):
    out = tmp_path / "r.jsonl"
    other = {"env_id": GAME, "policy": "someone-else", "seed": 0, "episode": 0, "normalized_score": 1.0,
             "won": True, "steps": 4}
    ResultsFile(out).append(other)
    assert main(eval_args(out)) == 0
    assert capsys.readouterr().err == ""
    assert main(eval_args(out, episodes=3)) == 0
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"skipped 2 finished episodes (of 3 planned) already recorded in {out} with the same ids, policy, "
                   "configuration and seeds; --overwrite plays them again"]
    first = ResultsFile(out).read()
    assert main(eval_args(out, "--overwrite", episodes=3)) == 0
    assert capsys.readouterr().err.strip().splitlines() == [
        f"overwrite: dropped 3 finished episodes of this run from {out}; playing them again"]
    rows = ResultsFile(out).read()
    assert len(rows) == 4 and rows[0] == other  # the other run's row stays; no episode twice
    assert sorted(r["seed"] for r in rows[1:]) == [0, 1, 2] and rows[1:] != first[1:]  # new rows (new times)


# -- malformed results files ----------------------------------------------------------------------------
def _results_with_bad_lines(tmp_path: Path) -> Path:
    path = tmp_path / "mixed.jsonl"
    good = {"env_id": GAME, "policy": "random", "seed": 0, "episode": 0, "normalized_score": 0.5, "won": False,
            "steps": 3}
    path.write_text("\n".join([json.dumps(good), "{not json", json.dumps({"note": "a JSON line, not a row"}),
                               json.dumps([1, 2]), json.dumps({**good, "seed": 1, "episode": 1})]) + "\n")
    return path


@pytest.mark.parametrize("command", [["summary"], ["report", "-o", "{tmp}/report.html"]])
def test_malformed_lines_are_counted_and_a_file_without_rows_exits_2(command, tmp_path, capsys):
    argv = [a.format(tmp=tmp_path) for a in command]
    mixed = _results_with_bad_lines(tmp_path)
    assert main([*argv, str(mixed)]) == 0
    captured = capsys.readouterr()
    assert captured.err.splitlines() == [
        f"textmem-gym: warning: {mixed}: skipped 3 malformed lines (1 not JSON: line 2; 2 JSON but not a results "
        "row: lines 3, 4)"]
    assert f"| {GAME} | random | 2 | 0.500 ± 0.000 |" in captured.out

    nothing = tmp_path / "nothing.jsonl"
    nothing.write_text('{"note": "not a row"}\nnot json\n')
    assert main([*argv, str(nothing)]) == 2
    assert one_error_line(capsys) == (f"textmem-gym: error: {nothing} holds no results row: only 2 malformed lines "
                                      "(1 not JSON: line 2; 1 JSON but not a results row: line 1)")
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    assert main([*argv, str(empty)]) == 2
    assert one_error_line(capsys) == f"textmem-gym: error: {empty} holds no results row: it is empty"


# -- closed pipes ---------------------------------------------------------------------------------------
def test_a_closed_pipe_ends_list_summary_and_replay_quietly(tmp_path, capsys):
    out, trajectories = tmp_path / "r.jsonl", tmp_path / "trajectories"
    assert main(eval_args(out, "--trajectories", str(trajectories))) == 0
    capsys.readouterr()
    trajectory = next(trajectories.iterdir())
    started = []
    for command in (["list"], ["summary", str(out)], ["replay", str(trajectory)]):
        read_end, write_end = os.pipe()
        os.close(read_end)  # the reader is gone before the first line, as `| head` after its lines
        started.append(subprocess.Popen([*CLI, *command], cwd=ROOT, stdout=write_end, stderr=subprocess.PIPE,
                                        text=True))
        os.close(write_end)
    for proc in started:
        _, err = proc.communicate(timeout=300)
        assert (proc.returncode, err) == (141, ""), proc.args


def test_list_head_in_a_shell_shows_no_traceback():
    proc = subprocess.run(f"{sys.executable} -m textmem_gym.cli list | head -n 1", shell=True, cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    assert proc.stdout == "Environments:\n" and proc.stderr == ""


# -- long silent waits -----------------------------------------------------------------------------------
@pytest.mark.slow
def test_generating_a_game_says_so_once(tmp_path, monkeypatch, capfd):
    monkeypatch.setenv(CACHE_ENV, str(tmp_path))
    gym.make(GAME).close()
    err = capfd.readouterr().err
    assert re.fullmatch(r"generating game tw-cooking seed 57137 .*\.\.\. \(first use, cached afterwards in .+\)\n",
                        err), err
    gym.make(GAME).close()
    assert capfd.readouterr().err == ""


# -- list, summary, eval without --out ---------------------------------------------------------------------
def test_list_takes_words_that_every_shown_line_holds(capsys):
    assert main(["list", "cooking", "HARD"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "Environments:" and "Policies:" not in lines
    shown = [line.split()[0] for line in lines[1:]]
    assert "TextMem/Cooking-Hard-v0" in shown and "TextMem/Cooking-v0" not in shown
    assert all("cooking" in line.lower() and "hard" in line.lower() for line in lines[1:])
    assert main(["list", "random"]) == 0
    assert "  random " in capsys.readouterr().out
    assert main(["list", "no-such-word"]) == 2
    assert "no id or policy matches 'no-such-word'" in one_error_line(capsys)


def test_summary_takes_several_files_and_counts_an_episode_once(tmp_path, capsys):
    first, second = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    assert main(eval_args(first)) == 0
    assert main(eval_args(second, episodes=3)) == 0  # seeds 0 and 1 again, plus seed 2
    capsys.readouterr()
    assert main(["summary", str(first), str(second)]) == 0
    assert f"| {GAME} | random | 3 |" in capsys.readouterr().out


def test_eval_without_out_says_that_nothing_is_kept(capsys):
    assert main(["eval", GAME, "--policy", "random", "--max-steps", "1", "--quiet"]) == 0
    captured = capsys.readouterr()
    assert captured.err.splitlines() == [
        "note: no --out given: results are printed, not kept (give --out FILE to keep and resume them)"]
    assert f"| {GAME} | random | 1 |" in captured.out


# -- the info table's types ---------------------------------------------------------------------------------
def test_score_and_max_score_are_floats_as_the_info_table_says():
    env = gym.make(GAME)
    try:
        _, info = env.reset(seed=0)
        infos = [info, env.step("look")[4]]
    finally:
        env.close()
    for info in infos:
        assert type(info["score"]) is float and type(info["max_score"]) is float, info


def test_check_writable_leaves_nothing_behind(tmp_path):
    from textmem_gym.paths import check_writable

    check_writable(tmp_path / "new" / "deeper" / "r.jsonl")
    check_writable(tmp_path / "trajectories", folder=True)
    assert list(tmp_path.iterdir()) == []
    (tmp_path / "r.jsonl").write_text("kept\n")
    check_writable(tmp_path / "r.jsonl")
    assert (tmp_path / "r.jsonl").read_text() == "kept\n"
    with pytest.raises(OutputNotWritable, match="it is a file"):
        check_writable(tmp_path / "r.jsonl", folder=True)
