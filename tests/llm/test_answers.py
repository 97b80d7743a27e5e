"""The shared free-text answer parser over a corpus of realistic answers (tests/llm/data/answers_*.jsonl):
at least 200 per prompt kind, each with the parse its template meant (see make_answer_corpus.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from policies.davis import parse_prediction
from policies.llm_calls import answer_schema
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
