"""The training scripts' command line (``python -m baselines_rl.ppo``, ``... .dqn``) in a new user's
first hour: a progress bar while training (they used to print nothing until the end), and an
unwritable ``--out-dir`` as one line before any env is made (it used to be a traceback)."""

from __future__ import annotations

import re

from baselines_rl import dqn, ppo

TINY = ["--env-id", "TextMem/CookingRL-L1-v0", "--total-timesteps", "64", "--n-envs", "1", "--max-episode-steps", "8",
        "--eval-freq", "0", "--eval-episodes", "0", "--no-subprocess"]


def test_ppo_training_shows_a_progress_bar_on_stderr(tmp_path, capfd):
    assert ppo.main([*TINY, "--n-steps", "32", "--batch-size", "32", "--n-epochs", "1", "--out-dir", str(tmp_path)]) == 0
    captured = capfd.readouterr()
    assert re.search(r"training: 100%.*\| 64/64 \[", captured.err), captured.err
    assert captured.out.startswith(f"saved {tmp_path / 'model.zip'}")


def test_an_unwritable_out_dir_is_one_line_and_exit_2_before_training(tmp_path, capsys):
    blocked = tmp_path / "a-file"
    blocked.write_text("")
    assert dqn.main([*TINY, "--out-dir", str(blocked / "run")]) == 2
    captured = capsys.readouterr()
    assert captured.err.splitlines() == [
        f"python -m baselines_rl.dqn: error: cannot write folder {blocked / 'run'}: {blocked} is a file"]
    assert captured.out == ""
