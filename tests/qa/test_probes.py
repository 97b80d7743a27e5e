"""Memory probes end to end on a real won Cooking episode: the walkthrough played through the runner
with a trajectory, replayed in the real TextWorld env with privileged facts, questions generated from
the facts, every memory asked through the real local OpenAI-compatible server answering by rule
(textmem_gym.qa.probes.testing.ProbeReader), structurally and by answer recall; a memory of two
methods probed as an object and as ``module:Class``. ``real_llm``: SmolLM2 on llama.cpp."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from textmem_gym.cli import main
from textmem_gym.cli.probe import recorded_episode
from textmem_gym.llm import LocalOpenAIServer
from textmem_gym.memory.budget import fit_budget
from textmem_gym.memory.registry import available_memories
from textmem_gym.qa.probes import (
    ProbeConfig,
    RecordedEpisode,
    ReplayMismatch,
    build_timeline,
    generate_questions,
    probe_episode,
    replay_episode,
)
from textmem_gym.qa.probes.run import format_probe_tables, probe_key
from textmem_gym.qa.probes.testing import ProbeReader
from textmem_gym.runner import EvalConfig, evaluate

GAME = "TextMem/Cooking-v0"
STEPS = (10, 20, "end")
MEMORIES = ["arigraph", "stma", "davis", "summary", "full-history", "oracle"]
OLD_KINDS = {"location", "contents", "path", "actions", "changes", "recipe"}


class Notes:
    """A memory of two methods: the observations, those sharing a word with the question first."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.keys: set[str] = set()

    def update(self, observation: str, action: str, info: dict[str, Any]) -> None:
        self.lines.append(" ".join(observation.split()))
        self.keys |= set(info)

    def context(self, question: str, budget: int) -> list[str]:
        words = set(question.lower().rstrip("?").split()[3:])
        ranked = sorted(self.lines[::-1], key=lambda line: not words & set(line.lower().split()))
        return fit_budget(ranked, budget)


