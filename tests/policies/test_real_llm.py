"""Every LLM policy a few steps through a real model (SmolLM2-135M-Instruct on llama.cpp's server):
no crash, no unhandled HTTP 400, every env action the model's or a fallback counted by cause, and the
API key written nowhere (results, trajectories). Marked ``real_llm`` (``make test-real-llm``); skipped
when llama-cpp-python's server or the model is not installed."""

from __future__ import annotations

import json

import pytest

from tests.real_model import smollm2_server
from textmem_gym.runner import EvalConfig, evaluate

pytestmark = pytest.mark.real_llm
KEY = "sk-real-llm-test-secret"
GAMES = {"davis": "TextMem/ScienceWorld-FindLivingThing-v0", "reflact": "TextMem/Jericho-Lostpig-v0",
         "netplay": "TextMem/NetHack-RoomObs-v0"}
POLICIES = ["ariadne", "full-history", "summary", "rag", "simulacra", "reflexion", "react", "reflact", "stma",
            "davis", "netplay"]


@pytest.fixture(scope="module")
def server():
    with smollm2_server(api_key=KEY) as running:
        yield running


@pytest.mark.parametrize("name", POLICIES)
def test_policy_plays_through_the_real_model_and_counts_every_fallback(server, name, tmp_path):
    out, trajectories = tmp_path / "r.jsonl", tmp_path / "trajectories"
    row = evaluate(GAMES.get(name, "TextMem/Cooking-v0"), name, EvalConfig(max_steps=2, out=out, trajectories=trajectories,
                   policy_kwargs={"model": server.model_alias, "base_url": server.base_url, "api_key": KEY,
                                  "context_window": server.context_window, "max_retries": 1, "timeout": 300.0}))[0]
    stats = row["policy_stats"]
    assert row["steps"] == 2 or row["terminated"]
    assert stats["env_actions"] == row["steps"]
    fallbacks = sum(stats["fallbacks"].values())
    assert stats["model_actions"] == round(1 - fallbacks / row["steps"], 4)
    assert "BadRequestError" not in json.dumps(stats["llm_errors"]) and not stats["faults"].get("bad_request")
    assert stats["calls"] > 0 and stats["structured_output"]  # the schema went as a structured-output request
    written = out.read_text() + "".join(p.read_text() for p in trajectories.rglob("*") if p.is_file())
    assert KEY not in written
