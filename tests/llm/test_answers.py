"""The shared free-text answer parser over a corpus of realistic answers (tests/llm/data/answers_*.jsonl):
at least 200 per prompt kind, each with the parse its template meant (see make_answer_corpus.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from policies.davis import parse_prediction
from policies.llm_agent import answer_schema
from textmem_gym.llm.answers import clean_command, match_command, parse_answer

DATA = Path(__file__).parent / "data"
KINDS = ("decision", "reflact", "netplay", "stma_planner", "stma_critic", "planning", "exploration_check",
         "importance", "davis_world_model", "davis_actor", "davis_critic")


def corpus(kind: str) -> list[dict]:
    return [json.loads(line) for line in (DATA / f"answers_{kind}.jsonl").read_text(encoding="utf-8").splitlines()]


def parsed_as_expected(kind: str, row: dict) -> bool:
    expected, commands = row["expected"], row.get("commands") or []
    schema = answer_schema(kind, commands)
    values = parse_answer(row["answer"], schema).values
    if kind in ("decision", "reflact"):
        field = "action_to_take" if kind == "decision" else "action"
        return field in values and match_command(values[field], commands) == (expected["action"], "exact")
    if kind == "netplay":
        return clean_command(values.get("skill", "")) == expected["skill"]
    if kind == "stma_planner":
        plan = [match_command(a, commands)[0] for a in values.get("action_plan") or []]
        return plan == expected["action_plan"] and str(values.get("subgoal", "")).strip('"') == expected["subgoal"]
    if kind == "planning":
        steps = values.get("plan_steps") or []
        first = steps[0] if steps else None
        text = next(iter(first.values())) if isinstance(first, dict) else first
        return len(steps) == expected["steps"] and text == expected["first"]
    if kind == "davis_world_model":
        found, value = parse_prediction(row["answer"])
        return found == expected["kind"] and (value if found == "question" else value.action) == expected["value"]
    if kind == "davis_actor":
        return [r["command"] for r in values.get("commands") or []] == expected["commands"]
    return all(values.get(name) == value for name, value in expected.items())


@pytest.mark.parametrize("kind", KINDS)
def test_the_parser_reads_every_answer_of_the_corpus(kind):
    rows = corpus(kind)
    assert len(rows) >= 200
    wrong = [row["answer"] for row in rows if not parsed_as_expected(kind, row)]
    assert not wrong, f"{len(wrong)} of {len(rows)} misread, e.g. {wrong[:3]}"


def test_a_cut_off_decision_gives_its_action_not_its_reason():
    schema = answer_schema("decision")
    answer = '{"reason_for_action": "x", "action_to_take": "go to kitchen"'
    assert parse_answer(answer, schema).get("action_to_take") == "go to kitchen"


def test_stma_reads_numbered_plans_and_commands_with_articles():
    commands = ["take knife from counter", "chop carrot with knife", "go east"]
    values = parse_answer('Subgoal: cut\nAction Plan:\n1. "take the knife"\n2. chop the carrot with the knife.',
                          answer_schema("stma_planner", commands)).values
    assert [match_command(a, commands) for a in values["action_plan"]] == [
        ("take knife from counter", "completed"), ("chop carrot with knife", "exact")]


def test_nothing_readable_is_reported_missing():
    assert parse_answer("I am not sure what to do.", answer_schema("stma_critic")).missing == ("action_suitability",
                                                                                               "feedback")
    assert not parse_answer(None, answer_schema("decision")).ok


# -- answers recorded from the real model ------------------------------------------------------
# tests/llm/data/real_answers_<kind>.jsonl hold SmolLM2-135M-Instruct's own answers (recorded by
# record_real_answers.py), each labelled by a person: the parse it should get (same shape as the
# corpus), or {"unreadable": true} when the answer names nothing usable, so the policy must count
# a fallback instead of acting on it.


def real_answers(kind: str) -> list[dict]:
    path = DATA / f"real_answers_{kind}.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()] if path.exists() else []


def reads_nothing_usable(kind: str, row: dict) -> bool:
    commands = row.get("commands") or []
    answer = parse_answer(row["answer"], answer_schema(kind, commands))
    if kind in ("decision", "reflact"):
        field = "action_to_take" if kind == "decision" else "action"
        return field not in answer.values or match_command(answer.values[field], commands)[1] not in (
            "exact", "completed")
    return not answer.ok


REAL_ROWS = [(kind, row) for kind in KINDS for row in real_answers(kind)]


def test_real_answers_were_recorded_and_labelled():
    assert len(REAL_ROWS) >= 15
    assert {row["source"] for _, row in REAL_ROWS} == {"smollm2-135m-instruct"}
    assert not [row["answer"][:80] for _, row in REAL_ROWS if row["expected"] is None]


@pytest.mark.parametrize("kind", sorted({kind for kind, _ in REAL_ROWS}))
def test_the_parser_reads_the_real_models_answers_as_labelled(kind):
    rows = [row for k, row in REAL_ROWS if k == kind]
    wrong = [row["answer"][:120] for row in rows
             if not (reads_nothing_usable(kind, row) if row["expected"] == {"unreadable": True}
                     else parsed_as_expected(kind, row))]
    assert not wrong, f"{len(wrong)} of {len(rows)} real answers misread, e.g. {wrong[:3]}"
