"""A structured answer cut off at ``max_tokens`` is asked once more with more room, and counted."""

from __future__ import annotations

import json

from policies.llm_agent import answer_schema
from textmem_gym.llm import LocalOpenAIServer
from textmem_gym.llm.calls import LENGTH_RETRY_FACTOR, LLMCalls

ANSWER = json.dumps({"reason_for_action": "the fridge may hold the carrot", "action_to_take": "open fridge"})


def ask_once(faults: list[str | None]) -> tuple[LLMCalls, str | None, list[dict]]:
    with LocalOpenAIServer(script=[ANSWER, ANSWER], faults=faults) as server:
        calls = LLMCalls(model="local", base_url=server.base_url, client_options={"structured_output": "on"})
        calls.begin_episode()
        schema = answer_schema("decision", ["open fridge", "look"])
        answer = calls.ask("action", "Next command?", max_tokens=64, schema=schema)
        requests = server.requests
        calls.close()
    return calls, answer, requests


def test_cut_off_structured_answer_is_asked_again_with_more_room() -> None:
    calls, answer, requests = ask_once(["truncated"])
    assert answer == ANSWER
    assert [r["max_tokens"] for r in requests] == [64, 64 * LENGTH_RETRY_FACTOR]
    stats = calls.episode_stats()
    assert stats["length_retries"] == {"action": 1} and stats["calls_by_kind"] == {"action": 2}
    recorded = calls.take_step_calls()
    assert [c["finish_reason"] for c in recorded] == ["length", "stop"]


def test_complete_answer_is_not_asked_again() -> None:
    calls, answer, requests = ask_once([None])
    assert answer == ANSWER and len(requests) == 1
    assert calls.episode_stats()["length_retries"] == {}
