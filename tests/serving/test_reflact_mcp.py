"""``reflact`` with ``transport=mcp`` plays through the MCP server's tools only."""

from __future__ import annotations

import pytest

from policies import make_policy
from tests.policies.answerer import WalkthroughAnswerer
from textmem_gym.llm import LocalOpenAIServer
from textmem_gym.results import ResultsFile
from textmem_gym.runner import EvalConfig, evaluate

GAME = "TextMem/CookingRL-L1-v0"


@pytest.mark.llm
@pytest.mark.slow
def test_reflact_over_mcp_wins_and_records_the_same_results(tmp_path, isolated_cache) -> None:
    rows = {}
    for transport in ("inprocess", "mcp"):
        answerer = WalkthroughAnswerer(GAME)
        with LocalOpenAIServer(responder=answerer) as server:
            policy = make_policy("reflact", model="local-test", base_url=server.base_url, transport=transport)
            rows[transport] = evaluate(GAME, policy, EvalConfig(out=tmp_path / f"{transport}.jsonl"))[0]
            policy.close()
        prompts = answerer.prompts["reflact"]
        assert "ARIGRAPH_BELIEF_STATE: Location: " in prompts[-1] or transport == "inprocess"
    for transport, row in rows.items():
        assert row["won"] and row["normalized_score"] == 1.0, transport
        assert ResultsFile(tmp_path / f"{transport}.jsonl").read() == [row]
    assert rows["mcp"]["steps"] == rows["inprocess"]["steps"]
    assert rows["mcp"]["score"] == rows["inprocess"]["score"]
    with pytest.raises(ValueError, match="transport"):
        make_policy("reflact", transport="carrier-pigeon")
