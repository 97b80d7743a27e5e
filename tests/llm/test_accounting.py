"""Token and cost accounting: prices, estimates, unknown models, totals under threads."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable

import pytest

from tests.llm.conftest import USER, ask
from textmem_gym.llm import DEFAULT_PRICES, LLMClient, LocalOpenAIServer, PriceTable, UsageTotals
from textmem_gym.llm.prompts import MESSAGE_OVERHEAD_TOKENS, estimate_tokens

pytestmark = pytest.mark.llm
MakeClient = Callable[..., LLMClient]


def test_price_table_exact_prefix_and_unknown() -> None:
    table = PriceTable({"gpt-x": (1.0, 4.0), "gpt-x-mini": (0.5, 2.0)})
    assert table.cost("gpt-x", 2_000_000, 1_000_000) == pytest.approx(6.0)
    assert table.lookup("gpt-x-mini-2025-01-01") == (0.5, 2.0)  # longest matching prefix
    assert table.lookup("gpt-x-2025") == (1.0, 4.0)
    assert table.cost("llama-3", 10, 10) is None
    assert PriceTable().lookup("gpt-4o-mini") == DEFAULT_PRICES["gpt-4o-mini"]


def test_cost_uses_the_price_table_override(server: LocalOpenAIServer, make_client: MakeClient) -> None:
    client = make_client(server, prices={"test-model": (3.0, 5.0)})
    result = client.chat(USER)  # server counts 10 prompt and 10 completion tokens
    assert result.cost_usd == pytest.approx((10 * 3.0 + 10 * 5.0) / 1e6)
    totals = client.usage.as_dict()
    assert totals["cost_usd"] == pytest.approx(result.cost_usd) and totals["cost_complete"] is True


def test_unknown_model_costs_zero_and_is_flagged(server: LocalOpenAIServer, make_client: MakeClient) -> None:
    client = make_client(server, model="mystery-model")
    result = client.chat(USER)
    totals = client.usage.as_dict()
    assert result.cost_usd is None
    assert totals["cost_usd"] == 0 and totals["cost_complete"] is False
    assert totals["unpriced_models"] == ["mystery-model"]


def test_missing_usage_is_estimated_and_flagged(make_client: MakeClient) -> None:
    with LocalOpenAIServer(script=["x" * 40], faults=["no_usage"]) as server:
        client = make_client(server)
        result = client.chat(ask("a" * 21))
    assert result.tokens_estimated
    assert result.prompt_tokens == estimate_tokens("a" * 21) + MESSAGE_OVERHEAD_TOKENS == 6 + 4
    assert result.completion_tokens == 10
    assert client.usage.as_dict()["tokens_estimated"] is True and client.usage.estimated_calls == 1


def test_server_usage_is_not_flagged(server: LocalOpenAIServer, make_client: MakeClient) -> None:
    client = make_client(server)
    client.chat(USER)
    assert client.usage.as_dict()["tokens_estimated"] is False


def test_totals_are_exact_under_concurrent_updates() -> None:
    totals = UsageTotals()

    def work() -> None:
        for _ in range(500):
            totals.add_call(prompt_tokens=3, completion_tokens=2, latency_s=0.001, cost_usd=0.5, model="m")
            totals.add_fault("timeout")

    threads = [threading.Thread(target=work) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    snapshot = totals.as_dict()
    assert (snapshot["calls"], snapshot["prompt_tokens"], snapshot["completion_tokens"]) == (4000, 12000, 8000)
    assert snapshot["cost_usd"] == pytest.approx(2000.0) and snapshot["failures"] == {"timeout": 4000}
    assert json.loads(json.dumps(snapshot)) == snapshot
