"""``summary``, ``summary --format csv|json`` and ``report`` over one results file holding every kind of
row the library writes, each produced by really running the smallest real thing of its kind: an
``eval`` episode, a ``probe`` of its trajectory, a QA run with no model on the shipped data, a
``memory-bench`` run on its shortest trajectory, a TALES cell through the protocol runner and an RL
model played through the ``rl:PATH`` adapter."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from textmem_gym.cli import main
from textmem_gym.results import ResultsFile

GAME = "TextMem/CookingRL-L1-v0"
TALES_CELL = "TWXCoinCollector"


def _eval(folder: Path) -> Path:
    out = folder / "eval.jsonl"
    assert main(["eval", GAME, "--policy", "random", "--max-steps", "3", "--quiet", "--out", str(out),
                 "--trajectories", str(folder / "trajectories")]) == 0
    return out


def _probe(folder: Path) -> Path:
    out = folder / "probe.jsonl"
    assert main(["probe", str(folder / "trajectories"), "--memory", "full-history", "--recall-only",
                 "--budgets", "256", "--per-kind", "1", "--out", str(out)]) == 0
    return out


def _qa(folder: Path) -> Path:
    from textmem_gym.qa.data import load_dataset, shipped_data_dir
    from textmem_gym.qa.run import MethodSpec, run_methods

    out = folder / "qa.jsonl"
    examples = load_dataset("musique", shipped_data_dir())[:2]
    run_methods(examples, [MethodSpec("memory", {"memory": "full-history"})], answer=False, out=out)
    return out


def _memory_bench(folder: Path) -> Path:
    from textmem_gym.qa.bench.run import run_bench

    out = folder / "bench.jsonl"
    run_bench(["full-history", "bm25"], trajectories=["twx-coin-short"], budgets=[256], per_kind=1, out=out)
    return out


def _tales(folder: Path) -> Path:
    from textmem_gym.protocols import get_protocol
    from textmem_gym.protocols.run import plan_protocol, run_protocol

    out = folder / "tales.jsonl"
    protocol = get_protocol("tales")
    plan = plan_protocol(protocol, cells=[TALES_CELL], limit_instances=1, max_steps=4)
    run_protocol(protocol, "random", plan=plan, attempts=1, out=out)
    return out


def _rl(folder: Path) -> tuple[Path, str]:
    from baselines_rl.common import EnvSpec, make_vec_env
    from baselines_rl.ppo import PPOArgs, build_model
    from baselines_rl.storage import save_model
    from textmem_gym.runner import EvalConfig, evaluate

    spec = EnvSpec(GAME, env_kwargs={"max_episode_steps": 5})
    venv = make_vec_env(spec, n_envs=1, seed=0, subprocess=False)
    try:  # an untrained model: what is measured here is the rows, not the play
        path = save_model(build_model(PPOArgs(), venv), folder / "model", "maskable_ppo", spec)
    finally:
        venv.close()
    out = folder / "rl.jsonl"
    evaluate(GAME, f"rl:{path}", EvalConfig(max_steps=3, out=out))
    return out, f"rl:{path}"


@pytest.fixture(scope="module")
def combined(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """Every kind's rows, appended into one results file as each writer wrote them."""
    folder = tmp_path_factory.mktemp("every-kind")
    rl_file, rl_policy = _rl(folder)
    files = [_eval(folder), _probe(folder), _qa(folder), _memory_bench(folder), _tales(folder), rl_file]
    combined = folder / "combined.jsonl"
    combined.write_text("".join(path.read_text() for path in files))
    return combined, rl_policy


def test_the_file_holds_every_kind(combined):
    path, rl_policy = combined
    rows = ResultsFile(path).read()
    assert {row.get("kind") for row in rows} == {None, "probe", "qa", "memory-bench"}
    episodes = [row for row in rows if "kind" not in row]
    assert {row["policy"] for row in episodes} == {"random", rl_policy}
    assert {row["env_id"] for row in episodes} == {GAME, "TextMem/TWX-CoinCollector-v0"}  # eval + RL, TALES


def test_summary_prints_a_table_for_each_kind(combined, capsys):
    path, rl_policy = combined
    assert main(["summary", str(path)]) == 0
    out = capsys.readouterr().out
    assert f"| {GAME} | random | 1 |" in out  # eval
    assert f"| {GAME} | {rl_policy} | 1 |" in out  # RL through the adapter
    assert "| TextMem/TWX-CoinCollector-v0 | random | 1 |" in out  # TALES
    assert "| musique | memory" in out  # QA: dataset x method
    assert "full-history" in out and "R@256" in out  # probes and memory-bench
    assert "bm25" in out and "struct EM" in out  # memory-bench's own table
    assert "KeyError" not in out and "note:" not in out


def test_summary_csv_holds_every_kind_in_one_header(combined, capsys):
    path, rl_policy = combined
    assert main(["summary", str(path), "--format", "csv"]) == 0
    table = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert {row["kind"] for row in table} == {"episode", "qa", "probe", "memory-bench"}
    games = {(row["env_id"], row["policy"]) for row in table if row["kind"] == "episode"}
    assert games == {(GAME, "random"), (GAME, rl_policy), ("TextMem/TWX-CoinCollector-v0", "random")}
    bench = [row for row in table if row["kind"] == "memory-bench"]
    assert {row["memory"] for row in bench} == {"full-history", "bm25"}
    assert all(row["budget"] == "256" and 0.0 <= float(row["answer_recall"]) <= 1.0 for row in bench)
    qa = [row for row in table if row["kind"] == "qa"]
    assert len(qa) == 1 and qa[0]["n"] == "2" and json.loads(qa[0]["answer_recall"])


def test_summary_json_is_every_kinds_summary_rows(combined, capsys):
    path, _ = combined
    assert main(["summary", str(path), "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert {row["kind"] for row in rows} == {"episode", "qa", "probe", "memory-bench"}
    assert all(row["score_mean"] is not None for row in rows if row["kind"] == "episode")


def test_report_has_a_section_for_each_kind(combined, tmp_path, capsys):
    path, rl_policy = combined
    page = tmp_path / "report.html"
    assert main(["report", str(path), "-o", str(page)]) == 0
    assert f"| {GAME} | {rl_policy} | 1 |" in capsys.readouterr().out
    text = page.read_text()
    for section in ('id="summary"', 'id="qa"', 'id="probes"', 'id="memory-bench"'):
        assert section in text, section
    assert "TextMem/TWX-CoinCollector-v0" in text and "bm25" in text


def test_eval_resumes_in_a_file_holding_other_kinds(combined, capsys):
    """A results file shared by every kind still resumes its episodes (the other rows are not episodes)."""
    path, _ = combined
    copy = path.with_name("shared.jsonl")
    copy.write_text(path.read_text())
    assert main(["eval", GAME, "--policy", "random", "--max-steps", "3", "--quiet", "--out", str(copy)]) == 0
    assert "skipped 1 finished episodes" in capsys.readouterr().err
    assert copy.read_text() == path.read_text()