@pytest.fixture(scope="module")
def trajectory(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A won walkthrough episode of Cooking-v0 recorded by the runner."""
    folder = tmp_path_factory.mktemp("probe")
    row = evaluate(GAME, "walkthrough", EvalConfig(out=folder / "runs.jsonl", trajectories=folder / "t"))[0]
    assert row["won"] and row["steps"] > 20
    return Path(row["trajectory"])


@pytest.fixture(scope="module")
def episode(trajectory: Path) -> RecordedEpisode:
    return recorded_episode(trajectory)


@pytest.fixture(scope="module")
def questions(episode: RecordedEpisode) -> list:
    timeline = build_timeline(replay_episode(episode))
    return generate_questions(timeline, ProbeConfig(steps=STEPS).resolve_steps(episode.decisions))


def read_rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def probe_through_stand_in(episode, questions, memories, out=None, **config):
    reader = ProbeReader(questions)
    with LocalOpenAIServer(reader) as server:
        settings = ProbeConfig(steps=STEPS, llm={"model": "stand-in", "base_url": server.base_url}, **config)
        return probe_episode(episode, memories, settings, out=out), reader


def test_replay_gives_memories_no_privileged_key_and_keeps_the_facts_apart(episode):
    replay = replay_episode(episode)
    assert len([s for s in replay.steps if s.last]) == episode.decisions + 1
    assert all("facts" not in s.info and "walkthrough" not in s.info for s in replay.steps)
    assert all(s.facts for s in replay.steps) and replay.steps[-1].info["won"]
    assert [s.observation for s in replay.steps if s.last] == list(episode.observations)


def test_questions_are_deterministic_seeded_and_about_what_was_seen(episode, questions):
    again = generate_questions(build_timeline(replay_episode(episode)), [10, 20, episode.decisions])
    assert again == questions
    kinds = {q.kind for q in questions}
    assert kinds == OLD_KINDS | {"state-history", "counting", "abstention", "two-hop"}  # no step is 200 steps on
    other_seed = generate_questions(build_timeline(replay_episode(episode)), [10, 20, episode.decisions], seed=1)
    assert [q.id for q in other_seed] != [q.id for q in questions]  # more candidates than 5: the draw moves
    seen_by = {step: "\n".join(episode.observations[: step + 1]).lower() for step in (10, 20, episode.decisions)}
    for question in questions:
        if question.kind == "location":
            assert question.args["thing"] in seen_by[question.step]  # never asked about an unseen thing
            assert question.question.startswith(f"At step {question.step}: Where is the ")
    recipe = [q for q in questions if q.kind == "recipe"]
    assert recipe and recipe[0].answers[0] == "green bell pepper, orange bell pepper, yellow potato"
    early = generate_questions(build_timeline(replay_episode(episode)), [1], kinds=["recipe"])
    assert early == []  # the cookbook is read at step 3: no recipe question before


def test_oracle_scores_em_1_on_location_structurally_and_through_the_stand_in(episode, questions):
    rows, reader = probe_through_stand_in(episode, questions, MEMORIES)
    location = [r for r in rows if r["memory"] == "oracle" and r["question_kind"] == "location"]
    modes = {mode: [r["em"] for r in location if r["answer_mode"] == mode] for mode in ("llm", "structural")}
    assert len(modes["llm"]) == len(modes["structural"]) >= 10
    assert modes["llm"] == [1.0] * len(modes["llm"]) and modes["structural"] == [1.0] * len(modes["structural"])
    assert {r["memory"] for r in rows} == set(MEMORIES)
    llm_rows = [r for r in rows if r["answer_mode"] == "llm"]
    assert all(r["calls"] == 1 and r["prompt_tokens"] > 0 and r["config"]["budget"] == 2048 for r in llm_rows)
    assert len(llm_rows) == len(questions) * len(MEMORIES)  # the same questions for every memory
    structural = {r["memory"] for r in rows if r["answer_mode"] == "structural" and r["offered"]}
    assert structural == {"arigraph", "stma", "davis", "oracle"}  # memories with beliefs
    assert all(r["em"] is None for r in rows if r["answer_mode"] == "structural" and not r["offered"])
    recall = [r for r in rows if r["answer_mode"] == "recall"]
    assert len(recall) == len(questions) * len(MEMORIES)
    assert all(set(r["answer_recall"]) == {"256", "512", "1024", "2048"} for r in rows)
    oracle_location = [r["answer_recall"]["2048"] for r in recall if r["memory"] == "oracle"
                       and r["question_kind"] == "location"]
    assert oracle_location == [True] * len(oracle_location)
    summary = [r for r in rows if r["memory"] == "summary"]
    assert reader.summaries == len(replay_episode(episode).steps)  # one update per primitive step
    assert all(r["memory_prompt_tokens"] > 0 for r in summary)
    assert all(r["episode_score"] == 1.0 and r["episode_won"] for r in rows)


def test_one_budget_for_every_memory_trims_the_long_contexts_and_counts_it(episode, questions):
    asked = [q for q in questions if q.kind == "location"]
    rows, _ = probe_through_stand_in(episode, asked, ["full-history", "arigraph"], budget=300,
                                     kinds=("location",), answers=("llm",))
    history = [r for r in rows if r["memory"] == "full-history"]
    assert history and all(r["detail"]["context_trims"]["texts"] > 0 for r in history)
    assert all(r["prompt_tokens"] <= 300 + 40 for r in rows)  # fitted (estimated counts err on the long side)


def test_resume_writes_nothing_twice(episode, questions, tmp_path):
    out = tmp_path / "probes.jsonl"
    first, _ = probe_through_stand_in(episode, questions, ["arigraph", "oracle"], out=out)
    lines = out.read_text().splitlines()
    out.write_text("\n".join(lines[: len(lines) // 2]) + "\n")  # a run cut off halfway
    second, reader = probe_through_stand_in(episode, questions, ["arigraph", "oracle"], out=out)
    rows = read_rows(out)
    assert len(rows) == len(first) == len(second) and len({probe_key(r) for r in rows}) == len(rows)
    third, reader = probe_through_stand_in(episode, questions, ["arigraph", "oracle"], out=out)
    assert len(read_rows(out)) == len(rows) and not reader.reader.prompts  # nothing asked again


def test_a_replay_that_differs_from_the_recording_names_the_step(trajectory, tmp_path, capsys):
    lines = trajectory.read_text().splitlines()
    records = [json.loads(line) for line in lines]
    changed = next(r for r in records if r.get("type") == "step" and r["step"] == 7)
    changed["observation"] = "Something else happened."
    broken = tmp_path / "broken.jsonl"
    broken.write_text("".join(json.dumps(r) + "\n" for r in records))
    with pytest.raises(ReplayMismatch, match="step 7 replays differently"):
        replay_episode(recorded_episode(broken))
    assert main(["probe", str(broken), "--memory", "oracle", "--structural"]) == 2
    error = capsys.readouterr().err.strip()
    assert len(error.splitlines()) == 1 and "step 7 replays differently" in error


def test_cli_probes_a_folder_and_bad_input_is_one_line_and_exit_2(trajectory, questions, tmp_path, capsys):
    out = tmp_path / "probes.jsonl"
    with LocalOpenAIServer(ProbeReader(questions)) as server:
        code = main(["probe", str(trajectory.parent), "--memory", "oracle,arigraph", "--steps", "10,20,end",
                     "--structural", "--model", "stand-in", "--base-url", server.base_url, "--out", str(out)])
    assert code == 0
    text = capsys.readouterr().out
    assert "normalized score 1.000, won True" in text and "| oracle | structural |" in text and "| arigraph | llm |" in text
    assert {r["memory"] for r in read_rows(out)} == {"arigraph", "oracle"}
    assert text.index("| oracle | all |") < text.index("| arigraph | all |")  # the order given, not alphabetical
    assert text.index("| oracle | llm |") < text.index("| arigraph | llm |")
    assert "FM@256 | FM@512 | FM@1024 | FM@2048 | structural EM |" in text
    assert "R@B: answer recall" in text and "structural EM:" in text and "n: questions" in text and "-: " in text
    written = read_rows(out)
    for row in written:  # what the memory returned: tokens at each budget, lines once per question
        assert set(row["first_mention"]) == set(row["context_tokens"]) == set(row["answer_recall"])
        assert ("context" in row) == (row["answer_mode"] == "recall")
    shown = [r for r in written if r["answer_mode"] == "recall" and r["memory"] == "oracle"]
    assert all(r["context"] and sum(len(line) for line in r["context"]) <= 4 * 2048 for r in shown)
    assert any(r["context_tokens"]["256"] > 0 for r in shown)
    page = tmp_path / "report.html"
    assert main(["report", str(trajectory.parent.parent / "runs.jsonl"), str(out), "-o", str(page)]) == 0
    printed, html = capsys.readouterr().out, page.read_text()
    assert "| TextMem/Cooking-v0 | walkthrough | 1 |" in printed and "| oracle | structural |" in printed
    assert '<section id="probes">' in html and "normalized score 1.000, won True" in html
    assert "<td>oracle</td><td>structural</td>" in html and "<td>100/100" in html
    assert "| oracle | location | 100 | 100 | 100 | 100 | 100 |" in text  # recall at each budget, structural EM
    for argv, message in ([["probe", str(tmp_path / "nope"), "--memory", "oracle", "--structural"], "no trajectory"],
                          [["probe", str(trajectory), "--memory", "oracle,notes", "--structural"],
                           f"unknown memory 'notes'; choose from {list(available_memories())}"],
                          [["probe", str(trajectory), "--memory", "builtins:dict"],
                           "memory 'builtins:dict' is dict, which is not a memory: it needs update"],
                          [["probe", str(trajectory), "--memory", "oracle", "--recall-only", "--structural"],
                           "--recall-only asks answer recall only"],
                          [["probe", str(trajectory), "--memory", "oracle", "--budgets", "256,x"],
                           "--budgets takes positive token counts"],
                          [["probe", str(trajectory), "--memory", "oracle", "--structural", "--steps", "10,x"],
                           "--steps takes step numbers"],
                          [["probe", str(trajectory), "--memory", "oracle", "--structural", "--steps", "999"],
                           "probe step 999 is not 'end' or a step of the episode"]):
        assert main(argv) == 2
        error = capsys.readouterr().err.strip()
        assert len(error.splitlines()) == 1 and message in error


def test_a_two_method_memory_is_probed_as_an_object_and_as_module_class(episode):
    given = Notes()
    config = ProbeConfig(steps=STEPS, answers=("recall", "structural"))
    rows = probe_episode(episode, [given, "tests.qa.test_probes:Notes", "full-history"], config)
    recall = {(r["memory"], r["step"], r["question_id"]): r["answer_recall"] for r in rows
              if r["answer_mode"] == "recall"}
    by_object = {k[1:]: v for k, v in recall.items() if k[0] == "Notes"}
    by_name = {k[1:]: v for k, v in recall.items() if k[0] == "tests.qa.test_probes:Notes"}
    assert by_object and by_object == by_name  # the same memory either way
    assert given.lines and "facts" not in given.keys and "score" in given.keys  # fed, without privileged facts
    assert 0 < sum(v["2048"] for v in by_object.values()) < len(by_object)  # it recalls some answers, not all
    notes = [r for r in rows if r["memory"] == "Notes"]
    assert all(r["offered"] is False and r["em"] is None for r in notes if r["answer_mode"] == "structural")
    assert all(r["build_ms_per_step"] > 0 and r["query_ms"] >= 0 and r["memory_prompt_tokens"] == 0 for r in notes)
    table = format_probe_tables(rows)
    assert "| Notes | structural | not offered |" in table and "| memory | kind | R@256 | R@512 |" in table
    assert "| Notes | all |" in table and "| full-history | all |" in table


def test_privileged_facts_go_only_to_a_memory_that_declares_them(episode):
    class Facts(Notes):
        privileged = frozenset({"facts"})

    class Walkthrough(Notes):
        privileged = frozenset({"walkthrough"})

    declared = Facts()
    probe_episode(episode, [declared], ProbeConfig(steps=(10,), kinds=("location",), answers=("recall",)))
    assert "facts" in declared.keys
    with pytest.raises(ValueError, match="reads privileged \\['walkthrough'\\]; a probe replay holds \\['facts'\\]"):
        probe_episode(episode, [Walkthrough()], ProbeConfig(steps=(10,), kinds=("location",), answers=("recall",)))


@pytest.mark.real_llm
def test_probe_with_smollm2(trajectory, tmp_path, capsys):
    from tests.real_model import smollm2_server

    out = tmp_path / "probes.jsonl"
    with smollm2_server() as server:
        assert main(["probe", str(trajectory), "--memory", "arigraph,full-history,oracle", "--kinds", "location",
                     "--per-kind", "2", "--structural", "--model", server.model_alias, "--base-url", server.base_url,
                     "--budget", "1024", "--max-tokens", "256", "--timeout", "600", "--out", str(out)]) == 0
    rows = read_rows(out)
    llm = [r for r in rows if r["answer_mode"] == "llm"]
    assert len(llm) == 3 * 2 and all(r["calls"] >= 1 and r["prompt_tokens"] > 0 for r in llm)
    assert all(r["fallback"] in (None, "unparseable", "llm_error", "context_overflow") for r in llm)
    assert [r["em"] for r in rows if r["memory"] == "oracle" and r["answer_mode"] == "structural"] == [1.0] * 2
    assert "| oracle | llm |" in capsys.readouterr().out
