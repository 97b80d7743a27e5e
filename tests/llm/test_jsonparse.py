"""parse_json_object: extraction, repair of the usual breakage, and failures reported not raised."""

from __future__ import annotations

import random
from typing import Any

import pytest

from textmem_gym.llm import parse_json_object
from textmem_gym.llm.answers import repair_json

CLEAN = '{"action": "go north", "reason": "explore"}'
PARSED = {"action": "go north", "reason": "explore"}

REPAIRED_CASES: dict[str, tuple[str, dict[str, Any]]] = {
    "trailing commas": ('{"a": [1, 2,], "b": {"c": 3,},}', {"a": [1, 2], "b": {"c": 3}}),
    "single quotes": ("{'action': 'go north', 'reason': 'explore'}", PARSED),
    "quote inside single-quoted": ("{'say': 'he said \"hi\"', 'it': 'don\\'t'}",
                                   {"say": 'he said "hi"', "it": "don't"}),
    "python literals": ("{'done': True, 'score': None, 'lost': False}", {"done": True, "score": None, "lost": False}),
    "bare keys": ('{action: "open door", target_id: 3}', {"action": "open door", "target_id": 3}),
    "line comments": ('{"a": 1, // the answer\n "b": 2}', {"a": 1, "b": 2}),
    "escapes kept": ("{'path': 'a\\nb', 'u': '\\u00e9'}", {"path": "a\nb", "u": "\u00e9"}),
}


@pytest.mark.parametrize("text", [
    CLEAN,
    f"```json\n{CLEAN}\n```",
    f"```\n{CLEAN}\n```",
    f"Sure! Here is my answer:\n{CLEAN}\nLet me know if you need more.",
    f"Thinking about {{the map}} first... then: {CLEAN}",
    f"I'll pick: ```json\n{CLEAN}``` and {{\"action\": \"other\"}}",
])
def test_clean_object_is_found_among_prose_and_fences(text: str) -> None:
    result = parse_json_object(text)
    assert result.ok and result.value == PARSED and result.error is None


@pytest.mark.parametrize("name", sorted(REPAIRED_CASES))
def test_usual_breakage_is_repaired(name: str) -> None:
    text, expected = REPAIRED_CASES[name]
    result = parse_json_object(f"Answer: {text} -- done")
    assert result.ok, result.error
    assert result.value == expected and result.repaired


def test_fenced_block_wins_over_braces_in_prose() -> None:
    text = 'Use the format {"action": ...}. ```json\n{"action": "look"}\n```'
    assert parse_json_object(text).value == {"action": "look"}


def test_nested_objects_and_braces_in_strings_are_kept_whole() -> None:
    text = 'x {"plan": {"steps": ["go {north}", "take"]}, "note": "a } brace"} y'
    assert parse_json_object(text).value == {"plan": {"steps": ["go {north}", "take"]}, "note": "a } brace"}


def test_inner_object_of_a_broken_outer_one_is_not_returned() -> None:
    result = parse_json_object('{"action": go north, "args": {"x": 1}}')
    assert not result.ok and result.value is None
    assert "invalid JSON object" in (result.error or "")


@pytest.mark.parametrize(("text", "error"), [
    ("I will go north.", "no JSON object found"),
    ('{"action": "go nor', "unterminated JSON object"),
    ("[1, 2, 3]", "no JSON object found"),
    ("", "no JSON object found"),
    ('{"a": 1', "truncated"),
])
def test_failures_are_reported_with_a_reason(text: str, error: str) -> None:
    result = parse_json_object(text)
    assert not result.ok and result.value is None
    assert error in (result.error or "")


@pytest.mark.parametrize("value", [None, 42, b'{"a": 1}', ["{}"]])
def test_non_text_input_is_reported(value: Any) -> None:
    result = parse_json_object(value)
    assert not result.ok and "expected text" in (result.error or "")


def test_required_keys_are_checked() -> None:
    assert parse_json_object(CLEAN, required=["action"]).ok
    missing = parse_json_object(CLEAN, required=["action", "target"])
    assert not missing.ok and "'target'" in (missing.error or "")


def test_repair_json_output_is_valid_json_text() -> None:
    assert repair_json("{'a': True, b: [1, 2,],}") == '{"a": true, "b": [1, 2]}'


def test_never_raises_on_garbage() -> None:
    rng = random.Random(1234)
    alphabet = "{}[]\"':,\\ abcTrueNone01//\n`"
    for _ in range(2000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 60)))
        result = parse_json_object(text)
        assert result.ok == (result.value is not None)
        assert result.ok or result.error
