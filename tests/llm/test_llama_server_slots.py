"""Slot servers (``LlamaCppSlots``) on the real SmolLM2: the completion cap, the model name that says it, and
the work read from the servers' timings (prompt tokens evaluated, not reused, and tokens generated).

Marked ``real_llm`` (left out of the default run); without llama-cpp-python's server or the model they skip.
"""

from __future__ import annotations

import pytest

from tests.real_model import smollm2_server
from textmem_gym.llm import LLMClient
from textmem_gym.llm.llama_server import LlamaCppSlots, ServerWork

RULES = " ".join(f"Rule {i}: name the rooms you saw and keep it short." for i in range(30))


def test_a_cap_below_one_is_refused() -> None:
    with pytest.raises(ValueError, match="max_tokens=0"):
        LlamaCppSlots(1, max_tokens=0)


@pytest.mark.real_llm
def test_capped_slots_answer_within_the_cap_and_count_the_evaluated_prompt() -> None:
    """A call asking 64 tokens gets at most the cap's 3; the second call with the same rules is sent to the
    server holding them, which evaluates only the new tail (its work says so)."""
    smollm2_server()  # skips without the model or the server
    with LlamaCppSlots(2, n_ctx=1024, threads=1, max_tokens=3, extra_args=["--logits_all", "false"]) as slots:
        assert slots.model_alias == "SmolLM2-135M-Instruct.Q4_1/max3"
        with LLMClient(model=slots.model_alias, base_url=slots.base_url, cache="off", max_retries=0) as client:
            client.chat([{"role": "user", "content": f"{RULES}\nStep 1: where now?"}], max_tokens=64)
            completed = client.usage.completion_tokens
            after_first = slots.work()
            client.chat([{"role": "user", "content": f"{RULES}\nStep 2: where now?"}], max_tokens=64)
            second = slots.work() - after_first
    assert 0 < completed <= 3
    assert after_first.calls == 1 and after_first.prompt_tokens > 300  # the whole prompt, evaluated
    assert second.calls == 1 and second.prompt_tokens < 30  # only the tail after the shared rules
    assert 0 < second.generated_tokens <= 3 and second.seconds > 0
    assert slots.work() == ServerWork()  # stopped: their logs are gone
