"""``--env-arg`` / ``--policy-arg`` mistakes: one line naming the bad key, exit status 2, no traceback.

Every check runs before an env or a policy is built, so these commands end at once.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from textmem_gym.cli import main
from textmem_gym.cli.arguments import check_env_kwargs, check_policy_kwargs, parse_pairs

ENV_ID = "TextMem/CookingRL-L1-v0"


def cli(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "textmem_gym.cli", *argv], capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, timeout=120)


def assert_one_line_error(proc: subprocess.CompletedProcess[str], *named: str) -> None:
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    lines = [line for line in proc.stderr.splitlines() if line.startswith("textmem-gym: error:")]
    assert len(lines) == 1, proc.stderr
    for text in named:
        assert text in lines[0]


@pytest.mark.parametrize("argv, named", [
    (("eval", ENV_ID, "--policy", "random", "--env-arg", "nosuchkey=1", "--max-steps", "2", "--quiet"),
     ("'nosuchkey'", "it accepts:", "'generator_options'", "'max_episode_steps'")),
    (("eval", ENV_ID, "--policy", "ariadne", "--policy-arg", "nosuchkey=1", "--quiet"),
     ("policy 'ariadne' does not accept 'nosuchkey'", "'top_k'", "'timeout'")),
    (("eval", ENV_ID, "--policy", "explorer", "--policy-arg", "top_k=abc", "--quiet"),
     ("'top_k'", "'memory'")),
    (("eval", ENV_ID, "--policy", "random", "--env-arg", "generator_options=5", "--quiet"),
     ("--env-arg generator_options=5", "expects generator_options as Mapping")),
    (("play", ENV_ID, "--env-arg", "nosuchkey=1"), ("'nosuchkey'",)),
    (("play", ENV_ID, "--env-arg", "nosuchkey"), ("expected KEY=VALUE, got 'nosuchkey'",)),
    (("mcp", ENV_ID, "--env-arg", "max_episode_steps=abc"), ("--env-arg max_episode_steps=abc", "int | None")),
    (("reproduce", "arigraph", "--policy", "ariadne", "--policy-arg", "top_k=abc"),
     ("--policy-arg top_k=abc", "expects top_k as int")),
])
def test_bad_env_and_policy_arguments_are_one_clear_line(argv, named):
    assert_one_line_error(cli(*argv), *named)


def test_checks_keep_good_arguments_and_text_typed_as_a_number():
    assert check_env_kwargs(ENV_ID, parse_pairs(["objective=42", "max_episode_steps=3"])) == {
        "objective": "42", "max_episode_steps": 3}
    assert check_env_kwargs(ENV_ID, {"privileged": ["walkthrough"]}) == {"privileged": ["walkthrough"]}
    assert check_policy_kwargs("ariadne", {"top_k": 3, "timeout": 30, "cache_path": "c.db"}) == {
        "top_k": 3, "timeout": 30, "cache_path": "c.db"}
    with pytest.raises(ValueError, match="policy 'random' does not accept 'sead'"):
        check_policy_kwargs("random", {"sead": 1})


def test_good_env_arguments_still_play(capsys):
    assert main(["eval", ENV_ID, "--policy", "random", "--env-arg", "max_episode_steps=2", "--quiet"]) == 0
    assert ENV_ID in capsys.readouterr().out
