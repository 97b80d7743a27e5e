"""``--strict`` goes to the policies that can fall back; the others play as usual, with a note."""

from __future__ import annotations

import pytest

from textmem_gym.cli import main
from textmem_gym.results import ResultsFile

GAME = "TextMem/CookingRL-L1-v0"


@pytest.mark.parametrize("policy", ["random", "explorer"])
def test_strict_is_a_noted_no_op_for_a_policy_without_fallbacks(policy, tmp_path, capsys):
    out = tmp_path / "r.jsonl"
    assert main(["eval", GAME, "--policy", policy, "--strict", "--max-steps", "3", "--out", str(out), "--quiet"]) == 0
    captured = capsys.readouterr()
    assert f"--strict has no effect on policy {policy!r}" in captured.err and "fallbacks" in captured.err
    (row,) = ResultsFile(out).read()
    assert row["steps"] == 3 and "error" not in row and "strict" not in row["policy_config"]


def test_strict_still_reaches_an_llm_policy(tmp_path, capsys):
    from textmem_gym.llm import LocalOpenAIServer

    out = tmp_path / "r.jsonl"
    with LocalOpenAIServer(responder=lambda messages: "I am not sure.") as server:
        assert main(["eval", GAME, "--policy", "react", "--model", "m", "--base-url", server.base_url, "--strict",
                     "--structured-output", "off", "--max-steps", "3", "--out", str(out), "--quiet"]) == 0
    assert "no effect" not in capsys.readouterr().err
    (row,) = ResultsFile(out).read()
    assert row["policy_config"]["strict"] is True and row["error"]["step"] == 1 and row["steps"] == 0
